// SPDX-License-Identifier: MIT
#include "distributed_commands.h"

#include "collective_steps.h"

#include "run_command.h"

#include <cstdio>
#include <exception>

namespace gaplens::mpi {

bool isDistributed(const cli::Options &options)
{
    const auto &command = options.command;
    return command == "intervals" || command == "transfers" || command == "gaps" || command == "blame"
        || command == "ranks" || command == "nvtx" || command == "api" || (command == "kernels" && !options.histKernel);
}

int runDistributed(const World &world, const cli::Options &options)
{
    const auto &command = options.command;
    if (command == "gaps")
        return runGapsCommand(world, options);
    if (command == "blame")
        return runBlameCommand(world, options);
    if (command == "ranks")
        return runRanksCommand(world, options);
    if (command == "kernels" || command == "nvtx" || command == "api")
        return runSummaryCommand(world, options);
    return runIntervalCommand(world, options);
}

int runOnRoot(const World &world, const cli::Options &options)
{
    int status = 0;
    if (world.isRoot()) {
        std::fprintf(stderr,
            "gaplens-mpi: note: %s is not computed in parts yet: process 0 analyses every file (docs/mpi.md)\n",
            options.command.c_str());
        try {
            status = cli::runCommand(options);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "gaplens-mpi: error: %s\n", e.what());
            status = 1;
        }
        std::fflush(stdout);
    }
    return agreedStatus(world, status);
}

} // namespace gaplens::mpi
