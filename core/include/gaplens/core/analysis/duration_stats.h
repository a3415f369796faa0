// SPDX-License-Identifier: MIT
#pragma once
// The one statistics helper behind the kernel, NVTX and CUDA API summaries (nsys *_sum style).
#include "gaplens/core/model/time.h"

#include <cstdint>
#include <vector>

namespace gaplens::core {

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

// Statistics of a list of durations; reorders `durations` (partial sort for the median).
// All zero for an empty list.
DurationStats computeDurationStats(std::vector<TimeNs> &durations);

// Median of already sorted values (mean of the two middle ones for even counts); 0 when empty.
double sortedMedian(const std::vector<TimeNs> &sorted);
// The same for values in any order (per-step and per-rank figures).
double medianOf(std::vector<double> values);
// Nearest-rank percentile (p in (0,100]) of already sorted values: sorted[ceil(p/100*n) - 1]; 0 when empty.
TimeNs sortedPercentileNearestRank(const std::vector<TimeNs> &sorted, double p);

} // namespace gaplens::core
