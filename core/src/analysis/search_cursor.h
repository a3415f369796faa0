// SPDX-License-Identifier: MIT
#pragma once
// Private helpers of the analyses: galloping (exponential) search from a remembered position.
// Gap blame and step accounting query sorted tracks of millions of events at times that
// mostly move forward by a few elements from one query to the next. A binary search over the
// whole track touches ~log2(n) cache lines spread over all of it, and at tens of millions of
// events the last of them all miss; a search from the previous answer touches neighbouring ones.
// The answer never depends on the remembered position: any query order gives exactly what a
// plain binary search gives, only the cost changes: O(min(d, kLinearScanLimit) + log d) for an
// answer d elements away.
#include "gaplens/core/model/nesting.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gaplens::core::detail {

// Forward queries first step through this many elements one by one: a sequential scan streams
// through neighbouring cache lines, which the hardware prefetches and overlaps, where every
// gallop or bisection probe waits for the previous probe's cache miss. At 8 ranks x 1M kernels
// the answers of successive gaps lie some tens of elements apart on every track; 128 was as
// fast as 256 or 1024 there (and 64 slower), and bounds the waste when they lie far apart.
inline constexpr std::size_t kLinearScanLimit = 128;

// The first index in [0, n) for which isBefore(index) is false, where isBefore holds on a
// prefix of the indices (std::partition_point over indices), searched outward from `hint`:
// forward a short linear scan, then doubling steps; backward doubling steps; then bisection.
template <typename IsBefore> std::size_t gallopPartitionPoint(std::size_t n, std::size_t hint, IsBefore isBefore)
{
    hint = std::min(hint, n);
    std::size_t lo = 0, hi = n; // the answer lies in [lo, hi]
    std::size_t step = 1;
    if (hint < n && isBefore(hint)) {
        lo = hint + 1;
        const std::size_t scanEnd = std::min(n, lo + kLinearScanLimit);
        while (lo < scanEnd && isBefore(lo))
            ++lo;
        if (lo < scanEnd || lo == n)
            return lo;
        while (lo + step - 1 < n && isBefore(lo + step - 1)) {
            lo += step;
            step *= 2;
        }
        hi = std::min(lo + step - 1, n);
    } else {
        hi = hint;
        while (hi >= step && !isBefore(hi - step)) {
            hi -= step;
            step *= 2;
        }
        lo = hi >= step ? hi - step + 1 : 0;
    }
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (isBefore(mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// gallopPartitionPoint from `position`, which then holds the answer for the next query.
template <typename IsBefore> std::size_t gallopFrom(std::uint32_t &position, std::size_t n, IsBefore isBefore)
{
    const std::size_t answer = gallopPartitionPoint(n, position, isBefore);
    position = std::uint32_t(answer);
    return answer;
}

// NestingIndex::openAt (same result, same order) galloping on each level from the previous
// query's position there; `levelPositions` holds one position per level and grows as needed.
// A level skipped by the early stop keeps its old position: a later gallop starts further
// back, which costs time, never a different answer.
inline void openAtFrom(const NestingIndex &nesting, std::span<const TimeNs> start, std::span<const TimeNs> end,
    TimeNs t, std::vector<std::uint32_t> &levelPositions, std::vector<std::uint32_t> &out)
{
    out.clear();
    if (levelPositions.size() < nesting.levelCount())
        levelPositions.resize(nesting.levelCount(), 0);
    for (std::size_t depth = 0; depth < nesting.levelCount(); ++depth) {
        const auto &level = nesting.level(depth);
        // Past the last interval on this level that starts at or before t.
        const std::size_t after
            = gallopFrom(levelPositions[depth], level.size(), [&](std::size_t i) { return start[level[i]] <= t; });
        const bool open = after > 0 && end[level[after - 1]] > t;
        if (open)
            out.push_back(level[after - 1]);
        else if (nesting.properlyNested())
            break; // nothing deeper is open either; deeper positions catch up later
    }
}

} // namespace gaplens::core::detail
