// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "pace_parts.h"
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
using Json = nlohmann::json;

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

    const auto name = givenOrProposedStepRange(world, trace, options.range);
    if (!name) {
        core::StepRangeChoice noStepRange;
        // Collective: a process that failed could not tell the others, so a failure ends the job.
        collectively(world, [&] { noStepRange = core::chooseStepRange(trace, parts); });
        return finalStatus(world, capture, world.isRoot() ? cli::printNoStepRange(noStepRange) : 1);
    }

    Json ranks = Json::array();
    if (!onEveryProcess(world, [&] {
            const cli::CommandContext local { options, capture.local };
            const auto paces = core::computeRankPaces(trace, cli::paceOptions(local, *name));
            const auto steps = core::computeStepAccounting(trace, paces, cli::stepAccountingOptions(options));
            for (std::size_t i = 0; i < paces.size(); ++i)
                ranks.push_back(packRankPace(paces[i], steps.at(i)));
        }))
        return 1;

    const auto packed = pack(ranks);
    printStatsIfAsked(world, capture, packed.size());
    const auto gathered = world.gatherToRoot(packed);
    int status = 0;
    if (world.isRoot()) {
        std::vector<RankPaceResult> all;
        for (std::size_t p = 0; p < gathered.size(); ++p)
            for (const auto &one : unpack(gathered[p]))
                all.push_back(unpackRankPace(one, capture.globalRank[p].at(one[0].get<std::uint32_t>())));
        auto ordered = inRankOrder(std::move(all));
        status = cli::printPace(
            { options, capture.skeleton }, core::comparePaces(*name, std::move(ordered.paces)), ordered.steps);
    }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
