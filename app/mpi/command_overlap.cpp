// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "overlap_parts.h"

#include "command_context.h"

#include "gaplens/core/analysis/overlap.h"

#include <string>

namespace gaplens::mpi {

// overlap: a row (rank, GPU) and a rank's communication kernels depend only on the rank's own
// kernels, all on the process that loaded its report (computeOverlapPart), or on the processes
// of its file's time shards, each counting its unions after what the earlier shards' kernels
// cover (exchangeOverlapCarries). The root adds a row's shards up, puts the rows in the whole
// capture's (rank, GPU) order and matches the collectives across ranks (finishOverlap), as
// computeOverlap does after its per-rank part.
int runOverlapCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const auto &trace = *capture.local;
    auto carries = exchangeOverlapCarries(world, capture);
    std::string packed;
    if (!onEveryProcess(world, [&] {
            const cli::CommandContext local { options, capture.local };
            auto overlapOptions = cli::overlapOptions(local);
            overlapOptions.earlierShards = std::move(carries);
            packed = packOverlapPart(trace, core::computeOverlapPart(trace, overlapOptions));
        }))
        return 1;
    printStatsIfAsked(world, capture, packed.size());
    const auto gathered = world.gatherToRoot(packed);
    int status = 0;
    if (world.isRoot())
        status = cli::printOverlap({ options, capture.skeleton }, finishOverlapParts(capture, gathered));
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
