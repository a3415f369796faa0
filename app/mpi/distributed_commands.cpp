// SPDX-License-Identifier: MIT
#include "distributed_commands.h"

#include "distributed_capture.h"
#include "interval_parts.h"

#include "command_context.h"
#include "command_tables.h"
#include "run_command.h"

#include "gaplens/core/analysis/intervals.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <numeric>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace gaplens::mpi {
namespace {

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

// Fault injection for tests/mpi: GAPLENS_MPI_TEST_ABORT=N makes process N die after loading,
// as a lost node would, so the test can see the job end instead of hang.
void dieIfAsked(const World &world)
{
    if (const char *process = std::getenv("GAPLENS_MPI_TEST_ABORT"); process && std::atoi(process) == world.rank())
        std::abort();
}

// GAPLENS_MPI_STATS=1: each process says on stderr what it held and sent, for the scaling
// figures of docs/mpi.md (peak memory from getrusage: this process alone).
void printStatsIfAsked(const World &world, const DistributedCapture &capture, std::size_t bytesSent)
{
    if (!std::getenv("GAPLENS_MPI_STATS"))
        return;
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    std::fprintf(stderr,
        "gaplens-mpi: process %d of %d: %zu files, %llu rows, %zu bytes to the root, peak RSS %.1f MiB\n", world.rank(),
        world.size(), capture.files, static_cast<unsigned long long>(capture.rows), bytesSent,
        double(usage.ru_maxrss) / 1024.0);
}

int agreedStatus(const World &world, int rootStatus)
{
    return int(std::stoi(world.broadcastFromRoot(std::to_string(rootStatus))));
}

// intervals and transfers: each process computes its ranks' statistics and ping-pong runs
// over the whole capture's origin; the root puts them in rank order and finds the
// anomalies and the variability from them alone, as computeIntervals does.
int runIntervalCommand(const World &world, const cli::Options &options)
{
    const auto capture = loadDistributed(world, options, options.files, cli::commandTables(options));
    dieIfAsked(world);
    int status = 0;
    if (world.isRoot() && capture.skeleton->ranks.empty()) {
        std::fprintf(
            stderr, "gaplens-mpi: error: none of the %zu input file(s) could be loaded\n", options.files.size());
        status = 1;
    }
    if (agreedStatus(world, status) != 0)
        return 1;

    auto intervalOptions = cli::intervalOptions(options);
    if (!intervalOptions.originNs) {
        constexpr auto kNone = std::numeric_limits<core::TimeNs>::max();
        const auto origin = world.allReduceMin(core::intervalOrigin(*capture.local).value_or(kNone));
        intervalOptions.originNs = origin == kNone ? 0 : origin; // computeIntervals' origin without GPU work
    }
    core::IntervalReport local;
    const cli::CommandContext localContext { options, capture.local };
    if (!onEveryProcess(world, [&] {
            // Busy time is the union of kernels, whatever --with-copies would say elsewhere.
            local = core::computeIntervalStatistics(localContext.derivedKernelsOnly(), intervalOptions);
        }))
        return 1;

    const auto packed = packIntervalParts(local);
    printStatsIfAsked(world, capture, packed.size());
    const auto parts = world.gatherToRoot(packed);
    if (world.isRoot()) {
        core::IntervalReport merged;
        merged.originNs = *intervalOptions.originNs;
        merged.intervalNs = intervalOptions.intervalNs;
        merged.metric = intervalOptions.metric;
        merged.pooled = intervalOptions.pool;
        for (std::size_t p = 0; p < parts.size(); ++p)
            unpackIntervalParts(parts[p], capture.globalRank[p], merged);
        std::vector<std::size_t> order(merged.ranks.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return merged.ranks[a].rank < merged.ranks[b].rank; });
        core::IntervalReport sorted = merged;
        for (std::size_t i = 0; i < order.size(); ++i) {
            sorted.ranks[i] = std::move(merged.ranks[order[i]]);
            sorted.pingPong[i] = std::move(merged.pingPong[order[i]]);
        }
        core::finishIntervalReport(sorted, intervalOptions);
        const cli::CommandContext whole { options, capture.skeleton };
        status
            = options.command == "intervals" ? cli::printIntervals(whole, sorted) : cli::printTransfers(whole, sorted);
        std::fflush(stdout);
        if (status == 0 && !capture.skeleton->errors.empty())
            status = 1;
    }
    return agreedStatus(world, status);
}

} // namespace

bool isDistributed(const std::string &command)
{
    return command == "intervals" || command == "transfers";
}

int runDistributed(const World &world, const cli::Options &options)
{
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
