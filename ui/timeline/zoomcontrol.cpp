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
    nsPerPx = std::clamp(nsPerPx, minNsPerPx(), maxNsPerPx());
    // The window never shows time before the capture's start or after its end (titles and
    // exports then never read "-3.906 ms").
    const TimeNs window = TimeNs(nsPerPx * m_width);
    const TimeNs lo = m_trace.start;
    const TimeNs hi = std::max(lo, m_trace.end - window);
    start = std::clamp(start, lo, hi);
    if (start == m_start && nsPerPx == m_nsPerPx)
        return;
    m_start = start;
    m_nsPerPx = nsPerPx;
    emit windowChanged();
}

double ZoomControl::minNsPerPx() const
{
    return double(kMinWindowNs) / m_width;
}

double ZoomControl::maxNsPerPx() const
{
    // Zoomed out the window is the capture, never more.
    return std::max(minNsPerPx(), double(m_trace.duration()) / m_width);
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

void ZoomControl::follow(TimeNs start, double nsPerPx)
{
    m_fitted = false;
    apply(start, nsPerPx);
}

void ZoomControl::zoomAt(double x, double factor)
{
    if (factor <= 0)
        return;
    m_fitted = false;
    const TimeNs anchor = xToTime(x);
    const double nsPerPx = m_nsPerPx / factor;
    apply(anchor - TimeNs(std::llround(x * std::clamp(nsPerPx, minNsPerPx(), maxNsPerPx()))), nsPerPx);
}

void ZoomControl::panPixels(double dx)
{
    m_fitted = false;
    apply(m_start + TimeNs(std::llround(dx * m_nsPerPx)), m_nsPerPx);
}

void ZoomControl::fitAll()
{
    m_fitted = true;
    apply(m_trace.start, maxNsPerPx());
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
