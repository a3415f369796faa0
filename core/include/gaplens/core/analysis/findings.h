// SPDX-License-Identifier: MIT
#pragma once
// The capture summary: per rank and GPU the figures a performance engineer reads first
// (busy %, idle time and gaps, kernel time per step against step time, copies by direction)
// and findings in plain words ("GPU 0 idle 39% of each step; most idle time is at step start
// with no CUDA call, in data_to_gpu"). Shared by the GUI Summary panel, `gaplens-cli summary`
// and the digest; gaplens-mpi runs its two steps apart (summarizeCapturePart on each process,
// finishCaptureSummary on the root).
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace gaplens::core {

// The tables the capture summary reads: all of them, as each report's data problems,
// warnings, threads and span count every table.
inline constexpr TableSet kCaptureSummaryTables = TableSet::all();

class DerivedCapture;

struct CopyTotals
{
    CopyKind kind = CopyKind::Unknown;
    std::uint64_t count = 0;
    std::uint64_t bytes = 0;
    TimeNs totalNs = 0;
};

// Copies and memsets of `gpu` (of process `pid` only when pid != 0) that start in the window,
// one entry per kind present, in CopyKind order.
std::vector<CopyTotals> summarizeCopies(
    const TraceSet &trace, std::uint32_t gpu, std::uint32_t pid = 0, const TimeWindow &window = std::nullopt);

// One row per (selected rank, GPU it uses); a rank without GPU work has one row with gpu == kNoIndex.
struct GpuSummaryRow
{
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    std::uint32_t gpu = kNoIndex; // index into TraceSet::gpus
    TimeNs busyNs = 0; // union of the GPU's kernels (all its processes) in the window
    TimeRange window; // first to last kernel in the window
    double busyPercent = 0;
    TimeNs idleNs = 0; // sum of the idle gaps >= minGapNs
    std::uint64_t gapCount = 0;
    std::uint64_t steps = 0; // pace iterations of this rank in the window
    std::optional<double> medianStepNs; // median step duration
    std::optional<double> medianKernelNsPerStep; // median summed kernel time inside a step
    std::optional<double> medianStepBusyPercent; // median GPU busy % inside a step
    std::vector<CopyTotals> copies; // this rank's copies on this GPU
    // The rank's capture (Rank::span, inside the window) and the GPU's idle time in it before
    // the first and after the last kernel, which busyPercent (over `window`) leaves out.
    TimeRange captureSpan;
    IdleOutsideWindow idleOutside;
};

enum class FindingKind : std::uint8_t {
    NvtxOnly, // no kernels or copies at all
    SingleRank, // one rank loaded: no cross-rank comparison possible
    IdleGpu, // a GPU idle for a large share of each step (or of the window)
    IdleOutsideKernels, // a GPU idle most of the capture, before its first or after its last kernel
    WarmUp, // the first steps are much slower than the median
    PageableCopies, // asynchronous copies to/from pageable host memory
    Straggler, // one rank is consistently the slowest, or the one the others wait for at collectives
    NoStraggler, // several ranks compared, none consistently the slowest
    NoStepRange, // no NVTX range looks like a training step (step_range.h)
    AnomalousIntervals, // a run of intervals whose kernel duration spread stands out (intervals.h)
    SimultaneousCopyStalls, // copy stalls in the same interval on every selected rank
    PingPong, // most HtoD and DtoH copies alternate direction (transfers.h)
};

struct Finding
{
    FindingKind kind = FindingKind::NvtxOnly;
    std::string text;
    std::uint32_t rank = kNoIndex; // the rank (IdleGpu, Straggler) when there is one
    std::uint32_t gpu = kNoIndex; // the GPU (IdleGpu)
};

struct CaptureSummaryOptions
{
    RankSelection ranks;
    TimeWindow window;
    TimeNs minGapNs = kDefaultMinGapNs;
    std::optional<std::string> stepRange; // NVTX step range; nullopt = proposePaceRangeName()
    double idleFindingPercent = 10; // report a GPU idle at least this share of each step
    std::size_t maxIdleFindings = 6; // idle lines (a group of GPUs is one); more are summed up in one line
    // Interval length of the interval findings; nullopt = defaultIntervalLength (intervals.h).
    std::optional<TimeNs> intervalNs;
};

struct CaptureSummary
{
    std::string stepRange; // empty when no step range was found
    std::vector<GpuSummaryRow> rows;
    std::vector<Finding> findings; // most important first
};

// The capture summary in two steps, for a capture computed in parts (gaplens-mpi), where each
// rank's events are all on one part.
//
// First what a part's own ranks tell: their rows, the idle story of each GPU idle at least
// `idleFindingPercent`, their GPU events and NVTX ranges, their pageable asynchronous copies.

// One GPU's idle finding apart from which GPU and its exact percentages: GPUs with the same
// story are told in one line.
struct IdleStory
{
    std::int64_t idlePercent = 0;
    bool perStep = false; // of each step, else of the time between the first and last kernel
    bool hasCause = false;
    bool most = false; // the top cause holds at least half of the idle time
    std::int64_t causePercent = 0;
    std::string where; // "at step start ", "at step end " or ""
    std::string cause; // the top cause in words
    std::string phase; // the NVTX phase holding most of that cause's idle time, or ""
    bool hasCopies = false; // copies or memsets ran during some of the idle time
    std::int64_t copyPercent = 0; // of the idle time, when they did

    auto key() const { return std::tie(perStep, hasCause, most, where, cause, phase, hasCopies); }
};

// Asynchronous copies to or from pageable host memory (they run synchronously with the host).
struct PageableCopyTotals
{
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
    bool fromPageable = false;
    bool toPageable = false;
};

struct CaptureSummaryPart
{
    std::vector<GpuSummaryRow> rows; // the selected ranks' rows, in rank order, then the rank's GPUs
    std::vector<std::optional<IdleStory>> idle; // one per row: the story of an idle GPU
    std::uint64_t gpuEvents = 0; // kernels, copies and memsets of every GPU of the part
    std::uint64_t nvtxRanges = 0;
    PageableCopyTotals pageable; // on the selected ranks' GPUs, each GPU once
};

// `steps`: the step accounting of the selected ranks (empty without a step range).
CaptureSummaryPart summarizeCapturePart(
    const DerivedCapture &derived, const CaptureSummaryOptions &options, const std::vector<RankSteps> &steps);

// Then what only the whole capture gives, and the findings from both. The parts' rows (and
// their stories) are put together in the whole capture's order, their rank and GPU indices
// the whole capture's, and their counts summed; `trace` needs only the ranks (numbers) and
// the GPUs (device ids), unless options.window is set (ping-pong then counts its copies).
struct CaptureWideFacts
{
    std::string stepRange; // empty when there is none
    PaceReport pace; // of the step range over the selected ranks in the window
    std::optional<RankSkew> lastToCollectives; // findCollectiveStraggler's, with two or more ranks
    // Every rank's intervals (findingIntervalOptions), finished; nullopt when the interval is
    // too short for the capture (no interval findings).
    std::optional<IntervalReport> intervals;
};

// The interval statistics the findings read: options.intervalNs, else `defaultLength`
// (defaultIntervalLength of the whole capture); the spread's standard deviation; every anomaly.
IntervalOptions findingIntervalOptions(const CaptureSummaryOptions &options, TimeNs defaultLength);

CaptureSummary finishCaptureSummary(
    const TraceSet &trace, CaptureSummaryPart part, const CaptureWideFacts &wide, const CaptureSummaryOptions &options);

// Busy time, idle gaps and their blame computed for the call: summarizeCapture over a
// DerivedCapture{options.minGapNs, includeCopies = false}.
CaptureSummary summarizeCapture(const TraceSet &trace, const CaptureSummaryOptions &options = {});
// Busy time, idle gaps and blame read from `derived` (its trace, threshold and copies setting;
// options.minGapNs is not read), scoped to options.ranks and options.window.
CaptureSummary summarizeCapture(const DerivedCapture &derived, const CaptureSummaryOptions &options);

// "3x" for ratios >= 3, else one decimal ("1.8x").
std::string formatRatio(double ratio);

} // namespace gaplens::core
