// SPDX-License-Identifier: MIT
#pragma once
// Reads one nsys SQLite export into per-report columns (not yet assigned to ranks).
#include "gaplens/core/loader.h"
#include "gaplens/core/trace.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::core::detail {

struct ReportData
{
    Report report;
    std::vector<Gpu> gpus;       // streams carry pid; rank not yet known
    std::vector<Thread> threads; // pid/tid set; rank not yet known
    std::map<std::uint32_t, std::string> processNames;
    std::vector<std::uint32_t> gpuPids; // processes with kernels, copies or memsets, ascending
    std::map<std::uint32_t, std::uint64_t> activityByPid; // API + NVTX events per process
    // Rank from the launched process's environment, e.g. {3, "PMI_RANK=\"3\""}.
    std::optional<std::pair<std::int32_t, std::string>> environmentRank;
    std::optional<LoadError> error;
};

class CancelledError : public std::exception
{
public:
    const char *what() const noexcept override { return "cancelled"; }
};

using StageFn = std::function<void(const char *stage, int permilleOfReport)>;

// Never throws except CancelledError: problems with the file end up in ReportData::error.
ReportData readReport(const std::string &path, StringPool &strings, const StageFn &stage,
                      const CancelToken *cancel);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel"; other names unchanged.
std::string_view stripApiVersionSuffix(std::string_view name);

} // namespace gaplens::core::detail
