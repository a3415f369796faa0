// SPDX-License-Identifier: MIT
#pragma once
// Reads one nsys SQLite export into per-report columns (not yet assigned to ranks).
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"
#include "gaplens/core/read/time_shards.h"
#include "gaplens/core/util/cancel.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::core::detail {

// The OS runtime calls of one thread while a file is read: kept (attachOsrt) only when their
// process has CUDA or NVTX activity, which the NVTX part of a split read may be the one to see.
struct PendingOsrtThread
{
    Thread thread; // pid, tid, name and osrt set
    bool unknownName = false; // its ThreadNames name id is missing from StringIds (counted once kept)
};

struct ReportData
{
    Report report;
    std::vector<Gpu> gpus; // streams carry pid; rank not yet known
    std::vector<Thread> threads; // pid/tid set; rank not yet known
    std::map<std::uint32_t, std::string> processNames;
    std::vector<std::uint32_t> gpuPids; // processes with kernels, copies or memsets, ascending
    std::map<std::uint32_t, std::uint64_t> activityByPid; // API + NVTX events per process
    // Rank from the launched process's environment, e.g. {3, "PMI_RANK=\"3\""}.
    std::optional<std::pair<std::int32_t, std::string>> environmentRank;
    std::optional<LoadError> error;
    // Unknown string ids counted for each thread's name, by (pid << 32 | tid): both parts of a
    // file read ThreadNames for the threads they saw, so joinParts takes the second count of
    // a thread both saw back out.
    std::map<std::uint64_t, std::uint64_t> unknownThreadNameIds;
    // OSRT_API's calls by thread, until attachOsrt moves them into `threads`.
    std::vector<PendingOsrtThread> osrtThreads;
};

class CancelledError : public std::exception
{
public:
    const char *what() const noexcept override { return "cancelled"; }
};

using StageFn = std::function<void(const char *stage, int permilleOfReport)>;

// Which tables of a file one reader reads. A file can be read as two parts on two
// connections at once (GPU + CUDA API tables, NVTX table), then joined with joinParts,
// so that one big file also uses two cores.
enum class ReportPart : std::uint8_t { Everything, GpuAndApi, Nvtx };

// Never throws except CancelledError: problems with the file end up in ReportData::error.
// directTableScan and tables: see LoadOptions. Of a part, only the tables in `tables` are
// read, plus what tells which processes are ranks as a full read tells it: the devices and
// processes of the kernel, copy and memset rows (without keeping the rows), and, for a file
// with no GPU work, its CUDA API calls and NVTX events (the rank is its busiest process).
// scanThreads: threads that decode each big table's pages beside the reader (TableScan's
// page-range split), 0 = none. window: the time shard read (LoadOptions::windows; with one,
// read the file as one part, since the NVTX part cannot tell a file without GPU work).
ReportData readReport(const std::string &path, StringPool &strings, const StageFn &stage, const CancelToken *cancel,
    ReportPart part = ReportPart::Everything, bool directTableScan = true, TableSet tables = TableSet::all(),
    unsigned scanThreads = 0, StoredStartWindow window = {});

// Joins the NVTX part of a file into its GPU + API part: the same threads become one, and
// counts add up. The first error of either part is the file's error.
void joinParts(ReportData &gpuAndApi, ReportData &&nvtx);

// A copy of a file's GPU + API part for a staged load's first stage (LoadOptions::
// onFirstStage), without its pending OS runtime calls: which of them are kept depends on NVTX.
ReportData firstStageOf(const ReportData &gpuAndApi);

// Moves the pending OS runtime calls into their threads: into the thread of the same (pid,
// tid) when there is one, else into a new thread when the process has kernels, copies, CUDA
// calls, NVTX ranges or marks; the calls of other processes are dropped. readReport does it
// for a whole file, joinParts for a file read in two parts.
void attachOsrt(ReportData &data);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel"; other names unchanged.
std::string_view stripApiVersionSuffix(std::string_view name);

} // namespace gaplens::core::detail
