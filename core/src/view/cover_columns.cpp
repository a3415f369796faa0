// SPDX-License-Identifier: MIT
#include "gaplens/core/view/cover_columns.h"

#include <algorithm>
#include <cmath>

namespace gaplens::core {

TimeNs coveredUntil(const CoverColumns &lane, TimeNs t)
{
    // Intervals starting before t are [0, i); of them only the last can reach past t.
    const auto i = std::size_t(std::lower_bound(lane.start.begin(), lane.start.end(), t) - lane.start.begin());
    if (i == 0)
        return 0;
    return lane.coveredBefore[i] - std::max<TimeNs>(0, lane.end[i - 1] - t);
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
    TimeNs coveredLeft = coveredUntil(lane, left);
    for (std::size_t c = 0; c < columns; ++c) {
        const TimeNs right = std::min(edge(c + 1), window.end);
        const TimeNs coveredRight = coveredUntil(lane, right);
        if (right > left)
            out[c] = float(double(coveredRight - coveredLeft) / double(right - left));
        left = right;
        coveredLeft = coveredRight;
    }
}

} // namespace gaplens::core
