// SPDX-License-Identifier: MIT
#pragma once
// Idle gaps of a file read in time shards (gaplens-mpi's gaps and blame). A gap belongs to
// the shard of the kernel (or copy) that ends it. Two reads of each window make it exact:
// 1. the window's kernels and copies (by start, StoredStartWindow without a halo) give the
//    shard's ShardEdges, which every shard sends to the later shards of its file (all but
//    its launch ranges, which only its own halo reads);
// 2. from the earlier shards' edges, the window gets its ShardHalo (the host rows its gaps'
//    blame reads, and the launch calls of its work) for the second, full read, and that read
//    its EarlierShards: the busy work still running at the window's start, and each stream's
//    kernel before its first one.
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/model/trace.h"
#include "gaplens/core/read/time_shards.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gaplens::core {

struct ShardStreamEdge
{
    std::uint32_t pid = 0;
    std::int64_t streamId = 0;
    std::uint32_t lastCorrelation = 0; // the stream's last kernel in the shard
    // The lowest and highest correlation ids of the stream's kernels in the shard: the shard's
    // own halo reads them (ShardHalo::streamWaits), the later shards do not.
    std::uint32_t lowestCorrelation = 0, highestCorrelation = 0;
};

struct ShardGpuEdge
{
    std::int32_t deviceId = 0;
    // The earliest start and latest end of the shard's busy work on the GPU (kernels; with
    // copies counted, copies and memsets too); a GPU without any has none.
    std::optional<TimeNs> firstStart, busyUntil;
    std::vector<ShardStreamEdge> streams; // streams with kernels in the shard
};

struct ShardEdges
{
    std::vector<ShardGpuEdge> gpus;
    // Per process: the correlation ids of the shard's kernels and copies, first to last.
    std::vector<ShardHalo::Launches> launches;
};

// What the first read of a window (`report` of `firstRead`) tells the later shards.
ShardEdges shardEdges(const TraceSet &firstRead, std::uint32_t report, bool includeCopies);

// The halo of a shard whose own first read gave `own` and whose file's earlier shards gave
// `earlier`, in shard order. Its `from` is the earliest start a gap of the shard can have.
ShardHalo shardHalo(const std::vector<ShardEdges> &earlier, const ShardEdges &own);

// The carry of a second read's GPUs of `report` (the shard's) from the earlier shards of its
// file, in shard order, set into `into` (sized to secondRead's GPUs and streams).
void addEarlierShards(
    const TraceSet &secondRead, std::uint32_t report, const std::vector<ShardEdges> &earlier, EarlierShards &into);

} // namespace gaplens::core
