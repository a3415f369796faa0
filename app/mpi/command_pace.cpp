// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "wire.h"
#include "world_parts.h"

#include "command_context.h"

#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/step_range.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

// One rank's pace and step accounting, for the root: every figure exact (CBOR keeps doubles
// bit for bit). An iteration's thread and range index this process's columns, which the
// root does not have, so they stay behind (no output prints them).
Json packRank(const core::RankPace &pace, const core::RankSteps &steps)
{
    Json iterations = Json::array(), usage = Json::array();
    for (const auto &it : pace.iterations)
        iterations.push_back(
            { it.cpu.start, it.cpu.end, it.time.start, it.time.end, it.durationNs, it.deltaToPreviousNs });
    for (const auto &s : steps.steps)
        usage.push_back({ s.iteration, s.step.start, s.step.end, s.kernelNs, s.busyNs, s.busyPercent });
    return { pace.rank, pace.firstIteration, pace.medianNs, pace.p95Ns, std::move(iterations), std::move(usage) };
}

struct RankResult
{
    core::RankPace pace;
    core::RankSteps steps;
};

RankResult unpackRank(const Json &packed, std::uint32_t globalRank)
{
    RankResult out;
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

} // namespace

// pace: the step range proposal from every process's NVTX tallies (step_range.h in parts);
// then each rank's iterations and step accounting where its report is, and on the root the
// comparison across ranks (comparePaces), as computePace does after its per-rank part.
int runPaceCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const auto &trace = *capture.local;
    const WorldParts parts(world);

    std::optional<std::string> name = options.range;
    std::optional<core::StepRangeChoice> noStepRange;
    // Collective: a process that failed could not tell the others, so a failure ends the job.
    collectively(world, [&] {
        if (!name)
            name = core::proposePaceRangeName(trace, parts);
        if (!name)
            noStepRange = core::chooseStepRange(trace, parts);
    });
    if (noStepRange)
        return finalStatus(world, capture, world.isRoot() ? cli::printNoStepRange(*noStepRange) : 1);

    Json ranks = Json::array();
    if (!onEveryProcess(world, [&] {
            const cli::CommandContext local { options, capture.local };
            const auto paces = core::computeRankPaces(trace, cli::paceOptions(local, *name));
            const auto steps = core::computeStepAccounting(trace, paces, cli::stepAccountingOptions(options));
            for (std::size_t i = 0; i < paces.size(); ++i)
                ranks.push_back(packRank(paces[i], steps.at(i)));
        }))
        return 1;

    const auto packed = pack(ranks);
    printStatsIfAsked(world, capture, packed.size());
    const auto gathered = world.gatherToRoot(packed);
    int status = 0;
    if (world.isRoot()) {
        std::vector<RankResult> all;
        for (std::size_t p = 0; p < gathered.size(); ++p)
            for (const auto &one : unpack(gathered[p]))
                all.push_back(unpackRank(one, capture.globalRank[p].at(one[0].get<std::uint32_t>())));
        std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.pace.rank < b.pace.rank; });
        std::vector<core::RankPace> paces;
        std::vector<core::RankSteps> steps;
        for (auto &r : all) {
            paces.push_back(std::move(r.pace));
            steps.push_back(std::move(r.steps));
        }
        status = cli::printPace({ options, capture.skeleton }, core::comparePaces(*name, std::move(paces)), steps);
    }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
