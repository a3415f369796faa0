// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/findings.h"

#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/panel_data.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <tuple>

namespace gaplens::core {

std::vector<CopyTotals> summarizeCopies(
    const TraceSet &trace, std::uint32_t gpu, std::uint32_t pid, const TimeWindow &window)
{
    std::map<CopyKind, CopyTotals> byKind;
    if (gpu >= trace.gpus.size())
        return {};
    const auto &c = trace.gpus[gpu].copies;
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (pid != 0 && c.pid[i] != pid)
            continue;
        if (window && !window->contains(c.start[i]))
            continue;
        auto &t = byKind[c.kind[i]];
        t.kind = c.kind[i];
        ++t.count;
        t.bytes += c.bytes[i];
        t.totalNs += c.end[i] - c.start[i];
    }
    std::vector<CopyTotals> out;
    for (const auto &[kind, t] : byKind)
        out.push_back(t);
    return out;
}

std::string formatRatio(double ratio)
{
    if (ratio >= 3)
        return fmt::format("{}x", std::lround(ratio));
    return fmt::format("{:.1f}x", ratio);
}

namespace {

std::string gpuLabel(const TraceSet &trace, std::uint32_t rank, std::uint32_t gpu)
{
    const auto device = trace.gpus[gpu].deviceId;
    if (trace.ranks.size() > 1 && rank < trace.ranks.size())
        return fmt::format("rank {} GPU {}", trace.ranks[rank].rank, device);
    return fmt::format("GPU {}", device);
}

// "ranks 0-5", "ranks 0, 2, 4-7": rank numbers ascending, runs collapsed.
std::string describeRankNumbers(std::vector<std::int32_t> numbers)
{
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    std::string out = numbers.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < numbers.size();) {
        std::size_t j = i;
        while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1)
            ++j;
        out += fmt::format("{}{}", i ? ", " : "", numbers[i]);
        if (j > i)
            out += fmt::format("-{}", numbers[j]);
        i = j + 1;
    }
    return out;
}

// The rank numbers of the rows.
std::string describeRanks(const TraceSet &trace, const std::vector<const GpuSummaryRow *> &rows)
{
    std::vector<std::int32_t> numbers;
    for (const auto *row : rows)
        numbers.push_back(trace.ranks[row->rank].rank);
    return describeRankNumbers(std::move(numbers));
}

// "rank 0 GPU 0 idle 97% of its 1.450 s capture: …" when most of a GPU's capture lies before
// its first or after its last kernel, which busy % (first to last kernel) never shows. GPUs
// with the same story (three or more) are told in one line, so a 512-rank set does not bury
// the other findings.
void addIdleOutsideKernels(
    const TraceSet &trace, const std::vector<GpuSummaryRow> &rows, std::vector<Finding> &findings)
{
    std::vector<const GpuSummaryRow *> mostlyOutside;
    for (const auto &row : rows)
        if (row.gpu != kNoIndex && row.captureSpan.duration() > 0
            && 2 * row.idleOutside.totalNs() >= row.captureSpan.duration())
            mostlyOutside.push_back(&row);
    if (mostlyOutside.empty())
        return;
    // Rounded down: a GPU that ran anything is never "idle 100%".
    auto idlePercent = [](const GpuSummaryRow &row) {
        return std::int64_t(std::floor(100.0 * (1.0 - double(row.busyNs) / double(row.captureSpan.duration()))));
    };
    auto line = [&](const GpuSummaryRow &row) {
        return fmt::format("{} idle {}% of its {} capture: its kernels ran within {} of it ({} idle before the first "
                           "kernel, {} after the last); busy % counts only that {}",
            gpuLabel(trace, row.rank, row.gpu), idlePercent(row), formatDuration(double(row.captureSpan.duration())),
            formatDuration(double(row.window.duration())), formatDuration(double(row.idleOutside.beforeNs)),
            formatDuration(double(row.idleOutside.afterNs)), formatDuration(double(row.window.duration())));
    };
    if (mostlyOutside.size() < 3) {
        for (const auto *row : mostlyOutside)
            findings.push_back({ FindingKind::IdleOutsideKernels, line(*row), row->rank, row->gpu });
        return;
    }
    auto minMax = [&](auto value) {
        auto [lo, hi] = std::minmax_element(mostlyOutside.begin(), mostlyOutside.end(),
            [&](const GpuSummaryRow *a, const GpuSummaryRow *b) { return value(*a) < value(*b); });
        return std::make_pair(value(**lo), value(**hi));
    };
    auto range = [](const std::string &lo, const std::string &hi) { return lo == hi ? lo : lo + " to " + hi; };
    const auto [pLo, pHi] = minMax(idlePercent);
    const auto [wLo, wHi] = minMax([](const GpuSummaryRow &r) { return r.window.duration(); });
    const auto [sLo, sHi] = minMax([](const GpuSummaryRow &r) { return r.captureSpan.duration(); });
    findings.push_back({ FindingKind::IdleOutsideKernels,
        fmt::format("{} GPUs ({}) idle {}% of their capture: their kernels ran within {} of {}; busy % counts only "
                    "that time",
            mostlyOutside.size(), describeRanks(trace, mostlyOutside),
            pLo == pHi ? std::to_string(pLo) : fmt::format("{}-{}", pLo, pHi),
            range(formatDuration(double(wLo)), formatDuration(double(wHi))),
            range(formatDuration(double(sLo)), formatDuration(double(sHi)))) });
}

// Where inside their steps the idle time of these gaps falls: "at step start " when at least
// half of it is in the first third of a step, "at step end " for the last third, else "".
std::string idlePosition(const std::vector<GapBlame> &gaps, const std::vector<TimeRange> &steps)
{
    if (steps.empty())
        return {};
    double third[3] = { 0, 0, 0 };
    double total = 0;
    for (const auto &g : gaps) {
        auto it = std::upper_bound(
            steps.begin(), steps.end(), g.midpoint, [](TimeNs t, const TimeRange &s) { return t < s.start; });
        if (it == steps.begin())
            continue;
        --it;
        if (!it->contains(g.midpoint) || it->duration() <= 0)
            continue;
        const double f = double(g.midpoint - it->start) / double(it->duration());
        third[std::min(2, int(f * 3))] += double(g.gap.duration());
        total += double(g.gap.duration());
    }
    if (total <= 0)
        return {};
    if (third[0] >= total / 2)
        return "at step start ";
    if (third[2] >= total / 2)
        return "at step end ";
    return {};
}

std::string causePhrase(const BlameBucket &b)
{
    switch (b.cause) {
    case GapCause::NoCudaCall: return "with no CUDA call";
    case GapCause::ApiCall:
        // A slow launch wants fewer or fused launches (CUDA graphs), not fewer syncs.
        if (apiKindOf(b.key) == ApiKind::Launch)
            return "in " + b.key + " (launch-bound: the launches themselves were slow)";
        return "in " + b.key;
    case GapCause::QueuedDependencyWait: return "queued behind other GPU work";
    case GapCause::Copy: return "moving data (copies or memsets ran for at least half of each gap)";
    }
    return b.key;
}

// A share in whole percent that says "100" or "0" only when it is exactly that: 99.6% of the
// idle time reads 99%, not all of it.
std::int64_t sharePercent(double part, double whole)
{
    if (whole <= 0 || part <= 0)
        return 0;
    if (part >= whole)
        return 100;
    return std::clamp<std::int64_t>(std::lround(100.0 * part / whole), 1, 99);
}

// An idle story with the row it tells of.
struct ToldStory
{
    const GpuSummaryRow *row = nullptr;
    const IdleStory *story = nullptr;
};

template <typename StepsOf>
IdleStory idleStory(const DerivedCapture &derived, const GpuSummaryRow &row, double idlePercent, bool perStep,
    const StepsOf &stepsOf, const TimeWindow &window)
{
    const TraceSet &trace = derived.trace();
    IdleStory story;
    story.idlePercent = sharePercent(idlePercent, 100.0);
    story.perStep = perStep;
    const GpuIndex gpu(row.gpu);
    const auto blame = derived.blameReportOfGpus(std::span(&gpu, 1), window);
    if (blame.overall.byCause.empty() || blame.overall.totalGapNs <= 0)
        return story;
    const auto &cause = blame.overall.byCause.front();
    const double share = 100.0 * double(cause.totalNs) / double(blame.overall.totalGapNs);
    std::vector<GapBlame> ofCause;
    for (const auto &g : blame.gaps)
        if (g.cause == cause.cause && (g.cause != GapCause::ApiCall || g.apiName == cause.name))
            ofCause.push_back(g);
    std::vector<TimeRange> stepRanges;
    if (const RankSteps *rs = stepsOf(row.rank))
        for (const auto &s : rs->steps)
            stepRanges.push_back(s.step);
    std::sort(
        stepRanges.begin(), stepRanges.end(), [](const TimeRange &a, const TimeRange &b) { return a.start < b.start; });
    story.hasCause = true;
    story.most = share >= 50;
    story.causePercent = sharePercent(double(cause.totalNs), double(blame.overall.totalGapNs));
    story.where = idlePosition(ofCause, stepRanges);
    story.cause = causePhrase(cause);
    story.hasCopies = blame.overall.copyNs > 0;
    story.copyPercent = sharePercent(double(blame.overall.copyNs), double(blame.overall.totalGapNs));
    // The phase of that cause's idle time, when one phase holds most of it.
    std::map<std::string, TimeNs> phases;
    for (const auto &g : ofCause)
        phases[std::string(gapPhaseKey(trace, g))] += g.gap.duration();
    const auto top = std::max_element(
        phases.begin(), phases.end(), [](const auto &a, const auto &b) { return a.second < b.second; });
    if (top != phases.end() && top->first != kNoPhaseLabel && 2 * top->second >= cause.totalNs)
        story.phase = top->first;
    return story;
}

// "rank 0 GPU 0 idle 35% of each step; most idle time (100%) is at step start with no CUDA
// call, in data_loading" for one GPU; "8 GPUs (ranks 0-7) idle 33-36% of each step; most idle
// time (97-100%) is …" for a group. The percentages of a group are the exact range.
std::string describeIdle(const TraceSet &trace, const std::vector<const ToldStory *> &group)
{
    auto percents = [&](auto value) {
        const auto [lo, hi] = std::minmax_element(group.begin(), group.end(),
            [&](const ToldStory *a, const ToldStory *b) { return value(*a->story) < value(*b->story); });
        const auto l = value(*(*lo)->story), h = value(*(*hi)->story);
        return l == h ? fmt::format("{}", l) : fmt::format("{}-{}", l, h);
    };
    const IdleStory &first = *group.front()->story;
    std::string text;
    if (group.size() == 1) {
        text = gpuLabel(trace, group.front()->row->rank, group.front()->row->gpu);
    } else {
        std::vector<const GpuSummaryRow *> rows;
        for (const auto *s : group)
            rows.push_back(s->row);
        text = fmt::format("{} GPUs ({})", group.size(), describeRanks(trace, rows));
    }
    text += fmt::format(" idle {}% of {}", percents([](const IdleStory &s) { return s.idlePercent; }),
        first.perStep ? "each step"
                      : (group.size() == 1 ? "the time between its first and last kernel"
                                           : "the time between their first and last kernel"));
    if (!first.hasCause)
        return text;
    text += fmt::format("; {} ({}%) is {}{}", first.most ? "most idle time" : "the largest part of the idle time",
        percents([](const IdleStory &s) { return s.causePercent; }), first.where.empty() ? "spent " : first.where,
        first.cause);
    if (!first.phase.empty())
        text += ", in " + first.phase;
    if (first.hasCopies)
        text += fmt::format("; copies or memsets ran during {}% of the idle time",
            percents([](const IdleStory &s) { return s.copyPercent; }));
    return text;
}

// The story of a row's GPU when it is idle at least options.idleFindingPercent.
template <typename StepsOf>
std::optional<IdleStory> idleStoryOfRow(const DerivedCapture &derived, const GpuSummaryRow &row, const StepsOf &stepsOf,
    const CaptureSummaryOptions &options)
{
    if (row.gpu == kNoIndex || row.window.duration() <= 0)
        return std::nullopt;
    // One step is no pattern: per-step figures need at least two.
    const bool perStep = row.medianStepBusyPercent.has_value() && row.steps >= 2;
    const double idlePercent = perStep ? 100.0 - *row.medianStepBusyPercent : 100.0 - row.busyPercent;
    if (idlePercent < options.idleFindingPercent)
        return std::nullopt;
    return idleStory(derived, row, idlePercent, perStep, stepsOf, options.window);
}

// Idle GPUs, most idle first. GPUs telling the same story (three or more, idle percentages
// within 10 points of each other) share one line, so the straggler line stays in view.
void addIdleGpus(const TraceSet &trace, const CaptureSummaryPart &part, const CaptureSummaryOptions &options,
    std::vector<Finding> &findings)
{
    std::vector<ToldStory> stories;
    for (std::size_t i = 0; i < part.rows.size(); ++i)
        if (part.idle[i])
            stories.push_back({ &part.rows[i], &*part.idle[i] });
    std::stable_sort(stories.begin(), stories.end(),
        [](const ToldStory &a, const ToldStory &b) { return a.story->idlePercent > b.story->idlePercent; });
    constexpr std::size_t kMinGroup = 3;
    constexpr std::int64_t kGroupSpreadPercent = 10;
    std::vector<std::vector<const ToldStory *>> lines;
    std::vector<bool> told(stories.size(), false);
    for (std::size_t i = 0; i < stories.size(); ++i) {
        if (told[i])
            continue;
        std::vector<const ToldStory *> group { &stories[i] };
        for (std::size_t j = i + 1; j < stories.size(); ++j)
            if (!told[j] && stories[j].story->key() == stories[i].story->key()
                && stories[i].story->idlePercent - stories[j].story->idlePercent <= kGroupSpreadPercent)
                group.push_back(&stories[j]);
        if (group.size() < kMinGroup)
            group.resize(1);
        for (const auto *s : group)
            told[std::size_t(s - stories.data())] = true;
        lines.push_back(std::move(group));
    }
    std::size_t shownGpus = 0;
    for (std::size_t i = 0; i < lines.size() && i < options.maxIdleFindings; ++i) {
        const bool one = lines[i].size() == 1;
        findings.push_back({ FindingKind::IdleGpu, describeIdle(trace, lines[i]),
            one ? lines[i].front()->row->rank : kNoIndex, one ? lines[i].front()->row->gpu : kNoIndex });
        shownGpus += lines[i].size();
    }
    if (lines.size() > options.maxIdleFindings)
        findings.push_back({ FindingKind::IdleGpu,
            fmt::format("… and {} more GPUs idle at least {}% of each step", stories.size() - shownGpus,
                std::lround(options.idleFindingPercent)) });
}

// The index of the rank numbered `number`, kNoIndex when none is.
std::uint32_t rankIndexOf(const TraceSet &trace, std::int32_t number)
{
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
        if (trace.ranks[r].rank == number)
            return r;
    return kNoIndex;
}

// Interval findings (docs/intervals.md, "Findings"): thresholds that keep them to what stands out.
constexpr std::size_t kMinFindingIntervals = 8; // a rank's intervals with a value, for quartiles that mean something
constexpr double kMinSpreadRatio = 2; // an anomalous interval's spread against the rank's median interval
constexpr std::size_t kMaxAnomalyLines = 4;
constexpr std::uint64_t kMinPingPongCopies = 16;
constexpr std::size_t kMaxStallTimes = 5;

// Interval k's start from the origin, "41" (in intervalOffsetUnit).
std::string offsetOf(const IntervalReport &report, std::int64_t k)
{
    return intervalOffsetNumber(report.intervalNs, k);
}

bool inWindow(const IntervalReport &report, std::int64_t k, const TimeWindow &window)
{
    const TimeNs start = report.originNs + k * report.intervalNs;
    return !window || (start < window->end && start + report.intervalNs > window->start);
}

// One rank's run of anomalous intervals: consecutive intervals above the upper fence of the
// kernel duration spread with at least kMinSpreadRatio times the rank's median interval,
// around the highest-scoring one.
struct SpreadRun
{
    std::int32_t rankNumber = 0;
    std::int64_t first = 0, last = 0;
    double ratio = 0; // the run's highest spread over the rank's median interval
    double score = 0; // the highest-scoring interval's
};

std::optional<SpreadRun> spreadRunOf(
    const TraceSet &trace, const IntervalReport &report, std::size_t entry, const TimeWindow &window)
{
    const auto &ri = report.ranks[entry];
    const auto &group = report.anomalies[entry];
    if (group.fences.n < kMinFindingIntervals)
        return std::nullopt;
    std::vector<double> values;
    for (const auto &stats : ri.intervals)
        if (const auto v = intervalMetricValue(stats, report.metric))
            values.push_back(*v);
    const double median = medianOf(values);
    if (median <= 0)
        return std::nullopt;
    std::map<std::int64_t, double> qualifying; // interval -> value
    for (const auto &a : group.top)
        if (a.value > group.fences.upper && a.value >= kMinSpreadRatio * median && inWindow(report, a.index, window))
            qualifying.emplace(a.index, a.value);
    const Anomaly *best = nullptr;
    for (const auto &a : group.top) // highest score first
        if (qualifying.count(a.index)) {
            best = &a;
            break;
        }
    if (!best)
        return std::nullopt;
    SpreadRun run { trace.ranks[ri.rank].rank, best->index, best->index, best->value / median, best->score };
    while (qualifying.count(run.first - 1))
        --run.first;
    while (qualifying.count(run.last + 1))
        ++run.last;
    for (auto k = run.first; k <= run.last; ++k)
        run.ratio = std::max(run.ratio, qualifying[k] / median);
    return run;
}

void addSpreadFindings(const TraceSet &trace, const IntervalReport &report, const std::vector<std::size_t> &entries,
    const TimeWindow &window, std::vector<Finding> &findings)
{
    std::vector<SpreadRun> runs;
    for (const auto e : entries)
        if (const auto run = spreadRunOf(trace, report, e, window))
            runs.push_back(*run);
    // Ranks anomalous in the same intervals are one line, the highest score first.
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<const SpreadRun *>> byIntervals;
    for (const auto &run : runs)
        byIntervals[{ run.first, run.last }].push_back(&run);
    std::vector<std::vector<const SpreadRun *>> lines;
    for (auto &[key, group] : byIntervals)
        lines.push_back(group);
    auto bestScore = [](const std::vector<const SpreadRun *> &line) {
        double best = 0;
        for (const auto *run : line)
            best = std::max(best, run->score);
        return best;
    };
    std::stable_sort(
        lines.begin(), lines.end(), [&](const auto &a, const auto &b) { return bestScore(a) > bestScore(b); });
    const auto unit = intervalOffsetUnit(report.intervalNs).name;
    std::size_t told = 0;
    for (std::size_t i = 0; i < lines.size() && i < kMaxAnomalyLines; ++i) {
        const auto &line = lines[i];
        std::vector<std::int32_t> numbers;
        double lo = line.front()->ratio, hi = lo;
        for (const auto *run : line) {
            numbers.push_back(run->rankNumber);
            lo = std::min(lo, run->ratio);
            hi = std::max(hi, run->ratio);
        }
        const auto &run = *line.front();
        const auto count = run.last - run.first + 1;
        const std::string ratio = fmt::format("{:.1f}", lo) == fmt::format("{:.1f}", hi)
            ? fmt::format("{:.1f}x", hi)
            : fmt::format("{:.1f}-{:.1f}x", lo, hi);
        findings.push_back({ FindingKind::AnomalousIntervals,
            fmt::format(
                "{}: {}-{} {} anomalous ({} interval{} of {} {}; kernel duration spread {} the median interval)",
                describeRankNumbers(numbers), offsetOf(report, run.first), offsetOf(report, run.last + 1), unit, count,
                count == 1 ? "" : "s", offsetOf(report, 1), unit, ratio),
            line.size() == 1 ? rankIndexOf(trace, run.rankNumber) : kNoIndex });
        told += line.size();
    }
    if (runs.size() > told)
        findings.push_back({ FindingKind::AnomalousIntervals,
            fmt::format("… and {} more ranks with anomalous intervals", runs.size() - told) });
}

void addStallFinding(const IntervalReport &report, const std::vector<std::size_t> &entries, const TimeWindow &window,
    std::vector<Finding> &findings)
{
    for (const auto e : entries)
        if (report.ranks[e].intervals.size() < kMinFindingIntervals)
            return;
    std::vector<std::int64_t> stalls;
    for (const auto k : simultaneousCopyStalls(report, entries))
        if (inWindow(report, k, window))
            stalls.push_back(k);
    if (stalls.empty())
        return;
    // The copy time of each stall (copies starting in the interval, overlapping ones each
    // counted): lowest and highest over the ranks and intervals.
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = 0;
    for (const auto e : entries) {
        const auto &ri = report.ranks[e];
        for (const auto k : stalls) {
            const TimeNs ns = ri.intervals[std::size_t(k - ri.firstIndex)].stallNs();
            lo = std::min(lo, ns);
            hi = std::max(hi, ns);
        }
    }
    const auto unit = intervalOffsetUnit(report.intervalNs).name;
    const std::string ranks = entries.size() == 2 ? "both ranks" : fmt::format("all {} ranks", entries.size());
    const std::string copyTime
        = lo == hi ? formatDuration(double(hi)) : formatDuration(double(lo)) + " to " + formatDuration(double(hi));
    std::string text;
    if (stalls.size() == 1) {
        text = fmt::format("simultaneous copy stalls on {} at {}-{} {} (copies starting in it ran {} on each rank)",
            ranks, offsetOf(report, stalls.front()), offsetOf(report, stalls.front() + 1), unit, copyTime);
    } else {
        std::string at;
        const std::size_t shown = std::min(stalls.size(), kMaxStallTimes);
        for (std::size_t i = 0; i < shown; ++i)
            at += fmt::format("{}{}", i == 0 ? "" : (i + 1 == shown && shown == stalls.size() ? " and " : ", "),
                offsetOf(report, stalls[i]));
        if (shown < stalls.size())
            at += ", …";
        text = fmt::format("simultaneous copy stalls on {} in {} intervals of {} {}, at {} {} (copies starting in "
                           "them ran {} per interval and rank)",
            ranks, stalls.size(), offsetOf(report, 1), unit, at, unit, copyTime);
    }
    findings.push_back({ FindingKind::SimultaneousCopyStalls, std::move(text) });
}

void addPingPongFinding(const TraceSet &trace, const IntervalReport &report, const std::vector<std::size_t> &entries,
    const TimeWindow &window, std::vector<Finding> &findings)
{
    std::uint64_t copies = 0, htodDtoh = 0;
    std::vector<TimeNs> sizes;
    std::vector<std::int32_t> numbers;
    for (const auto e : entries) {
        const auto &pp = report.pingPong[e];
        const auto rank = report.ranks[e].rank;
        auto lo = pp.starts.begin(), hi = pp.starts.end();
        std::uint64_t rankHtodDtoh = pp.htodDtohCopies;
        if (window) {
            lo = std::lower_bound(pp.starts.begin(), pp.starts.end(), window->start);
            hi = std::lower_bound(lo, pp.starts.end(), window->end);
            rankHtodDtoh = 0;
            for (const auto g : copyGpusOfRank(trace, rank)) {
                const auto &c = trace.gpus[g].copies;
                for (std::size_t i = 0; i < c.size(); ++i)
                    if (c.pid[i] == trace.ranks[rank].pid && window->contains(c.start[i])
                        && (c.kind[i] == CopyKind::HostToDevice || c.kind[i] == CopyKind::DeviceToHost))
                        ++rankHtodDtoh;
            }
        }
        if (lo == hi)
            continue;
        numbers.push_back(trace.ranks[rank].rank);
        copies += std::uint64_t(hi - lo);
        htodDtoh += rankHtodDtoh;
        for (auto it = lo; it != hi; ++it)
            sizes.push_back(TimeNs(pp.bytes[std::size_t(it - pp.starts.begin())]));
    }
    if (copies < kMinPingPongCopies || 2 * copies < htodDtoh)
        return;
    std::sort(sizes.begin(), sizes.end());
    findings.push_back({ FindingKind::PingPong,
        fmt::format("HtoD/DtoH ping-pong on {}: {} of {} {} HtoD and DtoH copies alternate direction in runs of {} or "
                    "more (median {}): batch them",
            describeRankNumbers(numbers), copies, numbers.size() == 1 ? "its" : "their", htodDtoh, kPingPongMinRun,
            formatBytes(std::uint64_t(sortedMedian(sizes)))),
        numbers.size() == 1 ? rankIndexOf(trace, numbers.front()) : kNoIndex });
}

// Anomalous kernel duration spread, simultaneous copy stalls and ping-pong over the selected
// ranks, for the intervals overlapping the window (fences of the whole capture).
void addIntervalFindings(const TraceSet &trace, const IntervalReport &report, const CaptureSummaryOptions &options,
    std::vector<Finding> &findings)
{
    std::vector<std::size_t> entries;
    for (std::size_t e = 0; e < report.ranks.size(); ++e)
        if (options.ranks.includes(report.ranks[e].rank))
            entries.push_back(e);
    addSpreadFindings(trace, report, entries, options.window, findings);
    addStallFinding(report, entries, options.window, findings);
    addPingPongFinding(trace, report, entries, options.window, findings);
}

} // namespace

IntervalOptions findingIntervalOptions(const CaptureSummaryOptions &options, TimeNs defaultLength)
{
    IntervalOptions io;
    io.intervalNs = options.intervalNs.value_or(defaultLength);
    io.metric = IntervalMetric::Stddev;
    io.top = std::numeric_limits<std::size_t>::max();
    return io;
}

CaptureSummary summarizeCapture(const TraceSet &trace, const CaptureSummaryOptions &options)
{
    DerivedOptions derivedOptions;
    derivedOptions.minGapNs = options.minGapNs;
    derivedOptions.foldIndexes = false;
    // The caller keeps the trace alive for the call: a non-owning pointer.
    const std::shared_ptr<const TraceSet> borrowed(std::shared_ptr<const TraceSet>(), &trace);
    return summarizeCapture(*DerivedCapture::build(borrowed, derivedOptions), options);
}

CaptureSummaryPart summarizeCapturePart(
    const DerivedCapture &derived, const CaptureSummaryOptions &options, const std::vector<RankSteps> &steps)
{
    const TraceSet &trace = derived.trace();
    CaptureSummaryPart out;
    const auto &window = options.window;
    for (const auto &g : trace.gpus)
        out.gpuEvents += g.kernelCount() + g.copies.size();
    for (const auto &t : trace.threads)
        out.nvtxRanges += t.nvtx.size();

    auto stepsOf = [&](std::uint32_t rank) -> const RankSteps * {
        for (const auto &s : steps)
            if (s.rank == rank)
                return &s;
        return nullptr;
    };

    // Busy and gaps of the window: binary searches in the derived capture's columns.
    auto figures = [&](std::uint32_t g) {
        return std::make_pair(derived.busyIn(GpuIndex(g), window), derived.gapFiguresIn(GpuIndex(g), window));
    };

    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
        if (!options.ranks.includes(r))
            continue;
        const auto &rank = trace.ranks[r];
        const RankSteps *rs = stepsOf(r);
        TimeRange captureSpan = rank.span;
        if (window) {
            captureSpan = { std::max(captureSpan.start, window->start), std::min(captureSpan.end, window->end) };
            if (captureSpan.duration() < 0)
                captureSpan = {};
        }
        auto fillSteps = [&](GpuSummaryRow &row) {
            if (!rs || rs->steps.empty())
                return;
            std::vector<double> dur, kern, busy;
            for (const auto &s : rs->steps) {
                dur.push_back(double(s.step.duration()));
                kern.push_back(double(s.kernelNs));
                busy.push_back(s.busyPercent);
            }
            row.steps = rs->steps.size();
            row.medianStepNs = medianOf(dur);
            if (!rank.gpus.empty()) {
                row.medianKernelNsPerStep = medianOf(kern);
                row.medianStepBusyPercent = medianOf(busy);
            }
        };
        if (rank.gpus.empty()) {
            GpuSummaryRow row;
            row.rank = r;
            row.captureSpan = captureSpan;
            fillSteps(row);
            out.rows.push_back(std::move(row));
            continue;
        }
        for (auto g : rank.gpus) {
            const auto [busy, gaps] = figures(g);
            GpuSummaryRow row;
            row.rank = r;
            row.gpu = g;
            row.busyNs = busy.busyNs;
            row.window = busy.window;
            row.busyPercent = busy.busyPercent;
            row.idleNs = gaps.totalNs;
            row.gapCount = gaps.count;
            row.captureSpan = captureSpan;
            row.idleOutside = idleOutsideWindow(captureSpan, busy.window);
            fillSteps(row);
            row.copies = summarizeCopies(trace, g, trace.gpus[g].ranks.size() > 1 ? rank.pid : 0, window);
            out.rows.push_back(std::move(row));
        }
    }
    for (const auto &row : out.rows)
        out.idle.push_back(idleStoryOfRow(derived, row, stepsOf, options));

    // Asynchronous copies touching pageable host memory run synchronously with the host.
    auto &pageable = out.pageable;
    std::set<std::uint32_t> rowGpus; // each GPU once, also when two ranks share it
    for (const auto &row : out.rows)
        if (row.gpu != kNoIndex)
            rowGpus.insert(row.gpu);
    for (const auto g : rowGpus) {
        const auto &gpu = trace.gpus[g];
        const auto &c = gpu.copies;
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (c.kind[i] == CopyKind::Memset || (window && !window->contains(c.start[i])))
                continue;
            const bool src = c.srcKind[i] == MemKind::Pageable, dst = c.dstKind[i] == MemKind::Pageable;
            if (!src && !dst)
                continue;
            bool selected = false;
            for (auto r : gpu.ranks)
                if (options.ranks.includes(r) && (gpu.ranks.size() == 1 || trace.ranks[r].pid == c.pid[i]))
                    selected = true;
            if (!selected)
                continue;
            const auto launch = trace.findLaunch(gpu.report, c.pid[i], c.correlationId[i]);
            if (!launch)
                continue;
            const auto &name = trace.str(trace.threads[launch->thread].api.name[launch->call]);
            if (name.find("Async") == std::string::npos)
                continue;
            ++pageable.count;
            pageable.totalNs += c.end[i] - c.start[i];
            pageable.fromPageable = pageable.fromPageable || src;
            pageable.toPageable = pageable.toPageable || dst;
        }
    }
    return out;
}

CaptureSummary finishCaptureSummary(
    const TraceSet &trace, CaptureSummaryPart part, const CaptureWideFacts &wide, const CaptureSummaryOptions &options)
{
    CaptureSummary out;
    out.stepRange = wide.stepRange;
    const auto &pace = wide.pace;
    const auto &lastToCollectives = wide.lastToCollectives;
    auto add = [&](FindingKind kind, std::string text, std::uint32_t rank = kNoIndex, std::uint32_t gpu = kNoIndex) {
        out.findings.push_back({ kind, std::move(text), rank, gpu });
    };

    if (part.gpuEvents == 0)
        add(FindingKind::NvtxOnly,
            part.nvtxRanges > 0 ? "NVTX-only capture: no GPU lanes (no kernels or copies were recorded)"
                                : "no GPU work in this capture: no kernels or copies were recorded");

    addIdleOutsideKernels(trace, part.rows, out.findings);

    addIdleGpus(trace, part, options, out.findings);

    // Two straggler signals: pace (the slowest steps) and collective start skew (the rank the
    // others waited for at NCCL collectives, Holistic Trace Analysis's signal). One rank named
    // by both is one line.
    const auto rankNumber = [&](std::uint32_t r) { return trace.ranks[r].rank; };
    if (pace.straggler) {
        std::string text = describeStraggler(trace, *pace.straggler);
        if (lastToCollectives && lastToCollectives->rank == pace.straggler->rank)
            text += "; it also " + describeCollectiveStraggler(*lastToCollectives);
        add(FindingKind::Straggler, std::move(text), pace.straggler->rank);
    }
    if (lastToCollectives && (!pace.straggler || lastToCollectives->rank != pace.straggler->rank))
        add(FindingKind::Straggler,
            fmt::format(
                "rank {} {}", rankNumber(lastToCollectives->rank), describeCollectiveStraggler(*lastToCollectives)),
            lastToCollectives->rank);

    // Warm-up: leading iterations whose cross-rank median is well above the median of medians.
    if (pace.iterations.size() >= 4) {
        std::vector<double> medians;
        for (const auto &it : pace.iterations)
            medians.push_back(it.medianNs);
        const double reference = medianOf(medians);
        std::size_t k = 0;
        double sum = 0;
        while (k < medians.size() / 2 && reference > 0 && medians[k] >= 1.5 * reference)
            sum += medians[k++];
        if (k > 0) {
            const std::string ratio = formatRatio(sum / double(k) / reference);
            add(FindingKind::WarmUp,
                k == 1 ? fmt::format("the first step is {} slower than the median: the capture includes warm-up", ratio)
                       : fmt::format(
                           "the first {} steps are {} slower than the median: the capture includes warm-up", k, ratio));
        }
    }

    const auto &pageable = part.pageable;
    if (pageable.count > 0)
        add(FindingKind::PageableCopies,
            fmt::format("asynchronous copies {} pageable memory: {} calls, {} (they block the host; pin the buffers)",
                pageable.fromPageable && pageable.toPageable ? "to or from" : (pageable.fromPageable ? "from" : "to"),
                pageable.count, formatDuration(double(pageable.totalNs))));

    if (wide.intervals)
        addIntervalFindings(trace, *wide.intervals, options, out.findings);

    if (!pace.straggler && !lastToCollectives && pace.ranks.size() >= 2 && pace.iterations.size() >= 3)
        add(FindingKind::NoStraggler, fmt::format("no rank is consistently the slowest in {}", out.stepRange));
    if (out.stepRange.empty() && part.gpuEvents > 0)
        add(FindingKind::NoStepRange,
            "no NVTX range looks like a training step (such as train_step): per-step figures are not available");
    if (trace.ranks.size() == 1)
        add(FindingKind::SingleRank,
            "only one rank loaded: open the other ranks' exports (or their folder) to compare ranks");
    out.rows = std::move(part.rows);
    return out;
}

CaptureSummary summarizeCapture(const DerivedCapture &derived, const CaptureSummaryOptions &options)
{
    const TraceSet &trace = derived.trace();
    CaptureWideFacts wide;
    // Steps: the chosen (or proposed) repeating NVTX range, restricted to the window.
    wide.stepRange = options.stepRange ? *options.stepRange : proposePaceRangeName(trace).value_or(std::string());
    std::vector<RankSteps> steps;
    if (!wide.stepRange.empty()) {
        PaceOptions po;
        po.rangeName = wide.stepRange;
        po.ranks = options.ranks;
        po.window = options.window;
        wide.pace = computePace(trace, po);
        steps = computeStepAccounting(trace, wide.pace);
    }
    if (trace.ranks.size() >= 2)
        wide.lastToCollectives = findCollectiveStraggler(computeOverlap(trace, { options.ranks, options.window }));
    try {
        wide.intervals = computeIntervals(derived, findingIntervalOptions(options, defaultIntervalLength(trace)));
    } catch (const std::invalid_argument &) {
        // an interval too short for the capture: no interval findings
    }
    return finishCaptureSummary(trace, summarizeCapturePart(derived, options, steps), wide, options);
}

} // namespace gaplens::core
