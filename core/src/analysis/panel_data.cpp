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

std::vector<RangeNameCount> repeatingRangeNames(const TraceSet &trace, std::size_t limit)
{
    struct Counts
    {
        std::uint64_t total = 0, top = 0, maxPerRank = 0;
    };
    std::unordered_map<StringId, Counts> counts;
    std::unordered_map<StringId, std::uint64_t> perRank;
    for (const auto &rank : trace.ranks) {
        perRank.clear();
        for (auto t : rank.threads) {
            const auto &nvtx = trace.threads[t].nvtx;
            for (std::size_t i = 0; i < nvtx.size(); ++i) {
                auto &c = counts[nvtx.name[i]];
                ++c.total;
                if (nvtx.depth.size() == nvtx.size() && nvtx.depth[i] == 0)
                    ++c.top;
                ++perRank[nvtx.name[i]];
            }
        }
        for (const auto &[name, n] : perRank)
            counts[name].maxPerRank = std::max(counts[name].maxPerRank, n);
    }
    std::vector<RangeNameCount> out;
    for (const auto &[name, c] : counts)
        if (c.maxPerRank >= 2 && name != kEmptyString)
            out.push_back({ trace.str(name), c.total, c.top });
    std::sort(out.begin(), out.end(), [](const RangeNameCount &a, const RangeNameCount &b) {
        if (a.count != b.count)
            return a.count > b.count;
        if (a.topLevel != b.topLevel)
            return a.topLevel > b.topLevel;
        return a.name < b.name;
    });
    if (out.size() > limit)
        out.resize(limit);
    return out;
}

} // namespace gaplens::core
