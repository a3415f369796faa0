// SPDX-License-Identifier: MIT
#pragma once
// Before/after comparison of two captures (each one or many ranks): a headline of per-step
// figures with a run-to-run noise judgement and a one-line verdict, then kernels, idle time
// by blame cause and by NVTX phase, and NVTX ranges, matched by NAME (StringIds differ
// between captures). Used by `gaplens-cli diff` and the GUI's compare panel.
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

class DerivedCapture;

// The tables a comparison reads of each capture: busy time and the gaps' idle time by cause
// and phase (not their OS calls, waits or call stacks), the step range and its paces with step
// accounting, run accounting, and the kernel, NVTX and CUDA API summaries.
inline constexpr TableSet kCompareTables = kGapCauseAndPhaseTables | kStepRangeTables | kPaceTables
    | kStepAccountingTables | kRunAccountingTables | kKernelSummaryTables | kNvtxSummaryTables | kApiSummaryTables;

struct CompareOptions
{
    // NVTX range whose iterations are the steps; empty = proposePaceRangeName(before),
    // falling back to proposePaceRangeName(after).
    std::string rangeName;
    TimeNs minGapNs = kDefaultMinGapNs; // idle gaps (totals and blame) of at least this length
    bool includeCopies = false; // copies and memsets count as GPU busy time
    double alpha = 0.05; // significance level of the rank-sum test
    std::size_t bootstrapResamples = 2000;
    std::uint64_t bootstrapSeed = 0x6761706C656E73ull;
};

// Rate: units of work per second (the unit named beside it); Ratio: a plain number.
enum class MetricUnit : std::uint8_t { Duration, Percent, Count, Rate, Ratio };

enum class NoiseJudgement : std::uint8_t {
    NotJudged, // no steps (or too few) to measure the noise by
    WithinNoise, // the change does not exceed run-to-run noise
    ExceedsNoise, // the change is larger than the noise and (for medians) the rank-sum test rejects
};

struct MetricChange
{
    std::string key; // stable id, also the JSON key: "median_step", "busy_pct_total", ...
    std::string label; // "median step time"
    MetricUnit unit = MetricUnit::Duration;
    bool higherIsBetter = false;
    std::optional<double> before, after; // ns, percent or a count; nullopt when not measurable
    std::optional<double> delta; // after - before (ns, percentage points or count)
    std::optional<double> changePercent; // delta / before * 100; nullopt when before is 0 or missing
    // Per-step metrics only:
    NoiseJudgement judgement = NoiseJudgement::NotJudged;
    std::optional<double> noisePercent; // half-width of the bootstrap interval / before * 100
    std::optional<double> pValue; // two-sided rank-sum p; nullopt for the p95 (a tail, not a shift)
};

// What one capture measured, for the totals rows and the steps the noise is judged by.
struct CaptureFigures
{
    std::size_t ranks = 0, gpus = 0;
    std::size_t steps = 0; // common iterations of the step range over the ranks that have it
    std::size_t ranksWithSteps = 0; // ranks that have the step range
    std::uint64_t kernels = 0;
    TimeNs kernelNs = 0; // summed kernel durations, all GPUs
    TimeNs busyNs = 0; // summed per-GPU busy unions
    TimeNs windowNs = 0; // summed per-GPU windows (first to last busy)
    double busyPercent = 0; // busyNs / windowNs * 100: the GPUs' union, weighted by their windows
    std::uint64_t gapCount = 0;
    TimeNs gapNs = 0; // idle gaps >= minGapNs, all GPUs
    // One value per common step: the median across ranks of that step's figure. Steps of
    // synchronous data-parallel ranks are coupled by their collectives (rank r's step k ends
    // when the slowest rank's does), so the ranks' values of one step are not independent
    // observations; pooling them would count one step N times and make the rank-sum test
    // N-fold overconfident. The median across ranks keeps one observation per step.
    std::vector<double> stepNs, stepBusyPercent, stepIdleNs, stepKernelNs;
};

enum class Presence : std::uint8_t { Both, New, Vanished }; // New = only after, Vanished = only before
std::string_view presenceName(Presence presence); // "both", "new", "vanished"

struct KernelChange
{
    std::string name; // short name
    Presence presence = Presence::Both;
    std::uint64_t callsBefore = 0, callsAfter = 0;
    TimeNs totalBefore = 0, totalAfter = 0;
    double avgBefore = 0, avgAfter = 0; // 0 where there are no calls
    TimeNs deltaNs = 0; // totalAfter - totalBefore
    std::optional<double> avgRatio; // avgAfter / avgBefore, when both have calls
};

struct IdleChange
{
    std::string key; // blame cause label or API name; or NVTX phase group name ("(none)")
    Presence presence = Presence::Both;
    std::uint64_t countBefore = 0, countAfter = 0;
    TimeNs totalBefore = 0, totalAfter = 0;
    TimeNs deltaNs = 0;
};

struct NvtxChange
{
    std::string name; // nvtxGroupName of the range (both styles merged)
    Presence presence = Presence::Both;
    std::uint64_t instancesBefore = 0, instancesAfter = 0;
    TimeNs totalBefore = 0, totalAfter = 0;
    double avgBefore = 0, avgAfter = 0;
    TimeNs deltaNs = 0;
};

enum class Verdict : std::uint8_t { Faster, Slower, NoSignificantChange, NoSteps };

// What the headline's figures are divided by. Totals of two captures that ran different
// amounts of work (a 0.3 s window holds fewer iterations of a slower job) say nothing about
// the change, so then the headline is per step or per kernel call.
enum class WorkBasis : std::uint8_t {
    Capture, // the same work: totals compared as measured
    PerStep, // both captures have >= 2 steps: per step of the step range
    PerCall, // no steps: per call of the kernels both captures ran
};
std::string_view workBasisName(WorkBasis basis); // "capture", "per_step", "per_call"

struct WorkComparison
{
    WorkBasis basis = WorkBasis::Capture;
    bool differs = false; // the step counts, or the calls of kernels in both, differ
    // Units of work counted: steps (PerStep) or calls of kernels in both (otherwise).
    std::uint64_t before = 0, after = 0;
    std::string text; // in words, which denominator the headline uses and why
};

// A kernel both captures ran whose time per call changed beyond the noise rule.
struct PerCallChange
{
    std::string name;
    std::uint64_t callsBefore = 0, callsAfter = 0;
    double avgBefore = 0, avgAfter = 0; // ns per call
    double ratio = 1; // avgAfter / avgBefore
    double impactNs = 0; // (avgAfter - avgBefore) * callsAfter: the time the change cost or saved
    std::string text; // "ncclDevKernel_SendRecv 1.41x slower per call (+9.913 ms)"
};

struct Comparison
{
    std::string stepRange; // "" when there is no step range
    std::string rangeSource; // "option", "proposed (before)", "proposed (after)" or "" when none
    bool hasSteps = false; // both captures have >= 2 iterations of stepRange
    CaptureFigures before, after;
    // Per-step rows (median step, step p95, busy % in step, idle per step, kernel per step;
    // only with steps) then totals (GPU busy %, idle in gaps, kernel time, kernel count).
    std::vector<MetricChange> headline;
    Verdict verdict = Verdict::NoSteps;
    // "after is 7.9% faster per step (noise +-1.2%)", "no significant change", or for totals
    // only "no step to judge noise by (...)".
    std::string verdictText;
    std::string verdictDetail; // the numbers behind it, e.g. "median step 10.0 ms -> 9.2 ms, p = 0.001"
    std::string noiseMethod; // which test was used, in words, for the UI
    std::vector<KernelChange> kernels; // sorted by |deltaNs| desc, then name
    std::vector<IdleChange> idleByCause, idleByPhase; // sorted by |deltaNs| desc, then key
    std::vector<NvtxChange> nvtx; // sorted by |deltaNs| desc, then name
    std::vector<std::string> warnings; // e.g. the step range missing from one capture
    WorkComparison work;
    // Why the two captures may not be comparable (different rank or GPU counts, few kernels
    // in common, very different amounts of work); empty when nothing speaks against it. The
    // verdict text starts with them.
    std::vector<std::string> notComparable;
    // Kernels in both whose time per call changed beyond the noise rule (perCallRule),
    // largest impact first, at most kTopPerCallChanges of each.
    std::vector<PerCallChange> regressions, improvements;
    std::string perCallRule; // the noise rule in words
    // Run accounting side by side (run_accounting.h with the step range above, default window
    // and patterns): window, active time, work, active and sustained rate, their ratio, then
    // each part of the partition (keys "partition_<state>"). Not judged for noise (one value
    // per capture). Empty, with sustainedError saying why, when either capture has none.
    std::vector<MetricChange> sustained;
    std::string sustainedWorkUnit; // the unit of "work" and of the rates (the before capture's)
    std::string sustainedError;

    const MetricChange *metric(std::string_view key) const;
};

// compareTraces in steps, for gaplens-mpi, which measures each capture in parts.
struct NamedTotals
{
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
};
// What a capture gives the comparison, keyed by text so two captures match.
struct CaptureMeasures
{
    CaptureFigures figures;
    std::map<std::string, NamedTotals> kernels, causes, phases, nvtx; // by name, cause and phase keys
};
// The measures a capture's (or a part's) own events give: busy, window and gap sums over its
// GPUs, and kernels, idle causes and phases, and NVTX ranges by name. Not the ranks, GPUs or
// steps, which are the whole capture's.
CaptureMeasures measureCapturePart(const DerivedCapture &derived);
// measureCapturePart in two halves, for gaplens-mpi's time shards, which take them from two
// loads: the GPU work's (busy, window and gap sums, kernels, idle causes and phases) from a
// shard read with its gaps' halo, and the NVTX ranges by name from a read of the shard's own
// rows (the halo also holds the ranges open at its gaps).
CaptureMeasures measureGpuWorkPart(const DerivedCapture &derived);
std::map<std::string, NamedTotals> measureNvtxByName(const TraceSet &trace);
// Adds a part's measures to the whole's (sums, by name).
void addCaptureMeasures(CaptureMeasures &whole, const CaptureMeasures &part);
// The totals that follow from the sums (kernel time from the kernels, busy %), the capture's
// rank and GPU counts, and, with a step range, the per-step figures: one value per common
// iteration of `pace`, the median across its ranks (accounting: their steps, in pace's order).
void finishCaptureMeasures(CaptureMeasures &measures, std::size_t ranks, std::size_t gpus, const PaceReport *pace,
    const std::vector<RankSteps> &accounting);
// The comparison of two captures measured (compareTraces' second half). `stepRange` and
// `rangeSource` as Comparison has them; the accountings are computeRunAccounting's with that
// step range (unused without one).
Comparison compareMeasures(const CaptureMeasures &before, const CaptureMeasures &after, std::string stepRange,
    std::string rangeSource, const RunAccounting &beforeAccounting, const RunAccounting &afterAccounting,
    const CompareOptions &options);

// Busy time, gaps and blame derived for the call: compareTraces over two
// DerivedCaptures{options.minGapNs, options.includeCopies}.
Comparison compareTraces(const TraceSet &before, const TraceSet &after, const CompareOptions &options = {});
// Busy time, gaps and blame read from the two DerivedCaptures, which should share a threshold
// and copies setting (options.minGapNs names the threshold in the headline;
// options.includeCopies still applies to step accounting).
Comparison compareTraces(const DerivedCapture &before, const DerivedCapture &after, const CompareOptions &options = {});

} // namespace gaplens::core
