// SPDX-License-Identifier: MIT
#pragma once
// Why was the GPU idle? For every idle gap: the CPU-side cause (what the launching thread
// was doing) and the phase (the NVTX ranges open then), plus totals by cause and by phase.
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

// The tables a gap's cause and phase read: the GPU work around it and its copies, the
// launches and the CUDA call in progress, the NVTX phase.
inline constexpr TableSet kGapCauseAndPhaseTables = gpuBusyTables(true) | ExportTable::CudaApi | ExportTable::Nvtx;
// The tables gap blame reads: the cause and phase's, what queued work waited on
// (synchronisation records), the OS runtime call and both call stacks.
inline constexpr TableSet kGapBlameTables
    = kGapCauseAndPhaseTables | ExportTable::Syncs | ExportTable::OsRuntime | ExportTable::Callchains;

enum class GapCause : std::uint8_t {
    QueuedDependencyWait, // the work ending the gap was launched before the gap began
    ApiCall, // a CUDA API call was in progress at the gap's midpoint (see apiName)
    NoCudaCall, // no CUDA call in progress: the host was busy elsewhere
    // Copies or memsets ran on the GPU for at least half of the gap (copyNs * 2 >= duration):
    // the GPU was moving data, not idle. Only when copies are not counted as busy (with them
    // counted no copy runs inside a gap).
    Copy,
};
inline constexpr std::size_t kGapCauseCount = 4;
// "queued (dependency wait)", "CUDA API call", "no CUDA call (host busy elsewhere)",
// "copy (GPU moving data)".
std::string_view gapCauseLabel(GapCause cause);

// What kind of CUDA call an ApiCall gap waited in, from the call's name (runtime or driver,
// version suffix stripped): Sync (cuda/cu Stream/Device/Event/Ctx synchronize, a blocking
// memcpy: a memcpy without "Async"), Launch (kernel or graph launches), Memory (an async
// memcpy or any memset issued), Alloc (malloc, free, host alloc/register/unregister), Other.
// None for a gap that is no ApiCall gap.
enum class ApiKind : std::uint8_t { None, Sync, Launch, Memory, Alloc, Other };
ApiKind apiKindOf(std::string_view apiName);
// "sync", "launch", "memory", "alloc", "other"; "" for None.
std::string_view apiKindId(ApiKind kind);

// What an OS runtime call (OSRT_API, nsys -t osrt) is, from its exact name (osCategoryOf's
// table): Wait (thread synchronisation: pthread_cond_*wait, pthread_mutex_lock, sem_*wait,
// pthread_join, pthread_barrier_wait, futex, waitpid, ...), Io (files, pipes and sockets:
// read, write, pread*, pwrite*, readv, writev, open*, close, f* stdio calls, recv*, send*,
// accept, connect, fsync, ...), Poll (poll, ppoll, select, pselect*, epoll_wait, epoll_pwait*),
// Sleep (nanosleep, clock_nanosleep, usleep, sleep), Other (anything else: ioctl too, which
// on a GPU host is mostly the CUDA driver talking to /dev/nvidia*, not I/O; mmap, fcntl, ...).
// None for a gap without an OS call.
enum class OsCategory : std::uint8_t { None, Wait, Io, Poll, Sleep, Other };
inline constexpr std::size_t kOsCategoryCount = 6;
OsCategory osCategoryOf(std::string_view osCallName);
// "wait", "io", "poll", "sleep", "other"; "" for None.
std::string_view osCategoryId(OsCategory category);

enum class GapEndKind : std::uint8_t { Kernel, Copy, Unknown };

// What the work ending a queued gap waited for, from the export's data only (first rule that
// holds, in this order; kWaitToleranceNs below):
// - EventWait: its stream had a cudaStreamWaitEvent in front of it: a synchronisation record
//   of type StreamWaitEvent of the same process, GPU and stream issued after the kernel
//   before it on that stream and before it (correlation ids are a process's issue order:
//   previous kernel's < the record's < its own). Kernel-ended gaps only. The export names the
//   event (eventId), not the stream that recorded it: waitStream stays unset.
// - CopyOtherStream: a copy or memset of the same GPU on another stream (or of another
//   process) ended within [gap.end - kWaitToleranceNs, gap.end]; the latest such end wins and
//   waitStream is its stream id.
// - HostSync: a synchronisation record of type EventSynchronize, StreamSynchronize or
//   ContextSynchronize of the same process on that GPU (a synchronize call on the host)
//   returned within [gap.end - kWaitToleranceNs, gap.end + kWaitToleranceNs]; waitStream is
//   the record's stream for a stream synchronize.
// - Unknown: none of these (e.g. the kernel before it on its stream ended at gap.start and
//   nothing else is recorded: a scheduling bubble, or a copy on its own stream).
// None for a gap whose cause is not QueuedDependencyWait.
enum class WaitKind : std::uint8_t { None, EventWait, CopyOtherStream, HostSync, Unknown };
// "event_wait", "copy_other_stream", "host_sync", "unknown"; "" for None.
std::string_view waitKindId(WaitKind kind);
// How far apart "ended when the gap ended" may be: the GPU starts queued work 1-2 us after
// what it waited for (in the mfu exports copies end 1.0-1.7 us before the kernel after them).
inline constexpr TimeNs kWaitToleranceNs = 2'000;

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

    // OS thread id of launchThread; 0 when the launch was not found.
    std::uint32_t launchTid = 0;
    // The launching call's backtrace: a chain of the GPU's report's Callchains
    // (TraceSet::reports[gpu.report].callchains.stackOf), 0 when the export has none.
    std::uint32_t launchCallchain = 0;

    // For QueuedDependencyWait gaps: what the ending work waited for (WaitKind), the stream
    // that names when the data says (a stream id of the process, as Stream::streamId), and the
    // record that shows it (index into Gpu::syncs for EventWait and HostSync, into Gpu::copies
    // for CopyOtherStream; kNoIndex otherwise).
    WaitKind waitedOn = WaitKind::None;
    std::optional<std::int64_t> waitStream;
    std::uint32_t waitRecord = kNoIndex;

    // Time inside the gap when a copy or memset of this GPU was running (the union of their
    // intervals clipped to the gap). Always 0 with includeCopies (copies are busy time then).
    TimeNs copyNs = 0;

    GapCause cause = GapCause::NoCudaCall;
    // The outermost CUDA call in progress at the midpoint (thread + index into Thread::api),
    // found as for an ApiCall gap. Set for ApiCall gaps, and kept for Copy gaps whose host
    // was in a call (the cause is then Copy: the GPU was moving data).
    std::uint32_t apiThread = kNoIndex;
    std::uint32_t apiCall = kNoIndex;
    StringId apiName = kEmptyString;
    ApiKind apiKind = ApiKind::None; // apiKindOf(apiName) for ApiCall gaps, else None

    // Phase: NVTX ranges open at the midpoint on phaseThread (launching thread; else the
    // thread of the API call found; else the process main thread tid == pid), outer -> inner.
    std::uint32_t phaseThread = kNoIndex;
    std::vector<std::uint32_t> phaseRanges; // indices into Thread::nvtx
    std::vector<StringId> phaseStack; // their names, same order
    StringId phase() const { return phaseStack.empty() ? kEmptyString : phaseStack.back(); }

    // For a NoCudaCall gap: the outermost OS runtime call (Thread::osrt) in progress at the
    // midpoint on phaseThread (the launching thread; with the launch unknown, the thread the
    // phase is read from), and its category. kEmptyString / None for other causes, or when
    // no OS call was in progress or the capture has no OS runtime data.
    StringId osCall = kEmptyString;
    OsCategory osCategory = OsCategory::None;
    // That OS call's backtrace (OSRT_CALLCHAINS; nsys records one only for calls longer than
    // its backtrace threshold): a chain of the thread's report's Callchains, 0 when none.
    std::uint32_t osCallchain = 0;
};

// One row of a totals table. The key is the cause label, or the API name for ApiCall
// ("cudaStreamSynchronize"); for phases the innermost NVTX range's group name (nvtxGroupName),
// "(none)" when none: gapCauseKey / gapPhaseKey below.
struct BlameBucket
{
    std::string key;
    GapCause cause = GapCause::NoCudaCall; // meaningful in byCause only
    StringId name = kEmptyString; // API name (byCause), NVTX name (byPhase) or OS call (byOsCall)
    OsCategory osCategory = OsCategory::None; // byOsCall and byOsCategory only
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
    TimeNs longestNs = 0;
    TimeNs copyNs = 0; // of totalNs, the time copies or memsets ran (sum of GapBlame::copyNs)
};

struct BlameTotals
{
    std::uint64_t gapCount = 0;
    TimeNs totalGapNs = 0;
    // Of totalGapNs, the time copies or memsets ran (sum of GapBlame::copyNs, any cause), and
    // the duration of the gaps whose cause is Copy (equal to the Copy bucket's totalNs).
    TimeNs copyNs = 0;
    TimeNs copyCauseNs = 0;
    std::vector<BlameBucket> byCause; // sorted by totalNs desc, then key
    std::vector<BlameBucket> byPhase; // sorted by totalNs desc, then key
    // Every gap by its OS call (gapOsCallKey) and by that call's category (gapOsCategoryKey),
    // "(none)" for the gaps without one; sorted by totalNs desc, then key.
    std::vector<BlameBucket> byOsCall;
    std::vector<BlameBucket> byOsCategory;
};

inline constexpr std::string_view kNoPhaseLabel = "(none)";

// The keys a gap is totalled under (BlameBucket::key), the one definition every view uses.
// Cause key: the API name for an ApiCall gap with a name, else gapCauseLabel(cause).
// Phase key: the group name (TraceSet::nvtxGroup) of the innermost NVTX range open, or
// kNoPhaseLabel when none. The views point into the trace's strings or static labels.
std::string_view gapCauseKey(const TraceSet &trace, const GapBlame &gap);
std::string_view gapPhaseKey(const TraceSet &trace, const GapBlame &gap);
// OS call key: GapBlame::osCall's name, kNoPhaseLabel when none; OS category key:
// osCategoryId(osCategory), kNoPhaseLabel when None.
std::string_view gapOsCallKey(const TraceSet &trace, const GapBlame &gap);
std::string_view gapOsCategoryKey(const GapBlame &gap);
// What the cause leaves out, in words: the ApiKind of an ApiCall gap ("sync"), what a queued
// gap waited on ("waited on event_wait"), the OS call of a NoCudaCall gap ("in
// pthread_cond_wait (wait)", "" without one), the copy time of a Copy gap ("copies 1.2 ms").
std::string gapCauseDetail(const TraceSet &trace, const GapBlame &gap);

struct GapBlameOptions
{
    TimeNs minGapNs = kDefaultMinGapNs;
    bool includeCopies = false; // busy intervals and gap-ending work include copies and memsets
    TimeWindow window; // gaps inside [start, end) only (intervals clipped first)
    std::vector<std::uint32_t> gpus; // indices into TraceSet::gpus; empty = all
};

// The totals of disjoint sets of gaps merged into the totals of them all, as if every gap had
// been added at once in the order of `parts`: counts and times summed, buckets matched by key
// (each keeps the cause, name and OS category of the first part that has its key). The GPUs'
// totals in GPU order merge into the overall totals (gaplens-mpi merges its processes' GPUs so).
BlameTotals mergeBlameTotals(const std::vector<BlameTotals> &parts);

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

// What a time shard of a file needs of the shards before it to find and blame its gaps as
// the whole file's (gaplens-mpi; gap_shards.h computes it). Empty for a whole capture.
struct EarlierShards
{
    // Per TraceSet::gpus: the latest end of the busy work (kernels; with copies counted, copies
    // and memsets too) that started in earlier shards; nullopt when none did. The gap before
    // the shard's first kernel starts there, and nothing of the shard ending before it is a gap.
    std::vector<std::optional<TimeNs>> busyUntil;
    // Per TraceSet::gpus and Gpu::streams: the correlation id of the stream's last kernel in
    // earlier shards, the kernel before the shard's first one (0: none), for WaitKind::EventWait.
    std::vector<std::vector<std::uint32_t>> correlationBefore;

    std::optional<TimeNs> busyUntilOf(std::uint32_t gpu) const
    {
        return gpu < busyUntil.size() ? busyUntil[gpu] : std::nullopt;
    }
    std::uint32_t correlationBeforeOf(std::uint32_t gpu, std::uint32_t stream) const
    {
        return gpu < correlationBefore.size() && stream < correlationBefore[gpu].size() ? correlationBefore[gpu][stream]
                                                                                        : 0;
    }
};

// Reusable blamer (the GUI blames one hovered gap): merges each GPU's copies once, O(copies),
// on construction. Per gap: O(streams * log n + depth * log n), never a scan. Keeps a reference:
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
        std::vector<std::vector<std::uint32_t>> m_osrtLevels; // [thread][nesting level]
        std::vector<std::uint32_t> m_open; // calls or ranges open at the midpoint
    };

    // `earlier`: a time shard's (kept by reference; nullptr for a whole capture).
    explicit GapBlamer(const TraceSet &trace, const EarlierShards *earlier = nullptr);
    GapBlame blame(std::uint32_t gpu, TimeRange gap, bool includeCopies = false) const;
    // Same answer as blame() above; fastest when successive gaps of a GPU come in time order.
    GapBlame blame(std::uint32_t gpu, TimeRange gap, bool includeCopies, SearchCursor &cursor) const;

private:
    // One GPU's copies and memsets merged: sorted, disjoint intervals and the covered time
    // before each (coveredBefore[i] = length of intervals [0, i)), so a gap's copy time is two
    // binary searches.
    struct CopyCover
    {
        std::vector<TimeNs> start, end, coveredBefore;
        TimeNs coveredUntil(TimeNs t) const; // covered time before t
    };
    // One GPU's records for WaitKind: stream-wait-event syncs sorted by (pid, streamId,
    // correlationId), host synchronizes by end, copies and memsets by end (indices into
    // Gpu::syncs and Gpu::copies).
    struct WaitIndex
    {
        std::vector<std::uint32_t> streamWaits, hostSyncs, copiesByEnd;
    };
    void findWait(const Gpu &gpu, std::uint32_t gpuIndex, GapBlame &b) const;
    const TraceSet &m_trace;
    const EarlierShards *m_earlier = nullptr;
    std::vector<CopyCover> m_copyCover; // one per TraceSet::gpus
    std::vector<WaitIndex> m_waits; // one per TraceSet::gpus
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
