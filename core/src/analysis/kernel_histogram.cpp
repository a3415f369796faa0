// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/kernel_histogram.h"

#include "gaplens/core/analysis/duration_stats.h"

#include <algorithm>
#include <cmath>
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

KernelHistogram computeKernelHistogram(const TraceSet &trace, StringId name, const KernelHistogramOptions &options)
{
    KernelHistogram h;
    h.name = name;
    h.logarithmic = options.logarithmic;
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
                    h.instances.push_back({ g, s, std::uint32_t(i), k.start[i], k.end[i] - k.start[i] });
        }
    }
    if (h.instances.empty())
        return h;
    std::sort(h.instances.begin(), h.instances.end(), [](const KernelInstance &a, const KernelInstance &b) {
        return std::tie(a.duration, a.start, a.gpu, a.stream, a.index)
            < std::tie(b.duration, b.start, b.gpu, b.stream, b.index);
    });
    std::vector<TimeNs> sorted(h.instances.size());
    std::transform(h.instances.begin(), h.instances.end(), sorted.begin(), [](const auto &i) { return i.duration; });
    h.minNs = sorted.front();
    h.maxNs = sorted.back();
    h.medianNs = sortedMedian(sorted);
    h.p95Ns = sortedPercentileNearestRank(sorted, 95);

    const auto [axisLo, axisHi] = options.axis.value_or(std::pair(h.minNs, h.maxNs));
    const auto edges = histogramEdges(axisLo, axisHi, options.bins, options.logarithmic);
    // Instances are sorted, so each bin is the run between two lower_bounds of its edges.
    auto firstAtLeast = [&](double edge) {
        return std::uint32_t(std::lower_bound(sorted.begin(), sorted.end(), edge, [](TimeNs d, double e) {
            return double(d) < e;
        }) - sorted.begin());
    };
    auto firstAbove = [&](double edge) {
        return std::uint32_t(std::upper_bound(sorted.begin(), sorted.end(), edge, [](double e, TimeNs d) {
            return e < double(d);
        }) - sorted.begin());
    };
    const std::uint32_t begin = firstAtLeast(edges.front());
    const std::uint32_t end = firstAbove(edges.back()); // the last bin includes its upper edge
    h.below = begin;
    h.above = h.instances.size() - end;
    for (std::size_t b = 0; b + 1 < edges.size(); ++b) {
        HistogramBin bin;
        bin.lo = edges[b];
        bin.hi = edges[b + 1];
        bin.first = b == 0 ? begin : h.bins.back().last;
        bin.last = b + 2 == edges.size() ? end : std::max(bin.first, firstAtLeast(edges[b + 1]));
        h.bins.push_back(bin);
    }
    return h;
}

} // namespace gaplens::core
