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
#include <optional>
#include <string>
#include <vector>

namespace gaplens::core {

// The tables whose rows a time shard splits by start (LoadOptions::windows).
inline constexpr TableSet kTimeShardTables
    = TableSet(ExportTable::Kernels) | ExportTable::Copies | ExportTable::CudaApi | ExportTable::Nvtx;

// What a time shard keeps across its start edge so that its idle gaps are found and blamed
// as the whole file's are (gaplens-mpi's gaps and blame; docs/mpi.md says how each part is
// exact). Every gap belongs to the shard of the kernel (or copy) that ends it, and lies in
// [from, window end): `from` is the window's start, or the end of the busy work that started
// before it when that is earlier. The host rows a gap's blame reads are kept by overlap:
struct ShardHalo
{
    // Absolute time (the loaded one, after the report's offset): CUDA calls, NVTX ranges, OS
    // runtime calls, copies and memsets that overlap [from, window end) (the calls and ranges
    // open at a gap, the copies running in it or ending it).
    std::int64_t from = std::numeric_limits<std::int64_t>::min();
    // The CUDA calls of process `pid` with a correlation id in [first, last]: the launch calls
    // of the window's kernels and copies, which may lie in an earlier shard.
    struct Launches
    {
        std::uint32_t pid = 0;
        std::uint32_t first = 0, last = 0;
        bool operator==(const Launches &) const = default;
    };
    std::vector<Launches> launches;
    // The stream-wait records (cudaStreamWaitEvent) of process `pid` on GPU `deviceId`'s stream
    // `streamId` with a correlation id in (after, last]: a gap ended by one of the window's
    // kernels names the one between the kernel before it and itself. `after` is the lowest of
    // the stream's kernel before the window (0: none) and the window's kernels; `last` the
    // window's highest.
    struct StreamWaits
    {
        std::int32_t deviceId = 0;
        std::uint32_t pid = 0;
        std::int64_t streamId = 0;
        std::uint32_t after = 0, last = 0;
        bool operator==(const StreamWaits &) const = default;
    };
    std::vector<StreamWaits> streamWaits;
    // How long after a gap's end a host synchronize may return and still be its wait
    // (kWaitToleranceNs): the host synchronizes kept are those returning after `from` and
    // at most this long after the window's end.
    std::int64_t hostSyncTolerance = 0;
};

// The rows whose start, as stored in the file (before the session's time offset), lies in
// [from, to); with `toEnd` there is no upper bound (the last shard keeps a start of 2^63 - 1).
struct StoredStartWindow
{
    std::int64_t from = std::numeric_limits<std::int64_t>::min();
    std::int64_t to = std::numeric_limits<std::int64_t>::max();
    bool toEnd = true;
    // The expected fraction of the file's rows in the window (the memory check's estimate).
    double share = 1.0;
    // With a halo (gaps and blame) the shard also keeps the halo's rows, numbers its threads
    // as a full read does (by every row, not only its own: the order breaks ties in blame),
    // keeps the OS runtime calls starting in the window or overlapping the halo, the call
    // stacks of the calls it keeps, and the synchronisation records its gaps' blame may name
    // (isHaloStreamWait, isHaloHostSync), and reads the GPU memory table whole.
    std::optional<ShardHalo> halo;

    bool isWholeFile() const { return from == std::numeric_limits<std::int64_t>::min() && toEnd; }
    bool isFirst() const { return from == std::numeric_limits<std::int64_t>::min(); }
    bool contains(std::int64_t storedStart) const { return storedStart >= from && (toEnd || storedStart < to); }
    // Whether a row overlaps the halo's [from, window end): its start as stored, its end loaded.
    bool inHalo(std::int64_t storedStart, std::int64_t absoluteEnd) const
    {
        return halo && absoluteEnd > halo->from && (toEnd || storedStart < to);
    }
    // Whether a CUDA call is the launch of one of the window's kernels or copies (halo only).
    bool isHaloLaunch(std::uint32_t pid, std::uint32_t correlationId) const
    {
        if (halo)
            for (const auto &l : halo->launches)
                if (l.pid == pid && correlationId >= l.first && correlationId <= l.last)
                    return true;
        return false;
    }
    // Whether a stream-wait record is one a gap of the window may name (halo only).
    bool isHaloStreamWait(
        std::int32_t deviceId, std::uint32_t pid, std::int64_t streamId, std::uint32_t correlationId) const
    {
        if (halo)
            for (const auto &w : halo->streamWaits)
                if (w.deviceId == deviceId && w.pid == pid && w.streamId == streamId && correlationId > w.after
                    && correlationId <= w.last)
                    return true;
        return false;
    }
    // Whether a host synchronize that returned at `storedEnd` (`absoluteEnd` loaded) may be the
    // wait of a gap of the window (halo only): a gap lies in [from, window end) and names a
    // synchronize returning after its start and at most hostSyncTolerance after its end.
    bool isHaloHostSync(std::int64_t storedEnd, std::int64_t absoluteEnd) const
    {
        if (!halo || absoluteEnd <= halo->from)
            return false;
        // Past the window's end by at most the tolerance (unsigned: the difference of any
        // two int64 values fits).
        return toEnd || storedEnd < to
            || std::uint64_t(storedEnd) - std::uint64_t(to) <= std::uint64_t(halo->hostSyncTolerance);
    }
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
