// SPDX-License-Identifier: MIT
#include "pace_parts.h"

#include <algorithm>
#include <utility>

namespace gaplens::mpi {

using Json = nlohmann::json;

Json packRankPace(const core::RankPace &pace, const core::RankSteps &steps)
{
    Json iterations = Json::array(), usage = Json::array();
    for (const auto &it : pace.iterations)
        iterations.push_back(
            { it.cpu.start, it.cpu.end, it.time.start, it.time.end, it.durationNs, it.deltaToPreviousNs });
    for (const auto &s : steps.steps)
        usage.push_back({ s.iteration, s.step.start, s.step.end, s.kernelNs, s.busyNs, s.busyPercent });
    return { pace.rank, pace.firstIteration, pace.medianNs, pace.p95Ns, std::move(iterations), std::move(usage) };
}

RankPaceResult unpackRankPace(const Json &packed, std::uint32_t globalRank)
{
    RankPaceResult out;
    out.pace.rank = out.steps.rank = globalRank;
    out.pace.firstIteration = packed[1].get<std::uint32_t>();
    out.pace.medianNs = packed[2].get<double>();
    out.pace.p95Ns = packed[3].get<core::TimeNs>();
    for (const auto &i : packed[4]) {
        core::PaceIteration it;
        it.cpu = { i[0].get<core::TimeNs>(), i[1].get<core::TimeNs>() };
        it.time = { i[2].get<core::TimeNs>(), i[3].get<core::TimeNs>() };
        it.durationNs = i[4].get<core::TimeNs>();
        it.deltaToPreviousNs = i[5].get<core::TimeNs>();
        out.pace.iterations.push_back(it);
    }
    for (const auto &s : packed[5]) {
        core::StepUsage usage;
        usage.iteration = s[0].get<std::uint32_t>();
        usage.step = { s[1].get<core::TimeNs>(), s[2].get<core::TimeNs>() };
        usage.kernelNs = s[3].get<core::TimeNs>();
        usage.busyNs = s[4].get<core::TimeNs>();
        usage.busyPercent = s[5].get<double>();
        out.steps.steps.push_back(usage);
    }
    return out;
}

CapturePaces inRankOrder(std::vector<RankPaceResult> ranks)
{
    std::stable_sort(
        ranks.begin(), ranks.end(), [](const auto &a, const auto &b) { return a.pace.rank < b.pace.rank; });
    CapturePaces out;
    for (auto &r : ranks) {
        // The same rank from another time shard of its file: the same pace, its share of the steps.
        if (!out.paces.empty() && out.paces.back().rank == r.pace.rank) {
            core::addShardSteps(out.steps.back(), r.steps);
            continue;
        }
        out.paces.push_back(std::move(r.pace));
        out.steps.push_back(std::move(r.steps));
    }
    return out;
}

} // namespace gaplens::mpi
