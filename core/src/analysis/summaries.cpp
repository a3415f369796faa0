// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/summaries.h"

#include "gaplens/core/analysis/gpu_projection.h"

#include "grouped_duration_stats.h"

#include <algorithm>
#include <limits>

namespace gaplens::core {
namespace {

// Index range of a start-sorted track whose starts lie in the window.
std::pair<std::size_t, std::size_t> startsInWindow(const std::vector<TimeNs> &start, const TimeWindow &window)
{
    if (!window)
        return { 0, start.size() };
    const auto lo = std::lower_bound(start.begin(), start.end(), window->start);
    const auto hi = std::lower_bound(lo, start.end(), window->end);
    return { std::size_t(lo - start.begin()), std::size_t(hi - start.begin()) };
}

// Total desc, then name (text, not id: ids depend on load order), then the row's own tiebreak.
template <typename Row, typename Tie> void sortRows(const TraceSet &trace, std::vector<Row> &rows, Tie tie)
{
    std::sort(rows.begin(), rows.end(), [&](const Row &a, const Row &b) {
        if (a.stats.totalNs != b.stats.totalNs)
            return a.stats.totalNs > b.stats.totalNs;
        const int c = trace.str(a.name).compare(trace.str(b.name));
        if (c != 0)
            return c < 0;
        return tie(a, b);
    });
}

// The slot of an NVTX (group name, kind) key in a DurationGroups table.
std::size_t nvtxSlot(StringId group, NvtxKind kind)
{
    return 2 * std::size_t(group) + (kind == NvtxKind::StartEnd ? 1 : 0);
}

bool threadSelected(const Thread &thread, const RankSelection &ranks)
{
    return ranks.isAll() || (thread.rank != kNoIndex && ranks.includes(thread.rank));
}

// Exact per-group statistics by repeated walks over the columns (no copy of the durations);
// a key's slot is its string id (with the NVTX kind), so groups are found without a lookup.
using NameGroups = detail::GroupedDurationStats<StringId>;
using NvtxGroups = detail::GroupedDurationStats<std::pair<StringId, NvtxKind>>;

// A summary whose rows are keyed by name alone (kernels, CUDA API calls).

template <typename Summary> Summary summaryByName(const TraceSet &trace, const NameGroups &groups)
{
    using Row = typename decltype(Summary::rows)::value_type;
    Summary summary;
    summary.totalNs = groups.total();
    summary.instances = groups.count();
    groups.build([&](StringId name, const DurationStats &stats, double pct) {
        summary.rows.push_back({ name, stats, pct });
    });
    sortRows(trace, summary.rows, [](const Row &a, const Row &b) { return a.name < b.name; });
    return summary;
}

KernelSummary buildKernelSummary(const TraceSet &trace, const NameGroups &groups, std::uint32_t rank)
{
    auto summary = summaryByName<KernelSummary>(trace, groups);
    summary.rank = rank;
    return summary;
}

template <typename Visit> void forEachKernel(const TraceSet &trace, const KernelSummaryOptions &options, Visit visit)
{
    for (const auto &gpu : trace.gpus)
        for (const auto &stream : gpu.streams) {
            if (!options.ranks.isAll() && (stream.rank == kNoIndex || !options.ranks.includes(stream.rank)))
                continue;
            const auto &k = stream.kernels;
            const auto &names
                = options.useDemangledName && k.demangledName.size() == k.size() ? k.demangledName : k.shortName;
            const auto [lo, hi] = startsInWindow(k.start, options.window);
            for (std::size_t i = lo; i < hi; ++i)
                visit(stream.rank, names[i], k.end[i] - k.start[i]);
        }
}

} // namespace

KernelSummary summarizeKernels(const TraceSet &trace, const KernelSummaryOptions &options)
{
    const NameGroups groups(trace.strings.size(), [&](auto sink) {
        forEachKernel(trace, options, [&](std::uint32_t, StringId name, TimeNs d) { sink(name, name, d); });
    });
    return buildKernelSummary(trace, groups, kNoIndex);
}

std::vector<KernelSummary> summarizeKernelsPerRank(const TraceSet &trace, const KernelSummaryOptions &options)
{
    std::vector<KernelSummary> out;
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
        if (!options.ranks.includes(r))
            continue;
        auto rankOptions = options;
        rankOptions.ranks = RankSelection::only({ r });
        const NameGroups groups(trace.strings.size(), [&](auto sink) {
            forEachKernel(trace, rankOptions, [&](std::uint32_t, StringId name, TimeNs d) { sink(name, name, d); });
        });
        out.push_back(buildKernelSummary(trace, groups, r));
    }
    return out;
}

namespace {

// Calls visit(thread index, range index, group name, kind, slot) for every NVTX range of the
// selection: the one walk both NVTX summaries make, keyed by (group name, kind) slots.
template <typename Visit> void forEachNvtxRange(const TraceSet &trace, const SummaryOptions &options, Visit visit)
{
    for (std::uint32_t t = 0; t < trace.threads.size(); ++t) {
        const auto &thread = trace.threads[t];
        if (!threadSelected(thread, options.ranks))
            continue;
        const auto &n = thread.nvtx;
        const auto [lo, hi] = startsInWindow(n.start, options.window);
        for (std::size_t i = lo; i < hi; ++i) {
            const StringId group = trace.nvtxGroup(n.name[i]);
            visit(t, i, group, n.kind[i], nvtxSlot(group, n.kind[i]));
        }
    }
}

struct NamedDuration
{
    StringId name;
    NvtxKind kind;
    TimeNs duration;
};

// Each run of one (name, kind) in `perCall` becomes a call row of its group's row.
void attachNvtxCalls(const TraceSet &trace, std::vector<NamedDuration> &perCall, NvtxSummary &summary)
{
    std::sort(perCall.begin(), perCall.end(), [](const NamedDuration &a, const NamedDuration &b) {
        return a.name != b.name ? a.name < b.name : a.kind < b.kind;
    });
    std::vector<std::uint32_t> rowOfSlot(2 * trace.strings.size(), kNoIndex);
    for (std::size_t r = 0; r < summary.rows.size(); ++r)
        rowOfSlot[nvtxSlot(summary.rows[r].name, summary.rows[r].kind)] = std::uint32_t(r);
    std::vector<TimeNs> durations;
    for (std::size_t i = 0; i < perCall.size();) {
        const auto &first = perCall[i];
        durations.clear();
        for (; i < perCall.size() && perCall[i].name == first.name && perCall[i].kind == first.kind; ++i)
            durations.push_back(perCall[i].duration);
        const auto slot = nvtxSlot(trace.nvtxGroup(first.name), first.kind);
        if (slot >= rowOfSlot.size() || rowOfSlot[slot] == kNoIndex)
            continue;
        const DurationStats stats = computeDurationStats(durations);
        const double pct = summary.totalNs > 0 ? 100.0 * double(stats.totalNs) / double(summary.totalNs) : 0.0;
        summary.rows[rowOfSlot[slot]].calls.push_back({ first.name, stats, pct });
    }
    for (auto &row : summary.rows)
        sortRows(trace, row.calls, [](const NvtxCallRow &a, const NvtxCallRow &b) { return a.name < b.name; });
}

} // namespace

const char *nvtxStyleName(NvtxKind kind)
{
    return kind == NvtxKind::PushPop ? "PushPop" : "StartEnd";
}

NvtxSummary summarizeNvtx(const TraceSet &trace, const SummaryOptions &options, NvtxCalls calls)
{
    const NvtxGroups groups(2 * trace.strings.size(), [&](auto sink) {
        forEachNvtxRange(
            trace, options, [&](std::uint32_t t, std::size_t i, StringId group, NvtxKind kind, std::size_t slot) {
                const auto &n = trace.threads[t].nvtx;
                sink(slot, std::pair(group, kind), n.end[i] - n.start[i]);
            });
    });
    NvtxSummary summary;
    summary.totalNs = groups.total();
    summary.instances = groups.count();
    groups.build([&](const std::pair<StringId, NvtxKind> &key, const DurationStats &stats, double pct) {
        summary.rows.push_back({ key.first, key.second, stats, pct, {} });
    });
    sortRows(trace, summary.rows, [](const NvtxSummaryRow &a, const NvtxSummaryRow &b) { return a.kind < b.kind; });
    if (calls == NvtxCalls::Listed) {
        // Per-call names are mostly unique (one PyTorch op_id each): a flat list sorted once.
        std::vector<NamedDuration> perCall;
        forEachNvtxRange(
            trace, options, [&](std::uint32_t t, std::size_t i, StringId group, NvtxKind kind, std::size_t) {
                const auto &n = trace.threads[t].nvtx;
                if (group != n.name[i])
                    perCall.push_back({ n.name[i], kind, n.end[i] - n.start[i] });
            });
        if (!perCall.empty())
            attachNvtxCalls(trace, perCall, summary);
    }
    return summary;
}

NvtxProjectionSummary summarizeNvtxProjection(const TraceSet &trace, const SummaryOptions &options)
{
    // Projecting a range costs far more than walking it: project once, keeping one duration per
    // range in walk order (8 bytes, as the summaries kept before), then group over a re-walk.
    constexpr TimeNs kNotProjected = std::numeric_limits<TimeNs>::min();
    const GpuProjector projector(trace);
    std::vector<TimeNs> projected;
    std::vector<std::uint64_t> rangesOfSlot(2 * trace.strings.size(), 0);
    forEachNvtxRange(trace, options, [&](std::uint32_t t, std::size_t i, StringId, NvtxKind, std::size_t slot) {
        if (slot >= rangesOfSlot.size())
            rangesOfSlot.resize(slot + 1, 0);
        ++rangesOfSlot[slot];
        const auto &n = trace.threads[t].nvtx;
        const auto gpu = projector.project(t, { n.start[i], n.end[i] });
        projected.push_back(gpu ? gpu->duration() : kNotProjected);
    });
    const NvtxGroups groups(2 * trace.strings.size(), [&](auto sink) {
        std::size_t next = 0;
        forEachNvtxRange(
            trace, options, [&](std::uint32_t, std::size_t, StringId group, NvtxKind kind, std::size_t slot) {
                if (const TimeNs d = projected[next++]; d != kNotProjected)
                    sink(slot, std::pair(group, kind), d);
            });
    });
    NvtxProjectionSummary summary;
    summary.totalNs = groups.total();
    summary.instances = groups.count();
    groups.build([&](const std::pair<StringId, NvtxKind> &key, const DurationStats &stats, double pct) {
        summary.rows.push_back({ key.first, key.second, rangesOfSlot[nvtxSlot(key.first, key.second)], stats, pct });
    });
    sortRows(
        trace, summary.rows, [](const NvtxProjectionRow &a, const NvtxProjectionRow &b) { return a.kind < b.kind; });
    return summary;
}

ApiSummary summarizeApi(const TraceSet &trace, const SummaryOptions &options)
{
    const NameGroups groups(trace.strings.size(), [&](auto sink) {
        for (const auto &thread : trace.threads) {
            if (!threadSelected(thread, options.ranks))
                continue;
            const auto &a = thread.api;
            const auto [lo, hi] = startsInWindow(a.start, options.window);
            for (std::size_t i = lo; i < hi; ++i)
                sink(a.name[i], a.name[i], a.end[i] - a.start[i]);
        }
    });
    return summaryByName<ApiSummary>(trace, groups);
}

} // namespace gaplens::core
