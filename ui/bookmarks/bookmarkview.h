// SPDX-License-Identifier: MIT
#pragma once
#include "ui/bookmarks/bookmark.h"

namespace gaplens::ui {

class TimelineView;

// Bookmark <-> a timeline (as SessionView is for sessions).
namespace BookmarkView {
// What `view` points at, as a bookmark of capture `capture`: the ruler selection, else the
// selected event (named in `event`), else what is in view. Name and note are left empty.
Bookmark at(const TimelineView &view, int capture = 0);
// Shows the bookmark's range with a 10% margin and selects it on the ruler. Nothing without data.
void show(TimelineView &view, const Bookmark &bookmark);
} // namespace BookmarkView

} // namespace gaplens::ui
