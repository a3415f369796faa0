// SPDX-License-Identifier: MIT
#pragma once
// Rank pace (nsys nvtx_pace): iterations of one NVTX range (e.g. "train_step") per rank,
// compared across ranks to find a straggler; plus per-step GPU accounting.
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/analysis/step_range.h" // proposePaceRangeName
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::core {

// The tables pace reads: NVTX ranges, and with the GPU projection the CUDA calls and the GPU
// work they launched. Step accounting reads kernels, and copies and memsets.
inline constexpr TableSet kPaceTables = ExportTable::Nvtx;
inline constexpr TableSet kPaceGpuProjectionTables
    = TableSet(ExportTable::Nvtx) | ExportTable::CudaApi | ExportTable::Kernels | ExportTable::Copies;
inline constexpr TableSet kStepAccountingTables = ExportTable::Kernels | ExportTable::Copies;

struct PaceOptions
{
    // NVTX range name (any domain), matched as the summaries group names: ranges named so, or
    // whose group name (nvtxGroupName) it is, so "aten::mm" finds "aten::mm, op_id = 7".
    // See proposePaceRangeName().
    std::string rangeName;
    RankSelection ranks;
    // Use each range's GPU projection instead of its CPU time; ranges that launched no GPU
    // work are then dropped (copies and memsets count as GPU work).
    bool useGpuProjection = false;
    // Only iterations whose measured start lies in the window (a time selection); statistics,
    // medians and the verdict are over those.
    TimeWindow window;
};

struct PaceIteration
{
    std::uint32_t thread = kNoIndex; // index into TraceSet::threads
    std::uint32_t range = kNoIndex; // index into Thread::nvtx
    TimeRange cpu; // the NVTX range itself
    TimeRange time; // what is measured: cpu, or the GPU projection
    TimeNs durationNs = 0; // time.duration()
    TimeNs deltaToPreviousNs = 0; // time.start - previous iteration's time.start; 0 for the first
};

struct RankPace
{
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    // Outermost instances on all threads of the rank (a range nested in a same-named one is
    // skipped), sorted by start.
    std::vector<PaceIteration> iterations;
    std::uint32_t firstIteration = 0; // iterations of this rank before the window (their numbering)
    double medianNs = 0;
    TimeNs p95Ns = 0; // nearest-rank
    std::uint32_t timesSlowest = 0; // over the common iterations
};

struct IterationPace
{
    std::uint32_t index = 0;
    double medianNs = 0; // median duration across the ranks
    std::uint32_t slowestRank = kNoIndex; // index into TraceSet::ranks; kNoIndex when ranks tie
    TimeNs slowestNs = 0;
};

struct StragglerVerdict
{
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    std::uint32_t slowestCount = 0;
    std::uint32_t iterations = 0; // common iterations compared
    double percentAboveMedian = 0; // (rank median / median of per-iteration medians - 1) * 100
};

struct PaceReport
{
    std::string rangeName;
    std::vector<RankPace> ranks; // selected ranks that have the range, ascending rank index
    // Common iterations: index 0 .. (min iteration count over `ranks`) - 1.
    std::vector<IterationPace> iterations;
    // Set when >= 2 ranks, >= 3 common iterations and one rank is slowest in at least half
    // of them (ties between two such ranks: more slowest counts, then the lower index).
    std::optional<StragglerVerdict> straggler;
};

PaceReport computePace(const TraceSet &trace, const PaceOptions &options);

// computePace in its two steps, for a capture computed in parts (gaplens-mpi), where each
// rank's events are all on one part. First each selected rank's pace from its own events:
// its iterations, firstIteration, median and p95 (timesSlowest is the comparison's),
// ascending rank index; a capture that never names the range has none.
std::vector<RankPace> computeRankPaces(const TraceSet &trace, const PaceOptions &options);
// Then the comparison across ranks, from every selected rank's pace in ascending rank index:
// the common iterations with their medians and slowest ranks, each rank's timesSlowest and
// the verdict.
PaceReport comparePaces(std::string rangeName, std::vector<RankPace> ranks);

// Pace of a file read in time shards (gaplens-mpi), measured on the CPU (no GPU projection):
// each shard's outermost instances per rank (paceCandidates, indexed by rank; the range name,
// the selected ranks); then a rank's pace from its candidates of every shard of its file, in
// shard order (rankPaceFromShards: a candidate inside one of an earlier shard is dropped, as
// computeRankPaces drops it). Its iterations' thread and range are the shards' own.
struct PaceCandidate
{
    TimeNs start = 0, end = 0;
    std::uint32_t thread = kNoIndex, range = kNoIndex;
};
std::vector<std::vector<PaceCandidate>> paceCandidates(const TraceSet &trace, const PaceOptions &options);
std::optional<RankPace> rankPaceFromShards(
    std::uint32_t rank, const std::vector<PaceCandidate> &inShardOrder, const PaceOptions &options);

// "rank 3 was slowest in 18 of 20 steps, 12% above the median" (rank number as shown to users).
std::string describeStraggler(const TraceSet &trace, const StragglerVerdict &verdict);

struct StepUsage
{
    std::uint32_t iteration = 0;
    TimeRange step; // the iteration's measured time (PaceIteration::time)
    TimeNs kernelNs = 0; // sum of the rank's kernel durations clipped to the step
    TimeNs busyNs = 0; // union of the rank's GPU work clipped to the step
    double busyPercent = 0; // busyNs / step duration * 100; 0 for an empty step
};

struct RankSteps
{
    std::uint32_t rank = kNoIndex;
    std::vector<StepUsage> steps; // one per RankPace::iterations entry
};

struct StepAccountingOptions
{
    bool includeCopies = false; // busyNs also unions the rank's copies and memsets
    // In a file's time shard (gaplens-mpi): per rank index, the latest end of its GPU work
    // that started in the file's earlier shards (stepBusyCarries). A step's busy time then
    // counts only what lies after it, so the shards' figures add up to the whole file's.
    std::map<std::uint32_t, TimeNs> earlierShards;
};

// The rank's GPU work = kernels of its streams (Stream::rank) and, with includeCopies, the
// copies of its process on its GPUs; a rank with several GPUs has one union over all of them.
std::vector<RankSteps> computeStepAccounting(
    const TraceSet &trace, const PaceReport &pace, const StepAccountingOptions &options = {});
// The same for some ranks' paces: a rank's steps read only its own events.
std::vector<RankSteps> computeStepAccounting(
    const TraceSet &trace, const std::vector<RankPace> &ranks, const StepAccountingOptions &options = {});
// What a time shard's ranks carry to the later shards of their files: per rank index, the latest
// end of its GPU work (its streams' kernels; with includeCopies, its process's copies on its GPUs).
std::map<std::uint32_t, TimeNs> stepBusyCarries(const TraceSet &trace, const StepAccountingOptions &options);
// A rank's step accounting over its file's time shards: `shard`'s kernel and busy time of each
// step (the same steps) added to `into` (empty: a copy), and its busy percentage the sums'.
void addShardSteps(RankSteps &into, const RankSteps &shard);

} // namespace gaplens::core
