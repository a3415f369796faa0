// SPDX-License-Identifier: MIT
#include "ui/timeline/zoomcontrol.h"

#include <algorithm>
#include <cmath>

namespace gaplens::ui {

using core::TimeNs;

ZoomControl::ZoomControl(QObject *parent)
    : QObject(parent)
{
}

void ZoomControl::setTraceRange(core::TimeRange range)
{
    if (range.end <= range.start)
        range.end = range.start + 1000;
    m_trace = range;
    m_history.clear();
    m_fitted = true;
    fitAll();
    m_history.clear();
}

void ZoomControl::setWidth(int px)
{
    px = std::max(1, px);
    if (px == m_width)
        return;
    const TimeNs duration = windowEnd() - m_start;
    m_width = px;
    if (m_fitted) {
        const bool fitted = m_fitted;
        fitAll();
        m_history.clear();
        m_fitted = fitted;
        return;
    }
    apply(m_start, double(duration) / m_width);
}

void ZoomControl::apply(TimeNs start, double nsPerPx)
{
    const TimeNs traceDuration = m_trace.duration();
    // Never smaller than kMinWindowNs over the width, never more than twice the trace.
    const double minNsPerPx = double(kMinWindowNs) / m_width;
    const double maxNsPerPx = 2.0 * double(traceDuration) / m_width;
    nsPerPx = std::clamp(nsPerPx, minNsPerPx, std::max(minNsPerPx, maxNsPerPx));
    const TimeNs window = TimeNs(nsPerPx * m_width);
    // Panning may go half a window past either end of the trace, not further.
    const TimeNs lo = m_trace.start - window / 2;
    const TimeNs hi = std::max(lo, m_trace.end - window / 2);
    start = std::clamp(start, lo, hi);
    if (start == m_start && nsPerPx == m_nsPerPx)
        return;
    m_start = start;
    m_nsPerPx = nsPerPx;
    emit windowChanged();
}

void ZoomControl::setWindow(TimeNs start, TimeNs end, bool remember)
{
    if (end - start < kMinWindowNs) {
        const TimeNs mid = start + (end - start) / 2;
        start = mid - kMinWindowNs / 2;
        end = start + kMinWindowNs;
    }
    if (remember)
        m_history.push_back({ m_start, m_nsPerPx });
    m_fitted = false;
    apply(start, double(end - start) / m_width);
}

void ZoomControl::zoomAt(double x, double factor)
{
    if (factor <= 0)
        return;
    m_fitted = false;
    const TimeNs anchor = xToTime(x);
    const double nsPerPx = m_nsPerPx / factor;
    apply(anchor
            - TimeNs(std::llround(x
                * std::clamp(nsPerPx, double(kMinWindowNs) / m_width,
                    std::max(double(kMinWindowNs) / m_width, 2.0 * double(m_trace.duration()) / m_width)))),
        nsPerPx);
}

void ZoomControl::panPixels(double dx)
{
    m_fitted = false;
    apply(m_start + TimeNs(std::llround(dx * m_nsPerPx)), m_nsPerPx);
}

void ZoomControl::fitAll()
{
    // A little margin so the first and last events are not glued to the edges.
    const TimeNs margin = m_trace.duration() / 50;
    const TimeNs start = m_trace.start - margin;
    const TimeNs end = m_trace.end + margin;
    m_fitted = true;
    apply(start, double(end - start) / m_width);
}

bool ZoomControl::back()
{
    if (m_history.empty())
        return false;
    const Window w = m_history.back();
    m_history.pop_back();
    m_fitted = false;
    apply(w.start, w.nsPerPx);
    emit windowChanged();
    return true;
}

void ZoomControl::rememberGesture()
{
    if (!m_lastGesture.isValid() || m_lastGesture.elapsed() > 600)
        m_history.push_back({ m_start, m_nsPerPx });
    m_lastGesture.start();
}

} // namespace gaplens::ui
