// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/noise.h"
#include "gaplens/core/util/splitmix.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gaplens::core {
namespace {

// Statistic of values that are already sorted.
double sortedStatistic(const std::vector<double> &sorted, BootstrapStatistic statistic)
{
    const std::size_t n = sorted.size();
    if (n == 0)
        return 0;
    if (statistic == BootstrapStatistic::Median)
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    const auto rank = std::size_t(std::ceil(0.95 * double(n)));
    return sorted[std::clamp<std::size_t>(rank, 1, n) - 1];
}

double resampledStatistic(
    const std::vector<double> &values, std::vector<double> &scratch, SplitMix64 &rng, BootstrapStatistic statistic)
{
    scratch.resize(values.size());
    for (auto &v : scratch)
        v = values[rng.below(values.size())];
    std::sort(scratch.begin(), scratch.end());
    return sortedStatistic(scratch, statistic);
}

} // namespace

RankSumTest mannWhitneyU(const std::vector<double> &first, const std::vector<double> &second)
{
    RankSumTest t;
    t.n1 = first.size();
    t.n2 = second.size();
    if (t.n1 == 0 || t.n2 == 0)
        return t;
    struct Item
    {
        double value;
        bool inFirst;
    };
    std::vector<Item> pooled;
    pooled.reserve(t.n1 + t.n2);
    for (double v : first)
        pooled.push_back({ v, true });
    for (double v : second)
        pooled.push_back({ v, false });
    std::sort(pooled.begin(), pooled.end(), [](const Item &a, const Item &b) { return a.value < b.value; });

    // Midranks: a run of t equal values at 1-based ranks i+1..i+t all get i + (t + 1) / 2.
    const double n = double(pooled.size());
    double tieTerm = 0;
    for (std::size_t i = 0; i < pooled.size();) {
        std::size_t j = i;
        while (j < pooled.size() && pooled[j].value == pooled[i].value)
            ++j;
        const double ties = double(j - i);
        const double midrank = double(i) + (ties + 1.0) / 2.0;
        for (std::size_t k = i; k < j; ++k)
            if (pooled[k].inFirst)
                t.rankSum1 += midrank;
        tieTerm += ties * ties * ties - ties;
        i = j;
    }
    const double n1 = double(t.n1), n2 = double(t.n2);
    t.u1 = t.rankSum1 - n1 * (n1 + 1.0) / 2.0;
    t.meanU = n1 * n2 / 2.0;
    const double variance = n1 * n2 / 12.0 * ((n + 1.0) - (n > 1 ? tieTerm / (n * (n - 1.0)) : 0.0));
    t.sigmaU = variance > 0 ? std::sqrt(variance) : 0.0;
    if (t.sigmaU == 0)
        return t; // every value tied: no evidence either way
    const double diff = t.u1 - t.meanU;
    const double corrected = std::max(0.0, std::fabs(diff) - 0.5);
    t.z = std::copysign(corrected / t.sigmaU, diff);
    t.pValue = std::min(1.0, std::erfc(std::fabs(t.z) / std::sqrt(2.0)));
    return t;
}

double sampleStatistic(std::vector<double> values, BootstrapStatistic statistic)
{
    std::sort(values.begin(), values.end());
    return sortedStatistic(values, statistic);
}

BootstrapInterval bootstrapDifference(
    const std::vector<double> &first, const std::vector<double> &second, const BootstrapOptions &options)
{
    BootstrapInterval interval;
    if (first.empty() || second.empty())
        return interval;
    interval.estimate = sampleStatistic(second, options.statistic) - sampleStatistic(first, options.statistic);
    if (options.resamples == 0) {
        interval.low = interval.high = interval.estimate;
        return interval;
    }
    SplitMix64 rng { options.seed };
    std::vector<double> differences, scratch;
    differences.reserve(options.resamples);
    for (std::size_t i = 0; i < options.resamples; ++i) {
        const double a = resampledStatistic(first, scratch, rng, options.statistic);
        const double b = resampledStatistic(second, scratch, rng, options.statistic);
        differences.push_back(b - a);
    }
    std::sort(differences.begin(), differences.end());
    const double tail = (1.0 - std::clamp(options.confidence, 0.0, 1.0)) / 2.0;
    const std::size_t count = differences.size();
    auto nearestRank = [&](double q) {
        const auto rank = std::size_t(std::ceil(q * double(count) - 1e-9));
        return differences[std::clamp<std::size_t>(rank, 1, count) - 1];
    };
    interval.low = nearestRank(tail);
    interval.high = nearestRank(1.0 - tail);
    return interval;
}

MedianShift judgeMedianShift(const std::vector<double> &first, const std::vector<double> &second, double alpha,
    std::size_t resamples, std::uint64_t seed)
{
    MedianShift shift;
    shift.firstMedian = sampleStatistic(first, BootstrapStatistic::Median);
    shift.secondMedian = sampleStatistic(second, BootstrapStatistic::Median);
    shift.difference = shift.secondMedian - shift.firstMedian;
    if (first.empty() || second.empty())
        return shift;
    BootstrapOptions bootstrap;
    bootstrap.statistic = BootstrapStatistic::Median;
    bootstrap.resamples = resamples;
    bootstrap.seed = seed;
    shift.halfWidth = bootstrapDifference(first, second, bootstrap).halfWidth();
    shift.pValue = mannWhitneyU(first, second).pValue;
    shift.significant = std::fabs(shift.difference) > shift.halfWidth && shift.pValue < alpha;
    return shift;
}

} // namespace gaplens::core
