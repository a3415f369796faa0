// SPDX-License-Identifier: MIT
#include "step_range_shards.h"

#include "collective_steps.h"
#include "wire.h"
#include "world_parts.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

namespace gaplens::mpi {
using Json = nlohmann::json;

namespace {

struct CaptureTallies
{
    std::vector<core::RankNvtxTally> ranks; // by global rank index
    core::TimeRange span; // {0, 0}: no event anywhere, as TraceSet::span says
};

// The first shard this process reads of `file` (its block is contiguous).
std::size_t firstShardOf(const DistributedCapture &capture, std::size_t file)
{
    for (const auto &piece : capture.pieces)
        if (piece.file == file)
            return piece.firstShard;
    return 0;
}

// Per local thread, the latest end of its ranges in its file's earlier shards: one allgather
// of (file, first shard, pid, tid, latest end) for every thread with NVTX ranges.
std::vector<core::TimeNs> earlierNvtxEnds(const World &world, const DistributedCapture &capture)
{
    const auto &trace = *capture.local;
    const auto ends = core::latestNvtxEnds(trace);
    Json mine = Json::array();
    for (std::size_t t = 0; t < trace.threads.size(); ++t)
        if (ends[t] != std::numeric_limits<core::TimeNs>::min()) {
            const auto file = capture.reportFile.at(trace.threads[t].report);
            mine.push_back({ file, firstShardOf(capture, file), trace.threads[t].pid, trace.threads[t].tid, ends[t] });
        }
    using ThreadKey = std::tuple<std::size_t, std::uint32_t, std::uint32_t>; // file, pid, tid
    std::map<ThreadKey, std::vector<std::pair<std::size_t, core::TimeNs>>> byThread; // (shard, end)
    for (const auto &part : world.allGather(pack(mine)))
        for (const auto &e : unpack(part))
            byThread[{ e[0].get<std::size_t>(), e[2].get<std::uint32_t>(), e[3].get<std::uint32_t>() }].emplace_back(
                e[1].get<std::size_t>(), e[4].get<core::TimeNs>());
    std::vector<core::TimeNs> out(trace.threads.size(), std::numeric_limits<core::TimeNs>::min());
    for (std::size_t t = 0; t < trace.threads.size(); ++t) {
        const auto file = capture.reportFile.at(trace.threads[t].report);
        const auto found = byThread.find({ file, trace.threads[t].pid, trace.threads[t].tid });
        if (found == byThread.end())
            continue;
        const auto myShard = firstShardOf(capture, file);
        for (const auto &[shard, end] : found->second)
            if (shard < myShard)
                out[t] = std::max(out[t], end);
    }
    return out;
}

// Collective: every rank's tallies over its shards, and the capture's span, on every process.
CaptureTallies gatherTallies(const World &world, const DistributedCapture &capture)
{
    const auto &trace = *capture.local;
    const auto tallies = core::rankNvtxTallies(trace, earlierNvtxEnds(world, capture));
    Json ranks = Json::array();
    for (std::size_t k = 0; k < tallies.size(); ++k) {
        Json groups = Json::array();
        for (const auto &g : tallies[k].groups)
            groups.push_back({ g.name, g.ranges, g.topLevel, g.topLevelNs });
        ranks.push_back({ capture.localToGlobalRank.at(k), tallies[k].ranges, std::move(groups) });
    }
    const bool hasSpan = trace.span != core::TimeRange {};
    CaptureTallies out;
    out.ranks.resize(capture.rankNumbers.size());
    bool anySpan = false;
    for (const auto &part :
        world.allGather(pack(Json { std::move(ranks), hasSpan, trace.span.start, trace.span.end }))) {
        const auto theirs = unpack(part);
        for (const auto &rank : theirs[0]) {
            core::RankNvtxTally shard;
            shard.ranges = rank[1].get<std::uint64_t>();
            for (const auto &g : rank[2])
                shard.groups.push_back({ g[0].get<std::string>(), g[1].get<std::uint64_t>(), g[2].get<std::uint64_t>(),
                    g[3].get<core::TimeNs>() });
            core::addShardTally(out.ranks.at(rank[0].get<std::uint32_t>()), shard);
        }
        if (!theirs[1].get<bool>())
            continue;
        const core::TimeRange span { theirs[2].get<core::TimeNs>(), theirs[3].get<core::TimeNs>() };
        out.span = anySpan ? core::TimeRange { std::min(out.span.start, span.start), std::max(out.span.end, span.end) }
                           : span;
        anySpan = true;
    }
    return out;
}

} // namespace

std::optional<std::string> givenOrProposedStepRange(
    const World &world, const DistributedCapture &capture, std::optional<std::string> given)
{
    if (given)
        return given;
    collectively(world, [&] {
        if (!capture.timeShards) {
            given = core::proposePaceRangeName(*capture.local, WorldParts(world));
            return;
        }
        const auto tallies = gatherTallies(world, capture);
        given = core::proposePaceRangeName(tallies.ranks, tallies.span);
    });
    return given;
}

core::StepRangeChoice distributedStepRangeChoice(const World &world, const DistributedCapture &capture)
{
    core::StepRangeChoice choice;
    collectively(world, [&] {
        if (!capture.timeShards) {
            choice = core::chooseStepRange(*capture.local, WorldParts(world));
            return;
        }
        const auto tallies = gatherTallies(world, capture);
        choice = core::chooseStepRange(tallies.ranks, tallies.span);
    });
    return choice;
}

} // namespace gaplens::mpi
