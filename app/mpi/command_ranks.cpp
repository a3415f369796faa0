// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"

#include "command_context.h"
#include "command_tables.h"

namespace gaplens::mpi {

// ranks: the rank mapping is what the skeleton holds (every report, rank and GPU, and the
// rank decision's warnings), so each process loads only its files and the root prints.
int runRanksCommand(const World &world, const cli::Options &options)
{
    const auto capture = loadDistributed(world, options, options.files, cli::commandTables(options));
    dieIfAsked(world);
    if (!anyFileLoaded(world, capture, options))
        return 1;
    int status = 0;
    if (world.isRoot())
        status = cli::runRanks({ options, capture.skeleton });
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
