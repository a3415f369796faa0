// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/kernel_histogram.h"

#include "gaplens/core/analysis/duration_stats.h"

#include "grouped_duration_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

namespace gaplens::core {

std::vector<double> histogramEdges(TimeNs lo, TimeNs hi, std::size_t bins, bool logarithmic)
{
    bins = std::max<std::size_t>(bins, 1);
    if (hi <= lo)
        return { double(lo), double(lo) + 1 };
    std::vector<double> edges(bins + 1);
    if (logarithmic) {
        const double a = std::log10(double(std::max<TimeNs>(lo, 1))), b = std::log10(double(std::max<TimeNs>(hi, 1)));
        for (std::size_t i = 0; i <= bins; ++i)
            edges[i] = std::pow(10.0, a + (b - a) * double(i) / double(bins));
    } else {
        for (std::size_t i = 0; i <= bins; ++i)
            edges[i] = double(lo) + double(hi - lo) * double(i) / double(bins);
    }
    // Exact ends: rounding must not leave the shortest or longest instance outside.
    edges.front() = double(lo);
    edges.back() = double(hi);
    return edges;
}

std::vector<KernelInstance> KernelHistogram::slowest(std::size_t n) const
{
    n = std::min(n, instances.size());
    return { instances.rbegin(), instances.rbegin() + std::ptrdiff_t(n) };
}

namespace {

// Every instance of `name` in the selection, in the histogram's order: ascending duration (ties:
// start, gpu, stream, index).
std::vector<KernelInstance> collectInstances(
    const TraceSet &trace, StringId name, const KernelHistogramOptions &options)
{
    std::vector<KernelInstance> instances;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        const auto &streams = trace.gpus[g].streams;
        for (std::uint32_t s = 0; s < streams.size(); ++s) {
            const auto &stream = streams[s];
            if (!options.ranks.isAll() && (stream.rank == kNoIndex || !options.ranks.includes(stream.rank)))
                continue;
            const auto &k = stream.kernels;
            const auto &names
                = options.useDemangledName && k.demangledName.size() == k.size() ? k.demangledName : k.shortName;
            std::size_t lo = 0, hi = k.size();
            if (options.window) {
                lo = std::size_t(
                    std::lower_bound(k.start.begin(), k.start.end(), options.window->start) - k.start.begin());
                hi = std::size_t(
                    std::lower_bound(k.start.begin(), k.start.end(), options.window->end) - k.start.begin());
            }
            for (std::size_t i = lo; i < hi; ++i)
                if (names[i] == name)
                    instances.push_back({ g, s, std::uint32_t(i), k.start[i], k.end[i] - k.start[i] });
        }
    }
    std::sort(instances.begin(), instances.end(), [](const KernelInstance &a, const KernelInstance &b) {
        return std::tie(a.duration, a.start, a.gpu, a.stream, a.index)
            < std::tie(b.duration, b.start, b.gpu, b.stream, b.index);
    });
    return instances;
}

std::vector<TimeNs> durationsOf(const std::vector<KernelInstance> &instances)
{
    std::vector<TimeNs> sorted(instances.size());
    std::transform(instances.begin(), instances.end(), sorted.begin(), [](const auto &i) { return i.duration; });
    return sorted;
}

// Per edge, how many sorted durations lie below it (the last edge: up to it, since the last bin
// includes its upper edge). These counts add up over parts.
std::vector<std::uint64_t> countsBelowEdges(const std::vector<TimeNs> &sorted, const std::vector<double> &edges)
{
    std::vector<std::uint64_t> counts(edges.size());
    for (std::size_t e = 0; e + 1 < edges.size(); ++e)
        counts[e] = std::uint64_t(std::lower_bound(sorted.begin(), sorted.end(), edges[e], [](TimeNs d, double edge) {
            return double(d) < edge;
        }) - sorted.begin());
    counts.back()
        = std::uint64_t(std::upper_bound(sorted.begin(), sorted.end(), edges.back(), [](double edge, TimeNs d) {
              return edge < double(d);
          }) - sorted.begin());
    return counts;
}

// The bins' boundaries in the sorted order from those counts: bin b holds [bounds[b],
// bounds[b + 1]); below = bounds.front(), above = count - bounds.back().
std::vector<std::uint64_t> binBounds(const std::vector<std::uint64_t> &countsBelow)
{
    std::vector<std::uint64_t> bounds(countsBelow.size());
    bounds.front() = countsBelow.front();
    for (std::size_t b = 1; b < bounds.size(); ++b)
        bounds[b] = b + 1 == bounds.size() ? countsBelow[b] : std::max(bounds[b - 1], countsBelow[b]);
    return bounds;
}

SlowKernel slowKernel(const TraceSet &trace, const KernelInstance &k)
{
    const auto &stream = trace.gpus[k.gpu].streams[k.stream];
    return { k.gpu, stream.rank, stream.streamId, k.start, k.duration };
}

bool slowerFirst(const SlowKernel &a, const SlowKernel &b)
{
    return std::tie(a.duration, a.start, a.gpu) > std::tie(b.duration, b.start, b.gpu);
}

} // namespace

KernelHistogram computeKernelHistogram(const TraceSet &trace, StringId name, const KernelHistogramOptions &options)
{
    KernelHistogram h;
    h.name = name;
    h.logarithmic = options.logarithmic;
    h.instances = collectInstances(trace, name, options);
    if (h.instances.empty())
        return h;
    const auto sorted = durationsOf(h.instances);
    h.minNs = sorted.front();
    h.maxNs = sorted.back();
    h.medianNs = sortedMedian(sorted);
    h.p95Ns = sortedPercentileNearestRank(sorted, 95);

    const auto [axisLo, axisHi] = options.axis.value_or(std::pair(h.minNs, h.maxNs));
    const auto edges = histogramEdges(axisLo, axisHi, options.bins, options.logarithmic);
    // Instances are sorted, so each bin is the run between two lower_bounds of its edges.
    const auto bounds = binBounds(countsBelowEdges(sorted, edges));
    h.below = bounds.front();
    h.above = h.instances.size() - bounds.back();
    for (std::size_t b = 0; b + 1 < edges.size(); ++b)
        h.bins.push_back({ edges[b], edges[b + 1], std::uint32_t(bounds[b]), std::uint32_t(bounds[b + 1]) });
    return h;
}

KernelHistogramFigures histogramFigures(const TraceSet &trace, const KernelHistogram &histogram, std::size_t slowest)
{
    KernelHistogramFigures f;
    f.logarithmic = histogram.logarithmic;
    f.count = histogram.count();
    for (const auto &b : histogram.bins)
        f.bins.push_back({ b.lo, b.hi, b.count() });
    f.below = histogram.below;
    f.above = histogram.above;
    f.minNs = histogram.minNs;
    f.maxNs = histogram.maxNs;
    f.medianNs = histogram.medianNs;
    f.p95Ns = histogram.p95Ns;
    for (const auto &k : histogram.slowest(slowest))
        f.slowest.push_back(slowKernel(trace, k));
    return f;
}

namespace {

// One order statistic of every part's durations by histogram passes (grouped_duration_stats.h),
// as the mean of the values at two 0-based ranks.
struct FixedRanks
{
    std::uint64_t lower = 0, upper = 0;
    std::pair<std::uint64_t, std::uint64_t> operator()(std::uint64_t) const { return { lower, upper }; }
};

double orderStatistic(const std::vector<TimeNs> &durations, FixedRanks ranks, const PartsReduction &parts)
{
    struct OneKey
    {
        std::string text(int) const { return "instances"; }
        std::pair<std::size_t, int> find(const std::string &) const { return { 0, 0 }; }
    };
    const detail::GroupedDurationStats<int, FixedRanks> stats(
        1,
        [&](auto sink) {
            for (const TimeNs d : durations)
                sink(0, 0, d);
        },
        parts, OneKey {}, ranks);
    double value = 0;
    stats.build([&](int, const DurationStats &s, double) { value = s.medianNs; });
    return value;
}

} // namespace

KernelHistogramFigures computeKernelHistogram(const TraceSet &trace, StringId name,
    const KernelHistogramOptions &options, std::size_t slowest, const PartsReduction &parts)
{
    const auto instances = collectInstances(trace, name, options);
    const auto sorted = durationsOf(instances);
    KernelHistogramFigures f;
    f.logarithmic = options.logarithmic;
    std::vector<std::uint64_t> count { sorted.size() };
    parts.sum(count);
    f.count = count.front();
    if (f.count == 0)
        return f;
    std::vector<TimeNs> lo { sorted.empty() ? std::numeric_limits<TimeNs>::max() : sorted.front() };
    std::vector<TimeNs> hi { sorted.empty() ? std::numeric_limits<TimeNs>::min() : sorted.back() };
    parts.min(lo);
    parts.max(hi);
    f.minNs = lo.front();
    f.maxNs = hi.front();
    const std::uint64_t n = f.count;
    f.medianNs = orderStatistic(sorted, { (n - 1) / 2, n / 2 }, parts);
    const std::uint64_t p95 = nearestRankIndex(std::size_t(n), 95);
    f.p95Ns = TimeNs(orderStatistic(sorted, { p95, p95 }, parts));

    const auto [axisLo, axisHi] = options.axis.value_or(std::pair(f.minNs, f.maxNs));
    const auto edges = histogramEdges(axisLo, axisHi, options.bins, options.logarithmic);
    auto countsBelow = countsBelowEdges(sorted, edges);
    parts.sum(countsBelow);
    const auto bounds = binBounds(countsBelow);
    f.below = bounds.front();
    f.above = n - bounds.back();
    for (std::size_t b = 0; b + 1 < edges.size(); ++b)
        f.bins.push_back({ edges[b], edges[b + 1], bounds[b + 1] - bounds[b] });

    // This part's slowest, and every one tied with the last of them in (duration, start): the
    // whole order's next key is the whole capture's GPU index, which only the caller knows.
    auto slowestFirst = [&](std::size_t i) -> const KernelInstance & { return instances[instances.size() - 1 - i]; };
    std::size_t taken = std::min(slowest, instances.size());
    while (taken > 0 && taken < instances.size() && slowestFirst(taken).duration == slowestFirst(taken - 1).duration
        && slowestFirst(taken).start == slowestFirst(taken - 1).start)
        ++taken;
    for (std::size_t i = 0; i < taken; ++i)
        f.slowest.push_back(slowKernel(trace, slowestFirst(i)));
    return f;
}

std::vector<SlowKernel> mergeSlowest(std::vector<SlowKernel> candidates, std::size_t n)
{
    std::stable_sort(candidates.begin(), candidates.end(), slowerFirst);
    candidates.resize(std::min(n, candidates.size()));
    return candidates;
}

} // namespace gaplens::core
