// SPDX-License-Identifier: MIT
#include "run_accounting_parts.h"

#include "collective_steps.h"
#include "step_range_shards.h"
#include "wire.h"
#include "world_parts.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

Json packGroup(const core::StepTimeGroup &g)
{
    return { g.count, g.medianNs, g.p95Ns, g.maxNs, g.minNs, g.q1Ns, g.q3Ns };
}

core::StepTimeGroup unpackGroup(const Json &j)
{
    core::StepTimeGroup g;
    g.count = j[0].get<std::uint64_t>();
    g.medianNs = j[1].get<double>();
    g.p95Ns = j[2].get<core::TimeNs>();
    g.maxNs = j[3].get<core::TimeNs>();
    g.minNs = j[4].get<core::TimeNs>();
    g.q1Ns = j[5].get<core::TimeNs>();
    g.q3Ns = j[6].get<core::TimeNs>();
    return g;
}

Json packCheckpoint(const std::optional<core::CheckpointHealth> &health)
{
    if (!health)
        return nullptr;
    const auto &h = *health;
    return { h.count, h.stagingCount, optionalJson(h.cadenceNs), h.medianDurationNs, h.p95DurationNs, h.commitP95Ns,
        optionalJson(h.p95OverCadence), h.backlogFirstHalf, h.backlogSecondHalf, h.backlogMax, h.backlogGrowing,
        h.commitsNs };
}

std::optional<core::CheckpointHealth> unpackCheckpoint(const Json &j)
{
    if (j.is_null())
        return std::nullopt;
    core::CheckpointHealth h;
    h.count = j[0].get<std::uint64_t>();
    h.stagingCount = j[1].get<std::uint64_t>();
    h.cadenceNs = optionalDouble(j[2]);
    h.medianDurationNs = j[3].get<double>();
    h.p95DurationNs = j[4].get<core::TimeNs>();
    h.commitP95Ns = j[5].get<core::TimeNs>();
    h.p95OverCadence = optionalDouble(j[6]);
    h.backlogFirstHalf = j[7].get<double>();
    h.backlogSecondHalf = j[8].get<double>();
    h.backlogMax = j[9].get<std::uint32_t>();
    h.backlogGrowing = j[10].get<bool>();
    h.commitsNs = j[11].get<std::vector<core::TimeNs>>();
    return h;
}

// One rank's accounting, for the root: every time an integer, every rate and median a double
// (CBOR keeps them bit for bit), the state spans as three columns.
Json packRank(const core::RankRunAccounting &r)
{
    std::vector<int> states;
    for (const auto state : r.spans.state)
        states.push_back(int(state));
    Json byState = Json::array();
    for (const auto &s : r.stepTimeByState)
        byState.push_back({ int(s.state), packGroup(s.inside), packGroup(s.outside), s.pValue, s.significant });
    return { r.rank, r.window.start, r.window.end, r.partitionNs, r.spans.start, r.spans.end, states, r.steps,
        r.stepsWithoutPayload, r.stepsOutsideWindow, r.work, optionalJson(r.activeRate), optionalJson(r.sustainedRate),
        optionalJson(r.sustainedOverActive), std::move(byState), packCheckpoint(r.checkpoint) };
}

core::RankRunAccounting unpackRank(const Json &j, std::uint32_t globalRank)
{
    core::RankRunAccounting r;
    r.rank = globalRank;
    r.window = { j[1].get<core::TimeNs>(), j[2].get<core::TimeNs>() };
    r.partitionNs = j[3].get<std::array<core::TimeNs, core::kRunStateCount>>();
    r.spans.start = j[4].get<std::vector<core::TimeNs>>();
    r.spans.end = j[5].get<std::vector<core::TimeNs>>();
    for (const auto &state : j[6])
        r.spans.state.push_back(core::RunState(state.get<int>()));
    r.steps = j[7].get<std::uint64_t>();
    r.stepsWithoutPayload = j[8].get<std::uint64_t>();
    r.stepsOutsideWindow = j[9].get<std::uint64_t>();
    r.work = j[10].get<double>();
    r.activeRate = optionalDouble(j[11]);
    r.sustainedRate = optionalDouble(j[12]);
    r.sustainedOverActive = optionalDouble(j[13]);
    for (const auto &s : j[14])
        r.stepTimeByState.push_back({ core::RunState(s[0].get<int>()), unpackGroup(s[1]), unpackGroup(s[2]),
            s[3].get<double>(), s[4].get<bool>() });
    r.checkpoint = unpackCheckpoint(j[15]);
    return r;
}

// Collective: `sent` as CBOR to the root, which gets every process's in process order.
std::vector<std::string> gatherPacked(const World &world, const Json &sent, std::size_t &bytesSent)
{
    const auto packed = pack(sent);
    bytesSent = packed.size();
    return world.gatherToRoot(packed);
}

Json packRanges(const std::vector<core::RunRange> &ranges)
{
    Json out = Json::array();
    for (const auto &r : ranges)
        out.push_back({ r.start, r.end, r.thread, r.order, optionalJson(r.payload) });
    return out;
}

std::vector<core::RunRange> unpackRanges(const Json &j)
{
    std::vector<core::RunRange> out;
    for (const auto &r : j)
        out.push_back({ r[0].get<core::TimeNs>(), r[1].get<core::TimeNs>(), r[2].get<std::uint32_t>(),
            r[3].get<std::uint32_t>(), optionalDouble(r[4]) });
    return out;
}

// In time shards: the step range decided from every shard's tallies; every process collects
// its ranks' ranges, and the root joins each rank's over its shards and accounts it (the
// ranges are the steps and state ranges, far fewer than the events).
AccountingInParts accountTimeShards(
    const World &world, const DistributedCapture &capture, const core::RunAccountingOptions &options)
{
    const auto proposed = givenOrProposedStepRange(
        world, capture, options.stepRange.empty() ? std::nullopt : std::optional<std::string>(options.stepRange));
    const core::DecidedStepRange stepRange = proposed
        ? core::DecidedStepRange(*proposed)
        : core::DecidedStepRange(distributedStepRangeChoice(world, capture));
    const WorldParts parts(world);
    core::RunRangesPart part;
    collectively(world, [&] { part = core::collectRunRangesPart(*capture.local, options, stepRange, parts); });

    Json ranks = Json::array();
    for (const auto &r : part.ranks) {
        Json byState = Json::array();
        for (const auto &ranges : r.byState)
            byState.push_back(packRanges(ranges));
        ranks.push_back({ capture.localToGlobalRank.at(r.rank), std::move(byState), packRanges(r.between) });
    }
    AccountingInParts out;
    const auto gathered = gatherPacked(world, ranks, out.bytesSent);
    if (!world.isRoot())
        return out;
    std::map<std::uint32_t, core::RankRunRanges> joined; // by global rank
    for (std::size_t p = 0; p < gathered.size(); ++p)
        for (const auto &r : unpack(gathered[p])) {
            core::RankRunRanges shard;
            for (std::size_t s = 0; s < core::kRunStateCount; ++s)
                shard.byState[s] = unpackRanges(r[1][s]);
            shard.between = unpackRanges(r[2]);
            auto &rank = joined[r[0].get<std::uint32_t>()];
            rank.rank = r[0].get<std::uint32_t>();
            rank.join(shard);
        }
    std::vector<core::RankRunRanges> inOrder;
    for (auto &[global, ranges] : joined)
        inOrder.push_back(std::move(ranges));
    auto whole = core::accountRunRanges(*capture.skeleton, std::move(part.accounting), options, inOrder);
    out.whole = core::finishRunAccounting(std::move(whole.accounting), whole.stepRanges);
    return out;
}

} // namespace

AccountingInParts accountInParts(
    const World &world, const DistributedCapture &capture, const core::RunAccountingOptions &options)
{
    if (capture.timeShards)
        return accountTimeShards(world, capture, options);
    const WorldParts parts(world);
    core::RunAccountingPart part;
    collectively(world, [&] { part = core::computeRunAccountingPart(*capture.local, options, parts); });

    const auto &mine = part.accounting;
    const bool failed = part.failedRank != core::kNoIndex;
    Json ranks = Json::array();
    for (const auto &r : mine.ranks)
        ranks.push_back(packRank(r));
    const Json sent { failed ? Json(capture.localToGlobalRank.at(part.failedRank)) : Json(nullptr),
        failed ? mine.error : std::string(), part.stepRanges, std::move(ranks) };
    AccountingInParts out;
    const auto gathered = gatherPacked(world, sent, out.bytesSent);
    if (!world.isRoot())
        return out;
    // The settings are every process's; an error is theirs only when no rank failed.
    core::RunAccounting whole = mine;
    whole.ranks.clear();
    if (failed)
        whole.error.clear();
    std::optional<std::uint32_t> firstFailed;
    std::uint64_t stepRanges = 0;
    for (std::size_t p = 0; p < gathered.size(); ++p) {
        const auto one = unpack(gathered[p]);
        if (!one[0].is_null() && (!firstFailed || one[0].get<std::uint32_t>() < *firstFailed)) {
            firstFailed = one[0].get<std::uint32_t>();
            whole.error = one[1].get<std::string>();
        }
        stepRanges += one[2].get<std::uint64_t>();
        for (const auto &r : one[3])
            whole.ranks.push_back(unpackRank(r, capture.globalRank[p].at(r[0].get<std::uint32_t>())));
    }
    std::sort(whole.ranks.begin(), whole.ranks.end(), [](const auto &a, const auto &b) { return a.rank < b.rank; });
    out.whole = core::finishRunAccounting(std::move(whole), stepRanges);
    return out;
}

} // namespace gaplens::mpi
