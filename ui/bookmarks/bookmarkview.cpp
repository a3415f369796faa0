// SPDX-License-Identifier: MIT
#include "ui/bookmarks/bookmarkview.h"

#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeruler.h"
#include "ui/timeline/zoomcontrol.h"

#include <algorithm>

namespace gaplens::ui {

namespace BookmarkView {

Bookmark at(const TimelineView &view, int capture)
{
    const auto *model = view.model();
    Bookmark b;
    b.capture = capture;
    // Ruler and view times are display times; a bookmark keeps rank 0's absolute clock, so
    // it stays put when the alignment changes.
    const core::TimeNs offset = model->rankOffset(core::RankIndex(0));
    if (view.ruler()->hasTimeSelection()) {
        const auto r = view.ruler()->timeSelection();
        b.range = { r.start - offset, r.end - offset };
    } else if (view.selection().isValid()) {
        const auto &h = view.selection();
        b.range = { h.start, h.end };
        b.rank = h.rank.isValid() ? h.rank : core::RankIndex(0);
        b.event = tooltipText(*model, h).section(QLatin1Char('\n'), 0, 0);
    } else {
        b.range = { view.zoom()->windowStart() - offset, view.zoom()->windowEnd() - offset };
    }
    return b;
}

void show(TimelineView &view, const Bookmark &b)
{
    if (!view.model()->trace())
        return;
    const core::TimeNs offset = view.model()->rankOffset(b.rank);
    const core::TimeNs margin = std::max<core::TimeNs>(b.range.duration() / 10, 100);
    view.zoom()->setWindow(b.range.start + offset - margin, b.range.end + offset + margin);
    view.ruler()->setTimeSelection(core::TimeRange { b.range.start + offset, b.range.end + offset });
}

} // namespace BookmarkView

} // namespace gaplens::ui
