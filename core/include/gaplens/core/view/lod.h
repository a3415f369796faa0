// SPDX-License-Identifier: MIT
#pragma once
// Level-of-detail draw lists (tracy's fold): for one row of non-overlapping intervals sorted
// by start (so their ends are sorted too) and a view window, emit what to draw. Events at
// least minPx wide become one item each; runs of narrower events become one folded item.
// Cost is O(items * log n): both window edges are binary searches and folds jump ahead with
// lower_bound on the ends, so events outside the view (or inside one fold) are never visited.
#include "gaplens/core/model/time.h"
#include "gaplens/core/view/row_view.h"

#include <cstdint>
#include <span>
#include <vector>

namespace gaplens::core {

// The visible time window [start, end) mapped onto widthPx pixels.
struct ViewWindow
{
    TimeNs start = 0;
    TimeNs end = 0;
    double widthPx = 0;
    double nsPerPx() const { return widthPx > 0 ? double(end - start) / widthPx : 0.0; }
};

// One drawn item. first/last are positions in the row's sequence (for a plain row the event
// indices; for an indexed row positions into the index list: resolve with the same list).
// count == 1 is one event; count > 1 is a fold of the consecutive events first..last.
struct DrawItem
{
    TimeNs start = 0; // start of the first event
    TimeNs end = 0; // end of the last event (the largest end: ends are sorted)
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    std::uint32_t count = 1;
    bool folded() const { return count > 1; }
};

inline constexpr double kMinVisiblePx = 3.0;

// Positions [first, last) of the events that intersect [t0, t1): end > t0 and start < t1, or,
// for an instant (start == end, an NVTX mark), t0 <= start < t1. Two binary searches; an
// interval ending exactly at t0 or starting at t1 is outside, an instant at t0 inside.
struct PosRange
{
    std::size_t first = 0, last = 0;
};
PosRange visibleRange(const RowView &row, TimeNs t0, TimeNs t1);

class FoldIndex;

// Fills out (cleared first) with the items of row visible in window. Items are ordered by time,
// cover every visible event exactly once and never overlap. Events narrower than minPx pixels
// are folded with their neighbours while the gaps between them stay under minPx as well; an
// isolated narrow event is an item of count 1 (the painter widens it to one pixel).
// With a FoldIndex built over the same row (fold_index.h) a fold's end is found in O(log n)
// instead of one search per minPx of its width; the items are the same.
void buildDrawList(const RowView &row, const ViewWindow &window, std::vector<DrawItem> &out,
    double minPx = kMinVisiblePx, const FoldIndex *foldIndex = nullptr);

// Merges possibly overlapping intervals, each given sorted by start, into their union (sorted,
// disjoint, touching intervals joined). Used for a GPU's busy time over all its streams.
void unionOfRows(std::span<const RowView> rows, std::vector<TimeNs> &outStart, std::vector<TimeNs> &outEnd);

} // namespace gaplens::core
