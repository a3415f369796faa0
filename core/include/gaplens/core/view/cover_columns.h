// SPDX-License-Identifier: MIT
#pragma once
// Utilisation per pixel column, as Nsight Systems' GPU utilisation rows show it: the share of
// each column's time that a lane's merged busy intervals cover. With the intervals' prefix
// sums each column edge is one binary search, so a lane costs O(pixels · log n) at any zoom,
// and a column of many sub-pixel kernels reads as exactly as busy as it was.
#include "gaplens/core/model/time.h"
#include "gaplens/core/view/lod.h"

#include <span>
#include <vector>

namespace gaplens::core {

// Merged intervals (sorted, disjoint) and coveredBefore[i] = summed duration of intervals
// [0, i), size() + 1 entries. coarseStart (optional, coarseStarts()) is every
// kCoverCoarseStride-th start: zoomed out, each column edge is first found in that small,
// cache-resident array and then inside one block, instead of by a search over the whole lane
// that misses the cache at every step.
struct CoverColumns
{
    std::span<const TimeNs> start, end, coveredBefore;
    std::span<const TimeNs> coarseStart;
};

inline constexpr std::size_t kCoverCoarseStride = 64;
// start[0], start[64], start[128], ...
std::vector<TimeNs> coarseStarts(std::span<const TimeNs> start);

// Covered time before t: the intervals' time in (-inf, t).
TimeNs coveredUntil(const CoverColumns &lane, TimeNs t);

// out[c] (cleared first, ceil(widthPx) entries) = covered share, 0..1, of pixel column c:
// [start + c * nsPerPx, start + (c + 1) * nsPerPx), edges rounded to whole ns.
void coverPerColumn(const CoverColumns &lane, const ViewWindow &window, std::vector<float> &out);

} // namespace gaplens::core
