// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"

#include "command_context.h"

namespace gaplens::mpi {

// ranks: the rank mapping is what the skeleton holds (every report, rank and GPU, and the
// rank decision's warnings), so each process loads only its files and the root prints.
int runRanksCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    int status = 0;
    if (world.isRoot())
        status = cli::runRanks({ options, capture.skeleton });
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
