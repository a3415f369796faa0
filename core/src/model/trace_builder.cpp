// SPDX-License-Identifier: MIT
#include "gaplens/core/model/trace_builder.h"

#include "gaplens/core/model/nvtx_names.h"
#include "gaplens/core/util/parallel.h"

#include "util/resident_memory.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace gaplens::core {
namespace {

// Empty when the track is already sorted (permuteAll then leaves it as it is). Readers mostly
// deliver sorted tracks: then the order vector, the sort and its temporary buffer are skipped.
std::vector<std::uint32_t> sortOrder(std::span<const TimeNs> start, std::span<const TimeNs> end)
{
    if (inNestingOrder(start, end))
        return {};
    std::vector<std::uint32_t> order(start.size());
    std::iota(order.begin(), order.end(), 0u);
    // Outer ranges first when two start together, so nesting puts them above.
    std::stable_sort(order.begin(), order.end(),
        [&](std::uint32_t a, std::uint32_t b) { return start[a] != start[b] ? start[a] < start[b] : end[a] > end[b]; });
    return order;
}

bool isIdentity(const std::vector<std::uint32_t> &order)
{
    if (order.empty())
        return true;
    for (std::uint32_t i = 0; i < order.size(); ++i)
        if (order[i] != i)
            return false;
    return true;
}

template <typename Column> void permute(Column &column, const std::vector<std::uint32_t> &order)
{
    if (column.size() != order.size())
        return; // optional column left empty
    // reserve + push_back: no zero-fill pass over memory that is overwritten anyway.
    Column sorted;
    detail::reserveResident(sorted, column.size());
    for (auto i : order)
        sorted.push_back(column[i]);
    column.swap(sorted);
}

template <typename... Columns> void permuteAll(const std::vector<std::uint32_t> &order, Columns &...columns)
{
    if (isIdentity(order))
        return;
    (permute(columns, order), ...);
}

// The depths and nesting index of a track in its final order. A track taken from the report
// cache in that order comes with them (report_codec.cpp keeps them for such tracks).
template <typename Track> void nest(Track &track, const std::vector<std::uint32_t> &order)
{
    if (track.size() > 0 && track.depth.size() == track.size() && isIdentity(order))
        return;
    track.depth = track.nesting.build(track.start, track.end);
}

void sortKernels(KernelColumns &k)
{
    const auto order = sortOrder(k.start, k.end);
    permuteAll(order, k.start, k.end, k.shortName, k.demangledName, k.correlationId, k.launchConfig);
}

void sortCopies(CopyColumns &c)
{
    const auto order = sortOrder(c.start, c.end);
    permuteAll(order, c.start, c.end, c.bytes, c.correlationId, c.pid, c.streamId, c.kind, c.srcKind, c.dstKind);
    c.depth = c.nesting.build(c.start, c.end);
    c.lanes = buildCopyLanes(c.pid, c.streamId, c.start, c.end);
}

void sortSyncs(SyncColumns &c)
{
    const auto order = sortOrder(c.start, c.end);
    permuteAll(order, c.start, c.end, c.pid, c.streamId, c.contextId, c.correlationId, c.eventId, c.type);
}

// By time only, stably: an allocation and a free at one instant keep the export's order.
void sortMemoryUsage(MemoryUsageColumns &c)
{
    std::vector<std::uint32_t> order(c.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(
        order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return c.time[a] < c.time[b]; });
    permuteAll(order, c.time, c.bytes, c.address, c.pid, c.memKind, c.operation);
}

void sortApi(ApiColumns &a)
{
    const auto order = sortOrder(a.start, a.end);
    permuteAll(order, a.start, a.end, a.name, a.correlationId);
    nest(a, order);
}

void sortNvtx(NvtxColumns &n)
{
    const auto order = sortOrder(n.start, n.end);
    if (!n.domain.empty())
        n.domain.resize(n.size(), kEmptyString); // ranges after the last one outside the default domain
    permuteAll(order, n.start, n.end, n.name, n.domain, n.kind);
    if (!n.payload.empty()) {
        n.payload.resize(n.size(), std::numeric_limits<double>::quiet_NaN());
        permuteAll(order, n.payload);
    }
    nest(n, order);
}

void sortOsrt(OsrtColumns &o)
{
    const auto order = sortOrder(o.start, o.end);
    permuteAll(order, o.start, o.end, o.name, o.callchainId);
    nest(o, order);
}

void sortMarks(MarkColumns &m)
{
    if (std::is_sorted(m.time.begin(), m.time.end()))
        return;
    std::vector<std::uint32_t> order(m.time.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(
        order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return m.time[a] < m.time[b]; });
    permuteAll(order, m.time, m.name, m.domain);
}

struct Span
{
    TimeNs lo = std::numeric_limits<TimeNs>::max();
    TimeNs hi = std::numeric_limits<TimeNs>::min();
    void add(std::span<const TimeNs> start, std::span<const TimeNs> end)
    {
        if (start.empty())
            return;
        lo = std::min(lo, start.front()); // sorted by start
        hi = std::max(hi, *std::max_element(end.begin(), end.end()));
    }
    void add(const Span &other)
    {
        lo = std::min(lo, other.lo);
        hi = std::max(hi, other.hi);
    }
    void add(TimeNs start, TimeNs end)
    {
        lo = std::min(lo, start);
        hi = std::max(hi, end);
    }
    TimeRange range() const { return lo <= hi ? TimeRange { lo, hi } : TimeRange {}; }
};

// Rank::span from the per-thread spans (spans[gpus + thread]) and the GPUs' own columns.
void computeRankSpans(TraceSet &trace, const std::vector<Span> &spans)
{
    std::vector<Span> byRank(trace.ranks.size());
    for (std::uint32_t t = 0; t < trace.threads.size(); ++t)
        if (trace.threads[t].rank < byRank.size())
            byRank[trace.threads[t].rank].add(spans[trace.gpus.size() + t]);
    for (const auto &gpu : trace.gpus) {
        for (const auto &stream : gpu.streams)
            if (stream.rank < byRank.size())
                byRank[stream.rank].add(stream.kernels.start, stream.kernels.end);
        for (auto r : gpu.ranks)
            for (std::size_t i = 0; i < gpu.copies.size(); ++i)
                if (gpu.copies.pid[i] == trace.ranks[r].pid)
                    byRank[r].add(gpu.copies.start[i], gpu.copies.end[i]);
    }
    for (std::size_t r = 0; r < trace.ranks.size(); ++r)
        trace.ranks[r].span = byRank[r].range();
}

void buildNvtxGroups(TraceSet &trace)
{
    std::vector<StringId> groups(trace.strings.size());
    for (StringId id = 0; id < groups.size(); ++id)
        groups[id] = id;
    std::vector<bool> done(groups.size(), false);
    for (const auto &thread : trace.threads)
        for (auto name : thread.nvtx.name) {
            if (done[name])
                continue;
            done[name] = true;
            const auto &text = trace.strings.get(name);
            const auto grouped = nvtxGroupName(text);
            if (grouped.size() != text.size())
                groups[name] = trace.strings.intern(grouped); // may grow the pool: ids stay valid
        }
    trace.nvtxGroups = std::move(groups);
}

std::size_t eventCount(const TraceSet &trace)
{
    std::size_t n = 0;
    for (const auto &gpu : trace.gpus)
        n += gpu.kernelCount() + gpu.copies.size();
    for (const auto &thread : trace.threads)
        n += thread.api.size() + thread.nvtx.size() + thread.marks.size() + thread.osrt.size();
    return n;
}

// Small captures (tests, tiny exports) are finalised on the calling thread, where starting
// threads would cost more than it saves.
constexpr std::size_t kParallelFromEvents = 200'000;

} // namespace

std::size_t Gpu::kernelCount() const
{
    std::size_t n = 0;
    for (const auto &s : streams)
        n += s.kernels.size();
    return n;
}

std::span<const ProcessThreadRef> TraceSet::threadsOfProcess(std::uint32_t report, std::uint32_t pid) const
{
    const auto key = processKey(report, pid);
    const auto lo = std::lower_bound(processThreads.begin(), processThreads.end(), key,
        [](const ProcessThreadRef &r, std::uint64_t k) { return r.key < k; });
    auto hi = lo;
    while (hi != processThreads.end() && hi->key == key)
        ++hi;
    return { lo, hi };
}

std::optional<LaunchRef> TraceSet::findLaunch(
    std::uint32_t report, std::uint32_t pid, std::uint32_t correlationId) const
{
    if (correlationId == 0)
        return std::nullopt;
    for (const auto &ref : threadsOfProcess(report, pid)) {
        const auto &api = threads[ref.thread].api;
        if (!api.correlationAscending)
            continue;
        const auto it = std::lower_bound(api.correlationId.begin(), api.correlationId.end(), correlationId);
        if (it != api.correlationId.end() && *it == correlationId)
            return LaunchRef { ref.thread, std::uint32_t(it - api.correlationId.begin()) };
    }
    const auto process = processKey(report, pid);
    const auto it
        = std::lower_bound(unorderedLaunches.begin(), unorderedLaunches.end(), std::pair(process, correlationId),
            [](const UnorderedLaunch &u, const std::pair<std::uint64_t, std::uint32_t> &k) {
                return std::pair(u.process, u.correlationId) < k;
            });
    if (it != unorderedLaunches.end() && it->process == process && it->correlationId == correlationId)
        return it->call;
    return std::nullopt;
}

void finalizeTraceSet(TraceSet &trace, unsigned threads)
{
    threads = threadsOrEveryCore(threads);
    // Sorting, nesting and checking order are independent per track: one task per GPU and
    // per thread, spread over the cores. Exports list rows in start order per thread, so the
    // sort is mostly skipped; files that do not still load right, only slower.
    const std::size_t tasks = trace.gpus.size() + trace.threads.size();
    std::vector<Span> spans(tasks);
    const unsigned workers = eventCount(trace) < kParallelFromEvents ? 1 : threads;
    parallelFor(tasks, workers, [&](std::size_t task) {
        Span &span = spans[task];
        if (task < trace.gpus.size()) {
            auto &gpu = trace.gpus[task];
            for (auto &stream : gpu.streams) {
                sortKernels(stream.kernels);
                span.add(stream.kernels.start, stream.kernels.end);
            }
            std::sort(gpu.streams.begin(), gpu.streams.end(), [](const Stream &a, const Stream &b) {
                return a.pid != b.pid ? a.pid < b.pid : a.streamId < b.streamId;
            });
            sortCopies(gpu.copies);
            span.add(gpu.copies.start, gpu.copies.end);
            sortSyncs(gpu.syncs); // host-side times: not part of the span
            sortMemoryUsage(gpu.memory); // host-side times too
            gpu.ranks.clear();
            for (const auto &stream : gpu.streams)
                if (stream.rank != kNoIndex)
                    gpu.ranks.push_back(stream.rank);
            std::sort(gpu.ranks.begin(), gpu.ranks.end());
            gpu.ranks.erase(std::unique(gpu.ranks.begin(), gpu.ranks.end()), gpu.ranks.end());
        } else {
            auto &thread = trace.threads[task - trace.gpus.size()];
            sortApi(thread.api);
            std::sort(thread.api.callchains.begin(), thread.api.callchains.end(),
                [](const ApiColumns::CallchainRef &a, const ApiColumns::CallchainRef &b) {
                    return a.correlationId < b.correlationId;
                });
            sortNvtx(thread.nvtx);
            sortMarks(thread.marks);
            sortOsrt(thread.osrt); // not in the span: OS calls run before and after the CUDA work
            span.add(thread.api.start, thread.api.end);
            span.add(thread.nvtx.start, thread.nvtx.end);
            // A mark is an instant, and sorted by time: the capture holds the first and last.
            if (!thread.marks.time.empty())
                span.add(thread.marks.time.front(), thread.marks.time.back());
        }
    });
    Span span;
    for (const auto &s : spans)
        span.add(s);

    // Launches are found in each thread's correlation ids, which real exports list in
    // ascending order; only threads where they are not get entries in a fallback index.
    trace.processThreads.clear();
    trace.unorderedLaunches.clear();
    for (std::uint32_t t = 0; t < trace.threads.size(); ++t) {
        auto &thread = trace.threads[t];
        trace.processThreads.push_back({ processKey(thread.report, thread.pid), t });
        const auto &corr = thread.api.correlationId;
        thread.api.correlationAscending
            = (corr.empty() || corr.front() != 0) && std::is_sorted(corr.begin(), corr.end());
        if (thread.api.correlationAscending)
            continue;
        for (std::uint32_t c = 0; c < corr.size(); ++c)
            if (corr[c] != 0)
                trace.unorderedLaunches.push_back({ processKey(thread.report, thread.pid), corr[c], { t, c } });
    }
    std::sort(trace.processThreads.begin(), trace.processThreads.end(),
        [](const ProcessThreadRef &a, const ProcessThreadRef &b) {
            return a.key != b.key ? a.key < b.key : a.thread < b.thread;
        });
    std::stable_sort(trace.unorderedLaunches.begin(), trace.unorderedLaunches.end(),
        [](const UnorderedLaunch &a, const UnorderedLaunch &b) {
            return std::pair(a.process, a.correlationId) < std::pair(b.process, b.correlationId);
        });

    for (auto &rank : trace.ranks) {
        rank.gpus.clear();
        rank.threads.clear();
    }
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
        for (auto r : trace.gpus[g].ranks)
            trace.ranks[r].gpus.push_back(g);
    for (std::uint32_t t = 0; t < trace.threads.size(); ++t)
        if (trace.threads[t].rank != kNoIndex)
            trace.ranks[trace.threads[t].rank].threads.push_back(t);

    trace.span = span.range();
    computeRankSpans(trace, spans);
    buildNvtxGroups(trace);
}

} // namespace gaplens::core
