// SPDX-License-Identifier: MIT
#include "ui/compare/timelinesync.h"

#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <algorithm>
#include <limits>

namespace gaplens::ui {

using core::TimeNs;

TimelineSync::TimelineSync(QObject *parent)
    : QObject(parent)
{
}

void TimelineSync::setViews(const QList<TimelineView *> &views)
{
    for (const auto &v : std::as_const(m_views))
        if (v)
            disconnect(v->zoom(), nullptr, this, nullptr);
    m_views.clear();
    m_anchors.assign(views.size(), 0);
    for (int i = 0; i < views.size(); ++i) {
        m_views << views[i];
        connect(views[i]->zoom(), &ZoomControl::windowChanged, this, [this, i] { syncFrom(i); });
    }
}

void TimelineSync::setAnchors(const std::vector<TimeNs> &anchors)
{
    m_anchors = anchors;
    m_anchors.resize(m_views.size(), 0);
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    for (int i = 0; i < m_views.size(); ++i) {
        if (!m_views[i] || m_views[i]->model()->isEmpty())
            continue;
        const auto span = m_views[i]->model()->displaySpan();
        lo = std::min(lo, span.start - m_anchors[i]);
        hi = std::max(hi, span.end - m_anchors[i]);
    }
    if (lo >= hi)
        return;
    m_syncing = true; // each setTraceRange fits its view; view 0 then leads
    for (int i = 0; i < m_views.size(); ++i)
        if (m_views[i])
            m_views[i]->zoom()->setTraceRange(core::TimeRange { lo + m_anchors[i], hi + m_anchors[i] });
    m_syncing = false;
    syncFrom(0);
}

void TimelineSync::syncFrom(int from)
{
    if (m_syncing || from < 0 || from >= m_views.size() || !m_views[from])
        return;
    m_syncing = true;
    const ZoomControl *lead = m_views[from]->zoom();
    const TimeNs shared = lead->windowStart() - anchor(from);
    const double nsPerPx = lead->nsPerPx();
    for (int j = 0; j < m_views.size(); ++j) {
        if (j == from || !m_views[j])
            continue;
        ZoomControl *z = m_views[j]->zoom();
        if (lead->isFitted()) {
            // All views share one trace range in shared time: fitting each keeps them in step
            // and keeps them fitted, so a later resize (e.g. the first show) refits them all.
            z->fitAll();
            continue;
        }
        z->follow(shared + anchor(j), nsPerPx);
    }
    m_syncing = false;
    emit synchronized();
}

} // namespace gaplens::ui
