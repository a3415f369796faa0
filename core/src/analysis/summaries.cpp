// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/summaries.h"

#include "gaplens/core/analysis/gpu_projection.h"

#include "util/resident_memory.h"

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

// Durations grouped by a key; the only place rows are built, for all three summaries.
// Keys are string ids (with the NVTX kind), so a key's slot indexes a flat table: no tree
// lookup per event. Each group's durations grow in prefaulted steps (doubling fresh memory
// page by page cost more than the statistics on captures of tens of millions of ranges).
template <typename Key> class DurationGroups
{
public:
    explicit DurationGroups(std::size_t slots)
        : m_groupOfSlot(slots, kNoGroup)
    {
    }

    void add(std::size_t slot, const Key &key, TimeNs duration)
    {
        if (slot >= m_groupOfSlot.size())
            m_groupOfSlot.resize(slot + 1, kNoGroup);
        auto &group = m_groupOfSlot[slot];
        if (group == kNoGroup) {
            group = std::uint32_t(m_keys.size());
            m_keys.push_back(key);
            m_durations.emplace_back();
        }
        auto &durations = m_durations[group];
        if (durations.size() == durations.capacity())
            detail::reserveResident(durations, std::max<std::size_t>(1024, 2 * durations.capacity()));
        durations.push_back(duration);
        m_total += duration;
        ++m_count;
    }
    TimeNs total() const { return m_total; }
    std::uint64_t count() const { return m_count; }

    // Calls make(key, stats, percent) per group, in no particular order (callers sort rows).
    template <typename Make> void build(Make make)
    {
        for (std::size_t g = 0; g < m_keys.size(); ++g) {
            const DurationStats stats = computeDurationStats(m_durations[g]);
            const double pct = m_total > 0 ? 100.0 * double(stats.totalNs) / double(m_total) : 0.0;
            make(m_keys[g], stats, pct);
        }
    }

private:
    static constexpr std::uint32_t kNoGroup = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> m_groupOfSlot;
    std::vector<Key> m_keys;
    std::vector<std::vector<TimeNs>> m_durations;
    TimeNs m_total = 0;
    std::uint64_t m_count = 0;
};

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

// A summary whose rows are keyed by name alone (kernels, CUDA API calls).
template <typename Summary> Summary summaryByName(const TraceSet &trace, DurationGroups<StringId> &groups)
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

KernelSummary buildKernelSummary(const TraceSet &trace, DurationGroups<StringId> &groups, std::uint32_t rank)
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
    DurationGroups<StringId> groups(trace.strings.size());
    forEachKernel(trace, options, [&](std::uint32_t, StringId name, TimeNs d) { groups.add(name, name, d); });
    return buildKernelSummary(trace, groups, kNoIndex);
}

std::vector<KernelSummary> summarizeKernelsPerRank(const TraceSet &trace, const KernelSummaryOptions &options)
{
    std::vector<DurationGroups<StringId>> perRank(trace.ranks.size(), DurationGroups<StringId>(trace.strings.size()));
    forEachKernel(trace, options, [&](std::uint32_t rank, StringId name, TimeNs d) {
        if (rank < perRank.size())
            perRank[rank].add(name, name, d);
    });
    std::vector<KernelSummary> out;
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
        if (options.ranks.includes(r))
            out.push_back(buildKernelSummary(trace, perRank[r], r));
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
    DurationGroups<std::pair<StringId, NvtxKind>> groups(2 * trace.strings.size());
    // Per-call names are mostly unique (one PyTorch op_id each): a flat list sorted once, not a
    // DurationGroups slot (and its prefaulted block) per name.
    std::vector<NamedDuration> perCall;
    forEachNvtxRange(
        trace, options, [&](std::uint32_t t, std::size_t i, StringId group, NvtxKind kind, std::size_t slot) {
            const auto &n = trace.threads[t].nvtx;
            groups.add(slot, { group, kind }, n.end[i] - n.start[i]);
            if (calls == NvtxCalls::Listed && group != n.name[i])
                perCall.push_back({ n.name[i], kind, n.end[i] - n.start[i] });
        });
    NvtxSummary summary;
    summary.totalNs = groups.total();
    summary.instances = groups.count();
    groups.build([&](const std::pair<StringId, NvtxKind> &key, const DurationStats &stats, double pct) {
        summary.rows.push_back({ key.first, key.second, stats, pct, {} });
    });
    sortRows(trace, summary.rows, [](const NvtxSummaryRow &a, const NvtxSummaryRow &b) { return a.kind < b.kind; });
    if (!perCall.empty())
        attachNvtxCalls(trace, perCall, summary);
    return summary;
}

NvtxProjectionSummary summarizeNvtxProjection(const TraceSet &trace, const SummaryOptions &options)
{
    const GpuProjector projector(trace);
    DurationGroups<std::pair<StringId, NvtxKind>> groups(2 * trace.strings.size());
    std::vector<std::uint64_t> rangesOfSlot(2 * trace.strings.size(), 0);
    forEachNvtxRange(
        trace, options, [&](std::uint32_t t, std::size_t i, StringId group, NvtxKind kind, std::size_t slot) {
            if (slot >= rangesOfSlot.size())
                rangesOfSlot.resize(slot + 1, 0);
            ++rangesOfSlot[slot];
            const auto &n = trace.threads[t].nvtx;
            if (const auto gpu = projector.project(t, { n.start[i], n.end[i] }))
                groups.add(slot, { group, kind }, gpu->duration());
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
    DurationGroups<StringId> groups(trace.strings.size());
    for (const auto &thread : trace.threads) {
        if (!threadSelected(thread, options.ranks))
            continue;
        const auto &a = thread.api;
        const auto [lo, hi] = startsInWindow(a.start, options.window);
        for (std::size_t i = lo; i < hi; ++i)
            groups.add(a.name[i], a.name[i], a.end[i] - a.start[i]);
    }
    return summaryByName<ApiSummary>(trace, groups);
}

} // namespace gaplens::core
