// SPDX-License-Identifier: MIT
#pragma once
// The commands gaplens-mpi computes in parts, one part per process, and prints on the root
// exactly as gaplens-cli prints them; and the others, run whole on the root.
#include "distributed_capture.h"
#include "mpi_world.h"

#include "cli_options.h"

#include <string>

namespace gaplens::mpi {

// Why the command runs whole on the root (synth, which analyses nothing; "a file is given
// twice"); empty when it is computed in parts.
std::string wholeOnRootReason(const cli::Options &options);

// Whether the command takes time shards of a file, and how (docs/mpi.md): the summaries
// (kernels but --hist, nvtx but --gpu, api) count each event where it starts, so the shards
// add up to the whole file, and so do intervals and transfers but for busy time; gaps and
// blame read their shards with a halo.
TimeShardUse timeShardUse(const cli::Options &options);

// Collective. The exit status, the same on every process: gaplens-cli's for the same inputs.
int runDistributed(const World &world, const cli::Options &options);
int runOnRoot(const World &world, const cli::Options &options, const std::string &reason);

// The distributed commands, each in a file of its own (command_*.cpp).
int runIntervalCommand(const World &world, const cli::Options &options); // intervals, transfers
int runGapsCommand(const World &world, const cli::Options &options);
int runSummaryCommand(const World &world, const cli::Options &options); // kernels, nvtx, api
int runKernelHistogramCommand(const World &world, const cli::Options &options); // kernels --hist
int runBlameCommand(const World &world, const cli::Options &options);
int runRanksCommand(const World &world, const cli::Options &options);
int runPaceCommand(const World &world, const cli::Options &options);
int runOverlapCommand(const World &world, const cli::Options &options);
int runNcuCommand(const World &world, const cli::Options &options);
int runThroughputCommand(const World &world, const cli::Options &options);
int runCaptureSummaryCommand(const World &world, const cli::Options &options); // summary
int runDigestCommand(const World &world, const cli::Options &options);
int runCheckCommand(const World &world, const cli::Options &options); // check --baseline
int runSustainedGainCommand(const World &world, const cli::Options &options); // check --min-sustained-gain
int runDiffCommand(const World &world, const cli::Options &options);

} // namespace gaplens::mpi
