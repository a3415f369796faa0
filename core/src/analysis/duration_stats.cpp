// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/duration_stats.h"

#include <algorithm>
#include <cmath>

namespace gaplens::core {

void DurationMoments::add(TimeNs duration)
{
    if (count == 0) {
        min = max = duration;
    } else {
        min = std::min(min, duration);
        max = std::max(max, duration);
    }
    ++count;
    sum += duration;
    const UInt128 magnitude = UInt128(duration < 0 ? -Int128(duration) : Int128(duration));
    sumSquares += magnitude * magnitude;
}

void DurationMoments::merge(const DurationMoments &other)
{
    if (other.count == 0)
        return;
    if (count == 0) {
        *this = other;
        return;
    }
    count += other.count;
    sum += other.sum;
    sumSquares += other.sumSquares;
    min = std::min(min, other.min);
    max = std::max(max, other.max);
}

double DurationMoments::mean() const
{
    return count == 0 ? 0.0 : double(static_cast<long double>(sum) / static_cast<long double>(count));
}

double DurationMoments::sampleStddev() const
{
    if (count < 2)
        return 0;
    // sum = q * n + r (floor division), so sum^2 / n = q^2 n + 2 q r + r^2 / n and
    // M2 = sumSquares - q^2 n - 2 q r - r^2 / n, where the first three terms are exact integers
    // (q^2 n <= sum^2 / n <= sumSquares by Cauchy-Schwarz, so nothing overflows).
    // Durations are never negative (the reader skips a row whose end is before its start).
    const UInt128 n = count, total = UInt128(std::max<Int128>(sum, 0));
    const UInt128 q = total / n, r = total % n;
    const UInt128 integerPart = sumSquares - q * q * n - 2 * q * r;
    const long double m2
        = static_cast<long double>(integerPart) - static_cast<long double>(r * r) / static_cast<long double>(n);
    const long double variance = std::max<long double>(0, m2 / static_cast<long double>(count - 1));
    return double(std::sqrt(variance));
}

DurationStats statsFromMoments(const DurationMoments &moments)
{
    DurationStats s;
    if (moments.count == 0)
        return s;
    s.count = moments.count;
    s.totalNs = TimeNs(moments.sum);
    s.minNs = moments.min;
    s.maxNs = moments.max;
    s.avgNs = double(s.totalNs) / double(s.count);
    s.stddevNs = moments.sampleStddev();
    return s;
}

DurationStats computeDurationStats(std::vector<TimeNs> &durations)
{
    const std::size_t n = durations.size();
    if (n == 0)
        return {};
    // Exact integer moments: the same figures whatever the order or the parts they are
    // summed in (gaplens-mpi merges parts of one group).
    DurationMoments moments;
    for (TimeNs d : durations)
        moments.add(d);
    DurationStats s = statsFromMoments(moments);
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
    return sorted.empty() ? 0 : sorted[nearestRankIndex(sorted.size(), p)];
}

std::size_t nearestRankIndex(std::size_t n, double p)
{
    return std::clamp<std::size_t>(std::size_t(std::ceil(p / 100.0 * double(n))), 1, n) - 1;
}

} // namespace gaplens::core
