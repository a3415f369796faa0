// SPDX-License-Identifier: MIT
#pragma once
// Run-to-run noise statistics for before/after comparisons: a Mann-Whitney U (rank-sum)
// test and a bootstrap interval of the difference of a statistic between two samples.
// Deterministic (fixed seeds), so the same captures always give the same verdict.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gaplens::core {

struct RankSumTest
{
    std::size_t n1 = 0, n2 = 0;
    double rankSum1 = 0; // sum of the (mid)ranks of the first sample in the pooled sample
    double u1 = 0; // rankSum1 - n1 (n1 + 1) / 2: pairs (x in first, y in second) with x > y, ties 1/2
    double meanU = 0; // n1 n2 / 2
    double sigmaU = 0; // standard deviation of U under H0, tie-corrected
    double z = 0; // (|u1 - meanU| - 0.5) / sigmaU, signed like u1 - meanU; 0 when sigmaU == 0
    double pValue = 1; // two-sided, from the normal approximation; 1 when undefined
};

// Mann-Whitney U test of `first` against `second`, two-sided. Normal approximation with the
// tie correction sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))) and a 0.5
// continuity correction (as scipy.stats.mannwhitneyu(method="asymptotic")). An empty sample
// or all values tied gives p = 1: nothing can be told apart.
RankSumTest mannWhitneyU(const std::vector<double> &first, const std::vector<double> &second);

enum class BootstrapStatistic : std::uint8_t {
    Median, // mean of the two middle values for even counts
    Percentile95, // nearest rank: sorted[ceil(0.95 n) - 1]
};

struct BootstrapInterval
{
    double estimate = 0; // statistic(second) - statistic(first) on the samples themselves
    double low = 0, high = 0; // percentile interval of the resampled differences
    double halfWidth() const { return (high - low) / 2.0; }
};

struct BootstrapOptions
{
    BootstrapStatistic statistic = BootstrapStatistic::Median;
    std::size_t resamples = 2000;
    double confidence = 0.95;
    std::uint64_t seed = 0x6761706C656E73ull; // "gaplens"
};

// Percentile bootstrap of statistic(second) - statistic(first): both samples resampled with
// replacement, independently, `resamples` times (splitmix64, so identical on every
// platform); low/high are the nearest-rank (1 - confidence) / 2 and (1 + confidence) / 2
// quantiles of the sorted differences. All zero when either sample is empty.
BootstrapInterval bootstrapDifference(
    const std::vector<double> &first, const std::vector<double> &second, const BootstrapOptions &options = {});

// The statistic on its own (what bootstrapDifference resamples); 0 for an empty sample.
double sampleStatistic(std::vector<double> values, BootstrapStatistic statistic);

// Compare's rule for a shift of the median between two samples (run to run noise):
// significant when |median(second) - median(first)| exceeds the half-width of the seeded
// bootstrap interval of that difference AND the rank-sum test rejects "same distribution" at
// alpha. Not significant when either sample is empty.
struct MedianShift
{
    double firstMedian = 0, secondMedian = 0;
    double difference = 0; // secondMedian - firstMedian
    double halfWidth = 0; // of the bootstrap interval of the difference
    double pValue = 1; // two-sided rank-sum p
    bool significant = false;
};
MedianShift judgeMedianShift(const std::vector<double> &first, const std::vector<double> &second, double alpha,
    std::size_t resamples, std::uint64_t seed);

} // namespace gaplens::core
