// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/compare.h"

#include "gaplens/core/analysis/compare_headline.h"

#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/noise.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

namespace gaplens::core {

CaptureMeasures measureCapturePart(const DerivedCapture &derived)
{
    auto data = measureGpuWorkPart(derived);
    data.nvtx = measureNvtxByName(derived.trace());
    return data;
}

CaptureMeasures measureGpuWorkPart(const DerivedCapture &derived)
{
    const TraceSet &trace = derived.trace();
    CaptureMeasures data;
    CaptureFigures &f = data.figures;
    for (std::uint32_t g = 0; g < derived.gpuCount(); ++g) {
        const auto &busy = derived.busy(GpuIndex(g));
        f.busyNs += busy.busyNs;
        f.windowNs += busy.window.duration();
        const auto &gaps = derived.gaps(GpuIndex(g));
        f.gapCount += gaps.size();
        f.gapNs += gaps.totalNs;
    }

    // Every kernel of every stream, rank or not: the same set `kernels` and SQL count.
    for (const auto &gpu : trace.gpus)
        for (const auto &stream : gpu.streams) {
            const auto &k = stream.kernels;
            for (std::size_t i = 0; i < k.size(); ++i) {
                auto &row = data.kernels[trace.str(k.shortName[i])];
                ++row.count;
                row.totalNs += k.end[i] - k.start[i];
            }
            f.kernels += k.size();
        }

    const BlameTotals &blame = derived.overallTotals();
    for (const auto &b : blame.byCause) {
        auto &row = data.causes[b.key];
        row.count += b.count;
        row.totalNs += b.totalNs;
    }
    for (const auto &b : blame.byPhase) {
        auto &row = data.phases[b.key];
        row.count += b.count;
        row.totalNs += b.totalNs;
    }
    return data;
}

std::map<std::string, NamedTotals> measureNvtxByName(const TraceSet &trace)
{
    std::map<std::string, NamedTotals> out;
    // Rows are per (group name, style); one name with both styles is still one thing to compare.
    for (const auto &r : summarizeNvtx(trace).rows) {
        auto &row = out[trace.str(r.name)];
        row.count += r.stats.count;
        row.totalNs += r.stats.totalNs;
    }
    return out;
}

void addCaptureMeasures(CaptureMeasures &whole, const CaptureMeasures &part)
{
    auto &f = whole.figures;
    const auto &p = part.figures;
    f.busyNs += p.busyNs;
    f.windowNs += p.windowNs;
    f.gapCount += p.gapCount;
    f.gapNs += p.gapNs;
    f.kernels += p.kernels;
    for (const auto &[into, from] :
        { std::pair { &whole.kernels, &part.kernels }, std::pair { &whole.causes, &part.causes },
            std::pair { &whole.phases, &part.phases }, std::pair { &whole.nvtx, &part.nvtx } })
        for (const auto &[key, totals] : *from) {
            auto &row = (*into)[key];
            row.count += totals.count;
            row.totalNs += totals.totalNs;
        }
}

void finishCaptureMeasures(CaptureMeasures &measures, std::size_t ranks, std::size_t gpus, const PaceReport *pace,
    const std::vector<RankSteps> &accounting)
{
    CaptureFigures &f = measures.figures;
    f.ranks = ranks;
    f.gpus = gpus;
    f.busyPercent = f.windowNs > 0 ? 100.0 * double(f.busyNs) / double(f.windowNs) : 0.0;
    f.kernelNs = 0;
    for (const auto &[name, row] : measures.kernels)
        f.kernelNs += row.totalNs;
    if (!pace)
        return;
    f.ranksWithSteps = pace->ranks.size();
    f.steps = pace->iterations.size();
    std::vector<double> step, busy, idle, kernel;
    for (std::size_t k = 0; k < f.steps; ++k) {
        step.clear();
        busy.clear();
        idle.clear();
        kernel.clear();
        for (std::size_t r = 0; r < pace->ranks.size(); ++r) {
            const auto &it = pace->ranks[r].iterations[k];
            step.push_back(double(it.durationNs));
            if (r < accounting.size() && k < accounting[r].steps.size()) {
                const auto &usage = accounting[r].steps[k];
                busy.push_back(usage.busyPercent);
                idle.push_back(double(it.durationNs - usage.busyNs));
                kernel.push_back(double(usage.kernelNs));
            }
        }
        // See CaptureFigures: one observation per step, the median across ranks.
        f.stepNs.push_back(medianOf(step));
        f.stepBusyPercent.push_back(medianOf(busy));
        f.stepIdleNs.push_back(medianOf(idle));
        f.stepKernelNs.push_back(medianOf(kernel));
    }
}

namespace {

MetricChange makeMetric(std::string key, std::string label, MetricUnit unit, bool higherIsBetter,
    std::optional<double> before, std::optional<double> after)
{
    MetricChange m;
    m.key = std::move(key);
    m.label = std::move(label);
    m.unit = unit;
    m.higherIsBetter = higherIsBetter;
    m.before = before;
    m.after = after;
    if (before && after) {
        m.delta = *after - *before;
        if (*before != 0)
            m.changePercent = *m.delta / std::fabs(*before) * 100.0;
    }
    return m;
}

// A per-step metric: the statistic of each capture's per-step values, judged against the
// noise those values show. A change counts only when it is larger than the bootstrap
// half-width ("noise +-x%" must never be larger than the change it qualifies) and, for
// medians, the rank-sum test also rejects "same distribution" at alpha.
MetricChange stepMetric(std::string key, std::string label, MetricUnit unit, bool higherIsBetter,
    const std::vector<double> &before, const std::vector<double> &after, BootstrapStatistic statistic,
    const CompareOptions &options)
{
    auto m = makeMetric(std::move(key), std::move(label), unit, higherIsBetter, sampleStatistic(before, statistic),
        sampleStatistic(after, statistic));
    BootstrapOptions bootstrap;
    bootstrap.statistic = statistic;
    bootstrap.resamples = options.bootstrapResamples;
    bootstrap.seed = options.bootstrapSeed;
    const auto interval = bootstrapDifference(before, after, bootstrap);
    const double halfWidth = interval.halfWidth();
    if (*m.before != 0)
        m.noisePercent = halfWidth / std::fabs(*m.before) * 100.0;
    bool significant = std::fabs(*m.delta) > halfWidth;
    if (statistic == BootstrapStatistic::Median) {
        const auto test = mannWhitneyU(before, after);
        m.pValue = test.pValue;
        significant = significant && test.pValue < options.alpha;
    } else {
        significant = significant && (interval.low > 0 || interval.high < 0);
    }
    m.judgement = significant ? NoiseJudgement::ExceedsNoise : NoiseJudgement::WithinNoise;
    return m;
}

template <typename Row, typename Fill>
std::vector<Row> matchByName(
    const std::map<std::string, NamedTotals> &before, const std::map<std::string, NamedTotals> &after, Fill fill)
{
    std::vector<Row> rows;
    auto b = before.begin();
    auto a = after.begin();
    static const NamedTotals kNone;
    // Both maps are sorted by name: one merge pass.
    while (b != before.end() || a != after.end()) {
        const bool takeBefore = a == after.end() || (b != before.end() && b->first <= a->first);
        const bool takeAfter = b == before.end() || (a != after.end() && a->first <= b->first);
        const std::string &name = takeBefore ? b->first : a->first;
        const NamedTotals &x = takeBefore ? b->second : kNone;
        const NamedTotals &y = takeAfter ? a->second : kNone;
        const Presence presence = takeBefore && takeAfter ? Presence::Both
            : takeBefore                                  ? Presence::Vanished
                                                          : Presence::New;
        rows.push_back(fill(name, presence, x, y));
        if (takeBefore)
            ++b;
        if (takeAfter)
            ++a;
    }
    return rows;
}

template <typename Row, typename Name> void sortByAbsoluteDelta(std::vector<Row> &rows, Name name)
{
    std::sort(rows.begin(), rows.end(), [&](const Row &x, const Row &y) {
        const auto dx = std::llabs(x.deltaNs), dy = std::llabs(y.deltaNs);
        return dx != dy ? dx > dy : name(x) < name(y);
    });
}

double average(const NamedTotals &t)
{
    return t.count ? double(t.totalNs) / double(t.count) : 0.0;
}

// The figures behind a verdict without steps: per kernel call when the work differs, else totals.
std::string describeNoSteps(const Comparison &c)
{
    auto metric = [&](std::string_view key) { return c.metric(key); };
    std::string text;
    const auto *busy = metric("busy_pct_total");
    const auto *idle = metric("idle_total");
    const auto *kernel = metric("kernel_total");
    const auto *kernelPerCall = metric("kernel_per_call");
    const auto *idlePerCall = metric("idle_per_call");
    if (kernelPerCall && idlePerCall && busy) {
        // Totals of different work would read a slower job that ran less as a win.
        text = fmt::format("per kernel call, as the work differs: kernel time {} -> {} ({:+.1f}%), idle "
                           "in gaps {} -> {}; GPU busy {} -> {}",
            formatDuration(*kernelPerCall->before), formatDuration(*kernelPerCall->after),
            kernelPerCall->changePercent.value_or(0.0), formatDuration(*idlePerCall->before),
            formatDuration(*idlePerCall->after), formatPercent(*busy->before), formatPercent(*busy->after));
    } else if (busy && idle && kernel) {
        text = fmt::format("totals: GPU busy {} -> {}, idle in gaps {} -> {}, kernel time {} -> {}",
            formatPercent(*busy->before), formatPercent(*busy->after), formatDuration(*idle->before),
            formatDuration(*idle->after), formatDuration(*kernel->before), formatDuration(*kernel->after));
    }
    return text;
}

} // namespace

std::string_view presenceName(Presence presence)
{
    switch (presence) {
    case Presence::Both: return "both";
    case Presence::New: return "new";
    case Presence::Vanished: return "vanished";
    }
    return "both";
}

const MetricChange *Comparison::metric(std::string_view key) const
{
    for (const auto &m : headline)
        if (m.key == key)
            return &m;
    return nullptr;
}

namespace {

// The sustained rate and its partition of both captures, side by side (Comparison::sustained).
void compareRunAccounting(const RunAccounting &x, const RunAccounting &y, Comparison &c)
{
    if (c.stepRange.empty()) {
        c.sustainedError = "no step range";
        return;
    }
    for (const auto &[a, which] : { std::pair { &x, "before" }, std::pair { &y, "after" } })
        if (!a->error.empty()) {
            c.sustainedError = fmt::format("{}: {}", which, a->error);
            return;
        }
    c.sustainedWorkUnit = x.workUnit;
    const auto &b = x.overall, &a = y.overall;
    const auto unit = x.workUnit == y.workUnit ? x.workUnit : fmt::format("{} / {}", x.workUnit, y.workUnit);
    auto ns = [](TimeNs v) { return std::optional<double>(double(v)); };
    c.sustained.push_back(
        makeMetric("window_ns", "window", MetricUnit::Duration, false, ns(b.windowNs()), ns(a.windowNs())));
    c.sustained.push_back(
        makeMetric("active_ns", "active time", MetricUnit::Duration, false, ns(b.activeNs()), ns(a.activeNs())));
    c.sustained.push_back(makeMetric("work", fmt::format("work ({})", unit), MetricUnit::Count, true, b.work, a.work));
    c.sustained.push_back(makeMetric("active_rate", fmt::format("active rate ({}/s) = work / active time", unit),
        MetricUnit::Rate, true, b.activeRate, a.activeRate));
    c.sustained.push_back(makeMetric("sustained_rate", fmt::format("sustained rate ({}/s) = work / window", unit),
        MetricUnit::Rate, true, b.sustainedRate, a.sustainedRate));
    c.sustained.push_back(makeMetric("sustained_over_active", "sustained / active", MetricUnit::Ratio, true,
        b.sustainedOverActive, a.sustainedOverActive));
    for (std::size_t s = 0; s < kRunStateCount; ++s) {
        const auto name = runStateName(RunState(s));
        c.sustained.push_back(makeMetric(fmt::format("partition_{}", name), fmt::format("in {}", name),
            MetricUnit::Duration, RunState(s) == RunState::Active, ns(b.partitionNs[s]), ns(a.partitionNs[s])));
    }
}

} // namespace

Comparison compareTraces(const TraceSet &before, const TraceSet &after, const CompareOptions &options)
{
    DerivedOptions derivedOptions;
    derivedOptions.minGapNs = options.minGapNs;
    derivedOptions.includeCopies = options.includeCopies;
    derivedOptions.foldIndexes = false;
    // The caller keeps both traces alive for the call: non-owning pointers.
    const auto derive = [&](const TraceSet &trace) {
        return DerivedCapture::build(
            std::shared_ptr<const TraceSet>(std::shared_ptr<const TraceSet>(), &trace), derivedOptions);
    };
    return compareTraces(*derive(before), *derive(after), options);
}

Comparison compareTraces(
    const DerivedCapture &beforeDerived, const DerivedCapture &afterDerived, const CompareOptions &options)
{
    const TraceSet &before = beforeDerived.trace();
    const TraceSet &after = afterDerived.trace();
    std::string stepRange, rangeSource;
    if (!options.rangeName.empty()) {
        stepRange = options.rangeName;
        rangeSource = "option";
    } else if (auto name = proposePaceRangeName(before)) {
        stepRange = *name;
        rangeSource = "proposed (before)";
    } else if (auto fallback = proposePaceRangeName(after)) {
        stepRange = *fallback;
        rangeSource = "proposed (after)";
    }
    auto measure = [&](const DerivedCapture &derived) {
        const TraceSet &trace = derived.trace();
        auto measures = measureCapturePart(derived);
        if (stepRange.empty()) {
            finishCaptureMeasures(measures, trace.ranks.size(), trace.gpus.size(), nullptr, {});
            return measures;
        }
        PaceOptions paceOptions;
        paceOptions.rangeName = stepRange;
        const auto pace = computePace(trace, paceOptions);
        StepAccountingOptions stepOptions;
        stepOptions.includeCopies = options.includeCopies;
        finishCaptureMeasures(
            measures, trace.ranks.size(), trace.gpus.size(), &pace, computeStepAccounting(trace, pace, stepOptions));
        return measures;
    };
    RunAccounting beforeAccounting, afterAccounting;
    if (!stepRange.empty()) {
        RunAccountingOptions accounting;
        accounting.stepRange = stepRange;
        beforeAccounting = computeRunAccounting(before, accounting);
        afterAccounting = computeRunAccounting(after, accounting);
    }
    // Measured before the call: its arguments' order of evaluation is unspecified, and
    // stepRange moves into it.
    const auto beforeMeasures = measure(beforeDerived);
    const auto afterMeasures = measure(afterDerived);
    return compareMeasures(beforeMeasures, afterMeasures, std::move(stepRange), std::move(rangeSource),
        beforeAccounting, afterAccounting, options);
}

Comparison compareMeasures(const CaptureMeasures &b, const CaptureMeasures &a, std::string stepRange,
    std::string rangeSource, const RunAccounting &beforeAccounting, const RunAccounting &afterAccounting,
    const CompareOptions &options)
{
    Comparison c;
    c.stepRange = std::move(stepRange);
    c.rangeSource = std::move(rangeSource);
    c.before = b.figures;
    c.after = a.figures;

    std::string noStepsWhy = "no NVTX range looks like a training step";
    if (!c.stepRange.empty()) {
        for (const auto &[figures, which] : { std::pair { &c.before, "before" }, std::pair { &c.after, "after" } })
            if (figures->steps < 2) {
                c.warnings.push_back(fmt::format("NVTX range '{}' has {} common iteration(s) in the {} capture",
                    c.stepRange, figures->steps, which));
                noStepsWhy
                    = fmt::format("NVTX range '{}' has fewer than 2 iterations in the {} capture", c.stepRange, which);
            }
    }
    c.hasSteps = !c.stepRange.empty() && c.before.steps >= 2 && c.after.steps >= 2;

    c.kernels = matchByName<KernelChange>(b.kernels, a.kernels,
        [](const std::string &name, Presence presence, const NamedTotals &x, const NamedTotals &y) {
            KernelChange k;
            k.name = name;
            k.presence = presence;
            k.callsBefore = x.count;
            k.callsAfter = y.count;
            k.totalBefore = x.totalNs;
            k.totalAfter = y.totalNs;
            k.avgBefore = average(x);
            k.avgAfter = average(y);
            k.deltaNs = y.totalNs - x.totalNs;
            if (x.count && y.count && k.avgBefore > 0)
                k.avgRatio = k.avgAfter / k.avgBefore;
            return k;
        });
    sortByAbsoluteDelta(c.kernels, [](const KernelChange &k) -> const std::string & { return k.name; });

    c.work = compareWork(c);

    if (c.hasSteps) {
        const auto &x = c.before;
        const auto &y = c.after;
        c.headline.push_back(stepMetric("median_step", "median step time", MetricUnit::Duration, false, x.stepNs,
            y.stepNs, BootstrapStatistic::Median, options));
        c.headline.push_back(stepMetric("step_p95", "step time p95", MetricUnit::Duration, false, x.stepNs, y.stepNs,
            BootstrapStatistic::Percentile95, options));
        c.headline.push_back(stepMetric("busy_pct_step", "GPU busy % in step", MetricUnit::Percent, true,
            x.stepBusyPercent, y.stepBusyPercent, BootstrapStatistic::Median, options));
        c.headline.push_back(stepMetric("idle_per_step", "GPU idle per step", MetricUnit::Duration, false, x.stepIdleNs,
            y.stepIdleNs, BootstrapStatistic::Median, options));
        c.headline.push_back(stepMetric("kernel_per_step", "kernel time per step", MetricUnit::Duration, false,
            x.stepKernelNs, y.stepKernelNs, BootstrapStatistic::Median, options));
    }
    // Different work: per kernel call first, then the totals, named as measured.
    const char *const measured = c.work.differs ? ", as measured" : "";
    if (c.work.basis == WorkBasis::PerCall) {
        const auto shared = sharedKernels(c.kernels);
        const auto perCall = [](double total, std::uint64_t calls) { return calls ? total / double(calls) : 0.0; };
        c.headline.push_back(makeMetric("kernel_per_call", "kernel time per call (kernels in both, before's mix)",
            MetricUnit::Duration, false, perCall(shared.totalBefore, shared.callsBefore),
            perCall(shared.afterAtBeforeCalls, shared.callsBefore)));
        c.headline.push_back(makeMetric("idle_per_call",
            fmt::format("idle in gaps >= {} per kernel call", formatDuration(double(options.minGapNs))),
            MetricUnit::Duration, false, perCall(double(c.before.gapNs), c.before.kernels),
            perCall(double(c.after.gapNs), c.after.kernels)));
    }
    c.headline.push_back(makeMetric("busy_pct_total", "GPU busy % (capture)", MetricUnit::Percent, true,
        c.before.busyPercent, c.after.busyPercent));
    c.headline.push_back(makeMetric("idle_total",
        fmt::format("idle in gaps >= {}{}", formatDuration(double(options.minGapNs)), measured), MetricUnit::Duration,
        false, double(c.before.gapNs), double(c.after.gapNs)));
    c.headline.push_back(makeMetric("kernel_total", fmt::format("kernel time (capture{})", measured),
        MetricUnit::Duration, false, double(c.before.kernelNs), double(c.after.kernelNs)));
    c.headline.push_back(makeMetric("kernel_count", fmt::format("kernels (capture{})", measured), MetricUnit::Count,
        false, double(c.before.kernels), double(c.after.kernels)));

    if (c.hasSteps) {
        c.noiseMethod = fmt::format(
            "Mann-Whitney U (rank-sum) test over per-step times (one value per step: the median across ranks), "
            "two-sided, normal approximation with tie correction, alpha {}; noise = half-width of a {}-resample "
            "bootstrap 95% interval of the difference of medians (fixed seed)",
            options.alpha, options.bootstrapResamples);
        const auto &m = *c.metric("median_step");
        const double change = m.changePercent.value_or(0.0);
        const double noise = m.noisePercent.value_or(0.0);
        if (m.judgement == NoiseJudgement::ExceedsNoise) {
            c.verdict = *m.delta < 0 ? Verdict::Faster : Verdict::Slower;
            c.verdictText = fmt::format("after is {:.1f}% {} per step (noise +-{:.1f}%)", std::fabs(change),
                c.verdict == Verdict::Faster ? "faster" : "slower", noise);
        } else {
            c.verdict = Verdict::NoSignificantChange;
            c.verdictText = "no significant change";
        }
        c.verdictDetail = fmt::format("median step ({}) {} -> {} ({:+.1f}%, noise +-{:.1f}%), rank-sum p = {:.3g}, "
                                      "{} steps before, {} after",
            c.stepRange, formatDuration(*m.before), formatDuration(*m.after), change, noise, m.pValue.value_or(1.0),
            c.before.steps, c.after.steps);
    } else {
        c.verdict = Verdict::NoSteps;
        c.noiseMethod = fmt::format("none: {}, so there is no step to judge noise by; {}", noStepsWhy,
            c.work.differs ? "figures are per kernel call" : "totals are compared as measured");
        c.verdictText = fmt::format("no step to judge noise by ({})", noStepsWhy);
        c.verdictDetail = describeNoSteps(c);
    }

    const auto *kernelPerStep = c.metric("kernel_per_step");
    findPerCallChanges(c, kernelPerStep ? kernelPerStep->noisePercent.value_or(0.0) / 100.0 : 0.0);
    c.notComparable = comparabilityProblems(c);
    if (!c.notComparable.empty()) {
        std::string reasons;
        for (const auto &r : c.notComparable)
            reasons += (reasons.empty() ? "" : "; ") + r;
        c.verdictText = fmt::format("captures may not be comparable ({}): {}", reasons, c.verdictText);
        c.warnings.push_back("captures may not be comparable: " + reasons);
    }

    auto idleRow = [](const std::string &key, Presence presence, const NamedTotals &x, const NamedTotals &y) {
        return IdleChange { key, presence, x.count, y.count, x.totalNs, y.totalNs, y.totalNs - x.totalNs };
    };
    c.idleByCause = matchByName<IdleChange>(b.causes, a.causes, idleRow);
    c.idleByPhase = matchByName<IdleChange>(b.phases, a.phases, idleRow);
    sortByAbsoluteDelta(c.idleByCause, [](const IdleChange &r) -> const std::string & { return r.key; });
    sortByAbsoluteDelta(c.idleByPhase, [](const IdleChange &r) -> const std::string & { return r.key; });

    compareRunAccounting(beforeAccounting, afterAccounting, c);

    c.nvtx = matchByName<NvtxChange>(
        b.nvtx, a.nvtx, [](const std::string &name, Presence presence, const NamedTotals &x, const NamedTotals &y) {
            return NvtxChange { name, presence, x.count, y.count, x.totalNs, y.totalNs, average(x), average(y),
                y.totalNs - x.totalNs };
        });
    sortByAbsoluteDelta(c.nvtx, [](const NvtxChange &r) -> const std::string & { return r.name; });
    return c;
}

} // namespace gaplens::core
