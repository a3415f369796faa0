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

// The first position at or after `from` whose value is at least t: a gallop from `from` (a
// column edge's answer is at or after the previous edge's), then a binary search.
std::size_t firstAtLeastFrom(std::span<const TimeNs> values, std::size_t from, TimeNs t)
{
    const std::size_t n = values.size();
    std::size_t step = 1, lo = from;
    while (lo + step < n && values[lo + step] < t) {
        lo += step;
        step *= 2;
    }
    const std::size_t hi = std::min(n, lo + step + 1);
    return std::size_t(
        std::lower_bound(values.begin() + std::ptrdiff_t(lo), values.begin() + std::ptrdiff_t(hi), t) - values.begin());
}

// Walks a lane's column edges left to right: the first interval starting at or after each.
class EdgeCursor
{
public:
    EdgeCursor(const CoverColumns &lane, TimeNs first)
        : m_lane(lane)
    {
        m_block = lane.coarseStart.empty() ? 0 : firstAtLeastFrom(lane.coarseStart, 0, first);
        m_index = std::size_t(std::lower_bound(lane.start.begin(), lane.start.end(), first) - lane.start.begin());
    }

    std::size_t next(TimeNs t)
    {
        if (m_lane.coarseStart.empty())
            return m_index = firstAtLeastFrom(m_lane.start, m_index, t);
        // coarseStart[b] = start[b * stride] >= t > coarseStart[b - 1]: the answer is in block b - 1.
        m_block = firstAtLeastFrom(m_lane.coarseStart, m_block, t);
        const std::size_t lo = std::max(m_index, m_block == 0 ? 0 : (m_block - 1) * kCoverCoarseStride);
        const std::size_t hi = std::min(m_lane.start.size(), m_block * kCoverCoarseStride);
        m_index = std::size_t(std::lower_bound(m_lane.start.begin() + std::ptrdiff_t(lo),
                                  m_lane.start.begin() + std::ptrdiff_t(std::max(lo, hi)), t)
            - m_lane.start.begin());
        return m_index;
    }

private:
    const CoverColumns &m_lane;
    std::size_t m_block = 0, m_index = 0;
};

} // namespace

std::vector<TimeNs> coarseStarts(std::span<const TimeNs> start)
{
    std::vector<TimeNs> out;
    out.reserve(start.size() / kCoverCoarseStride + 1);
    for (std::size_t i = 0; i < start.size(); i += kCoverCoarseStride)
        out.push_back(start[i]);
    return out;
}

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
    EdgeCursor cursor(lane, left);
    TimeNs coveredLeft = coveredUntil(lane, left);
    for (std::size_t c = 0; c < columns; ++c) {
        const TimeNs right = std::min(edge(c + 1), window.end);
        const TimeNs coveredRight = coveredBefore(lane, cursor.next(right), right);
        if (right > left)
            out[c] = float(double(coveredRight - coveredLeft) / double(right - left));
        left = right;
        coveredLeft = coveredRight;
    }
}

} // namespace gaplens::core
