// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/sustained_gain.h"

#include "gaplens/core/analysis/noise.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace gaplens::core {
namespace {

std::string percentText(double fraction)
{
    return fmt::format("{:+.2f}%", fraction * 100.0);
}

} // namespace

std::vector<TimeNs> sustainedWindowBoundaries(const RunAccounting &whole, WindowSplit split, std::uint32_t count)
{
    const auto &overall = whole.overall;
    const auto &w = overall.window;
    std::vector<TimeNs> points;
    if (split == WindowSplit::Equal) {
        for (std::uint32_t k = 0; count > 0 && k <= count; ++k)
            points.push_back(w.start + TimeNs(__int128(w.duration()) * k / count));
    } else if (overall.checkpoint) {
        for (const auto t : overall.checkpoint->commitsNs)
            if (t >= w.start && t <= w.end)
                points.push_back(t);
    }
    points.erase(std::unique(points.begin(), points.end()), points.end());
    return points;
}

RunAccountingOptions sustainedWindowOptions(
    const RunAccountingOptions &options, const std::string &stepRange, TimeNs start, TimeNs end, TimeNs timeZero)
{
    RunAccountingOptions part = options;
    part.stepRange = stepRange;
    part.window.rule = RunWindowRule::Explicit;
    part.window.startNs = start - timeZero;
    part.window.endNs = end - timeZero;
    return part;
}

SustainedWindow sustainedWindow(TimeRange window, const RunAccounting &accounting)
{
    SustainedWindow w;
    w.window = window;
    if (accounting.error.empty()) {
        w.steps = accounting.overall.steps;
        w.work = accounting.overall.work;
        w.sustainedRate = accounting.overall.sustainedRate;
    }
    w.comparable = w.window.duration() > 0 && w.steps > 0 && w.sustainedRate.has_value();
    return w;
}

std::size_t SustainedWindows::comparableCount() const
{
    return std::size_t(std::count_if(windows.begin(), windows.end(), [](const auto &w) { return w.comparable; }));
}

std::vector<double> SustainedWindows::comparableRates() const
{
    std::vector<double> rates;
    for (const auto &w : windows)
        if (w.comparable)
            rates.push_back(*w.sustainedRate);
    return rates;
}

SustainedWindows splitSustainedWindows(
    const TraceSet &trace, const RunAccountingOptions &options, WindowSplit split, std::uint32_t count)
{
    SustainedWindows out;
    out.whole = computeRunAccounting(trace, options);
    if (!out.whole.error.empty()) {
        out.error = out.whole.error;
        return out;
    }
    const TimeNs zero = trace.reports[trace.ranks[out.whole.slowestRank].report].timeZero();
    const auto points = sustainedWindowBoundaries(out.whole, split, count);
    for (std::size_t i = 1; i < points.size(); ++i)
        out.windows.push_back(sustainedWindow({ points[i - 1], points[i] },
            computeRunAccounting(
                trace, sustainedWindowOptions(options, out.whole.stepRange, points[i - 1], points[i], zero))));
    return out;
}

SustainedGainCheck checkSustainedGain(
    const TraceSet &before, const TraceSet &after, const SustainedGainOptions &options)
{
    return judgeSustainedGain(splitSustainedWindows(before, options.accounting, options.split, options.windowCount),
        splitSustainedWindows(after, options.accounting, options.split, options.windowCount), after, options);
}

SustainedGainCheck judgeSustainedGain(
    SustainedWindows before, SustainedWindows after, const TraceSet &afterTrace, const SustainedGainOptions &options)
{
    SustainedGainCheck c;
    c.before = std::move(before);
    c.after = std::move(after);
    const bool sameUnit = c.before.error.empty() && c.after.error.empty()
        && c.before.whole.workUnit == c.after.whole.workUnit && c.before.whole.workSource == c.after.whole.workSource;
    const std::size_t nBefore = sameUnit ? c.before.comparableCount() : 0;
    const std::size_t nAfter = sameUnit ? c.after.comparableCount() : 0;
    c.enoughWindows = nBefore >= options.minWindows && nAfter >= options.minWindows;
    if (sameUnit && nBefore > 0 && nAfter > 0) {
        const auto &a = options.accounting;
        const auto shift = judgeMedianShift(
            c.before.comparableRates(), c.after.comparableRates(), a.alpha, a.bootstrapResamples, a.bootstrapSeed);
        c.medianBefore = shift.firstMedian;
        c.medianAfter = shift.secondMedian;
        c.pValue = shift.pValue;
        c.significant = shift.significant;
        if (shift.firstMedian > 0) {
            c.gain = shift.secondMedian / shift.firstMedian - 1.0;
            c.noise = shift.halfWidth / shift.firstMedian;
        }
    }
    c.backlogSteady = c.after.error.empty();
    for (const auto &r : c.after.whole.ranks)
        if (r.checkpoint && r.checkpoint->backlogGrowing) {
            c.backlogSteady = false;
            const auto &h = *r.checkpoint;
            c.failures.push_back(fmt::format("checkpoint backlog grows after the change: rank {} has {:.2f} earlier "
                                             "checkpoint(s) still being written at a start in the first half, {:.2f} "
                                             "in the second (max {})",
                afterTrace.ranks[r.rank].rank, h.backlogFirstHalf, h.backlogSecondHalf, h.backlogMax));
        }
    c.aboveThreshold = c.gain && *c.gain > options.minGain;
    c.aboveNoise = c.gain && *c.gain > 0 && c.significant;

    std::vector<std::string> failures;
    for (const auto &[split, which] : { std::pair { &c.before, "before" }, std::pair { &c.after, "after" } })
        if (!split->error.empty())
            failures.push_back(fmt::format("no sustained rate {}: {}", which, split->error));
    if (failures.empty() && !sameUnit)
        failures.push_back(fmt::format("no comparable window: the captures count work differently ({} from {} before, "
                                       "{} from {} after)",
            c.before.whole.workUnit, workSourceName(c.before.whole.workSource), c.after.whole.workUnit,
            workSourceName(c.after.whole.workSource)));
    if (!c.enoughWindows)
        failures.push_back(fmt::format("too few comparable windows: {} before and {} after, at least {} needed{}",
            nBefore, nAfter, options.minWindows,
            options.split == WindowSplit::CheckpointCommits
                ? " (windows run from one checkpoint commit to the next; --windows N splits into N equal ones)"
                : ""));
    // The backlog sentences were made above, one per rank.
    failures.insert(failures.end(), c.failures.begin(), c.failures.end());
    if (!c.gain) {
        failures.push_back("no sustained-rate gain to judge: a capture has no comparable window with work");
    } else {
        if (!c.aboveThreshold)
            failures.push_back(fmt::format("sustained-rate gain {} (median {} -> {} {}/s) is not above the "
                                           "threshold {}",
                percentText(*c.gain), formatGrouped(*c.medianBefore, 2), formatGrouped(*c.medianAfter, 2),
                c.after.whole.workUnit, percentText(options.minGain)));
        if (!c.aboveNoise && c.significant)
            failures.push_back(fmt::format("the sustained rate fell: gain {} beyond run-to-run noise (+-{:.2f}%, "
                                           "rank-sum p = {:.3g})",
                percentText(*c.gain), c.noise * 100.0, c.pValue));
        else if (!c.aboveNoise)
            failures.push_back(fmt::format("sustained-rate gain {} is within run-to-run noise (+-{:.2f}%, rank-sum p "
                                           "= {:.3g} over {} and {} windows)",
                percentText(*c.gain), c.noise * 100.0, c.pValue, nBefore, nAfter));
    }
    c.failures = std::move(failures);
    c.passed = c.failures.empty();
    return c;
}

} // namespace gaplens::core
