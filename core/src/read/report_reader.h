// SPDX-License-Identifier: MIT
#pragma once
// Reads one nsys SQLite export into per-report columns (not yet assigned to ranks).
#include "gaplens/core/model/trace.h"
#include "gaplens/core/util/cancel.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::core::detail {

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
// directTableScan: see LoadOptions::directTableScan.
ReportData readReport(const std::string &path, StringPool &strings, const StageFn &stage, const CancelToken *cancel,
    ReportPart part = ReportPart::Everything, bool directTableScan = true);

// Joins the NVTX part of a file into its GPU + API part: the same threads become one, and
// counts add up. The first error of either part is the file's error.
void joinParts(ReportData &gpuAndApi, ReportData &&nvtx);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel"; other names unchanged.
std::string_view stripApiVersionSuffix(std::string_view name);

} // namespace gaplens::core::detail
