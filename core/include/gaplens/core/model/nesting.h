// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/column.h"
#include "gaplens/core/model/time.h"

#include <cstdint>
#include <span>
#include <vector>

namespace gaplens::core {

// Whether intervals are in (start asc, end desc) order, the one NestingIndex::build takes and
// finalizeTraceSet sorts every track into (outer ranges first when two start together).
bool inNestingOrder(std::span<const TimeNs> start, std::span<const TimeNs> end);

// Per-depth index over intervals sorted by (start asc, end desc), as NVTX ranges, nested
// API calls and overlapping copies are. Intervals on one level never overlap, so on each
// level both starts and ends are sorted and "what is open at t" is one binary search per
// level: O(depth * log n), never a scan (a long outer range must not make queries linear).
class NestingIndex
{
public:
    // Computes each interval's depth (stack discipline: a range nests in every earlier
    // range that has not ended when it starts) and the per-level index lists.
    // Returns the depth of every interval, in input order.
    Column<std::uint8_t> build(std::span<const TimeNs> start, std::span<const TimeNs> end);

    // The index as build made it, kept in a report cache entry (report_codec.cpp): `levels`
    // and `properlyNested` are exactly what level() and properlyNested() returned.
    void restore(std::vector<Column<std::uint32_t>> levels, bool properlyNested)
    {
        m_levels = std::move(levels);
        m_properlyNested = properlyNested;
    }

    std::size_t levelCount() const { return m_levels.size(); }
    // Indices (into the sorted columns) of the intervals on one level, ascending.
    const Column<std::uint32_t> &level(std::size_t depth) const { return m_levels[depth]; }

    // Indices of the intervals with start <= t < end, outermost (lowest depth) first.
    void openAt(
        std::span<const TimeNs> start, std::span<const TimeNs> end, TimeNs t, std::vector<std::uint32_t> &out) const;

    // True when every interval ends within the interval it nests in (API calls, NVTX
    // push/pop ranges). Then an interval open at t has its parent open at t, so a query can
    // stop at the first level with nothing open; start/end NVTX ranges may cross instead.
    bool properlyNested() const { return m_properlyNested; }

    // Depth is stored in one byte; deeper nesting is clamped onto the last level, which then
    // may overlap (counted by the reader as a data problem, never seen in real files).
    static constexpr std::size_t kMaxDepth = 255;

private:
    std::vector<Column<std::uint32_t>> m_levels;
    bool m_properlyNested = true;
};

} // namespace gaplens::core
