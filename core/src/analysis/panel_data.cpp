// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/panel_data.h"

#include "gaplens/core/analysis/duration_stats.h"

#include <algorithm>
#include <unordered_map>

namespace gaplens::core {

std::vector<SeriesPoint> downsampleMinMax(const std::vector<double> &y, std::size_t maxPoints)
{
    maxPoints = std::max<std::size_t>(maxPoints, 2);
    std::vector<SeriesPoint> out;
    const std::size_t n = y.size();
    if (n <= maxPoints) {
        out.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            out.push_back({ double(i), y[i] });
        return out;
    }
    // Two points per bin; bins of ceil(n / bins) values keep the count within maxPoints.
    const std::size_t bins = maxPoints / 2;
    const std::size_t width = (n + bins - 1) / bins;
    out.reserve(2 * bins);
    for (std::size_t lo = 0; lo < n; lo += width) {
        const std::size_t hi = std::min(n, lo + width);
        std::size_t iMin = lo, iMax = lo;
        for (std::size_t i = lo + 1; i < hi; ++i) {
            if (y[i] < y[iMin])
                iMin = i;
            if (y[i] > y[iMax])
                iMax = i;
        }
        if (iMin == iMax) {
            out.push_back({ double(iMin), y[iMin] });
            continue;
        }
        const std::size_t a = std::min(iMin, iMax), b = std::max(iMin, iMax);
        out.push_back({ double(a), y[a] });
        out.push_back({ double(b), y[b] });
    }
    return out;
}

} // namespace gaplens::core
