// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/gap_blame.h"

#include "blame_totals.h"
#include "gaplens/core/util/units.h"
#include "idle_gaps.h"
#include "merged_intervals.h"
#include "search_cursor.h"

#include <algorithm>
#include <iterator>
#include <span>
#include <tuple>

namespace gaplens::core {
namespace {

// The element at `index`, the vector grown (value-initialised) to hold it.
template <typename T> T &grownAt(std::vector<T> &values, std::size_t index)
{
    if (values.size() <= index)
        values.resize(index + 1);
    return values[index];
}

// First event of a track sorted by start that starts exactly at t, or kNoIndex. Gallops from
// *position when given one, else a plain binary search.
std::uint32_t startingAt(std::span<const TimeNs> start, TimeNs t, std::uint32_t *position)
{
    const std::size_t i = position
        ? detail::gallopFrom(*position, start.size(), [&](std::size_t k) { return start[k] < t; })
        : std::size_t(std::lower_bound(start.begin(), start.end(), t) - start.begin());
    return i < start.size() && start[i] == t ? std::uint32_t(i) : kNoIndex;
}

// TraceSet::findLaunch, galloping in each thread's correlation ids from that thread's
// position when given positions (one per thread).
std::optional<LaunchRef> findLaunch(const TraceSet &trace, std::uint32_t report, std::uint32_t pid,
    std::uint32_t correlationId, std::vector<std::uint32_t> *positions)
{
    if (!positions || correlationId == 0)
        return trace.findLaunch(report, pid, correlationId);
    for (const auto &ref : trace.threadsOfProcess(report, pid)) {
        const auto &corr = trace.threads[ref.thread].api.correlationId;
        if (!trace.threads[ref.thread].api.correlationAscending)
            return trace.findLaunch(report, pid, correlationId); // the rare unordered case
        const std::size_t i = detail::gallopFrom(
            grownAt(*positions, ref.thread), corr.size(), [&](std::size_t k) { return corr[k] < correlationId; });
        if (i < corr.size() && corr[i] == correlationId)
            return LaunchRef { ref.thread, std::uint32_t(i) };
    }
    return std::nullopt;
}

// API calls or NVTX ranges of a thread open at t, outermost first: NestingIndex::openAt, or
// its galloping twin when given the levels' positions.
template <typename Columns>
void openAt(
    const Columns &columns, TimeNs t, std::vector<std::uint32_t> *levelPositions, std::vector<std::uint32_t> &out)
{
    if (levelPositions)
        detail::openAtFrom(columns.nesting, columns.start, columns.end, t, *levelPositions, out);
    else
        columns.nesting.openAt(columns.start, columns.end, t, out);
}

// findIdleGaps(computeGpuBusy(...)) without what blame does not read: computeGpuBusy also
// unions every stream on its own and keeps the merged intervals, vectors of millions of
// intervals per GPU at full scale; here only the gaps are kept.
GpuGaps idleGapsOf(const TraceSet &trace, std::uint32_t gpuIndex, const GapBlameOptions &options)
{
    GpuGaps gaps;
    gaps.gpu = gpuIndex;
    const Gpu &gpu = trace.gpus[gpuIndex];
    std::vector<detail::IntervalRun> runs;
    runs.reserve(gpu.streams.size() + 1);
    for (const auto &stream : gpu.streams)
        runs.push_back(detail::kernelRun(stream.kernels, options.window));
    detail::CollectedIntervals copies;
    if (options.includeCopies) {
        copies = detail::collectCopies(gpu.copies, options.window);
        runs.push_back(copies.run());
    }
    detail::IdleGapFinder finder(options.minGapNs);
    detail::forEachMergedInterval(runs, options.window, [&](TimeRange merged) {
        finder.add(merged, [&](TimeRange gap) {
            gaps.gaps.push_back(gap);
            gaps.totalNs += gap.duration();
        });
    });
    return gaps;
}

} // namespace

std::string_view gapCauseKey(const TraceSet &trace, const GapBlame &gap)
{
    if (gap.cause == GapCause::ApiCall && gap.apiName != kEmptyString)
        return trace.str(gap.apiName);
    return gapCauseLabel(gap.cause);
}

std::string_view gapPhaseKey(const TraceSet &trace, const GapBlame &gap)
{
    if (gap.phaseStack.empty())
        return kNoPhaseLabel;
    return trace.str(trace.nvtxGroup(gap.phase()));
}

std::string_view gapOsCallKey(const TraceSet &trace, const GapBlame &gap)
{
    return gap.osCall != kEmptyString ? std::string_view(trace.str(gap.osCall)) : kNoPhaseLabel;
}

std::string_view gapOsCategoryKey(const GapBlame &gap)
{
    return gap.osCategory != OsCategory::None ? osCategoryId(gap.osCategory) : kNoPhaseLabel;
}

std::string gapCauseDetail(const TraceSet &trace, const GapBlame &gap)
{
    switch (gap.cause) {
    case GapCause::ApiCall: return std::string(apiKindId(gap.apiKind));
    case GapCause::QueuedDependencyWait: return "waited on " + std::string(waitKindId(gap.waitedOn));
    case GapCause::Copy: return "copies " + formatDuration(double(gap.copyNs));
    case GapCause::NoCudaCall:
        return gap.osCall == kEmptyString
            ? std::string()
            : "in " + trace.str(gap.osCall) + " (" + std::string(osCategoryId(gap.osCategory)) + ")";
    }
    return {};
}

std::string_view gapCauseLabel(GapCause cause)
{
    switch (cause) {
    case GapCause::QueuedDependencyWait: return "queued (dependency wait)";
    case GapCause::ApiCall: return "CUDA API call";
    case GapCause::NoCudaCall: return "no CUDA call (host busy elsewhere)";
    case GapCause::Copy: return "copy (GPU moving data)";
    }
    return "unknown";
}

ApiKind apiKindOf(std::string_view name)
{
    const auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
    if (!name.starts_with("cu")) // CUDA runtime (cuda*) and driver (cu*) calls only
        return ApiKind::Other;
    if (has("Synchronize"))
        return ApiKind::Sync; // cudaStreamSynchronize, cudaDeviceSynchronize, cuEventSynchronize, cuCtxSynchronize
    if (has("Memcpy"))
        return has("Async") ? ApiKind::Memory : ApiKind::Sync; // cudaMemcpy blocks the host
    if (has("Memset"))
        return ApiKind::Memory;
    if (has("Launch"))
        return ApiKind::Launch; // cudaLaunchKernel(ExC), cuLaunchKernel, cudaGraphLaunch
    if (has("Malloc") || has("Free") || has("MemAlloc") || has("HostAlloc") || has("HostRegister")
        || has("HostUnregister"))
        return ApiKind::Alloc;
    return ApiKind::Other;
}

std::string_view waitKindId(WaitKind kind)
{
    switch (kind) {
    case WaitKind::None: return "";
    case WaitKind::EventWait: return "event_wait";
    case WaitKind::CopyOtherStream: return "copy_other_stream";
    case WaitKind::HostSync: return "host_sync";
    case WaitKind::Unknown: return "unknown";
    }
    return "";
}

std::string_view apiKindId(ApiKind kind)
{
    switch (kind) {
    case ApiKind::None: return "";
    case ApiKind::Sync: return "sync";
    case ApiKind::Launch: return "launch";
    case ApiKind::Memory: return "memory";
    case ApiKind::Alloc: return "alloc";
    case ApiKind::Other: return "other";
    }
    return "";
}

namespace {

struct OsCallCategory
{
    std::string_view name;
    OsCategory category;
};

// Every OS runtime call with a category other than Other, sorted by name (checked below).
// Names are the export's, exact: nsys lists the libc entry points it intercepts.
constexpr OsCallCategory kOsCallCategories[] = {
    { "accept", OsCategory::Io },
    { "accept4", OsCategory::Io },
    { "clock_nanosleep", OsCategory::Sleep },
    { "close", OsCategory::Io },
    { "connect", OsCategory::Io },
    { "creat", OsCategory::Io },
    { "creat64", OsCategory::Io },
    { "epoll_pwait", OsCategory::Poll },
    { "epoll_pwait2", OsCategory::Poll },
    { "epoll_wait", OsCategory::Poll },
    { "fclose", OsCategory::Io },
    { "fdatasync", OsCategory::Io },
    { "fflush", OsCategory::Io },
    { "fgetc", OsCategory::Io },
    { "fgets", OsCategory::Io },
    { "fopen", OsCategory::Io },
    { "fopen64", OsCategory::Io },
    { "fputc", OsCategory::Io },
    { "fputs", OsCategory::Io },
    { "fread", OsCategory::Io },
    { "freopen", OsCategory::Io },
    { "freopen64", OsCategory::Io },
    { "fsync", OsCategory::Io },
    { "futex", OsCategory::Wait },
    { "fwrite", OsCategory::Io },
    { "nanosleep", OsCategory::Sleep },
    { "open", OsCategory::Io },
    { "open64", OsCategory::Io },
    { "openat", OsCategory::Io },
    { "openat64", OsCategory::Io },
    { "pause", OsCategory::Wait },
    { "poll", OsCategory::Poll },
    { "ppoll", OsCategory::Poll },
    { "pread", OsCategory::Io },
    { "pread64", OsCategory::Io },
    { "preadv", OsCategory::Io },
    { "preadv2", OsCategory::Io },
    { "pselect", OsCategory::Poll },
    { "pselect6", OsCategory::Poll },
    { "pthread_barrier_wait", OsCategory::Wait },
    { "pthread_cond_clockwait", OsCategory::Wait },
    { "pthread_cond_timedwait", OsCategory::Wait },
    { "pthread_cond_wait", OsCategory::Wait },
    { "pthread_join", OsCategory::Wait },
    { "pthread_mutex_clocklock", OsCategory::Wait },
    { "pthread_mutex_lock", OsCategory::Wait },
    { "pthread_mutex_timedlock", OsCategory::Wait },
    { "pthread_rwlock_rdlock", OsCategory::Wait },
    { "pthread_rwlock_timedrdlock", OsCategory::Wait },
    { "pthread_rwlock_timedwrlock", OsCategory::Wait },
    { "pthread_rwlock_wrlock", OsCategory::Wait },
    { "pthread_spin_lock", OsCategory::Wait },
    { "pthread_timedjoin_np", OsCategory::Wait },
    { "pwrite", OsCategory::Io },
    { "pwrite64", OsCategory::Io },
    { "pwritev", OsCategory::Io },
    { "pwritev2", OsCategory::Io },
    { "read", OsCategory::Io },
    { "readv", OsCategory::Io },
    { "recv", OsCategory::Io },
    { "recvfrom", OsCategory::Io },
    { "recvmmsg", OsCategory::Io },
    { "recvmsg", OsCategory::Io },
    { "select", OsCategory::Poll },
    { "sem_clockwait", OsCategory::Wait },
    { "sem_timedwait", OsCategory::Wait },
    { "sem_wait", OsCategory::Wait },
    { "send", OsCategory::Io },
    { "sendfile", OsCategory::Io },
    { "sendfile64", OsCategory::Io },
    { "sendmmsg", OsCategory::Io },
    { "sendmsg", OsCategory::Io },
    { "sendto", OsCategory::Io },
    { "sigsuspend", OsCategory::Wait },
    { "sigtimedwait", OsCategory::Wait },
    { "sigwait", OsCategory::Wait },
    { "sigwaitinfo", OsCategory::Wait },
    { "sleep", OsCategory::Sleep },
    { "usleep", OsCategory::Sleep },
    { "wait", OsCategory::Wait },
    { "wait3", OsCategory::Wait },
    { "wait4", OsCategory::Wait },
    { "waitid", OsCategory::Wait },
    { "waitpid", OsCategory::Wait },
    { "write", OsCategory::Io },
    { "writev", OsCategory::Io },
};

constexpr bool sortedByName(std::span<const OsCallCategory> table)
{
    for (std::size_t i = 1; i < table.size(); ++i)
        if (!(table[i - 1].name < table[i].name))
            return false;
    return true;
}
static_assert(sortedByName(kOsCallCategories), "kOsCallCategories must be sorted by name, each name once");

} // namespace

OsCategory osCategoryOf(std::string_view name)
{
    const auto it = std::lower_bound(std::begin(kOsCallCategories), std::end(kOsCallCategories), name,
        [](const OsCallCategory &entry, std::string_view n) { return entry.name < n; });
    if (it != std::end(kOsCallCategories) && it->name == name)
        return it->category;
    return OsCategory::Other;
}

std::string_view osCategoryId(OsCategory category)
{
    switch (category) {
    case OsCategory::None: return "";
    case OsCategory::Wait: return "wait";
    case OsCategory::Io: return "io";
    case OsCategory::Poll: return "poll";
    case OsCategory::Sleep: return "sleep";
    case OsCategory::Other: return "other";
    }
    return "";
}

TimeNs GapBlamer::CopyCover::coveredUntil(TimeNs t) const
{
    // The last merged interval starting before t holds t or lies wholly before it.
    const auto i = std::size_t(std::lower_bound(start.begin(), start.end(), t) - start.begin());
    if (i == 0)
        return 0;
    return coveredBefore[i - 1] + std::min(t, end[i - 1]) - start[i - 1];
}

GapBlamer::GapBlamer(const TraceSet &trace, const EarlierShards *earlier)
    : m_trace(trace)
    , m_earlier(earlier)
    , m_copyCover(trace.gpus.size())
    , m_waits(trace.gpus.size())
{
    for (std::size_t g = 0; g < trace.gpus.size(); ++g) {
        const SyncColumns &syncs = trace.gpus[g].syncs;
        const CopyColumns &copies = trace.gpus[g].copies;
        WaitIndex &index = m_waits[g];
        for (std::uint32_t i = 0; i < syncs.size(); ++i) {
            const auto type = syncs.type[i];
            if (type == SyncType::StreamWaitEvent)
                index.streamWaits.push_back(i);
            else if (type != SyncType::Unknown)
                index.hostSyncs.push_back(i);
        }
        std::sort(index.streamWaits.begin(), index.streamWaits.end(), [&](std::uint32_t a, std::uint32_t b) {
            return std::tie(syncs.pid[a], syncs.streamId[a], syncs.correlationId[a])
                < std::tie(syncs.pid[b], syncs.streamId[b], syncs.correlationId[b]);
        });
        std::stable_sort(index.hostSyncs.begin(), index.hostSyncs.end(),
            [&](std::uint32_t a, std::uint32_t b) { return syncs.end[a] < syncs.end[b]; });
        index.copiesByEnd.resize(copies.size());
        for (std::uint32_t i = 0; i < copies.size(); ++i)
            index.copiesByEnd[i] = i;
        std::stable_sort(index.copiesByEnd.begin(), index.copiesByEnd.end(),
            [&](std::uint32_t a, std::uint32_t b) { return copies.end[a] < copies.end[b]; });
    }
    // Copies are sorted by start, so one pass merges them (they may overlap).
    for (std::size_t g = 0; g < trace.gpus.size(); ++g) {
        const CopyColumns &copies = trace.gpus[g].copies;
        CopyCover &cover = m_copyCover[g];
        for (std::size_t i = 0; i < copies.size(); ++i) {
            if (copies.end[i] <= copies.start[i])
                continue;
            if (!cover.start.empty() && copies.start[i] <= cover.end.back()) {
                cover.end.back() = std::max(cover.end.back(), copies.end[i]);
                continue;
            }
            cover.coveredBefore.push_back(
                cover.start.empty() ? 0 : cover.coveredBefore.back() + cover.end.back() - cover.start.back());
            cover.start.push_back(copies.start[i]);
            cover.end.push_back(copies.end[i]);
        }
    }
}

std::uint32_t GapBlamer::rankOf(std::uint32_t report, std::uint32_t pid) const
{
    for (std::uint32_t r = 0; r < m_trace.ranks.size(); ++r)
        if (m_trace.ranks[r].report == report && m_trace.ranks[r].pid == pid)
            return r;
    return kNoIndex;
}

GapBlame GapBlamer::blame(std::uint32_t gpu, TimeRange gap, bool includeCopies) const
{
    return blameWith(gpu, gap, includeCopies, nullptr);
}

GapBlame GapBlamer::blame(std::uint32_t gpu, TimeRange gap, bool includeCopies, SearchCursor &cursor) const
{
    return blameWith(gpu, gap, includeCopies, &cursor);
}

GapBlame GapBlamer::blameWith(std::uint32_t gpuIndex, TimeRange gap, bool includeCopies, SearchCursor *cursor) const
{
    GapBlame b;
    b.gpu = gpuIndex;
    b.gap = gap;
    b.midpoint = gap.start + gap.duration() / 2;
    if (gpuIndex >= m_trace.gpus.size())
        return b;
    const Gpu &gpu = m_trace.gpus[gpuIndex];

    for (std::uint32_t s = 0; s < gpu.streams.size() && b.endKind == GapEndKind::Unknown; ++s) {
        const auto &k = gpu.streams[s].kernels;
        const auto i
            = startingAt(k.start, gap.end, cursor ? &grownAt(grownAt(cursor->m_kernelStarts, gpuIndex), s) : nullptr);
        if (i == kNoIndex)
            continue;
        b.endKind = GapEndKind::Kernel;
        b.endStream = s;
        b.endEvent = i;
        b.endPid = gpu.streams[s].pid;
        b.endCorrelationId = k.correlationId.empty() ? 0 : k.correlationId[i];
        b.rank = gpu.streams[s].rank;
    }
    // Copies can end a gap only when they were part of the busy union.
    if (b.endKind == GapEndKind::Unknown && includeCopies) {
        const auto i
            = startingAt(gpu.copies.start, gap.end, cursor ? &grownAt(cursor->m_copyStarts, gpuIndex) : nullptr);
        if (i != kNoIndex) {
            b.endKind = GapEndKind::Copy;
            b.endEvent = i;
            b.endPid = gpu.copies.pid[i];
            b.endCorrelationId = gpu.copies.correlationId[i];
            b.rank = rankOf(gpu.report, b.endPid);
        }
    }
    if (b.endKind == GapEndKind::Unknown)
        return b; // nothing starts at gap.end: not a gap of this GPU

    std::vector<std::uint32_t> ownOpen;
    auto &open = cursor ? cursor->m_open : ownOpen;
    const auto apiLevels
        = [&](std::uint32_t thread) { return cursor ? &grownAt(cursor->m_apiLevels, thread) : nullptr; };
    const auto launch
        = findLaunch(m_trace, gpu.report, b.endPid, b.endCorrelationId, cursor ? &cursor->m_launches : nullptr);
    if (launch) {
        b.launchThread = launch->thread;
        b.launchCall = launch->call;
        b.launchTid = m_trace.threads[launch->thread].tid;
        b.launchCallchain = m_trace.threads[launch->thread].api.callchainOf(b.endCorrelationId);
        b.phaseThread = launch->thread;
        const Thread &thread = m_trace.threads[launch->thread];
        if (thread.api.end[launch->call] <= gap.start) {
            b.cause = GapCause::QueuedDependencyWait;
        } else {
            openAt(thread.api, b.midpoint, apiLevels(launch->thread), open);
            if (!open.empty()) {
                b.cause = GapCause::ApiCall;
                b.apiThread = launch->thread;
                b.apiCall = open.front(); // outermost: the runtime call, not the driver call inside
            }
        }
    } else {
        // Unknown launcher: any thread of the process may be the one blocking; the call that
        // started first is the one the gap waited on longest.
        const auto processThreads = m_trace.threadsOfProcess(gpu.report, b.endPid);
        for (auto it = processThreads.begin(); it != processThreads.end(); ++it) {
            const Thread &thread = m_trace.threads[it->thread];
            openAt(thread.api, b.midpoint, apiLevels(it->thread), open);
            if (open.empty())
                continue;
            const TimeNs start = thread.api.start[open.front()];
            if (b.apiThread == kNoIndex || start < m_trace.threads[b.apiThread].api.start[b.apiCall]) {
                b.apiThread = it->thread;
                b.apiCall = open.front();
            }
        }
        if (b.apiThread != kNoIndex) {
            b.cause = GapCause::ApiCall;
            b.phaseThread = b.apiThread;
        } else {
            for (auto it = processThreads.begin(); it != processThreads.end(); ++it)
                if (m_trace.threads[it->thread].tid == b.endPid) {
                    b.phaseThread = it->thread;
                    break;
                }
        }
    }
    if (b.apiThread != kNoIndex)
        b.apiName = m_trace.threads[b.apiThread].api.name[b.apiCall];
    if (b.cause == GapCause::ApiCall)
        b.apiKind = apiKindOf(m_trace.str(b.apiName));

    // A gap at least half filled by copies was the GPU moving data, whatever the host did.
    if (!includeCopies) {
        const CopyCover &cover = m_copyCover[gpuIndex];
        b.copyNs = cover.coveredUntil(gap.end) - cover.coveredUntil(gap.start);
        if (2 * b.copyNs >= gap.duration() && b.copyNs > 0) {
            b.cause = GapCause::Copy;
            b.apiKind = ApiKind::None;
        }
    }

    // What the host thread was doing instead of calling CUDA: the OS call open at the midpoint
    // on the thread the phase is read from, outermost when calls nest (fopen, not its open64).
    if (b.cause == GapCause::NoCudaCall && b.phaseThread != kNoIndex) {
        const auto &osrt = m_trace.threads[b.phaseThread].osrt;
        if (osrt.size() > 0) {
            openAt(osrt, b.midpoint, cursor ? &grownAt(cursor->m_osrtLevels, b.phaseThread) : nullptr, open);
            if (!open.empty()) {
                b.osCall = osrt.name[open.front()];
                b.osCategory = osCategoryOf(m_trace.str(b.osCall));
                const auto &chains = m_trace.reports[m_trace.threads[b.phaseThread].report].callchains;
                b.osCallchain = chains.find(CallchainSource::Osrt, osrt.callchainId[open.front()]);
            }
        }
    }
    if (b.cause == GapCause::QueuedDependencyWait)
        findWait(gpu, gpuIndex, b);

    if (b.phaseThread != kNoIndex) {
        const auto &nvtx = m_trace.threads[b.phaseThread].nvtx;
        openAt(nvtx, b.midpoint, cursor ? &grownAt(cursor->m_nvtxLevels, b.phaseThread) : nullptr, open);
        b.phaseRanges.assign(open.begin(), open.end());
        b.phaseStack.reserve(b.phaseRanges.size());
        for (auto r : b.phaseRanges)
            b.phaseStack.push_back(nvtx.name[r]);
    }
    return b;
}

void GapBlamer::findWait(const Gpu &gpu, std::uint32_t gpuIndex, GapBlame &b) const
{
    const WaitIndex &index = m_waits[gpuIndex];
    const SyncColumns &syncs = gpu.syncs;
    const CopyColumns &copies = gpu.copies;
    const std::int64_t endStreamId
        = b.endKind == GapEndKind::Kernel ? gpu.streams[b.endStream].streamId : copies.streamId[b.endEvent];

    // A cudaStreamWaitEvent issued on its stream between the kernel before it and itself.
    if (b.endKind == GapEndKind::Kernel && b.endCorrelationId != 0) {
        const auto &kernels = gpu.streams[b.endStream].kernels;
        const std::uint32_t previous = b.endEvent > 0 ? kernels.correlationId[b.endEvent - 1]
            : m_earlier                               ? m_earlier->correlationBeforeOf(gpuIndex, b.endStream)
                                                      : 0;
        const auto key
            = [&](std::uint32_t i) { return std::tuple(syncs.pid[i], syncs.streamId[i], syncs.correlationId[i]); };
        const auto wanted = std::tuple(b.endPid, endStreamId, b.endCorrelationId);
        const auto it = std::lower_bound(index.streamWaits.begin(), index.streamWaits.end(), wanted,
            [&](std::uint32_t i, const auto &w) { return key(i) < w; });
        if (it != index.streamWaits.begin()) {
            const std::uint32_t i = *std::prev(it);
            if (syncs.pid[i] == b.endPid && syncs.streamId[i] == endStreamId && syncs.correlationId[i] > previous) {
                b.waitedOn = WaitKind::EventWait;
                b.waitRecord = i;
                return;
            }
        }
    }

    // A copy or memset of another stream that ended when the gap ended (the latest one).
    const TimeNs from = std::max(b.gap.start + 1, b.gap.end - kWaitToleranceNs);
    {
        auto it = std::upper_bound(index.copiesByEnd.begin(), index.copiesByEnd.end(), b.gap.end,
            [&](TimeNs t, std::uint32_t i) { return t < copies.end[i]; });
        while (it != index.copiesByEnd.begin()) {
            const std::uint32_t i = *--it;
            if (copies.end[i] < from)
                break;
            if (copies.pid[i] != b.endPid || std::int64_t(copies.streamId[i]) != endStreamId) {
                b.waitedOn = WaitKind::CopyOtherStream;
                b.waitStream = std::int64_t(copies.streamId[i]);
                b.waitRecord = i;
                return;
            }
        }
    }

    // A synchronize call of the process on this GPU that returned when the gap ended: the
    // one returning closest to gap.end.
    {
        auto it = std::lower_bound(index.hostSyncs.begin(), index.hostSyncs.end(), from,
            [&](std::uint32_t i, TimeNs t) { return syncs.end[i] < t; });
        std::uint32_t best = kNoIndex;
        for (; it != index.hostSyncs.end() && syncs.end[*it] <= b.gap.end + kWaitToleranceNs; ++it) {
            if (syncs.pid[*it] != b.endPid)
                continue;
            const auto distance = [&](std::uint32_t i) {
                return syncs.end[i] > b.gap.end ? syncs.end[i] - b.gap.end : b.gap.end - syncs.end[i];
            };
            if (best == kNoIndex || distance(*it) < distance(best))
                best = *it;
        }
        if (best != kNoIndex) {
            b.waitedOn = WaitKind::HostSync;
            b.waitRecord = best;
            if (syncs.type[best] == SyncType::StreamSynchronize)
                b.waitStream = syncs.streamId[best];
            return;
        }
    }
    b.waitedOn = WaitKind::Unknown;
}

BlameTotals mergeBlameTotals(const std::vector<BlameTotals> &parts)
{
    BlameTotals merged;
    std::vector<BlameBucket> byCause, byPhase, byOsCall, byOsCategory;
    auto append = [](std::vector<BlameBucket> &to, const std::vector<BlameBucket> &from) {
        to.insert(to.end(), from.begin(), from.end());
    };
    for (const auto &part : parts) {
        merged.gapCount += part.gapCount;
        merged.totalGapNs += part.totalGapNs;
        merged.copyNs += part.copyNs;
        merged.copyCauseNs += part.copyCauseNs;
        append(byCause, part.byCause);
        append(byPhase, part.byPhase);
        append(byOsCall, part.byOsCall);
        append(byOsCategory, part.byOsCategory);
    }
    merged.byCause = detail::mergeSameKeys(std::move(byCause));
    merged.byPhase = detail::mergeSameKeys(std::move(byPhase));
    merged.byOsCall = detail::mergeSameKeys(std::move(byOsCall));
    merged.byOsCategory = detail::mergeSameKeys(std::move(byOsCategory));
    return merged;
}

BlameTotals totalBlame(const TraceSet &trace, const std::vector<GapBlame> &gaps)
{
    detail::TotalsAccumulator acc(trace);
    for (const auto &g : gaps)
        acc.add(g);
    return acc.finish();
}

GapBlameReport blameGaps(const TraceSet &trace, const GapBlameOptions &options)
{
    GapBlameReport report;
    GapBlamer blamer(trace);
    // Every GPU's gaps first, so report.gaps is allocated once: each GapBlame owns two
    // vectors, and regrowing would move all of them.
    std::vector<GpuGaps> gapsPerGpu;
    std::size_t gapCount = 0;
    for (auto g : detail::analysedGpus(trace, options.gpus)) {
        gapsPerGpu.push_back(idleGapsOf(trace, g, options));
        gapCount += gapsPerGpu.back().count();
    }
    report.gaps.reserve(gapCount);

    // A GPU's gaps come in time order, so each search continues from the previous gap's answer.
    GapBlamer::SearchCursor cursor;
    detail::ReportTotals totals(trace);
    for (const auto &gpuGaps : gapsPerGpu) {
        totals.beginGpu(gpuGaps.gpu);
        for (const auto &gap : gpuGaps.gaps)
            totals.add(report.gaps.emplace_back(blamer.blame(gpuGaps.gpu, gap, options.includeCopies, cursor)));
        totals.endGpu();
    }
    totals.finish(report.perGpu, report.perRank, report.overall);
    return report;
}

} // namespace gaplens::core
