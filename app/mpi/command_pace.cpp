// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "pace_parts.h"
#include "rank_paces.h"
#include "step_range_shards.h"
#include "wire.h"

#include "command_context.h"

#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/step_range.h"

#include <optional>
#include <string>
#include <vector>

namespace gaplens::mpi {
using Json = nlohmann::json;

// pace: the step range proposal from every process's NVTX tallies (step_range.h in parts, or
// in time shards step_range_shards.h); then each rank's iterations and step accounting where
// its report is, and on the root the comparison across ranks (comparePaces), as computePace
// does after its per-rank part. In time shards (CPU time): a rank's pace from every shard's
// candidates, each shard's step accounting after its file's earlier shards' busy end, added
// up on the root.
int runPaceCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;

    const auto name = givenOrProposedStepRange(world, capture, options.range);
    if (!name) {
        const auto noStepRange = distributedStepRangeChoice(world, capture);
        return finalStatus(world, capture, world.isRoot() ? cli::printNoStepRange(noStepRange) : 1);
    }

    Json ranks = Json::array();
    const cli::CommandContext local { options, capture.local };
    const auto paceOptions = cli::paceOptions(local, *name);
    const auto stepOptions = cli::stepAccountingOptions(options);
    if (!rankPacesOfProcess(world, capture, paceOptions, stepOptions, ranks))
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
