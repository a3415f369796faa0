// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/gap_shards.h"

#include <algorithm>
#include <limits>
#include <map>

namespace gaplens::core {
namespace {

void widen(std::optional<TimeNs> &first, std::optional<TimeNs> &until, TimeNs start, TimeNs end)
{
    first = first ? std::min(*first, start) : start;
    until = until ? std::max(*until, end) : end;
}

const ShardGpuEdge *gpuOf(const ShardEdges &edges, std::int32_t deviceId)
{
    for (const auto &gpu : edges.gpus)
        if (gpu.deviceId == deviceId)
            return &gpu;
    return nullptr;
}

} // namespace

ShardEdges shardEdges(const TraceSet &firstRead, std::uint32_t report, bool includeCopies)
{
    ShardEdges edges;
    std::map<std::uint32_t, ShardHalo::Launches> launches;
    auto launched = [&](std::uint32_t pid, std::uint32_t correlationId) {
        auto [it, inserted] = launches.try_emplace(pid, ShardHalo::Launches { pid, correlationId, correlationId });
        it->second.first = std::min(it->second.first, correlationId);
        it->second.last = std::max(it->second.last, correlationId);
    };
    for (const auto &gpu : firstRead.gpus) {
        if (gpu.report != report)
            continue;
        ShardGpuEdge &edge = edges.gpus.emplace_back();
        edge.deviceId = gpu.deviceId;
        for (const auto &stream : gpu.streams) {
            const auto &k = stream.kernels;
            if (k.size() == 0)
                continue;
            // Sorted by start, as every stream's kernels are: the last one is the one before
            // the next shard's first.
            const auto [lowest, highest] = std::minmax_element(k.correlationId.begin(), k.correlationId.end());
            edge.streams.push_back({ stream.pid, stream.streamId, k.correlationId.back(), *lowest, *highest });
            for (std::size_t i = 0; i < k.size(); ++i) {
                widen(edge.firstStart, edge.busyUntil, k.start[i], k.end[i]);
                launched(stream.pid, k.correlationId[i]);
            }
        }
        const auto &copies = gpu.copies;
        for (std::size_t i = 0; i < copies.size(); ++i) {
            if (includeCopies)
                widen(edge.firstStart, edge.busyUntil, copies.start[i], copies.end[i]);
            launched(copies.pid[i], copies.correlationId[i]);
        }
    }
    for (const auto &[pid, range] : launches)
        edges.launches.push_back(range);
    return edges;
}

ShardHalo shardHalo(const std::vector<ShardEdges> &earlier, const ShardEdges &own)
{
    // A GPU's gaps in the shard start at the busy work carried in from earlier shards, or
    // after the shard's own first work on it.
    ShardHalo halo;
    halo.from = std::numeric_limits<TimeNs>::max();
    for (const auto &gpu : own.gpus) {
        if (!gpu.firstStart)
            continue;
        // The carried busy end is the latest over the earlier shards (not the earliest: that
        // would keep every host row since the file's first shard).
        std::optional<TimeNs> carried;
        for (const auto &shard : earlier)
            if (const auto *before = gpuOf(shard, gpu.deviceId); before && before->busyUntil)
                carried = std::max(carried.value_or(*before->busyUntil), *before->busyUntil);
        halo.from = std::min(halo.from, std::min(*gpu.firstStart, carried.value_or(*gpu.firstStart)));
    }
    halo.launches = own.launches;
    halo.hostSyncTolerance = kWaitToleranceNs;
    // A kernel's stream wait lies between the kernel before it on its stream and itself: for
    // the window's first kernel the one before comes from the last earlier shard with kernels
    // on the stream (as addEarlierShards carries it).
    for (const auto &gpu : own.gpus)
        for (const auto &stream : gpu.streams) {
            std::uint32_t before = 0;
            for (const auto &shard : earlier)
                if (const auto *edge = gpuOf(shard, gpu.deviceId))
                    for (const auto &s : edge->streams)
                        if (s.pid == stream.pid && s.streamId == stream.streamId)
                            before = s.lastCorrelation;
            halo.streamWaits.push_back({ gpu.deviceId, stream.pid, stream.streamId,
                std::min(before, stream.lowestCorrelation), stream.highestCorrelation });
        }
    return halo;
}

void addEarlierShards(
    const TraceSet &secondRead, std::uint32_t report, const std::vector<ShardEdges> &earlier, EarlierShards &into)
{
    into.busyUntil.resize(secondRead.gpus.size());
    into.correlationBefore.resize(secondRead.gpus.size());
    for (std::uint32_t g = 0; g < secondRead.gpus.size(); ++g) {
        const Gpu &gpu = secondRead.gpus[g];
        if (gpu.report != report)
            continue;
        auto &before = into.correlationBefore[g];
        before.assign(gpu.streams.size(), 0);
        for (const auto &shard : earlier) { // in shard order: the last one with a stream's kernels wins
            const auto *edge = gpuOf(shard, gpu.deviceId);
            if (!edge)
                continue;
            if (edge->busyUntil)
                into.busyUntil[g] = std::max(into.busyUntil[g].value_or(*edge->busyUntil), *edge->busyUntil);
            for (const auto &stream : edge->streams)
                for (std::size_t s = 0; s < gpu.streams.size(); ++s)
                    if (gpu.streams[s].pid == stream.pid && gpu.streams[s].streamId == stream.streamId)
                        before[s] = stream.lastCorrelation;
        }
    }
}

} // namespace gaplens::core
