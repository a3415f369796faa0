// SPDX-License-Identifier: MIT
#include "gaplens/core/view/cover_columns.h"

#include <algorithm>
#include <cmath>

namespace gaplens::core {

namespace {

// Intervals starting before t are [0, i); of them only the last can reach past t.
TimeNs coveredBefore(const CoverColumns &lane, std::size_t i, TimeNs t)
{
    return i == 0 ? 0 : lane.coveredBefore[i] - std::max<TimeNs>(0, lane.end[i - 1] - t);
}

// The first interval starting at or after t, searched forward from `from` (a column edge's
// answer is at or after the previous edge's): a gallop touches memory near the previous
// answer instead of a fresh binary search over the whole lane.
std::size_t firstStartingFrom(std::span<const TimeNs> start, std::size_t from, TimeNs t)
{
    const std::size_t n = start.size();
    std::size_t step = 1, lo = from;
    while (lo + step < n && start[lo + step] < t) {
        lo += step;
        step *= 2;
    }
    const std::size_t hi = std::min(n, lo + step + 1);
    return std::size_t(
        std::lower_bound(start.begin() + std::ptrdiff_t(lo), start.begin() + std::ptrdiff_t(hi), t) - start.begin());
}

} // namespace

TimeNs coveredUntil(const CoverColumns &lane, TimeNs t)
{
    const auto i = std::size_t(std::lower_bound(lane.start.begin(), lane.start.end(), t) - lane.start.begin());
    return coveredBefore(lane, i, t);
}

void coverPerColumn(const CoverColumns &lane, const ViewWindow &window, std::vector<float> &out)
{
    out.clear();
    if (window.widthPx <= 0 || window.end <= window.start)
        return;
    const auto columns = std::size_t(std::ceil(window.widthPx));
    out.resize(columns, 0.0f);
    if (lane.start.empty() || lane.end.back() <= window.start || lane.start.front() >= window.end)
        return;
    const double nsPerPx = window.nsPerPx();
    auto edge = [&](std::size_t c) { return window.start + TimeNs(std::llround(double(c) * nsPerPx)); };
    TimeNs left = edge(0);
    std::size_t index = std::size_t(std::lower_bound(lane.start.begin(), lane.start.end(), left) - lane.start.begin());
    TimeNs coveredLeft = coveredBefore(lane, index, left);
    for (std::size_t c = 0; c < columns; ++c) {
        const TimeNs right = std::min(edge(c + 1), window.end);
        index = firstStartingFrom(lane.start, index, right);
        const TimeNs coveredRight = coveredBefore(lane, index, right);
        if (right > left)
            out[c] = float(double(coveredRight - coveredLeft) / double(right - left));
        left = right;
        coveredLeft = coveredRight;
    }
}

} // namespace gaplens::core
