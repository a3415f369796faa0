// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/time.h"

#include <QList>
#include <QObject>
#include <QPointer>

#include <vector>

namespace gaplens::ui {

class TimelineView;

// Keeps the zoom and pan of several timelines in step. Each view has an anchor (a display
// time): shared time = display time - anchor, so with anchors on the k-th step of each capture
// step k starts at the same x in every view. Zooming or panning one view moves the others to
// the same shared start and the same ns per pixel (so equal times are at equal x even when
// the viewports' widths differ by a scroll bar).
class TimelineSync : public QObject
{
    Q_OBJECT
public:
    explicit TimelineSync(QObject *parent = nullptr);

    void setViews(const QList<TimelineView *> &views);
    // One anchor per view (display ns). Each view's trace range becomes the union of all views'
    // display spans in shared time, so no view clamps a window another can show; then every
    // view follows the first one.
    void setAnchors(const std::vector<core::TimeNs> &anchors);
    core::TimeNs anchor(int view) const { return view < int(m_anchors.size()) ? m_anchors[view] : 0; }
    // Display time in view `to` of display time t in view `from`.
    core::TimeNs mapTime(int from, int to, core::TimeNs t) const { return t - anchor(from) + anchor(to); }
    // Brings every view to view `from`'s window.
    void syncFrom(int from);

signals:
    void synchronized();

private:
    QList<QPointer<TimelineView>> m_views;
    std::vector<core::TimeNs> m_anchors;
    bool m_syncing = false;
};

} // namespace gaplens::ui
