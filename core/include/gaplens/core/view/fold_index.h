// SPDX-License-Identifier: MIT
#pragma once
// A precomputed coarse level per row, so buildDrawList finds the end of a fold in O(log n)
// instead of one search per minPx of its width: a fold ends at the first event that is wide
// (>= minNs) or follows a hole (>= minNs), and both are a per-event "break key"
// max(width, hole before it) compared with minNs. The index keeps the maximum key of every
// block of 64 events, and of every 64 blocks, and so on (about n / 63 values per row), so
// "first event at or after p whose key >= minNs" skips any run of smaller keys block-wise.
// Draw lists built with it are identical to those built without it, for rows meeting
// buildDrawList's contract (non-overlapping, sorted by start).
#include "gaplens/core/view/row_view.h"

#include <vector>

namespace gaplens::core {

class FoldIndex
{
public:
    static constexpr std::size_t kFanout = 64;

    FoldIndex() = default;
    explicit FoldIndex(const RowView &row);

    bool isEmpty() const { return m_levels.empty(); }
    // First position in [from, stop) whose break key is >= minNs, or stop. from >= 1.
    std::size_t nextBreak(const RowView &row, std::size_t from, std::size_t stop, TimeNs minNs) const;

private:
    // m_levels[0][b] = max key over positions [64 b, 64 b + 64); m_levels[k][b] = max of
    // m_levels[k - 1][64 b .. 64 b + 63]. The last level has at most 64 entries.
    std::vector<std::vector<TimeNs>> m_levels;
};

} // namespace gaplens::core
