// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/duration_stats.h"

#include <algorithm>
#include <cmath>

namespace gaplens::core {

DurationStats computeDurationStats(std::vector<TimeNs> &durations)
{
    DurationStats s;
    const std::size_t n = durations.size();
    if (n == 0)
        return s;
    s.count = n;
    s.minNs = durations.front();
    s.maxNs = durations.front();
    for (TimeNs d : durations) {
        s.totalNs += d;
        s.minNs = std::min(s.minNs, d);
        s.maxNs = std::max(s.maxNs, d);
    }
    s.avgNs = double(s.totalNs) / double(n);
    // Two passes (mean first) instead of sum of squares: durations of ~1e9 ns squared would
    // lose all precision in the naive formula.
    if (n > 1) {
        double sq = 0;
        for (TimeNs d : durations) {
            const double diff = double(d) - s.avgNs;
            sq += diff * diff;
        }
        s.stddevNs = std::sqrt(sq / double(n - 1));
    }
    // nth_element instead of a full sort: the median is all we need from the order.
    const auto mid = durations.begin() + std::ptrdiff_t(n / 2);
    std::nth_element(durations.begin(), mid, durations.end());
    if (n % 2 == 1) {
        s.medianNs = double(*mid);
    } else {
        const TimeNs lower = *std::max_element(durations.begin(), mid);
        s.medianNs = (double(lower) + double(*mid)) / 2.0;
    }
    return s;
}

double sortedMedian(const std::vector<TimeNs> &sorted)
{
    const std::size_t n = sorted.size();
    if (n == 0)
        return 0;
    if (n % 2 == 1)
        return double(sorted[n / 2]);
    return (double(sorted[n / 2 - 1]) + double(sorted[n / 2])) / 2.0;
}

double medianOf(std::vector<double> values)
{
    const std::size_t n = values.size();
    if (n == 0)
        return 0;
    std::sort(values.begin(), values.end());
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

TimeNs sortedPercentileNearestRank(const std::vector<TimeNs> &sorted, double p)
{
    const std::size_t n = sorted.size();
    if (n == 0)
        return 0;
    auto rank = std::size_t(std::ceil(p / 100.0 * double(n)));
    rank = std::clamp<std::size_t>(rank, 1, n);
    return sorted[rank - 1];
}

} // namespace gaplens::core
