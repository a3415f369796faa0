// SPDX-License-Identifier: MIT
#pragma once
// The steps every distributed command takes together: agreeing on a failure, on "nothing
// loaded" and on the exit status, so that no process waits for one that stopped.
#include "distributed_capture.h"
#include "mpi_world.h"

#include "cli_options.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>

namespace gaplens::mpi {

// Runs `step` on every process; when it throws on any, every process learns so and the root
// prints the first process's message as gaplens-cli would. true when all succeeded.
template <class Step> bool onEveryProcess(const World &world, Step step)
{
    std::string error;
    try {
        step();
    } catch (const std::exception &e) {
        error = e.what();
        if (error.empty())
            error = "unknown error";
    }
    const auto errors = world.allGather(error);
    const auto failed = std::find_if(errors.begin(), errors.end(), [](const auto &e) { return !e.empty(); });
    if (failed == errors.end())
        return true;
    if (world.isRoot())
        std::fprintf(stderr, "gaplens-mpi: error: %s\n", failed->c_str());
    return false;
}

// Runs `step`, whose collective calls every process makes together. A process whose step
// throws cannot tell the others, which wait for it in a collective call, so it ends the job
// (MPI_Abort) with its message.
template <class Step> void collectively(const World &world, Step step)
{
    try {
        step();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "gaplens-mpi: error: process %d: %s\n", world.rank(), e.what());
        std::fflush(stderr);
        world.abort(1);
    }
}

// The root's status, on every process.
int agreedStatus(const World &world, int rootStatus);
// After a distributed load: false (and the message on the root) when no file loaded anywhere.
bool anyFileLoaded(const World &world, const DistributedCapture &capture, const cli::Options &options);
// How every distributed command starts: the tables it reads loaded in parts (and the test
// fault hook); nullopt, with the message on the root, when no file loaded anywhere.
std::optional<DistributedCapture> loadCommandCapture(const World &world, const cli::Options &options);
// How diff and check --min-sustained-gain start: --before and --after loaded in parts, one
// after the other (the command's tables; load errors labelled "before: " and "after: "), and, as
// gaplens-cli says, an error on the root when either loaded no file; nullopt then.
struct BeforeAfterInParts
{
    DistributedCapture before, after;
};
std::optional<BeforeAfterInParts> loadBeforeAfterInParts(const World &world, const cli::Options &options);
// The exit status after the root printed: the command's, else 1 when an input failed to load.
int finalStatus(const World &world, const DistributedCapture &capture, int printed);
// Fault injection for tests/mpi: GAPLENS_MPI_TEST_ABORT=N makes process N die here, as a
// lost node would, so the test can see the job end instead of hang.
void dieIfAsked(const World &world);
// GAPLENS_MPI_STATS=1: each process says on stderr what it held and sent (when the command
// counts it), for the scaling figures of docs/mpi.md (peak memory from getrusage: this
// process alone).
void printStatsIfAsked(
    const World &world, const DistributedCapture &capture, std::optional<std::size_t> bytesSent = std::nullopt);

} // namespace gaplens::mpi
