// SPDX-License-Identifier: MIT
#pragma once
// A capture loaded in parts, one part per MPI process: files over processes, balanced by
// their row counts. Every report gets the rank number it gets when gaplens-cli loads the
// whole capture, because the ranks are decided over every process's rank candidates.
#include "mpi_world.h"

#include "cli_options.h"

#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"
#include "gaplens/core/read/work_division.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gaplens::mpi {

struct DistributedCapture
{
    // This process's files, loaded: its ranks hold their events.
    std::shared_ptr<core::TraceSet> local;
    // On the root only: the whole capture as gaplens-cli's output names it, without events:
    // every loaded report (path, time zero and warnings, in input order), every error, the capture's warnings, every
    // rank (its number, process, host, how it was decided, its span, its GPUs), every GPU
    // (device id, name, report, ranks; no streams) in the loader's order, and the span.
    std::shared_ptr<core::TraceSet> skeleton;
    // On the root only: for each process, its local rank index -> the skeleton's rank index,
    // and its local GPU index -> the skeleton's GPU index.
    std::vector<std::vector<std::uint32_t>> globalRank;
    std::vector<std::vector<std::uint32_t>> globalGpu;
    // On every process: its local rank index -> the global one, and the rank numbers in the
    // global rank order (what lets the processes of one rank's time shards act together).
    std::vector<std::uint32_t> localToGlobalRank;
    std::vector<std::int32_t> rankNumbers;
    // This process's share: its files and their rows (as divideFiles weighed them).
    std::size_t files = 0;
    std::uint64_t rows = 0;
    // What it reads of each file: whole, or a block of its time shards (core/read/
    // time_shards.h), whose events then are only those that start in them.
    std::vector<core::WorkPiece> pieces;
    // The capture's input files, expanded (what WorkPiece::file indexes), on every process.
    std::vector<std::string> inputFiles;
    // The input file of each of this process's reports (local.reports) and load errors
    // (local.errors); an error of no input file: inputFiles.size(). Files are told apart by
    // index, never by path: a file given twice is two reports, as gaplens-cli loads it.
    std::vector<std::size_t> reportFile, errorFile;
    // Whether the capture is divided in time shards (the same on every process).
    bool timeShards = false;
    // With TimeShardUse::Gaps and AddsUpAfterEarlierBusy(AndCopies): the carry of this process's time
    // shards from the earlier shards of their files (core/analysis/gap_shards.h), for its gap
    // finder and blamer, or its interval statistics' busy time.
    core::EarlierShards earlierShards;
};

// Whether a command may divide a file in time shards, and how:
// - AddsUp: it counts each event where it starts (the summaries), so the shards add up;
// - AddsUpAfterEarlierBusy: so do intervals and transfers, but for busy time, which each
//   shard counts after its file's earlier shards' busy end (exchanged after the load), of
//   kernels alone; AddsUpAfterEarlierBusyAndCopies: the same with copies and memsets in the
//   busy time (check, when its baseline counted them);
// - Gaps: gaps, blame and diff's GPU work; each gap belongs to the shard of the work that ends it, and each
//   shard reads its window twice: its kernels and copies first, whose edges the processes
//   exchange, then every table with the halo (core/read/time_shards.h) the earlier shards'
//   edges give it.
enum class TimeShardUse { None, AddsUp, AddsUpAfterEarlierBusy, AddsUpAfterEarlierBusyAndCopies, Gaps };

// Collective: every process calls it with the same options and files. A file that fails to
// load is reported on stderr by the process that read it (of a file read in time shards, the
// first shard's), and is one of the skeleton's errors; the other files are analysed.
// `shards`: when the command may take time shards, a capture with fewer files than
// processes, or a file far above its fair share, is divided in time shards
// (core::divideWork); AddsUp only for tables within core::kTimeShardTables. `label` comes
// before each load error's message ("before: " for the first of two captures, as gaplens-cli
// says).
DistributedCapture loadDistributed(const World &world, const cli::Options &options,
    const std::vector<std::string> &inputs, core::TableSet tables, TimeShardUse shards = TimeShardUse::None,
    const char *label = "");

} // namespace gaplens::mpi
