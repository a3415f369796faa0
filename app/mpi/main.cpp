// SPDX-License-Identifier: MIT
// gaplens-mpi: gaplens-cli's commands, options and output on an MPI job
// (`mpirun -np P gaplens-mpi COMMAND FILES...`, `srun -n P gaplens-mpi ...`). The files are
// divided over the processes; the root prints what gaplens-cli prints for the same inputs.
#include "distributed_commands.h"
#include "mpi_world.h"

#include "cli_options.h"

#include <cstdio>
#include <exception>
#include <string>

using namespace gaplens;

int main(int argc, char **argv)
{
    mpi::World world(argc, argv);
    cli::Options options;
    try {
        options = cli::parseOptions(argc, argv, "gaplens-mpi");
    } catch (const cli::UsageError &e) {
        // Every process parses the same command line, so every one stops here.
        if (world.isRoot()) {
            const auto helpCommand = e.command.empty() ? std::string("gaplens-mpi") : "gaplens-mpi " + e.command;
            std::fprintf(
                stderr, "gaplens-mpi: %s\nRun `%s --help` for usage.\n", e.message.c_str(), helpCommand.c_str());
        }
        return 2;
    }
    if (!options.infoText.empty()) {
        if (world.isRoot())
            std::fputs(options.infoText.c_str(), stdout);
        return 0;
    }
    try {
        const auto reason = mpi::wholeOnRootReason(options);
        return reason.empty() ? mpi::runDistributed(world, options) : mpi::runOnRoot(world, options, reason);
    } catch (const std::exception &e) {
        // The others may be waiting for this process in a collective call: end the whole job.
        std::fprintf(stderr, "gaplens-mpi: error on process %d: %s\n", world.rank(), e.what());
        world.abort(1);
    }
}
