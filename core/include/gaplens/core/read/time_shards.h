// SPDX-License-Identifier: MIT
#pragma once
// Time shards of one file, for gaplens-mpi when a capture has fewer files than processes or
// very unequal ones: the file's rows are split by their stored start time into shards, and a
// process reads a contiguous block of shards (LoadOptions::windows). Every row has exactly one
// start, so every row lies in exactly one shard: an analysis that counts each event where its
// start is (the summaries) adds the shards' figures up to the whole file's, whatever the edges.
// The edges only balance the work, so they may come from a sample.
#include "gaplens/core/model/table_set.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gaplens::core {

// The tables whose rows a time shard splits by start (LoadOptions::windows).
inline constexpr TableSet kTimeShardTables
    = TableSet(ExportTable::Kernels) | ExportTable::Copies | ExportTable::CudaApi | ExportTable::Nvtx;

// The rows whose start, as stored in the file (before the session's time offset), lies in
// [from, to); with `toEnd` there is no upper bound (the last shard keeps a start of 2^63 - 1).
struct StoredStartWindow
{
    std::int64_t from = std::numeric_limits<std::int64_t>::min();
    std::int64_t to = std::numeric_limits<std::int64_t>::max();
    bool toEnd = true;
    // The expected fraction of the file's rows in the window (the memory check's estimate).
    double share = 1.0;

    bool isWholeFile() const { return from == std::numeric_limits<std::int64_t>::min() && toEnd; }
    bool isFirst() const { return from == std::numeric_limits<std::int64_t>::min(); }
    bool contains(std::int64_t storedStart) const { return storedStart >= from && (toEnd || storedStart < to); }
};

// A file's shards: shard i holds the stored starts in [edges[i - 1], edges[i]), the first one
// from -infinity, the last one to +infinity.
struct TimeShards
{
    std::vector<std::int64_t> edges; // shards - 1 of them, ascending (equal edges: empty shards)
    std::vector<std::uint64_t> sampled; // sampled rows per shard, for the shares
};

// The edges of `shards` shards holding about equal numbers of rows of the tables in `tables`
// that have a start (kernels, copies and memsets, CUDA API calls, NVTX events): the quantiles
// of up to `samples` starts read at evenly spaced rowids (a b-tree descent each, whatever the
// file's size). A row's place in the table does not matter: evenly spaced rowids sample the
// rows uniformly, in time order or not. A file that cannot be read gives edges all 0 (loading
// it reports the problem).
TimeShards sampleTimeShards(const std::string &file, TableSet tables, std::size_t shards, std::size_t samples = 4096);

// Shards [first, end) of a file as one window (1 <= end - first, end <= shard count).
StoredStartWindow shardBlockWindow(const TimeShards &shards, std::size_t first, std::size_t end);

} // namespace gaplens::core
