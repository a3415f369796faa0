// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/pace.h"

#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/gpu_projection.h"
#include "interval_union.h"
#include "merged_intervals.h"
#include "search_cursor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

namespace gaplens::core {
namespace {

using Candidate = PaceCandidate;

// The candidates, sorted by start (then outer first), that no earlier one contains. Every kept
// range starts no later than the candidate, so the candidate lies inside one of them exactly
// when it ends no later than the furthest kept end.
std::vector<Candidate> keepOutermost(const std::vector<Candidate> &sorted)
{
    std::vector<Candidate> kept;
    TimeNs coverEnd = 0;
    for (const auto &c : sorted) {
        if (!kept.empty() && c.end <= coverEnd)
            continue;
        kept.push_back(c);
        coverEnd = kept.size() == 1 ? c.end : std::max(coverEnd, c.end);
    }
    return kept;
}

// Instances of `name` (or of its group) on the rank's threads, outermost only, sorted by start.
std::vector<Candidate> outermostRanges(const TraceSet &trace, const Rank &rank, StringId name)
{
    std::vector<Candidate> all;
    for (auto t : rank.threads) {
        const auto &nvtx = trace.threads[t].nvtx;
        for (std::uint32_t i = 0; i < nvtx.size(); ++i)
            if (trace.isInNvtxGroup(nvtx.name[i], name))
                all.push_back({ nvtx.start[i], nvtx.end[i], t, i });
    }
    std::sort(all.begin(), all.end(), [](const Candidate &a, const Candidate &b) {
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end > b.end; // outer first
        return a.thread != b.thread ? a.thread < b.thread : a.range < b.range;
    });
    return keepOutermost(all);
}

// A rank's pace from its iterations: in measured-start order, with their deltas, those of the
// window, and their median and p95; none when no iteration is left.
std::optional<RankPace> finishRankPace(
    std::uint32_t rank, std::vector<PaceIteration> iterations, const PaceOptions &options)
{
    RankPace pace;
    pace.rank = rank;
    pace.iterations = std::move(iterations);
    if (pace.iterations.empty())
        return std::nullopt;
    // GPU projections may reorder (a later CPU range's work can start first only in odd
    // cases, but the contract is "sorted by measured start").
    std::stable_sort(pace.iterations.begin(), pace.iterations.end(),
        [](const PaceIteration &a, const PaceIteration &b) { return a.time.start < b.time.start; });
    for (std::size_t i = 1; i < pace.iterations.size(); ++i)
        pace.iterations[i].deltaToPreviousNs = pace.iterations[i].time.start - pace.iterations[i - 1].time.start;
    // A time selection keeps the iterations that start in it; their deltas and numbering
    // (firstIteration) still refer to the whole capture.
    if (options.window) {
        const auto &w = *options.window;
        pace.firstIteration = std::uint32_t(std::count_if(pace.iterations.begin(), pace.iterations.end(),
            [&](const PaceIteration &it) { return it.time.start < w.start; }));
        std::erase_if(pace.iterations, [&](const PaceIteration &it) { return !w.contains(it.time.start); });
        if (pace.iterations.empty())
            return std::nullopt;
    }
    std::vector<TimeNs> durations;
    durations.reserve(pace.iterations.size());
    for (const auto &it : pace.iterations)
        durations.push_back(it.durationNs);
    std::sort(durations.begin(), durations.end());
    pace.medianNs = sortedMedian(durations);
    pace.p95Ns = sortedPercentileNearestRank(durations, 95.0);
    return pace;
}

void setBusyPercent(StepUsage &usage)
{
    usage.busyPercent = usage.step.duration() > 0 ? 100.0 * double(usage.busyNs) / double(usage.step.duration()) : 0.0;
}

PaceIteration cpuIteration(const Candidate &c)
{
    PaceIteration it;
    it.thread = c.thread;
    it.range = c.range;
    it.cpu = { c.start, c.end };
    it.time = it.cpu;
    it.durationNs = it.time.duration();
    return it;
}

// Where the previous step's searches ended on one stream: steps come in time order, so each
// window is found by a short gallop instead of two binary searches over the whole stream.
struct StreamCursor
{
    std::uint32_t firstAfterStart = 0; // past the kernels starting at or before the window start
    std::uint32_t firstAtEnd = 0; // the first kernel starting at or after the window end
};

// detail::kernelRun for a set window, searching from the cursor.
detail::IntervalRun kernelRunFrom(const KernelColumns &kernels, TimeRange window, StreamCursor &cursor)
{
    const auto &start = kernels.start;
    detail::IntervalRun run { start.data(), kernels.end.data(), 0, 0 };
    run.hi = detail::gallopFrom(cursor.firstAtEnd, start.size(), [&](std::size_t k) { return start[k] < window.end; });
    run.lo = detail::gallopFrom(
        cursor.firstAfterStart, start.size(), [&](std::size_t k) { return start[k] <= window.start; });
    // Kernels starting at or before the window start still count when they end inside it.
    while (run.lo > 0 && kernels.end[run.lo - 1] > window.start)
        --run.lo;
    run.lo = std::min(run.lo, run.hi);
    return run;
}

} // namespace

std::vector<RankPace> computeRankPaces(const TraceSet &trace, const PaceOptions &options)
{
    std::vector<RankPace> ranks;
    const StringId name = options.rangeName.empty() ? kEmptyString : trace.strings.find(options.rangeName);
    if (name == kEmptyString)
        return ranks;

    std::unique_ptr<GpuProjector> projector;
    if (options.useGpuProjection)
        projector = std::make_unique<GpuProjector>(trace);

    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
        if (!options.ranks.includes(r))
            continue;
        std::vector<PaceIteration> iterations;
        for (const auto &c : outermostRanges(trace, trace.ranks[r], name)) {
            auto it = cpuIteration(c);
            if (projector) {
                const auto gpu = projector->project(c.thread, it.cpu);
                if (!gpu)
                    continue;
                it.time = *gpu;
                it.durationNs = it.time.duration();
            }
            iterations.push_back(it);
        }
        if (auto pace = finishRankPace(r, std::move(iterations), options))
            ranks.push_back(std::move(*pace));
    }
    return ranks;
}

std::vector<std::vector<PaceCandidate>> paceCandidates(const TraceSet &trace, const PaceOptions &options)
{
    std::vector<std::vector<PaceCandidate>> candidates(trace.ranks.size());
    const StringId name = options.rangeName.empty() ? kEmptyString : trace.strings.find(options.rangeName);
    if (name == kEmptyString)
        return candidates;
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
        if (options.ranks.includes(r))
            candidates[r] = outermostRanges(trace, trace.ranks[r], name);
    return candidates;
}

std::optional<RankPace> rankPaceFromShards(
    std::uint32_t rank, const std::vector<PaceCandidate> &inShardOrder, const PaceOptions &options)
{
    std::vector<PaceIteration> iterations;
    for (const auto &c : keepOutermost(inShardOrder))
        iterations.push_back(cpuIteration(c));
    return finishRankPace(rank, std::move(iterations), options);
}

std::map<std::uint32_t, TimeNs> stepBusyCarries(const TraceSet &trace, const StepAccountingOptions &options)
{
    std::map<std::uint32_t, TimeNs> carries;
    auto later = [&](std::uint32_t rank, TimeNs end) {
        const auto [it, added] = carries.try_emplace(rank, end);
        if (!added)
            it->second = std::max(it->second, end);
    };
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
        const Rank &rank = trace.ranks[r];
        for (const auto g : rank.gpus) {
            const Gpu &gpu = trace.gpus[g];
            for (const auto &stream : gpu.streams)
                if (stream.rank == r)
                    for (const auto end : stream.kernels.end)
                        later(r, end);
            if (options.includeCopies)
                for (std::size_t i = 0; i < gpu.copies.size(); ++i)
                    if (gpu.copies.pid[i] == rank.pid)
                        later(r, gpu.copies.end[i]);
        }
    }
    return carries;
}

PaceReport comparePaces(std::string rangeName, std::vector<RankPace> ranks)
{
    PaceReport report;
    report.rangeName = std::move(rangeName);
    report.ranks = std::move(ranks);
    if (report.ranks.empty())
        return report;

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
        // Ranks that tie for slowest (e.g. all waiting on one collective) name no straggler:
        // picking the lowest index would invent one.
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
    return report;
}

PaceReport computePace(const TraceSet &trace, const PaceOptions &options)
{
    return comparePaces(options.rangeName, computeRankPaces(trace, options));
}

std::string describeStraggler(const TraceSet &trace, const StragglerVerdict &verdict)
{
    const auto number = verdict.rank < trace.ranks.size() ? trace.ranks[verdict.rank].rank : std::int32_t(verdict.rank);
    return fmt::format("rank {} was slowest in {} of {} steps, {}% above the median", number, verdict.slowestCount,
        verdict.iterations, std::lround(verdict.percentAboveMedian));
}

std::vector<RankSteps> computeStepAccounting(
    const TraceSet &trace, const PaceReport &pace, const StepAccountingOptions &options)
{
    return computeStepAccounting(trace, pace.ranks, options);
}

std::vector<RankSteps> computeStepAccounting(
    const TraceSet &trace, const std::vector<RankPace> &ranks, const StepAccountingOptions &options)
{
    std::vector<RankSteps> out;
    std::vector<detail::IntervalRun> runs;
    std::vector<detail::CollectedIntervals> copies;
    std::vector<std::vector<StreamCursor>> cursors; // [position in rank.gpus][stream]
    for (const auto &rp : ranks) {
        if (rp.rank >= trace.ranks.size())
            continue;
        const Rank &rank = trace.ranks[rp.rank];
        cursors.assign(rank.gpus.size(), {});
        for (std::size_t g = 0; g < rank.gpus.size(); ++g)
            cursors[g].resize(trace.gpus[rank.gpus[g]].streams.size());
        RankSteps steps;
        steps.rank = rp.rank;
        steps.steps.reserve(rp.iterations.size());
        for (std::uint32_t i = 0; i < rp.iterations.size(); ++i) {
            const TimeRange step = rp.iterations[i].time;
            const TimeWindow window = step;
            StepUsage usage;
            usage.iteration = i;
            usage.step = step;
            runs.clear();
            copies.clear();
            for (std::size_t g = 0; g < rank.gpus.size(); ++g) {
                const Gpu &gpu = trace.gpus[rank.gpus[g]];
                for (std::size_t s = 0; s < gpu.streams.size(); ++s) {
                    const Stream &stream = gpu.streams[s];
                    if (stream.rank != rp.rank)
                        continue;
                    const auto run = kernelRunFrom(stream.kernels, step, cursors[g][s]);
                    for (std::size_t k = run.lo; k < run.hi; ++k) {
                        const auto c = detail::clip(run.start[k], run.end[k], window);
                        if (c.end > c.start)
                            usage.kernelNs += c.duration();
                    }
                    runs.push_back(run);
                }
                if (options.includeCopies)
                    copies.push_back(detail::collectCopies(gpu.copies, window, rank.pid));
            }
            for (const auto &c : copies)
                runs.push_back(c.run());
            // In a time shard, what the earlier shards' work covers is theirs to count.
            TimeWindow busyWindow = window;
            if (const auto carry = options.earlierShards.find(rp.rank); carry != options.earlierShards.end())
                busyWindow->start = std::clamp(carry->second, step.start, step.end);
            detail::forEachMergedInterval(
                runs, busyWindow, [&](TimeRange merged) { usage.busyNs += merged.duration(); });
            setBusyPercent(usage);
            steps.steps.push_back(usage);
        }
        out.push_back(std::move(steps));
    }
    return out;
}

void addShardSteps(RankSteps &into, const RankSteps &shard)
{
    if (into.steps.empty()) {
        into = shard;
        return;
    }
    for (std::size_t i = 0; i < into.steps.size() && i < shard.steps.size(); ++i) {
        auto &usage = into.steps[i];
        usage.kernelNs += shard.steps[i].kernelNs;
        usage.busyNs += shard.steps[i].busyNs;
        setBusyPercent(usage);
    }
}

} // namespace gaplens::core
