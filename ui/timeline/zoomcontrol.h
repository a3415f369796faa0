// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/time.h"
#include "gaplens/core/view/lod.h"

#include <QElapsedTimer>
#include <QObject>

#include <vector>

namespace gaplens::ui {

// The visible time window of the timeline: start (display ns) and ns per pixel over a
// width in pixels, inside the trace range (never before its start or past its end); plus a
// Back history of earlier windows.
// x = (t - windowStart) / nsPerPx. Start is an integer ns, so "the time under the cursor
// stays put" holds to within one nanosecond plus rounding of nsPerPx.
class ZoomControl : public QObject
{
    Q_OBJECT
public:
    explicit ZoomControl(QObject *parent = nullptr);

    // Sets the trace range and fits the window to it (history cleared).
    void setTraceRange(core::TimeRange range);
    core::TimeRange traceRange() const { return m_trace; }
    // Keeps windowStart and the duration, so resizing reveals more or less time on the right...
    // unless the window was fitted: then it stays fitted.
    void setWidth(int px);
    int width() const { return m_width; }

    core::TimeNs windowStart() const { return m_start; }
    core::TimeNs windowEnd() const { return m_start + core::TimeNs(m_nsPerPx * m_width); }
    double nsPerPx() const { return m_nsPerPx; }
    core::ViewWindow viewWindow() const
    {
        return { windowStart(), std::max(windowEnd(), windowStart() + 1), double(m_width) };
    }

    double timeToX(core::TimeNs t) const { return double(t - m_start) / m_nsPerPx; }
    core::TimeNs xToTime(double x) const { return m_start + core::TimeNs(x * m_nsPerPx); }

    // Shows [start, end), clamped to the trace range and at least kMinWindowNs; pushes the
    // previous window to history.
    void setWindow(core::TimeNs start, core::TimeNs end, bool remember = true);
    // Shows the window starting at `start` at exactly nsPerPx (clamped as setWindow), without
    // history: what a linked timeline follows (TimelineSync), whatever its width.
    void follow(core::TimeNs start, double nsPerPx);
    // factor > 1 zooms in around pixel x: the time at x stays at x.
    void zoomAt(double x, double factor);
    // Positive dx moves the view right (later times come into view).
    void panPixels(double dx);
    void fitAll();
    // True while the window is the fitted whole trace (it then refits when the width changes).
    bool isFitted() const { return m_fitted; }
    // Returns to the previous window; false when there is none.
    bool back();
    bool canGoBack() const { return !m_history.empty(); }
    // Remembers the current window unless the last change was remembered < 600 ms ago
    // (a wheel gesture or held key is one Back step, not fifty).
    void rememberGesture();

    static constexpr core::TimeNs kMinWindowNs = 100;

signals:
    void windowChanged();

private:
    void apply(core::TimeNs start, double nsPerPx);
    double minNsPerPx() const;
    double maxNsPerPx() const; // the whole trace over the width
    struct Window
    {
        core::TimeNs start;
        double nsPerPx;
    };
    core::TimeRange m_trace { 0, 1000 };
    core::TimeNs m_start = 0;
    double m_nsPerPx = 1;
    int m_width = 1;
    bool m_fitted = true;
    std::vector<Window> m_history;
    QElapsedTimer m_lastGesture;
};

} // namespace gaplens::ui
