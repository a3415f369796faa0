// SPDX-License-Identifier: MIT
#pragma once
// Why was the GPU idle? For every idle gap: the CPU-side cause (what the launching thread
// was doing) and the phase (the NVTX ranges open then), plus totals by cause and by phase.
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

enum class GapCause : std::uint8_t {
    QueuedDependencyWait, // the work ending the gap was launched before the gap began
    ApiCall, // a CUDA API call was in progress at the gap's midpoint (see apiName)
    NoCudaCall, // no CUDA call in progress: the host was busy elsewhere
};
inline constexpr std::size_t kGapCauseCount = 3;
// "queued (dependency wait)", "CUDA API call", "no CUDA call (host busy elsewhere)".
std::string_view gapCauseLabel(GapCause cause);

enum class GapEndKind : std::uint8_t { Kernel, Copy, Unknown };

struct GapBlame
{
    std::uint32_t gpu = kNoIndex;
    std::uint32_t rank = kNoIndex; // rank of the process that ran the ending work (index into TraceSet::ranks)
    TimeRange gap;
    TimeNs midpoint = 0; // gap.start + duration / 2

    // The GPU work starting at gap.end. When several start there: the first kernel in
    // Gpu::streams order, then the first copy.
    GapEndKind endKind = GapEndKind::Unknown;
    std::uint32_t endStream = kNoIndex; // index into Gpu::streams (kernels only)
    std::uint32_t endEvent = kNoIndex; // index into that stream's KernelColumns or into Gpu::copies
    std::uint32_t endPid = 0;
    std::uint32_t endCorrelationId = 0;

    // The API call that launched the ending work, when found via TraceSet::findLaunch.
    std::uint32_t launchThread = kNoIndex;
    std::uint32_t launchCall = kNoIndex;

    GapCause cause = GapCause::NoCudaCall;
    // For ApiCall: the outermost call in progress at the midpoint (thread + index into Thread::api).
    std::uint32_t apiThread = kNoIndex;
    std::uint32_t apiCall = kNoIndex;
    StringId apiName = kEmptyString;

    // Phase: NVTX ranges open at the midpoint on phaseThread (launching thread; else the
    // thread of the API call found; else the process main thread tid == pid), outer -> inner.
    std::uint32_t phaseThread = kNoIndex;
    std::vector<std::uint32_t> phaseRanges; // indices into Thread::nvtx
    std::vector<StringId> phaseStack; // their names, same order
    StringId phase() const { return phaseStack.empty() ? kEmptyString : phaseStack.back(); }
};

// One row of a totals table. The key is the cause label, or the API name for ApiCall
// ("cudaStreamSynchronize"); for phases the innermost NVTX range's group name (nvtxGroupName),
// "(none)" when none: gapCauseKey / gapPhaseKey below.
struct BlameBucket
{
    std::string key;
    GapCause cause = GapCause::NoCudaCall; // meaningful in byCause only
    StringId name = kEmptyString; // API name (byCause) or NVTX name (byPhase)
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
    TimeNs longestNs = 0;
};

struct BlameTotals
{
    std::uint64_t gapCount = 0;
    TimeNs totalGapNs = 0;
    std::vector<BlameBucket> byCause; // sorted by totalNs desc, then key
    std::vector<BlameBucket> byPhase; // sorted by totalNs desc, then key
};

inline constexpr std::string_view kNoPhaseLabel = "(none)";

// The keys a gap is totalled under (BlameBucket::key), the one definition every view uses.
// Cause key: the API name for an ApiCall gap with a name, else gapCauseLabel(cause).
// Phase key: the group name (TraceSet::nvtxGroup) of the innermost NVTX range open, or
// kNoPhaseLabel when none. The views point into the trace's strings or static labels.
std::string_view gapCauseKey(const TraceSet &trace, const GapBlame &gap);
std::string_view gapPhaseKey(const TraceSet &trace, const GapBlame &gap);

struct GapBlameOptions
{
    TimeNs minGapNs = kDefaultMinGapNs;
    bool includeCopies = false; // busy intervals and gap-ending work include copies and memsets
    TimeWindow window; // gaps inside [start, end) only (intervals clipped first)
    std::vector<std::uint32_t> gpus; // indices into TraceSet::gpus; empty = all
};

struct GpuBlameTotals
{
    std::uint32_t gpu = kNoIndex;
    BlameTotals totals;
};

struct RankBlameTotals
{
    std::uint32_t rank = kNoIndex;
    BlameTotals totals;
};

struct GapBlameReport
{
    std::vector<GapBlame> gaps; // ordered by (gpu, gap.start)
    std::vector<GpuBlameTotals> perGpu; // one per analysed GPU, ascending gpu index
    std::vector<RankBlameTotals> perRank; // ranks with at least one gap, ascending rank index
    BlameTotals overall;
};

// Reusable blamer (the GUI blames one hovered gap): precomputes the per-process thread
// lists once. Per gap: O(streams * log n + depth * log n), never a scan. Keeps a reference:
// the trace must outlive the blamer.
class GapBlamer
{
public:
    // Where the previous blame's searches ended in every track searched (kernel and copy
    // starts, launches, API and NVTX nesting levels), plus scratch space. Blaming many gaps in
    // time order with one cursor makes each search a short gallop from the last answer
    // instead of a binary search over millions of events that misses the cache at every step.
    // Answers never depend on the cursor: any order of gaps gives what blame() without one
    // gives. Use one cursor per thread and per trace.
    class SearchCursor
    {
    private:
        friend class GapBlamer;
        std::vector<std::vector<std::uint32_t>> m_kernelStarts; // [gpu][stream]
        std::vector<std::uint32_t> m_copyStarts; // [gpu]
        std::vector<std::uint32_t> m_launches; // [thread]: in api.correlationId
        std::vector<std::vector<std::uint32_t>> m_apiLevels, m_nvtxLevels; // [thread][nesting level]
        std::vector<std::uint32_t> m_open; // calls or ranges open at the midpoint
    };

    explicit GapBlamer(const TraceSet &trace);
    GapBlame blame(std::uint32_t gpu, TimeRange gap, bool includeCopies = false) const;
    // Same answer as blame() above; fastest when successive gaps of a GPU come in time order.
    GapBlame blame(std::uint32_t gpu, TimeRange gap, bool includeCopies, SearchCursor &cursor) const;

private:
    const TraceSet &m_trace;
    std::uint32_t rankOf(std::uint32_t report, std::uint32_t pid) const;
    // Without a cursor every search is a plain binary search.
    GapBlame blameWith(std::uint32_t gpu, TimeRange gap, bool includeCopies, SearchCursor *cursor) const;
};

// For a whole capture at one threshold, DerivedCapture (derived_capture.h) holds these once,
// and answers rank and window scopes from them without merging again.
GapBlameReport blameGaps(const TraceSet &trace, const GapBlameOptions &options = {});
// Totals of an arbitrary list of blamed gaps (e.g. a filtered one).
BlameTotals totalBlame(const TraceSet &trace, const std::vector<GapBlame> &gaps);

} // namespace gaplens::core
