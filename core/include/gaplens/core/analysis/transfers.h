// SPDX-License-Identifier: MIT
#pragma once
// Memory transfers by direction: the per-direction figures the interval statistics and
// `gaplens-cli transfers` add up, and the ping-pong pattern (alternating HtoD/DtoH copies).
// docs/intervals.md defines both.
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace gaplens::core {

// The tables transfer figures read: copies and memsets, and kernels, which place each rank's
// intervals and the origin.
inline constexpr TableSet kTransferTables = ExportTable::Kernels | ExportTable::Copies;

// One slot per copy direction: the CopyKind values 0-13 in their order, then memsets.
inline constexpr std::size_t kCopySlotCount = 15;
inline constexpr std::size_t kMemsetSlot = 14;
std::size_t copySlot(CopyKind kind);
CopyKind copySlotKind(std::size_t slot);
// The direction's label, as the timeline and the summary name it (copyKindName).
inline std::string_view copySlotName(std::size_t slot)
{
    return copyKindName(copySlotKind(slot));
}

// Count, bytes and summed duration of copies: integer sums, so merging is exact and
// associative (bytes wrap only past 2^64, 16 EiB).
struct CopyFigures
{
    std::uint64_t count = 0;
    std::uint64_t bytes = 0;
    TimeNs ns = 0;
    void add(std::uint64_t b, TimeNs d)
    {
        ++count;
        bytes += b;
        ns += d;
    }
    void merge(const CopyFigures &other)
    {
        count += other.count;
        bytes += other.bytes;
        ns += other.ns;
    }
    bool operator==(const CopyFigures &) const = default;
};

using CopyMix = std::array<CopyFigures, kCopySlotCount>;

// The figures of the transfers only (every slot but memsets).
CopyFigures transferTotal(const CopyMix &mix);

// The GPUs holding a copy or memset of the rank's process (its report's GPUs, ascending).
// Rank::gpus lists the GPUs it ran kernels on, so a GPU it only copied to is here alone.
std::vector<std::uint32_t> copyGpusOfRank(const TraceSet &trace, std::uint32_t rank);

// Ping-pong on one rank: its copies and memsets on all its GPUs (copyGpusOfRank) in start
// order (ties: the trace's order, GPU by GPU); a run is a maximal sequence of at least
// kPingPongMinRun consecutive copies, each HtoD or DtoH and of the other direction than the one
// before it. Anything else (DtoD, a memset, a unified-memory migration) ends a run.
inline constexpr std::size_t kPingPongMinRun = 4;
struct PingPong
{
    std::uint64_t runs = 0;
    std::uint64_t copies = 0; // copies inside runs
    std::uint64_t htodDtohCopies = 0; // all HtoD and DtoH copies of the rank
    double medianBytes = 0; // median size of the copies inside runs (mean of the middle two)
    std::uint64_t longestRun = 0;
    // Start and size of every copy inside a run, by start ascending (ties: run order).
    std::vector<TimeNs> starts;
    std::vector<std::uint64_t> bytes;
};
PingPong findPingPong(const TraceSet &trace, std::uint32_t rank);

// A rank's copies and memsets in the order findPingPong walks them. A rank of a file read in
// time shards (gaplens-mpi) has one sequence per shard: the shards' sequences one after the
// other are the whole rank's, since each copy is in the shard where it starts.
struct CopySequence
{
    std::vector<CopyKind> kind;
    std::vector<TimeNs> start;
    std::vector<std::uint64_t> bytes;
    void append(const CopySequence &later);
};
CopySequence copySequence(const TraceSet &trace, std::uint32_t rank);
// findPingPong over a rank's sequence.
PingPong pingPongOf(const CopySequence &copies);

} // namespace gaplens::core
