// SPDX-License-Identifier: MIT
#include "distributed_commands.h"

#include "collective_steps.h"

#include "run_command.h"

#include <cstdio>
#include <exception>

namespace gaplens::mpi {

std::string wholeOnRootReason(const cli::Options &options)
{
    // Every analysis is computed in parts; synth writes one capture, from one process.
    if (options.command == "synth")
        return "synth writes its capture from one process";
    return {};
}

TimeShardUse timeShardUse(const cli::Options &options)
{
    const auto &command = options.command;
    // kernels --hist too: launches tied in (duration, start) on one GPU start together, so
    // they lie in one shard, whose streams keep the whole file's (pid, streamId) order.
    // overlap too, its unions after its own carry from the earlier shards (command_overlap.cpp).
    // ncu too: a rank's launches of the kernel are counted over its shards (command_ncu.cpp).
    if (command == "kernels" || (command == "nvtx" && !options.gpuProjection) || command == "api"
        || command == "overlap" || command == "ncu")
        return TimeShardUse::AddsUp;
    // pace on the CPU: the proposal from every shard's NVTX tallies after its threads' ranges
    // open from the earlier shards (step_range_shards.h), a rank's pace from every shard's
    // candidates, its steps' busy time after the earlier shards' (command_pace.cpp). The GPU
    // projection follows launches across shards: whole files.
    if (command == "pace" && !options.gpuProjection)
        return TimeShardUse::AddsUp;
    // throughput and check --min-sustained-gain: each rank's step and state ranges gathered
    // from its shards and accounted on the root (run_accounting_parts.cpp).
    if (command == "throughput" || (command == "check" && options.minSustainedGainPercent))
        return TimeShardUse::AddsUp;
    // diff too: its GPU work (busy, gaps and their blame) measured as gaps are; a capture read
    // in time shards is then read again for its steps and NVTX ranges (command_diff.cpp).
    if (command == "gaps" || command == "blame" || command == "diff")
        return TimeShardUse::Gaps;
    if (command == "intervals" || command == "transfers")
        return TimeShardUse::AddsUpAfterEarlierBusy;
    // check against a stored summary (command_check.cpp puts the baseline's range and copies
    // setting into its options; without a range it is proposed as pace's is): busy % and the
    // median step added up over the shards.
    if (command == "check" && !options.minSustainedGainPercent)
        return options.withCopies ? TimeShardUse::AddsUpAfterEarlierBusyAndCopies
                                  : TimeShardUse::AddsUpAfterEarlierBusy;
    return TimeShardUse::None;
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
    if (command == "kernels" && options.histKernel)
        return runKernelHistogramCommand(world, options);
    if (command == "kernels" || command == "nvtx" || command == "api")
        return runSummaryCommand(world, options);
    if (command == "pace")
        return runPaceCommand(world, options);
    if (command == "overlap")
        return runOverlapCommand(world, options);
    if (command == "ncu")
        return runNcuCommand(world, options);
    if (command == "throughput")
        return runThroughputCommand(world, options);
    if (command == "summary")
        return runCaptureSummaryCommand(world, options);
    if (command == "digest")
        return runDigestCommand(world, options);
    if (command == "diff")
        return runDiffCommand(world, options);
    if (command == "check")
        return options.minSustainedGainPercent ? runSustainedGainCommand(world, options)
                                               : runCheckCommand(world, options);
    return runIntervalCommand(world, options);
}

int runOnRoot(const World &world, const cli::Options &options, const std::string &reason)
{
    int status = 0;
    if (world.isRoot()) {
        std::fprintf(stderr, "gaplens-mpi: note: %s: process 0 runs it alone (docs/mpi.md)\n", reason.c_str());
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
