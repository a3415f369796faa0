// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/intervals.h"

#include "gaplens/core/analysis/parts_reduction.h"

#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/util/parallel.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace gaplens::core {

void IntervalStats::merge(const IntervalStats &other)
{
    kernels.merge(other.kernels);
    busyNs += other.busyNs;
    for (std::size_t s = 0; s < kCopySlotCount; ++s)
        copies[s].merge(other.copies[s]);
}

namespace {

constexpr std::pair<IntervalMetric, std::string_view> kMetricNames[] = {
    { IntervalMetric::Stddev, "stddev" },
    { IntervalMetric::Busy, "busy" },
    { IntervalMetric::Kernels, "kernels" },
    { IntervalMetric::KernelNs, "kernel_ns" },
    { IntervalMetric::Stall, "stall" },
    { IntervalMetric::Bytes, "bytes" },
    { IntervalMetric::HtoD, "htod" },
    { IntervalMetric::DtoH, "dtoh" },
};

} // namespace

std::optional<IntervalMetric> parseIntervalMetric(std::string_view name)
{
    for (const auto &[metric, text] : kMetricNames)
        if (text == name)
            return metric;
    return std::nullopt;
}

std::string_view intervalMetricName(IntervalMetric metric)
{
    for (const auto &[m, text] : kMetricNames)
        if (m == metric)
            return text;
    return "?";
}

std::optional<double> intervalMetricValue(const IntervalStats &stats, IntervalMetric metric)
{
    switch (metric) {
    case IntervalMetric::Stddev:
        if (stats.kernels.count < 2)
            return std::nullopt;
        return stats.kernels.sampleStddev();
    case IntervalMetric::Busy: return double(stats.busyNs);
    case IntervalMetric::Kernels: return double(stats.kernels.count);
    case IntervalMetric::KernelNs: return double(static_cast<long double>(stats.kernels.sum));
    case IntervalMetric::Stall: return double(stats.stallNs());
    case IntervalMetric::Bytes: return double(stats.transfers().bytes);
    case IntervalMetric::HtoD: return double(stats.copies[copySlot(CopyKind::HostToDevice)].bytes);
    case IntervalMetric::DtoH: return double(stats.copies[copySlot(CopyKind::DeviceToHost)].bytes);
    }
    return std::nullopt;
}

double linearQuantile(const std::vector<double> &sorted, double p)
{
    if (sorted.empty())
        return 0;
    const double position = double(sorted.size() - 1) * p;
    const auto lower = std::size_t(std::floor(position));
    const double fraction = position - double(lower);
    if (lower + 1 >= sorted.size())
        return sorted.back();
    return sorted[lower] + (sorted[lower + 1] - sorted[lower]) * fraction;
}

Fences iqrFences(std::vector<double> values)
{
    Fences f;
    f.n = values.size();
    if (values.empty())
        return f;
    std::sort(values.begin(), values.end());
    f.q1 = linearQuantile(values, 0.25);
    f.q3 = linearQuantile(values, 0.75);
    f.iqr = f.q3 - f.q1;
    f.lower = f.q1 - 1.5 * f.iqr;
    f.upper = f.q3 + 1.5 * f.iqr;
    return f;
}

std::string_view variabilityPatternName(VariabilityPattern pattern)
{
    switch (pattern) {
    case VariabilityPattern::NoIntervals: return "no_intervals";
    case VariabilityPattern::NoTransfers: return "no_transfers";
    case VariabilityPattern::PingPong: return "ping_pong";
    case VariabilityPattern::Direction: return "direction";
    }
    return "?";
}

std::optional<TimeNs> intervalOrigin(const TraceSet &trace)
{
    std::optional<TimeNs> origin;
    const auto consider = [&](TimeNs t) { origin = origin ? std::min(*origin, t) : t; };
    for (const auto &gpu : trace.gpus) {
        for (const auto &s : gpu.streams)
            if (s.kernels.size() > 0)
                consider(s.kernels.start.front()); // sorted by start
        if (gpu.copies.size() > 0)
            consider(gpu.copies.start.front());
    }
    return origin;
}

namespace {

// The interval of time t >= origin.
std::int64_t intervalOf(TimeNs t, TimeNs origin, TimeNs length)
{
    return (t - origin) / length;
}

// Where a rank's intervals start and end: the first event start and the last event end at or
// after the origin (an event of no duration counts at its start).
struct RankRange
{
    bool any = false;
    std::int64_t first = 0, last = 0;
    std::uint64_t beforeOrigin = 0;
};

template <typename Visit> void forEachStreamOfRank(const TraceSet &trace, std::uint32_t rank, Visit visit)
{
    for (const auto g : trace.ranks[rank].gpus)
        for (const auto &s : trace.gpus[g].streams)
            if (s.rank == rank)
                visit(s.kernels);
}

RankRange rankRange(const TraceSet &trace, std::uint32_t rank, TimeNs origin, TimeNs length)
{
    RankRange range;
    TimeNs firstStart = 0, lastTime = 0;
    const auto consider = [&](TimeNs start, TimeNs end) {
        if (start < origin) {
            ++range.beforeOrigin;
            return;
        }
        const TimeNs last = std::max(start, end - 1);
        if (!range.any) {
            firstStart = start;
            lastTime = last;
            range.any = true;
        }
        firstStart = std::min(firstStart, start);
        lastTime = std::max(lastTime, last);
    };
    forEachStreamOfRank(trace, rank, [&](const KernelColumns &k) {
        for (std::size_t i = 0; i < k.size(); ++i)
            consider(k.start[i], k.end[i]);
    });
    const auto &r = trace.ranks[rank];
    for (const auto g : copyGpusOfRank(trace, rank)) {
        const auto &c = trace.gpus[g].copies;
        for (std::size_t i = 0; i < c.size(); ++i)
            if (c.pid[i] == r.pid)
                consider(c.start[i], c.end[i]);
    }
    if (range.any) {
        range.first = intervalOf(firstStart, origin, length);
        range.last = intervalOf(lastTime, origin, length);
    }
    return range;
}

struct ShardTask
{
    std::size_t rankEntry = 0; // index into IntervalReport::ranks
    std::int64_t begin = 0, end = 0; // interval indices [begin, end)
};

// The statistics of intervals [task.begin, task.end) of one rank, from nothing else.
std::vector<IntervalStats> computeShard(const DerivedCapture &derived, const EarlierShards &earlier, std::uint32_t rank,
    const std::vector<std::uint32_t> &copyGpus, const ShardTask &task, TimeNs origin, TimeNs length)
{
    const auto &trace = derived.trace();
    std::vector<IntervalStats> out(std::size_t(task.end - task.begin));
    const TimeNs from = origin + task.begin * length, to = origin + task.end * length;
    const auto slotOf
        = [&](TimeNs t) -> IntervalStats & { return out[std::size_t(intervalOf(t, origin, length) - task.begin)]; };
    forEachStreamOfRank(trace, rank, [&](const KernelColumns &k) {
        auto i = std::size_t(std::lower_bound(k.start.begin(), k.start.end(), from) - k.start.begin());
        for (; i < k.size() && k.start[i] < to; ++i)
            slotOf(k.start[i]).kernels.add(k.end[i] - k.start[i]);
    });
    const auto &r = trace.ranks[rank];
    for (const auto g : copyGpus) {
        const auto &c = trace.gpus[g].copies;
        auto i = std::size_t(std::lower_bound(c.start.begin(), c.start.end(), from) - c.start.begin());
        for (; i < c.size() && c.start[i] < to; ++i)
            if (c.pid[i] == r.pid)
                slotOf(c.start[i]).copies[copySlot(c.kind[i])].add(c.bytes[i], c.end[i] - c.start[i]);
    }
    // Busy: the merged intervals (sorted, disjoint) of the GPUs the rank ran kernels on, each
    // clipped to the shard and split at interval edges.
    for (const auto g : r.gpus) {
        const auto &lane = derived.busy(GpuIndex(g));
        const TimeNs counted = earlier.busyUntilOf(g).value_or(std::numeric_limits<TimeNs>::min());
        auto b = std::size_t(std::upper_bound(lane.end.begin(), lane.end.end(), from) - lane.end.begin());
        for (; b < lane.size() && lane.start[b] < to; ++b) {
            TimeNs s = std::max({ lane.start[b], from, counted });
            const TimeNs e = std::min(lane.end[b], to);
            while (s < e) {
                const std::int64_t k = intervalOf(s, origin, length);
                const TimeNs edge = std::min(e, origin + (k + 1) * length);
                out[std::size_t(k - task.begin)].busyNs += edge - s;
                s = edge;
            }
        }
    }
    return out;
}

struct Candidate
{
    double value = 0;
    std::uint32_t rank = 0;
    std::int64_t index = 0;
    TimeNs start = 0;
    std::size_t entry = 0, position = 0; // where its stats are: report.ranks[entry].intervals[position]
};

std::vector<Candidate> candidatesOf(const IntervalReport &report, std::size_t entry, IntervalMetric metric)
{
    std::vector<Candidate> out;
    const auto &ri = report.ranks[entry];
    for (std::size_t i = 0; i < ri.intervals.size(); ++i)
        if (const auto v = intervalMetricValue(ri.intervals[i], metric)) {
            const std::int64_t index = ri.firstIndex + std::int64_t(i);
            out.push_back({ *v, ri.rank, index, report.originNs + index * report.intervalNs, entry, i });
        }
    return out;
}

AnomalyGroup anomaliesOf(const std::vector<Candidate> &candidates, std::uint32_t groupRank, std::size_t top)
{
    AnomalyGroup group;
    group.rank = groupRank;
    std::vector<double> values;
    values.reserve(candidates.size());
    for (const auto &c : candidates)
        values.push_back(c.value);
    group.fences = iqrFences(std::move(values));
    const auto &f = group.fences;
    std::vector<Anomaly> all;
    for (const auto &c : candidates) {
        double distance = 0;
        if (c.value > f.upper)
            distance = c.value - f.upper;
        else if (c.value < f.lower)
            distance = f.lower - c.value;
        else
            continue;
        all.push_back({ c.rank, c.index, c.start, c.value, f.iqr > 0 ? distance / f.iqr : distance });
    }
    group.anomalous = all.size();
    std::sort(all.begin(), all.end(), [](const Anomaly &a, const Anomaly &b) {
        if (a.score != b.score)
            return a.score > b.score;
        return std::tie(a.startNs, a.rank) < std::tie(b.startNs, b.rank);
    });
    if (all.size() > top)
        all.resize(top);
    group.top = std::move(all);
    return group;
}

std::string perInterval(TimeNs ns, std::uint64_t intervals)
{
    return intervals == 0 ? std::string("-") : formatDuration(double(ns) / double(intervals));
}

Variability variabilityOf(const IntervalReport &report, double topPercent)
{
    Variability v;
    v.topPercent = topPercent;
    std::vector<Candidate> all;
    for (std::size_t e = 0; e < report.ranks.size(); ++e) {
        auto c = candidatesOf(report, e, report.metric);
        all.insert(all.end(), c.begin(), c.end());
    }
    std::sort(all.begin(), all.end(), [](const Candidate &a, const Candidate &b) {
        if (a.value != b.value)
            return a.value > b.value;
        return std::tie(a.start, a.rank) < std::tie(b.start, b.rank);
    });
    const std::string metric(intervalMetricName(report.metric));
    if (all.empty()) {
        v.finding = fmt::format("no interval has a {} value", metric);
        return v;
    }
    // At least one interval, at most all of them (a percent outside (0, 100], or NaN, clamps).
    const double wanted = std::ceil(topPercent * double(all.size()) / 100.0);
    const std::size_t topCount = !(wanted >= 1) ? 1 : wanted >= double(all.size()) ? all.size() : std::size_t(wanted);
    std::vector<std::uint64_t> pingPongSizes;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto &c = all[i];
        const bool inTop = i < topCount;
        auto &group = inTop ? v.top : v.rest;
        ++group.intervals;
        const auto &stats = report.ranks[c.entry].intervals[c.position];
        for (std::size_t s = 0; s < kCopySlotCount; ++s)
            group.copies[s].merge(stats.copies[s]);
        const auto &pp = report.pingPong[c.entry];
        const auto lo = std::lower_bound(pp.starts.begin(), pp.starts.end(), c.start);
        const auto hi = std::lower_bound(lo, pp.starts.end(), c.start + report.intervalNs);
        group.pingPongCopies += std::uint64_t(hi - lo);
        if (inTop)
            for (auto it = lo; it != hi; ++it)
                pingPongSizes.push_back(pp.bytes[std::size_t(it - pp.starts.begin())]);
    }
    const auto topTransfers = transferTotal(v.top.copies), restTransfers = transferTotal(v.rest.copies);
    const std::string head = fmt::format("the top {}% of intervals by {} ({} of {})", topPercent, metric,
        v.top.intervals, v.top.intervals + v.rest.intervals);
    const std::string comparison = fmt::format("copy time per interval {} against {} in the rest",
        perInterval(topTransfers.ns, v.top.intervals), perInterval(restTransfers.ns, v.rest.intervals));
    if (topTransfers.count == 0) {
        v.pattern = VariabilityPattern::NoTransfers;
        v.finding = fmt::format("{} hold no copy: their variability is not transfer-bound", head);
        return v;
    }
    if (2 * v.top.pingPongCopies >= topTransfers.count) {
        std::vector<TimeNs> sizes(pingPongSizes.begin(), pingPongSizes.end());
        std::sort(sizes.begin(), sizes.end());
        v.pattern = VariabilityPattern::PingPong;
        v.pingPongMedianBytes = sortedMedian(sizes);
        v.finding = fmt::format("{} are dominated by alternating HtoD/DtoH copies (ping-pong): {} of their {} "
                                "copies, median {}; {}",
            head, v.top.pingPongCopies, topTransfers.count, formatBytes(std::uint64_t(v.pingPongMedianBytes)),
            comparison);
        return v;
    }
    v.pattern = VariabilityPattern::Direction;
    for (std::size_t s = 0; s < kCopySlotCount; ++s)
        if (s != kMemsetSlot && v.top.copies[s].ns > v.top.copies[v.dominantSlot].ns)
            v.dominantSlot = s;
    const double share
        = topTransfers.ns > 0 ? 100.0 * double(v.top.copies[v.dominantSlot].ns) / double(topTransfers.ns) : 0;
    v.finding = fmt::format("{} move mostly {}: {} of their copy time; {}", head, copySlotName(v.dominantSlot),
        formatPercent(share), comparison);
    return v;
}

} // namespace

std::vector<AnomalyGroup> findAnomalies(const IntervalReport &report, IntervalMetric metric, bool pool, std::size_t top)
{
    std::vector<AnomalyGroup> groups;
    if (pool) {
        std::vector<Candidate> all;
        for (std::size_t e = 0; e < report.ranks.size(); ++e) {
            auto c = candidatesOf(report, e, metric);
            all.insert(all.end(), c.begin(), c.end());
        }
        groups.push_back(anomaliesOf(all, kNoIndex, top));
    } else {
        for (std::size_t e = 0; e < report.ranks.size(); ++e)
            groups.push_back(anomaliesOf(candidatesOf(report, e, metric), report.ranks[e].rank, top));
    }
    return groups;
}

IntervalOffsetUnit intervalOffsetUnit(TimeNs intervalNs)
{
    if (intervalNs % 1'000'000'000 == 0)
        return { 1e9, "s" };
    if (intervalNs % 1'000'000 == 0)
        return { 1e6, "ms" };
    if (intervalNs % 1'000 == 0)
        return { 1e3, "us" };
    return { 1, "ns" };
}

std::string intervalOffsetNumber(TimeNs intervalNs, std::int64_t k)
{
    return fmt::format("{:g}", double(k) * double(intervalNs) / intervalOffsetUnit(intervalNs).ns);
}

namespace {

// The latest kernel, copy or memset end, `from` when none ends later.
TimeNs lastGpuEnd(const TraceSet &trace, TimeNs from)
{
    TimeNs last = from;
    for (const auto &gpu : trace.gpus) {
        for (const auto &s : gpu.streams)
            for (const auto end : s.kernels.end)
                last = std::max(last, end);
        for (const auto end : gpu.copies.end)
            last = std::max(last, end);
    }
    return last;
}

TimeNs defaultIntervalLengthOf(const std::optional<TimeNs> &origin, TimeNs last)
{
    constexpr TimeNs kSecond = 1'000'000'000;
    if (!origin)
        return kSecond;
    const TimeNs span = last - *origin;
    if (span >= kMinDefaultIntervals * kSecond)
        return kSecond;
    // 1-2-5 steps downwards from 500 ms: the first that fits kMinDefaultIntervals times.
    for (TimeNs decade = 100'000'000; decade >= 1; decade /= 10)
        for (const TimeNs step : { 5 * decade, 2 * decade, decade })
            if (span >= kMinDefaultIntervals * step)
                return step;
    return 1;
}

} // namespace

TimeNs defaultIntervalLength(const TraceSet &trace)
{
    const auto origin = intervalOrigin(trace);
    return defaultIntervalLengthOf(origin, origin ? lastGpuEnd(trace, *origin) : 0);
}

std::optional<TimeNs> intervalOrigin(const TraceSet &part, const PartsReduction &parts)
{
    constexpr TimeNs kNone = std::numeric_limits<TimeNs>::max();
    std::vector<TimeNs> origin { intervalOrigin(part).value_or(kNone) };
    parts.min(origin);
    return origin[0] == kNone ? std::nullopt : std::optional<TimeNs>(origin[0]);
}

TimeNs defaultIntervalLength(const TraceSet &part, const PartsReduction &parts)
{
    const auto origin = intervalOrigin(part, parts);
    // A part without GPU work adds no end (the lowest time is below every origin).
    const auto mine = intervalOrigin(part);
    std::vector<TimeNs> last { mine ? lastGpuEnd(part, *mine) : std::numeric_limits<TimeNs>::min() };
    parts.max(last);
    return defaultIntervalLengthOf(origin, origin ? last[0] : 0);
}

std::vector<std::int64_t> copyStallIntervals(const IntervalReport &report, std::size_t entry)
{
    std::vector<std::int64_t> out;
    if (entry >= report.ranks.size())
        return out;
    const auto &ri = report.ranks[entry];
    std::vector<double> values;
    values.reserve(ri.intervals.size());
    for (const auto &stats : ri.intervals)
        values.push_back(double(stats.stallNs()));
    const Fences fences = iqrFences(values);
    const double minimum = kMinStallPercent / 100.0 * double(report.intervalNs);
    for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] > fences.upper && values[i] >= minimum)
            out.push_back(ri.firstIndex + std::int64_t(i));
    return out;
}

std::vector<std::int64_t> simultaneousCopyStalls(const IntervalReport &report, const std::vector<std::size_t> &entries)
{
    if (entries.size() < 2)
        return {};
    std::vector<std::int64_t> common = copyStallIntervals(report, entries.front());
    for (std::size_t k = 1; k < entries.size() && !common.empty(); ++k) {
        const auto stalls = copyStallIntervals(report, entries[k]);
        std::vector<std::int64_t> both;
        std::set_intersection(common.begin(), common.end(), stalls.begin(), stalls.end(), std::back_inserter(both));
        common = std::move(both);
    }
    return common;
}

void mergeRankIntervals(RankIntervals &into, const RankIntervals &part)
{
    into.eventsBeforeOrigin += part.eventsBeforeOrigin;
    if (part.intervals.empty())
        return;
    if (into.intervals.empty()) {
        into.firstIndex = part.firstIndex;
        into.intervals = part.intervals;
        return;
    }
    const auto first = std::min(into.firstIndex, part.firstIndex);
    const auto end = std::max(
        into.firstIndex + std::int64_t(into.intervals.size()), part.firstIndex + std::int64_t(part.intervals.size()));
    std::vector<IntervalStats> merged(std::size_t(end - first));
    for (const RankIntervals *from : { static_cast<const RankIntervals *>(&into), &part })
        for (std::size_t i = 0; i < from->intervals.size(); ++i)
            merged[std::size_t(from->firstIndex - first) + i].merge(from->intervals[i]);
    into.firstIndex = first;
    into.intervals = std::move(merged);
}

IntervalReport computeIntervalStatistics(const DerivedCapture &derived, const IntervalOptions &options)
{
    if (options.intervalNs <= 0)
        throw std::invalid_argument("the interval length must be positive");
    constexpr TimeNs kTimeLimit = TimeNs(1) << 62; // every loaded time is inside it (DataProblems)
    if (options.originNs && (*options.originNs < -kTimeLimit || *options.originNs > kTimeLimit))
        throw std::invalid_argument(fmt::format("the origin {} ns is outside +-2^62 ns", *options.originNs));
    const auto &trace = derived.trace();
    IntervalReport report;
    report.intervalNs = options.intervalNs;
    report.metric = options.metric;
    report.pooled = options.pool;
    report.originNs = options.originNs ? *options.originNs : intervalOrigin(trace).value_or(0);
    const TimeNs origin = report.originNs, length = options.intervalNs;

    const unsigned threads = threadsOrEveryCore(options.threads);
    std::vector<ShardTask> tasks;
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
        const auto range = rankRange(trace, r, origin, length);
        if (!range.any)
            continue;
        RankIntervals ri;
        ri.rank = r;
        ri.firstIndex = range.first;
        ri.eventsBeforeOrigin = range.beforeOrigin;
        const std::int64_t count = range.last - range.first + 1;
        if (count > kMaxIntervalsPerRank)
            throw std::invalid_argument(fmt::format("intervals of {} give rank {} {} intervals, more than {}: "
                                                    "choose a longer interval",
                formatDuration(double(length)), trace.ranks[r].rank, count, kMaxIntervalsPerRank));
        ri.intervals.resize(std::size_t(count));
        const std::int64_t shards = std::clamp<std::int64_t>(
            options.shards ? std::int64_t(options.shards) : std::int64_t(threads) * 4, 1, count);
        const std::int64_t block = (count + shards - 1) / shards;
        for (std::int64_t b = 0; b < count; b += block)
            tasks.push_back({ report.ranks.size(), range.first + b, range.first + std::min(count, b + block) });
        report.ranks.push_back(std::move(ri));
    }

    // Each block is computed from the trace alone, then merged into its rank's intervals.
    std::vector<std::vector<std::uint32_t>> copyGpus;
    for (const auto &ri : report.ranks)
        copyGpus.push_back(copyGpusOfRank(trace, ri.rank));
    std::vector<std::vector<IntervalStats>> parts(tasks.size());
    parallelFor(tasks.size(), threads, [&](std::size_t t) {
        const auto entry = tasks[t].rankEntry;
        parts[t] = computeShard(
            derived, options.earlierShards, report.ranks[entry].rank, copyGpus[entry], tasks[t], origin, length);
    });
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        auto &ri = report.ranks[tasks[t].rankEntry];
        const auto offset = std::size_t(tasks[t].begin - ri.firstIndex);
        for (std::size_t i = 0; i < parts[t].size(); ++i)
            ri.intervals[offset + i].merge(parts[t][i]);
    }

    report.pingPong.resize(report.ranks.size());
    parallelFor(report.ranks.size(), threads,
        [&](std::size_t e) { report.pingPong[e] = findPingPong(trace, report.ranks[e].rank); });
    return report;
}

void finishIntervalReport(IntervalReport &report, const IntervalOptions &options)
{
    report.anomalies = findAnomalies(report, options.metric, options.pool, options.top);
    report.variability = variabilityOf(report, options.topPercent);
}

IntervalReport computeIntervals(const DerivedCapture &derived, const IntervalOptions &options)
{
    auto report = computeIntervalStatistics(derived, options);
    finishIntervalReport(report, options);
    return report;
}

} // namespace gaplens::core
