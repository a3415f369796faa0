// SPDX-License-Identifier: MIT
#pragma once
// A precomputed coarse level per timeline row, so a fold is found in O(log n) instead of one
// search per minPx of its width: core::buildDrawList ends a fold at the first event that is
// wide (>= minNs) or follows a hole (>= minNs), and both are a per-event "break key"
// max(width, hole before it) compared with minNs. The index keeps the maximum key of every
// block of 64 events, and of every 64 blocks, and so on (about n / 63 values per row), so
// "first event at or after p whose key >= minNs" skips any run of smaller keys block-wise.
// The draw lists are identical to core::buildDrawList's for rows meeting its contract
// (non-overlapping, sorted by start): same items, same folds, same counts.
#include "gaplens/core/lod.h"
#include "gaplens/core/trace.h"

#include <atomic>
#include <memory>
#include <vector>

namespace gaplens::ui {

// The break-key maxima of one row.
class RowFoldIndex
{
public:
    static constexpr std::size_t kFanout = 64;

    RowFoldIndex() = default;
    explicit RowFoldIndex(const core::RowView &row);

    bool isEmpty() const { return m_levels.empty(); }
    // First position in [from, stop) whose break key is >= minNs, or stop. from >= 1.
    std::size_t nextBreak(const core::RowView &row, std::size_t from, std::size_t stop, core::TimeNs minNs) const;

private:
    // m_levels[0][b] = max key over positions [64 b, 64 b + 64); m_levels[k][b] = max of
    // m_levels[k - 1][64 b .. 64 b + 63]. The last level has at most 64 entries.
    std::vector<std::vector<core::TimeNs>> m_levels;
};

// The same draw list as core::buildDrawList(row, window, out, minPx), with the folds found
// through `index` (built over the same row).
void buildIndexedDrawList(const core::RowView &row, const RowFoldIndex &index, const core::ViewWindow &window,
                          std::vector<core::DrawItem> &out, double minPx = core::kMinVisiblePx);

// The fold indexes of every drawn row of a capture. Immutable once built.
struct TimelineFoldIndex
{
    std::vector<std::vector<RowFoldIndex>> streams; // [gpu][stream]: kernels
    std::vector<std::vector<RowFoldIndex>> copies;  // [gpu][nesting level]
    std::vector<std::vector<RowFoldIndex>> nvtx;    // [thread][nesting level]
    std::vector<std::vector<RowFoldIndex>> api;     // [thread][nesting level]
};

// One sequential pass over every event (about 0.2 s for 56M events); returns null as soon as
// `cancelled` is seen set. Rows too short to gain from an index get an empty one.
std::shared_ptr<const TimelineFoldIndex> buildTimelineFoldIndex(const core::TraceSet &trace, const std::atomic<bool> &cancelled);

} // namespace gaplens::ui
