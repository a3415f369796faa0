// SPDX-License-Identifier: MIT
#pragma once
// Loading a capture (one or many nsys SQLite exports) into a TraceSet. Synchronous and
// Qt-free: the caller owns the thread (the GUI runs it on a worker, the CLI inline).
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"
#include "gaplens/core/read/rank_identity.h"
#include "gaplens/core/read/report_cache.h"
#include "gaplens/core/read/time_shards.h"
#include "gaplens/core/util/cancel.h"
#include "gaplens/core/util/memory_limit.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::core {

struct LoadOptions
{
    std::vector<std::string> files; // files or folders (a folder means every *.sqlite in it)
    std::vector<RankOverride> rankOverrides;
    unsigned threads = 0; // reports read in parallel; 0 = hardware concurrency
    // A capture whose estimated in-memory size (estimateLoad) exceeds the limit is not loaded:
    // one LoadError says so, before any row is read. The limit is the smallest of what the
    // process may still take (tightestMemoryHeadroom: MemAvailable, cgroup memory limits,
    // RLIMIT_AS), read from memoryLimitSources at load time, and memoryLimitBytes unless 0
    // (gaplens-cli --max-memory; tests set a tiny one). No bound at all: no check.
    // A report with an entry in the report cache (`cache`) counts at what it keeps beside its
    // mapped columns (names, depths, nesting). A capture that fits only with every report
    // mapped is read through the cache: each report is written to its entry as soon as it is
    // read and replaced by the entry mapped, so only the reports being read are held whole
    // (and there is no first stage).
    std::uint64_t memoryLimitBytes = 0;
    MemoryLimitSources memoryLimitSources; // this process's; tests point it at fake files
    // The big tables (kernels, copies, CUDA API calls, NVTX) are scanned by decoding the
    // file's b-tree pages directly (core/src/table_scan.h), handing over to SQLite for
    // anything it does not decode itself. false: every row through SQLite statements, for
    // tests that compare the two and for the benchmark.
    bool directTableScan = true;
    // The activity tables read (model/table_set.h); the others leave their columns empty.
    // Ranks, GPUs and processes are those of a full load whatever the set (the kernel, copy
    // and memset tables are scanned for devices and processes when they are not read), so an
    // analysis gives the same answer on any set holding the tables it declares. A table not
    // read cannot fail a file either (a corrupt NVTX table does not stop `kernels`). The GUI
    // reads everything; each gaplens-cli command reads what its analyses declare.
    TableSet tables = TableSet::all();
    // A big table of a file is also split into page ranges decoded by the threads the
    // per-file reads leave idle (core/src/read/table_scan.h). false: one thread per table,
    // for the benchmark's comparison.
    bool splitTables = true;
    // Decides the rank numbers of the loaded reports' rank candidates (one assignment per
    // candidate, in order; warnings about the whole capture go to `warnings`). Empty: the
    // rules of assignRanks with rankOverrides. gaplens-mpi loads part of a capture on each
    // process and decides over every process's candidates, so that each report gets the
    // rank it gets when the whole capture is loaded at once.
    std::function<std::vector<RankAssignment>(const std::vector<RankCandidate> &, std::vector<std::string> &warnings)>
        decideRanks;
    // A staged load (the GUI's: GPU lanes before the NVTX table is read). When set and the
    // set holds NVTX, every file is read as two parts (firstStageTables, then NVTX and the OS
    // runtime calls); once the first parts of all files are read, this is called once, on
    // one of the loader's threads, with a capture of those tables alone, while the NVTX parts
    // are still being read. That capture is a TraceSet of its own, finalised and immutable,
    // sharing only the string pool of the one loadTraceSet returns (which is exactly a
    // single-stage load's); its ranks are the full load's except for a file without GPU
    // work, whose rank is then its busiest process by CUDA calls alone. Its errors and
    // warnings are those of the first parts, and come again in the full capture. Not
    // called for a load cancelled or refused (memory guard) before; the call must return
    // quickly. Costs a copy of the first stage's columns (the memory guard counts it). Not
    // with decideRanks (it would decide twice): loadTraceSet throws std::invalid_argument.
    std::function<void(std::shared_ptr<const TraceSet>)> onFirstStage;
    // Time shards (gaplens-mpi, time_shards.h): empty, or one window per entry of `files`
    // (files then, not folders). A file's kernels, copies, memsets, CUDA API calls and NVTX
    // ranges and marks are kept only when their stored start lies in its window; everything
    // else is as a full read of the file makes it: its data problems (every row is still read;
    // but unknown string ids, counted per reference kept), its GPUs, processes and rank
    // candidates (the rows outside the window still name their devices and processes). A file without GPU work, whose
    // rank is its busiest process by CUDA calls and NVTX events, keeps all of them in its first shard and none in the
    // others (which read them, to name that process as a full read does). Only for sets of those tables
    // (kKernelSummaryTables and the like): OS runtime calls, syncs, memory and call stacks need the events of every
    // shard, so loadTraceSet throws std::invalid_argument for them, as for a count other than the files', unless
    // every window (a whole file's too) has a halo (gaps and blame: those tables are then read whole,
    // StoredStartWindow::halo).
    std::vector<StoredStartWindow> windows;
    // The report cache (read/report_cache.h): a report with a valid entry is taken from it
    // instead of its export, and a report read from its export gets an entry. Off by default
    // (empty directory); never for time shards.
    ReportCacheOptions cache;
};

// What a staged load's first stage holds: the set but NVTX and the OS runtime calls (which
// are kept only for processes with CUDA calls or NVTX, so they wait for NVTX).
constexpr TableSet firstStageTables(TableSet tables)
{
    return tables - (ExportTable::Nvtx | ExportTable::OsRuntime);
}

// What loading the files would take, from the exact row count of each table the reader
// keeps (count(*), answered from the table b-trees without decoding a row: about 0.1 s per
// 10M rows once the file is cached, the cost of reading its pages otherwise). Files that
// cannot be opened count as zero (loading them reports the real problem). Sums saturate.
// Only the tables in `tables` count, with the string table (LoadOptions::tables).
struct LoadEstimate
{
    std::uint64_t rows = 0; // kernels, copies, memsets, runtime calls, NVTX events, strings
    std::uint64_t bytes = 0; // rows times the model's measured bytes per row of each kind
};
LoadEstimate estimateLoad(const std::vector<std::string> &files, TableSet tables = TableSet::all());

struct LoadProgress
{
    std::size_t reportIndex = 0;
    std::size_t reportCount = 0;
    std::string file;
    std::string stage; // table being read, e.g. "kernels"
    int permille = 0; // overall progress 0..1000
};

// Called from the loader's threads, one call at a time (under the loader's lock).
using ProgressFn = std::function<void(const LoadProgress &)>;

// Expands folders into their *.sqlite files (natural order); other paths pass through.
// A folder without exports becomes a LoadError.
std::vector<std::string> expandInputs(const std::vector<std::string> &inputs, std::vector<LoadError> &errors);

// Never throws for bad input: unreadable or malformed files end up in TraceSet::errors with
// a message naming the file, and the other files still load.
std::shared_ptr<TraceSet> loadTraceSet(
    const LoadOptions &options, const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

} // namespace gaplens::core
