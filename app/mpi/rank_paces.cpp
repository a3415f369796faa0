// SPDX-License-Identifier: MIT
#include "rank_paces.h"

#include "collective_steps.h"
#include "pace_parts.h"
#include "wire.h"

#include <algorithm>
#include <map>
#include <vector>

namespace gaplens::mpi {
using Json = nlohmann::json;

namespace {

struct PaceShards
{
    // Per global rank: its outermost candidates of every shard, in shard order.
    std::map<std::uint32_t, std::vector<core::PaceCandidate>> candidates;
    // Per local rank: the latest end of its GPU work in its file's earlier shards.
    std::map<std::uint32_t, core::TimeNs> busyUntil;
};

// Collective, in time shards: every process's candidates per global rank and, per time shard,
// its ranks' busy ends (core::paceCandidates, stepBusyCarries), in one allgather.
PaceShards exchangePaceShards(const World &world, const DistributedCapture &capture,
    const core::PaceOptions &paceOptions, const core::StepAccountingOptions &stepOptions)
{
    const auto &trace = *capture.local;
    auto fileOf = [&](std::uint32_t localRank) { return capture.reportFile.at(trace.ranks.at(localRank).report); };
    auto pieceOf = [&](std::size_t file) {
        return std::find_if(
            capture.pieces.begin(), capture.pieces.end(), [&](const auto &p) { return p.file == file; });
    };
    Json candidates = Json::array(), ends = Json::array();
    const auto mine = core::paceCandidates(trace, paceOptions);
    for (std::uint32_t k = 0; k < mine.size(); ++k) {
        Json ranges = Json::array();
        for (const auto &c : mine[k])
            ranges.push_back({ c.start, c.end });
        if (!ranges.empty())
            candidates.push_back({ capture.localToGlobalRank.at(k), std::move(ranges) });
    }
    for (const auto &[k, until] : core::stepBusyCarries(trace, stepOptions)) {
        const auto file = fileOf(k);
        if (const auto piece = pieceOf(file); piece != capture.pieces.end())
            ends.push_back({ file, piece->firstShard, capture.localToGlobalRank.at(k), until });
    }
    PaceShards out;
    std::map<std::uint32_t, std::uint32_t> localOf; // global rank -> this process's rank index
    for (std::uint32_t k = 0; k < capture.localToGlobalRank.size(); ++k)
        localOf.emplace(capture.localToGlobalRank[k], k);
    for (const auto &part : world.allGather(pack(Json { std::move(candidates), std::move(ends) }))) {
        const auto theirs = unpack(part);
        for (const auto &rank : theirs[0]) {
            auto &list = out.candidates[rank[0].get<std::uint32_t>()];
            for (const auto &c : rank[1])
                list.push_back({ c[0].get<core::TimeNs>(), c[1].get<core::TimeNs>() });
        }
        for (const auto &e : theirs[1]) {
            const auto local = localOf.find(e[2].get<std::uint32_t>());
            if (local == localOf.end())
                continue;
            const auto file = e[0].get<std::size_t>();
            const auto piece = pieceOf(file);
            if (file != fileOf(local->second) || piece == capture.pieces.end()
                || e[1].get<std::size_t>() >= piece->firstShard)
                continue; // a shard of another file, this one or a later one
            const auto until = e[3].get<core::TimeNs>();
            const auto [it, first] = out.busyUntil.try_emplace(local->second, until);
            if (!first)
                it->second = std::max(it->second, until);
        }
    }
    return out;
}

} // namespace

bool rankPacesOfProcess(const World &world, const DistributedCapture &capture, const core::PaceOptions &paceOptions,
    const core::StepAccountingOptions &stepOptions, Json &ranks)
{
    const auto &trace = *capture.local;
    if (capture.timeShards) {
        // Collective: every process takes part, with its candidates or none.
        const auto shards = exchangePaceShards(world, capture, paceOptions, stepOptions);
        if (!onEveryProcess(world, [&] {
                for (std::uint32_t k = 0; k < trace.ranks.size(); ++k) {
                    const auto candidates = shards.candidates.find(capture.localToGlobalRank.at(k));
                    if (candidates == shards.candidates.end())
                        continue;
                    const auto pace = core::rankPaceFromShards(k, candidates->second, paceOptions);
                    if (!pace)
                        continue;
                    auto shardOptions = stepOptions;
                    if (const auto carry = shards.busyUntil.find(k); carry != shards.busyUntil.end())
                        shardOptions.earlierShards[k] = carry->second;
                    ranks.push_back(
                        packRankPace(*pace, core::computeStepAccounting(trace, { *pace }, shardOptions).at(0)));
                }
            }))
            return false;
    } else if (!onEveryProcess(world, [&] {
                   const auto paces = core::computeRankPaces(trace, paceOptions);
                   const auto steps = core::computeStepAccounting(trace, paces, stepOptions);
                   for (std::size_t i = 0; i < paces.size(); ++i)
                       ranks.push_back(packRankPace(paces[i], steps.at(i)));
               }))
        return false;
    return true;
}

} // namespace gaplens::mpi
