// SPDX-License-Identifier: MIT
#pragma once
// Run accounting: where the wall time of a window went (the step, checkpoints, validation,
// data waits, barriers, nothing known) and the two throughputs a performance engineer
// quotes: work per second of step time (active) and work per second of wall time
// (sustained). The definitions are docs/run-accounting.md's; this is their one
// implementation, shown by `gaplens-cli throughput`.
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/analysis/step_range.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gaplens::core {

class PartsReduction;

// The tables run accounting reads: NVTX ranges (states, steps, payloads); choosing the step
// range when none is given reads kStepRangeTables.
inline constexpr TableSet kRunAccountingTables = ExportTable::Nvtx;

// The states of the partition, in partition priority after `Active`.
enum class RunState : std::uint8_t { Active, Checkpoint, Validation, DataWait, Barrier, Unexplained };
inline constexpr std::size_t kRunStateCount = 6;
// The states matched by a pattern (all but Active and Unexplained), in priority order.
inline constexpr std::array<RunState, 4> kPatternStates
    = { RunState::Checkpoint, RunState::Validation, RunState::DataWait, RunState::Barrier };

// "active", "checkpoint", "validation", "data_wait", "barrier", "unexplained".
std::string_view runStateName(RunState state);
// The state of that name; nullopt for any other text.
std::optional<RunState> runStateFromName(std::string_view name);
// The default pattern of a pattern state ("checkpoint|ckpt|save", ...); empty for the others.
std::string_view defaultRunStatePattern(RunState state);
// Why `regex` cannot be a state pattern (not an ECMAScript regular expression), or empty when
// it can: the GUI says so while it is typed.
std::string runStatePatternError(const std::string &regex);

enum class RunWindowRule : std::uint8_t {
    StateSpan, // from the first to the last instant covered by any state range of the rank
    Explicit, // --window START:END, relative to the report's time zero
    Between, // --between NAME[:K:M]: end of the K-th to end of the M-th occurrence
    Absolute, // startNs..endNs as absolute times, the same for every rank (the GUI's time selection)
};
// "state_span", "explicit", "between", "absolute".
std::string_view runWindowRuleName(RunWindowRule rule);

struct RunWindowSpec
{
    RunWindowRule rule = RunWindowRule::StateSpan;
    TimeNs startNs = 0, endNs = 0; // Explicit: relative to Report::timeZero(); Absolute: absolute
    std::string rangeName; // Between: exact or group name
    std::uint32_t fromOccurrence = 1; // Between: K, 1-based
    std::optional<std::uint32_t> toOccurrence; // Between: M, 1-based; nullopt = the last one
};

// "START:END" with units on both ("0s:1200s", "350ms:2.5s"); "NAME", "NAME:K" or "NAME:K:M"
// for --between (K, M 1-based, K < M). Both return nullopt and set `error` for bad text.
std::optional<RunWindowSpec> parseRunWindow(std::string_view text, std::string &error);
std::optional<RunWindowSpec> parseRunBetween(std::string_view text, std::string &error);

struct RunAccountingOptions
{
    std::string stepRange; // exact or group name; empty = proposePaceRangeName
    // The regex of each pattern state (kPatternStates order); empty = its default.
    std::array<std::string, 4> patterns;
    RunWindowSpec window;
    std::optional<double> workPerStep; // units of a step without a payload
    std::string workUnit; // empty: "tokens" with payloads or workPerStep, else "steps"
    RankSelection ranks;
    double alpha = 0.05; // the rank-sum test's level, as compare's
    std::size_t bootstrapResamples = 2000;
    std::uint64_t bootstrapSeed = 0x6761706C656E73ull;
};

enum class WorkSource : std::uint8_t {
    Payload, // the step ranges' NVTX payloads
    PerStep, // workPerStep for every step
    StepCount, // one unit per step
};
std::string_view workSourceName(WorkSource source); // "payload", "work_per_step", "steps"

struct StepTimeGroup
{
    std::uint64_t count = 0;
    double medianNs = 0; // mean of the two middle values for even counts
    TimeNs p95Ns = 0; // nearest rank
    TimeNs maxNs = 0;
    // The rest of a box plot (the GUI's): the smallest, and the nearest-rank 25th and 75th percentiles.
    TimeNs minNs = 0, q1Ns = 0, q3Ns = 0;
};

// Steps that overlap a range of `state` for a positive time (any thread of the rank) against
// the others; significant as compare judges a per-step median (bootstrap half-width and
// Mann-Whitney U at alpha), false when either group is empty.
struct StepTimeByState
{
    RunState state = RunState::Checkpoint;
    StepTimeGroup inside, outside;
    double pValue = 1;
    bool significant = false;
};

// Checkpoint ranges of the rank that start inside the window, outermost (as steps are), in
// start order, in two kinds: blocking checkpoints, on a thread that runs step ranges, and
// staging, on the rank's other threads (asynchronous checkpointing). Checkpoints are counted
// by their blocking part, by their staging when there is none.
struct CheckpointHealth
{
    std::uint64_t count = 0; // blocking checkpoints
    std::uint64_t stagingCount = 0;
    std::optional<double> cadenceNs; // median interval between consecutive checkpoint starts (2+)
    double medianDurationNs = 0; // of the checkpoints (blocking, else staging)
    TimeNs p95DurationNs = 0;
    TimeNs commitP95Ns = 0; // p95 of the staging durations (commit latency), else p95DurationNs
    std::optional<double> p95OverCadence; // commitP95Ns / cadence: > 1, commits outlast the interval
    // Backlog: for each staging range (each blocking checkpoint without staging), the earlier
    // ones still open at its start. The means of the first floor(n/2) and of the rest;
    // growing when the second is larger.
    double backlogFirstHalf = 0;
    double backlogSecondHalf = 0;
    std::uint32_t backlogMax = 0;
    bool backlogGrowing = false;
    // When each checkpoint was committed, ascending: the ends of the staging ranges (of the
    // blocking checkpoints when there is no staging). Where check splits windows.
    std::vector<TimeNs> commitsNs;
};

// The partition of a window as time-ordered spans: each a maximal run of one state, so
// consecutive spans differ in state, and together they tile the window (no hole, no overlap).
struct RunStateSpans
{
    std::vector<TimeNs> start, end;
    std::vector<RunState> state;
    std::size_t size() const { return start.size(); }
};

struct RankRunAccounting
{
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    TimeRange window; // absolute; empty when the rule finds nothing on the rank
    TimeNs windowNs() const { return window.duration(); }
    // Every instant of the window in exactly one state: indexed by RunState, sums to windowNs.
    std::array<TimeNs, kRunStateCount> partitionNs {};
    TimeNs activeNs() const { return partitionNs[0]; }
    RunStateSpans spans; // the same partition in time order (the GUI's state lane)
    std::uint64_t steps = 0; // steps ending in (window.start, window.end]
    std::uint64_t stepsWithoutPayload = 0; // of them, with WorkSource::Payload, without one
    std::uint64_t stepsOutsideWindow = 0; // steps of the rank ending outside the window: not counted
    double work = 0;
    std::optional<double> activeRate; // work per second of active time
    std::optional<double> sustainedRate; // work per second of window time
    std::optional<double> sustainedOverActive;
    std::vector<StepTimeByState> stepTimeByState; // one per pattern state, kPatternStates order
    std::optional<CheckpointHealth> checkpoint;
};

struct RunAccounting
{
    std::string stepRange;
    std::array<std::string, 4> patterns; // the regexes used
    RunWindowRule windowRule = RunWindowRule::StateSpan;
    std::string windowText; // what was asked, e.g. "0s:1200s" or "epoch:1:3"
    WorkSource workSource = WorkSource::StepCount;
    std::string workUnit;
    std::vector<RankRunAccounting> ranks; // selected ranks in rank order
    // Work and steps summed over the ranks; window, partition, active time and step times of
    // the slowest rank (the longest window; ties: the lower rank); rates from the summed work.
    RankRunAccounting overall;
    std::uint32_t slowestRank = kNoIndex; // the rank (index into TraceSet::ranks) whose window overall takes
    // Why nothing could be computed ("no step range ...", a bad pattern, a --between range a
    // rank lacks); empty on success.
    std::string error;
};

RunAccounting computeRunAccounting(const TraceSet &trace, const RunAccountingOptions &options);

// computeRunAccounting in parts (gaplens-mpi: one part of the capture per process). Each part
// accounts its own selected ranks; the step range, whether it exists and the work source are
// decided over every part (collective calls of `parts`), so every part has the same settings.
struct RunAccountingPart
{
    // The settings, step range, work source and unit; `ranks` this part's, each `rank` an
    // index into the part's ranks; `error` one every part has (a bad pattern, no step range)
    // or the failed rank's.
    RunAccounting accounting;
    // The part's first selected rank whose accounting failed (`accounting.error` says why; a
    // --between range it lacks, a window out of range); kNoIndex when none did.
    std::uint32_t failedRank = kNoIndex;
    std::uint64_t stepRanges = 0; // step ranges on the accounted ranks
};
RunAccountingPart computeRunAccountingPart(
    const TraceSet &part, const RunAccountingOptions &options, const PartsReduction &parts);
// The whole capture's accounting: `accounting` holds a part's settings (with any error: the
// one every part has, else the first failed rank's in the whole capture's rank order) and
// every part's ranks, in the whole capture's order and indices; `stepRanges` their sum.
RunAccounting finishRunAccounting(RunAccounting accounting, std::uint64_t stepRanges);

// computeRunAccounting over a file's time shards (gaplens-mpi), where a rank's ranges are
// spread over processes: each shard collects its ranks' ranges that the accounting uses (each
// range is in the shard of its start), and a rank's collections from every shard, joined,
// account it exactly as the whole report does.
struct RunRange
{
    TimeNs start = 0, end = 0;
    std::uint32_t thread = 0; // index into TraceSet::threads (a file's shards number them alike)
    // Its index among its thread's ranges in its part, for ties in (start, end): ranges tied
    // in start lie in one shard, so this orders them as the whole report does.
    std::uint32_t order = 0;
    std::optional<double> payload; // its NVTX payload, if any (a step's work)
};
struct RankRunRanges
{
    std::uint32_t rank = kNoIndex; // index into the ranks of the part, then of the whole capture
    // The ranges of each state (indexed by RunState; Unexplained has none), in no order.
    std::array<std::vector<RunRange>, kRunStateCount> byState;
    std::vector<RunRange> between; // every occurrence of the --between range, in no order
    // Appends the rank's ranges of another shard of its report (in any order).
    void join(const RankRunRanges &shard);
};
struct RunRangesPart
{
    RunAccounting accounting; // the settings decided over every part, or the error every part has
    std::vector<RankRunRanges> ranks; // the part's selected ranks
};
// The step range a shard cannot propose alone: options.stepRange or the one proposed from every
// shard's tallies, or the chooser's list (for the message) when there is none.
using DecidedStepRange = std::variant<std::string, StepRangeChoice>;
// Collective over `parts`, as computeRunAccountingPart.
RunRangesPart collectRunRangesPart(const TraceSet &part, const RunAccountingOptions &options,
    const DecidedStepRange &stepRange, const PartsReduction &parts);
// Accounts each rank's joined ranges, in the given order; `capture` names the ranks (their
// numbers, their reports' time zero), and `settings` is any part's accounting. The part's
// failedRank is an index into `capture`'s ranks.
RunAccountingPart accountRunRanges(const TraceSet &capture, RunAccounting settings, const RunAccountingOptions &options,
    const std::vector<RankRunRanges> &ranks);

} // namespace gaplens::core
