// SPDX-License-Identifier: MIT
#pragma once
// The one statistics helper behind the kernel, NVTX and CUDA API summaries (nsys *_sum style),
// and the exact moments every standard deviation comes from.
#include "gaplens/core/model/time.h"

#include <cstdint>
#include <vector>

namespace gaplens::core {

__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

// Count, sum, sum of squares, min and max of durations, in exact integers: the sum in 128
// bits and the sum of squares in unsigned 128 bits. A duration below 2^40 ns (18 minutes)
// squares below 2^80, so 2^48 of them (281 trillion) still fit; the merge is exact and
// associative, unlike a floating-point (mean, M2) merge, whose result depends on the order.
struct DurationMoments
{
    std::uint64_t count = 0;
    Int128 sum = 0;
    UInt128 sumSquares = 0;
    TimeNs min = 0, max = 0; // 0 when count is 0

    void add(TimeNs duration);
    void merge(const DurationMoments &other);
    double mean() const; // 0 when empty
    // Sample standard deviation (n - 1), 0 for fewer than two, as DurationStats: the variance
    // (sumSquares - sum^2 / n) / (n - 1) with sum^2 / n split into its integer part (exact)
    // and its remainder, so nothing cancels in floating point.
    double sampleStddev() const;
    bool operator==(const DurationMoments &) const = default;
};

struct DurationStats
{
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
    TimeNs minNs = 0;
    TimeNs maxNs = 0;
    double avgNs = 0;
    double medianNs = 0; // mean of the two middle values for an even count
    double stddevNs = 0; // sample standard deviation (n - 1), 0 when count <= 1, as nsys stats
};

// count, total, min, max, avg and stddev of `moments` (the median is the caller's).
DurationStats statsFromMoments(const DurationMoments &moments);

// Statistics of a list of durations; reorders `durations` (partial sort for the median).
// All zero for an empty list.
DurationStats computeDurationStats(std::vector<TimeNs> &durations);

// Median of already sorted values (mean of the two middle ones for even counts); 0 when empty.
double sortedMedian(const std::vector<TimeNs> &sorted);
// The same for values in any order (per-step and per-rank figures).
double medianOf(std::vector<double> values);
// Nearest-rank percentile (p in (0,100]) of already sorted values: sorted[ceil(p/100*n) - 1]; 0 when empty.
TimeNs sortedPercentileNearestRank(const std::vector<TimeNs> &sorted, double p);
// Its 0-based rank among n > 0 values: ceil(p/100*n) - 1, within [0, n).
std::size_t nearestRankIndex(std::size_t n, double p);

} // namespace gaplens::core
