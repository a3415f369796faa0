// SPDX-License-Identifier: MIT
#pragma once
// Which NVTX range is the training step. Pace, the findings, the compare view and run
// accounting measure steps as the instances of one range name; this is the one place that
// lists the names a user can choose from and proposes one, by NVTX group name
// (nvtxGroupName), so PyTorch's per-call "aten::mm, op_id = 314359" counts as "aten::mm".
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gaplens::core {

class PartsReduction;

// The tables choosing the step range reads: NVTX ranges, weighed against the capture's span.
inline constexpr TableSet kStepRangeTables = kCaptureSpanTables | ExportTable::Nvtx;

struct StepRangeCandidate
{
    std::string name; // the group name
    std::uint64_t count = 0; // instances over all threads of all ranks, any depth
    std::uint64_t topLevel = 0; // of them at NVTX depth 0
    std::uint64_t mostOnARank = 0; // the most instances one rank has (any depth)
    std::uint32_t ranks = 0; // ranks that have it
    bool onEveryRank = false; // every rank with NVTX ranges has it
    // What proposePaceRangeName accepts (see there).
    bool stepLike = false;
};

struct StepRangeChoice
{
    std::uint64_t nvtxRanges = 0; // over all ranks; 0: there is nothing to choose from
    std::uint32_t ranksWithNvtx = 0;
    // Step-like names first (in proposal order), then names that repeat on every rank, then
    // names that repeat on some rank, then the rest; within each, most instances first, then
    // most top-level instances, then by name. At most `limit` entries.
    std::vector<StepRangeCandidate> candidates;
    std::optional<std::string> proposed; // proposePaceRangeName's answer
};

// A group name is step-like when its depth-0 instances
//   - repeat on some rank (a name seen once per rank is no loop),
//   - are on every rank that has NVTX ranges (in synchronous training every rank steps),
//   - cover at least 10% of the capture's span on the ranks that have them (NCCL's 300 ns
//     progress polls repeat thousands of times but are no step),
// and it is not a PyTorch operator range ("aten::…", "autograd::…": emit_nvtx's per-op
// ranges, which repeat as often as the operator does). Of the step-like names the proposal
// is the one with most depth-0 instances over all ranks; ties: the larger depth-0 total
// time, then alphabetical. nullopt when no name is step-like.
std::optional<std::string> proposePaceRangeName(const TraceSet &trace);

// The chooser's list and the proposal: one pass over every NVTX range.
StepRangeChoice chooseStepRange(const TraceSet &trace, std::size_t limit = 200);

// The same two for a capture computed in parts (gaplens-mpi: each part holds some of the
// reports, so each rank is on one part). Each part tallies its own ranks, the tallies are
// combined exactly through `parts` (group names matched by text, counts summed, per-rank
// maxima maxed, the capture's span the union of the parts'), and the choice is made from the
// whole capture's tally by the same code: every part gets what the whole capture gives.
// Collective: every part calls it with the same `limit`.
std::optional<std::string> proposePaceRangeName(const TraceSet &part, const PartsReduction &parts);
StepRangeChoice chooseStepRange(const TraceSet &part, const PartsReduction &parts, std::size_t limit = 200);

// The same two for a capture read in time shards (gaplens-mpi: a process holds a block of a
// file's shards, whose NVTX ranges are those that start in them, so a rank spans processes).
// Each shard tallies its ranks (rankNvtxTallies), a rank's shards' tallies are added up
// (addShardTally), and the choice is made from every rank's by the same code as above.
struct NvtxGroupTally
{
    std::string name; // the group name
    std::uint64_t ranges = 0; // instances at any depth
    std::uint64_t topLevel = 0; // instances at depth 0
    TimeNs topLevelNs = 0; // their total time
};
struct RankNvtxTally
{
    std::uint64_t ranges = 0; // NVTX ranges, named or not
    std::vector<NvtxGroupTally> groups; // by name
};
// Per rank of `part`, its tally. `earlierEnds[thread]` (indexed as part.threads; none past
// its end) is the latest end of that thread's ranges in its file's earlier shards: a range
// starting before it is enclosed by one of those, so it is not at depth 0.
std::vector<RankNvtxTally> rankNvtxTallies(const TraceSet &part, std::span<const TimeNs> earlierEnds = {});
// Per thread of `part`, the latest end of its NVTX ranges; the lowest TimeNs when it has none.
std::vector<TimeNs> latestNvtxEnds(const TraceSet &part);
// Adds a later shard's tally of the same rank.
void addShardTally(RankNvtxTally &rank, const RankNvtxTally &shard);
// `ranks`: every rank's whole tally; `span`: the capture's.
std::optional<std::string> proposePaceRangeName(std::span<const RankNvtxTally> ranks, TimeRange span);
StepRangeChoice chooseStepRange(std::span<const RankNvtxTally> ranks, TimeRange span, std::size_t limit = 200);

// Why no step range could be proposed, for a message: "the capture has no NVTX ranges", or
// "no NVTX range looks like a training step (…); on every rank: aten::linear (280 on 2
// ranks), …; on some ranks: …", at most `names` candidates of each kind in chooser order.
std::string describeMissingStepRange(const StepRangeChoice &choice, std::size_t names = 3);

} // namespace gaplens::core
