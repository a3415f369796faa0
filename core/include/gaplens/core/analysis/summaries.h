// SPDX-License-Identifier: MIT
#pragma once
// nsys-stats-like summaries: top kernels (cuda_gpu_kern_sum), NVTX ranges (nvtx_sum) and
// CUDA API calls (cuda_api_sum). All share DurationStats; rows sorted by total desc, then name.
#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/parts_reduction.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <vector>

namespace gaplens::core {

// The tables each summary reads: the kernel table; the NVTX table; the CUDA API table; and
// the projection onto the GPU, which follows each range's CUDA calls to the kernels, copies
// and memsets they launched.
inline constexpr TableSet kKernelSummaryTables = ExportTable::Kernels;
inline constexpr TableSet kNvtxSummaryTables = ExportTable::Nvtx;
inline constexpr TableSet kApiSummaryTables = ExportTable::CudaApi;
inline constexpr TableSet kNvtxProjectionSummaryTables
    = TableSet(ExportTable::Nvtx) | ExportTable::CudaApi | ExportTable::Kernels | ExportTable::Copies;

// Common filter: which ranks, and an optional window. An event is counted when its START
// lies in [window.start, window.end), with its full duration (as nsys stats on a range);
// so totals never depend on where a selection edge cuts a kernel.
struct SummaryOptions
{
    RankSelection ranks;
    TimeWindow window;
};

struct KernelSummaryOptions : SummaryOptions
{
    bool useDemangledName = false; // group by demangledName instead of shortName
};

struct KernelSummaryRow
{
    StringId name = kEmptyString;
    DurationStats stats;
    double percent = 0; // of the summed duration of all kernels in the selection
};

struct KernelSummary
{
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks; kNoIndex for "over all selected ranks"
    TimeNs totalNs = 0;
    std::uint64_t instances = 0;
    std::vector<KernelSummaryRow> rows;
};

// Over all selected ranks together.
KernelSummary summarizeKernels(const TraceSet &trace, const KernelSummaryOptions &options = {});
// One summary per selected rank, ascending rank index.
std::vector<KernelSummary> summarizeKernelsPerRank(const TraceSet &trace, const KernelSummaryOptions &options = {});

// One exact name inside an NVTX group row ("aten::add, op_id = 314359" under "aten::add").
struct NvtxCallRow
{
    StringId name = kEmptyString;
    DurationStats stats;
    double percent = 0; // of the summed duration of all NVTX ranges in the selection
};

struct NvtxSummaryRow
{
    StringId name = kEmptyString;
    NvtxKind kind = NvtxKind::PushPop;
    DurationStats stats;
    double percent = 0; // of the summed duration of all NVTX ranges in the selection
    // With NvtxCalls::Listed: the exact names grouped here that differ from the group name,
    // total desc, then name; their stats add up to the row's with the group name's own ranges.
    std::vector<NvtxCallRow> calls;
};

enum class NvtxCalls { Grouped, Listed };

// The style column of nsys nvtx_sum: "PushPop" or "StartEnd".
const char *nvtxStyleName(NvtxKind kind);

struct NvtxSummary
{
    TimeNs totalNs = 0;
    std::uint64_t instances = 0;
    std::vector<NvtxSummaryRow> rows; // grouped by (name, kind); ties ordered PushPop first
};

// Threads of the selected ranks (with "all": every thread). Rows group by the range's
// nvtxGroupName (PyTorch's per-call ", op_id = N" dropped); domains are not part of the key.
// NvtxCalls::Listed also fills each row's per-call names (a GUI tree's children).
NvtxSummary summarizeNvtx(
    const TraceSet &trace, const SummaryOptions &options = {}, NvtxCalls calls = NvtxCalls::Grouped);

// The GPU projection of the NVTX ranges (nsys nvtx_gpu_proj_sum): per (group name, kind), the
// projected durations (GpuProjector, copies and memsets included) of its ranges that launched
// GPU work. rangeInstances counts every range of the group, projected or not; stats.count the
// projected ones. Only groups with at least one projected range are rows.
struct NvtxProjectionRow
{
    StringId name = kEmptyString;
    NvtxKind kind = NvtxKind::PushPop;
    std::uint64_t rangeInstances = 0;
    DurationStats stats; // of the projected durations
    double percent = 0; // of the summed projected duration of all rows
};

struct NvtxProjectionSummary
{
    TimeNs totalNs = 0; // summed projected duration
    std::uint64_t instances = 0; // projected ranges
    std::vector<NvtxProjectionRow> rows; // total desc, then name, then PushPop first
};

// Same selection as summarizeNvtx (a range counts when its CPU start is in the window).
NvtxProjectionSummary summarizeNvtxProjection(const TraceSet &trace, const SummaryOptions &options = {});

struct ApiSummaryRow
{
    StringId name = kEmptyString; // suffix-free, as in the model
    DurationStats stats;
    double percent = 0; // of the summed duration of all API calls in the selection
};

struct ApiSummary
{
    TimeNs totalNs = 0;
    std::uint64_t instances = 0;
    std::vector<ApiSummaryRow> rows;
};

// Every call, nested driver calls included (as cuda_api_sum lists them).
ApiSummary summarizeApi(const TraceSet &trace, const SummaryOptions &options = {});

// The same summaries over one part of a capture loaded in parts (gaplens-mpi: a part per
// process). Collective: every part calls it with the same options, and each gets the whole
// capture's summary, exactly the one computed at once, with its rows named in `names` (the
// groups of every part are matched by their names' texts). The NVTX summary's rows have no
// per-call names (NvtxCalls::Grouped).
KernelSummary summarizeKernels(
    const TraceSet &part, const KernelSummaryOptions &options, const PartsReduction &parts, StringPool &names);
NvtxSummary summarizeNvtx(
    const TraceSet &part, const SummaryOptions &options, const PartsReduction &parts, StringPool &names);
NvtxProjectionSummary summarizeNvtxProjection(
    const TraceSet &part, const SummaryOptions &options, const PartsReduction &parts, StringPool &names);
ApiSummary summarizeApi(
    const TraceSet &part, const SummaryOptions &options, const PartsReduction &parts, StringPool &names);

} // namespace gaplens::core
