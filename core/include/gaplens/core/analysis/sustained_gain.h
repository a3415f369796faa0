// SPDX-License-Identifier: MIT
#pragma once
// The decision rule for a change meant to speed up a run (docs/run-accounting.md, "Sustained
// gain"): split each capture's accounting window into windows (at checkpoint commits, or N
// equal ones), take each window's sustained rate, and accept the change only with enough
// comparable windows on both sides, no growing checkpoint backlog after it, and a gain of
// the median sustained rate above the threshold and above run-to-run noise (compare's test,
// noise.h). `gaplens-cli check --min-sustained-gain` runs it.
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::core {

enum class WindowSplit : std::uint8_t {
    CheckpointCommits, // from one checkpoint commit to the next (whole checkpoint cycles)
    Equal, // `count` windows of equal length
};

struct SustainedWindow
{
    TimeRange window; // absolute, on the rank the accounting window came from
    std::uint64_t steps = 0; // summed over the ranks
    double work = 0;
    std::optional<double> sustainedRate; // work per second of the window
    bool comparable = false; // a positive length and at least one counted step
};

struct SustainedWindows
{
    RunAccounting whole; // the accounting of the whole window (its options' window)
    std::vector<SustainedWindow> windows; // in time order
    std::size_t comparableCount() const;
    std::vector<double> comparableRates() const;
    std::string error; // why no window could be made (the accounting's error); empty on success
};

// Splits `options.window` of the slowest rank (the overall window) into windows; each is
// accounted over every selected rank as `--window` would be (relative to that rank's report's
// time zero), so its sustained rate is the job's: summed work over the window's length.
SustainedWindows splitSustainedWindows(
    const TraceSet &trace, const RunAccountingOptions &options, WindowSplit split, std::uint32_t count = 0);

// splitSustainedWindows in steps, for gaplens-mpi, which accounts each window in parts:
// the window boundaries (absolute) of the whole accounting's overall window: the checkpoint
// commits in it, or count + 1 equal steps;
std::vector<TimeNs> sustainedWindowBoundaries(const RunAccounting &whole, WindowSplit split, std::uint32_t count);
// the accounting options of the window [start, end) (absolute; `timeZero` is the time zero of
// the report of the whole accounting's slowest rank, which explicit windows are relative to),
// with the whole accounting's step range, so that a proposed one is not proposed again;
RunAccountingOptions sustainedWindowOptions(
    const RunAccountingOptions &options, const std::string &stepRange, TimeNs start, TimeNs end, TimeNs timeZero);
// and that window's figures from its accounting.
SustainedWindow sustainedWindow(TimeRange window, const RunAccounting &accounting);

struct SustainedGainOptions
{
    RunAccountingOptions accounting; // the same for both captures (its ranks: all)
    WindowSplit split = WindowSplit::CheckpointCommits;
    std::uint32_t windowCount = 0; // Equal: how many
    double minGain = 0.03; // a fraction: 0.03 = 3%
    std::size_t minWindows = 3;
};

struct SustainedGainCheck
{
    SustainedWindows before, after;
    std::optional<double> medianBefore, medianAfter; // of the comparable windows' sustained rates
    std::optional<double> gain; // medianAfter / medianBefore - 1
    double noise = 0; // bootstrap half-width of the difference of medians / medianBefore (a fraction)
    double pValue = 1; // two-sided rank-sum p of the windows' rates
    bool significant = false; // compare's noise rule (judgeMedianShift)
    // The four conditions; passed when all hold.
    bool enoughWindows = false; // both captures have >= minWindows comparable windows
    bool backlogSteady = false; // no rank of the after capture has a growing checkpoint backlog
    bool aboveThreshold = false; // gain > minGain
    bool aboveNoise = false; // gain > 0 and significant
    bool passed = false;
    // One sentence per failed condition, in the order above; empty when passed.
    std::vector<std::string> failures;
};

SustainedGainCheck checkSustainedGain(
    const TraceSet &before, const TraceSet &after, const SustainedGainOptions &options);
// The rule on windows already split (checkSustainedGain's second half); `after` names the
// ranks of a growing backlog (a capture without events, as gaplens-mpi's root holds, does).
SustainedGainCheck judgeSustainedGain(
    SustainedWindows before, SustainedWindows after, const TraceSet &afterTrace, const SustainedGainOptions &options);

} // namespace gaplens::core
