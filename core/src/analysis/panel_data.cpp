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
            out.push_back({double(i), y[i]});
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
            out.push_back({double(iMin), y[iMin]});
            continue;
        }
        const std::size_t a = std::min(iMin, iMax), b = std::max(iMin, iMax);
        out.push_back({double(a), y[a]});
        out.push_back({double(b), y[b]});
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
            out.push_back({trace.str(name), c.total, c.top});
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

std::optional<std::string> proposeStepRange(const TraceSet &trace)
{
    auto proposed = proposePaceRangeName(trace);
    if (!proposed)
        return std::nullopt;
    const StringId name = trace.strings.find(*proposed);
    for (const auto &rank : trace.ranks) {
        std::uint64_t n = 0;
        for (auto t : rank.threads)
            n += std::uint64_t(std::count(trace.threads[t].nvtx.name.begin(), trace.threads[t].nvtx.name.end(), name));
        if (n >= 2)
            return proposed;
    }
    return std::nullopt;
}

namespace {

double medianOf(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// The derived part of computePace (per-rank statistics, per-iteration medians, verdict) over
// whatever iterations are left. Keep in step with computePace's rules (pace.cpp).
void recomputeDerived(PaceReport &report)
{
    report.iterations.clear();
    report.straggler.reset();
    std::vector<TimeNs> durations;
    for (auto &rp : report.ranks) {
        durations.clear();
        for (const auto &it : rp.iterations)
            durations.push_back(it.durationNs);
        std::sort(durations.begin(), durations.end());
        rp.medianNs = sortedMedian(durations);
        rp.p95Ns = sortedPercentileNearestRank(durations, 95.0);
        rp.timesSlowest = 0;
    }
    if (report.ranks.empty())
        return;
    std::size_t common = report.ranks.front().iterations.size();
    for (const auto &rp : report.ranks)
        common = std::min(common, rp.iterations.size());
    std::vector<TimeNs> column;
    std::vector<double> medians;
    for (std::uint32_t i = 0; i < common; ++i) {
        column.clear();
        IterationPace ip;
        ip.index = i;
        std::size_t slowest = 0;
        bool tied = false;
        for (std::size_t k = 0; k < report.ranks.size(); ++k) {
            const TimeNs d = report.ranks[k].iterations[i].durationNs;
            column.push_back(d);
            if (k == 0 || d > ip.slowestNs) {
                ip.slowestNs = d;
                slowest = k;
                tied = false;
            } else if (d == ip.slowestNs) {
                tied = true;
            }
        }
        std::sort(column.begin(), column.end());
        ip.medianNs = sortedMedian(column);
        if (!tied) {
            ip.slowestRank = report.ranks[slowest].rank;
            ++report.ranks[slowest].timesSlowest;
        }
        medians.push_back(ip.medianNs);
        report.iterations.push_back(ip);
    }
    if (report.ranks.size() >= 2 && common >= 3) {
        const RankPace *worst = nullptr;
        for (const auto &rp : report.ranks)
            if (!worst || rp.timesSlowest > worst->timesSlowest)
                worst = &rp;
        if (worst && 2 * std::size_t(worst->timesSlowest) >= common) {
            const double reference = medianOf(medians);
            StragglerVerdict v;
            v.rank = worst->rank;
            v.slowestCount = worst->timesSlowest;
            v.iterations = std::uint32_t(common);
            v.percentAboveMedian = reference > 0 ? (worst->medianNs / reference - 1.0) * 100.0 : 0.0;
            report.straggler = v;
        }
    }
}

} // namespace

WindowedPace computePaceInWindow(const TraceSet &trace, const PaceOptions &options, const TimeWindow &window)
{
    WindowedPace out;
    out.report = computePace(trace, options);
    if (!window)
        return out;
    bool first = true;
    for (auto &rp : out.report.ranks) {
        const auto before = std::count_if(rp.iterations.begin(), rp.iterations.end(),
                                          [&](const PaceIteration &it) { return it.time.start < window->start; });
        if (first)
            out.firstIteration = std::uint32_t(before);
        first = false;
        std::erase_if(rp.iterations, [&](const PaceIteration &it) { return !window->contains(it.time.start); });
        if (!rp.iterations.empty())
            rp.iterations.front().deltaToPreviousNs = 0;
    }
    std::erase_if(out.report.ranks, [](const RankPace &rp) { return rp.iterations.empty(); });
    recomputeDerived(out.report);
    return out;
}

} // namespace gaplens::core
