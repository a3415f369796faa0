// SPDX-License-Identifier: MIT
#pragma once
// Communication and computation: per rank and GPU, how much NCCL kernel time ran beside
// compute kernels and how much was exposed; per collective type, calls and time; across
// ranks, the start skew of each collective instance (Holistic Trace Analysis's straggler signal).
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

// The tables overlap reads: kernels only (communication kernels are found by name).
inline constexpr TableSet kOverlapTables = ExportTable::Kernels;

// A communication kernel: its short name starts with "nccl", in any case.
bool isCommunicationKernel(std::string_view shortName);

enum class CollectiveType : std::uint8_t {
    AllReduce,
    AllGather,
    ReduceScatter,
    Reduce,
    Broadcast,
    AllToAll,
    SendRecv,
    Send,
    Recv,
    Other, // a communication kernel whose name names none of the above
};
inline constexpr std::size_t kCollectiveTypeCount = std::size_t(CollectiveType::Other) + 1;
// "AllReduce", "SendRecv", ..., "Other".
std::string_view collectiveTypeName(CollectiveType type);
// The collective a communication kernel's name names, read from the word after the first '_'
// (ncclDevKernel_SendRecv, ncclKernel_AllReduce_RING_LL_Sum_float): compared without case,
// "AllToAll" also spelled "AlltoAll". Other for any other name, a non-NCCL one included.
CollectiveType parseCollectiveType(std::string_view shortName);

// The latest ends of one row's (rank, GPU) kernels that started in a file's earlier time
// shards (gaplens-mpi), of communication and of the other kernels; none: no such kernel.
struct OverlapCarry
{
    std::optional<TimeNs> commUntil, computeUntil;
};
// Per row: (rank index or kNoIndex, GPU index).
using OverlapCarries = std::map<std::pair<std::uint32_t, std::uint32_t>, OverlapCarry>;

struct OverlapOptions
{
    RankSelection ranks;
    // Kernels are clipped to the window; a kernel with nothing inside it is left out (of the
    // skew matching too, which then numbers the kernels inside the window from 0).
    TimeWindow window;
    // In a file's time shard: what its earlier shards' kernels cover. A row's unions count
    // only the time after them, so the rows of a file's shards add up to the whole file's
    // (every count and time; the hidden percentage is the sums').
    OverlapCarries earlierShards;
};

struct CollectiveTotals
{
    CollectiveType type = CollectiveType::Other;
    std::uint64_t calls = 0;
    TimeNs totalNs = 0; // sum of the (clipped) kernel durations
};

// One rank's work on one GPU: its streams' kernels (Stream::rank == rank).
struct OverlapRow
{
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks; kNoIndex: work of no rank
    std::uint32_t gpu = kNoIndex; // index into TraceSet::gpus
    std::uint64_t commKernels = 0, computeKernels = 0;
    TimeNs commNs = 0; // union of the communication kernels
    TimeNs computeNs = 0; // union of all other kernels
    TimeNs overlapNs = 0; // intersection of the two unions
    TimeNs exposedCommNs = 0; // commNs - overlapNs
    double hiddenPercent = 0; // overlapNs / commNs * 100; 0 without communication
    // Only the types with calls, in CollectiveType order.
    std::vector<CollectiveTotals> collectives;
};

// The k-th communication kernel of one name on each rank of one job that has one. Ranks whose
// collectives do not overlap in time (first start to last end) are separate jobs, matched apart.
struct CollectiveInstance
{
    StringId name = kEmptyString; // short name
    CollectiveType type = CollectiveType::Other;
    std::uint32_t occurrence = 0; // k, from 0, per rank and name
    // Ranks (indices into TraceSet::ranks, ascending) with a k-th kernel of that name; at least two.
    std::vector<std::uint32_t> ranks;
    std::vector<TimeNs> start; // per entry of ranks: the kernel's start
    std::vector<TimeNs> skewNs; // per entry of ranks: start - the earliest start among them
    std::uint32_t lastRank = kNoIndex; // the one rank that started last; kNoIndex when several tie
};

struct RankSkew
{
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    std::uint64_t instances = 0; // instances the rank takes part in
    double medianSkewNs = 0; // over those instances; 0 when none
    TimeNs maxSkewNs = 0;
    std::uint64_t timesLast = 0; // instances whose lastRank is this rank
};

struct OverlapReport
{
    std::vector<OverlapRow> rows; // sorted by (rank, gpu); rows without any kernel are left out
    // Sorted by earliest start, then name (its text), then occurrence.
    std::vector<CollectiveInstance> instances;
    std::vector<RankSkew> ranks; // every selected rank with a communication kernel, ascending
};

// O(n log n) in the kernels of the selected ranks: computeOverlapPart, then finishOverlap.
OverlapReport computeOverlap(const TraceSet &trace, const OverlapOptions &options = {});

// computeOverlap in two halves, so that ranks loaded apart (gaplens-mpi's processes) give the
// whole capture's report: the rows and each rank's communication kernels depend only on the
// rank's own kernels; the collective instances and the skews are matched across ranks.
struct CommunicationStart
{
    TimeNs start = 0; // unclipped
    StringId name = kEmptyString; // short name
};
// One rank's communication kernels (those with something inside the window), of all its GPUs
// and streams: what the matching across ranks needs of them.
struct RankCommunication
{
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    TimeNs lastEnd = 0; // the latest (unclipped) end: with the first start, the rank's span
    std::vector<CommunicationStart> kernels; // in start order; at least one
};
struct OverlapPart
{
    std::vector<OverlapRow> rows; // as OverlapReport::rows
    std::vector<RankCommunication> communication; // selected ranks with a communication kernel, ascending
};
OverlapPart computeOverlapPart(const TraceSet &trace, const OverlapOptions &options = {});
// The parts of a capture as one: every row's figures, and every rank's communication kernels,
// from its files' time shards (in shard order) added up and joined; rows in (rank, GPU) order.
OverlapPart joinOverlapParts(std::vector<OverlapPart> parts);
// What the rows of `report`'s kernels (a time shard of it) carry to the file's later shards:
// the latest (unclipped) end of each kind, per row with a kernel.
OverlapCarries overlapCarries(const TraceSet &trace, std::uint32_t report);
// The cross-rank half: the instances and skews from every rank's communication kernels, in any
// order, each rank once. `names` holds their names; `rankCount` bounds the rank indices.
OverlapReport finishOverlap(OverlapPart part, std::size_t rankCount, const StringPool &names);

// The rank the others waited for at their collectives: the one that started last in more than
// half of the instances it took part in, and in at least kMinCollectiveStragglerInstances of
// them. Fewer instances are not evidence; a tie for "started last" names no one.
inline constexpr std::uint64_t kMinCollectiveStragglerInstances = 3;
std::optional<RankSkew> findCollectiveStraggler(const OverlapReport &report);
// "started last in 7 of 9 collectives (median skew 1.200 ms): the other ranks waited for it".
std::string describeCollectiveStraggler(const RankSkew &skew);

} // namespace gaplens::core
