// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/summaries.h"

#include "gaplens/core/analysis/gpu_projection.h"
#include "gaplens/core/analysis/parts_reduction.h"

#include "grouped_duration_stats.h"

#include <algorithm>
#include <limits>

namespace gaplens::core {
namespace {

// Index range of a start-sorted track whose starts lie in the window.
std::pair<std::size_t, std::size_t> startsInWindow(std::span<const TimeNs> start, const TimeWindow &window)
{
    if (!window)
        return { 0, start.size() };
    const auto lo = std::lower_bound(start.begin(), start.end(), window->start);
    const auto hi = std::lower_bound(lo, start.end(), window->end);
    return { std::size_t(lo - start.begin()), std::size_t(hi - start.begin()) };
}

// Total desc, then name (text, not id: ids depend on load order), then the row's own tiebreak.
template <typename Row, typename Tie> void sortRows(const StringPool &names, std::vector<Row> &rows, Tie tie)
{
    std::sort(rows.begin(), rows.end(), [&](const Row &a, const Row &b) {
        if (a.stats.totalNs != b.stats.totalNs)
            return a.stats.totalNs > b.stats.totalNs;
        const int c = names.get(a.name).compare(names.get(b.name));
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
using NvtxKey = std::pair<StringId, NvtxKind>;
using NvtxGroups = detail::GroupedDurationStats<NvtxKey>;

// Computing in parts, the groups are matched across parts by their keys' texts. Back from a
// text, a key gets its slot in this part (a free one past the pool when the part has no such
// string) and its id in the pool that names the rows.
class NameKeys
{
public:
    NameKeys(const TraceSet &trace, StringPool &names)
        : m_trace(trace)
        , m_names(names)
        , m_freeId(trace.strings.size())
    {
    }
    std::string text(StringId id) const { return m_trace.str(id); }
    std::pair<std::size_t, StringId> find(const std::string &text) { return { localId(text), m_names.intern(text) }; }

protected:
    std::size_t localId(std::string_view text)
    {
        const StringId id = m_trace.strings.find(text);
        return id != kEmptyString || text.empty() ? id : m_freeId++;
    }
    const TraceSet &m_trace;
    StringPool &m_names;

private:
    std::size_t m_freeId;
};

// NVTX groups: the kind's digit, then the group name.
class NvtxKeys : NameKeys
{
public:
    using NameKeys::NameKeys;
    std::string text(const NvtxKey &key) const
    {
        return (key.second == NvtxKind::StartEnd ? '1' : '0') + m_trace.str(key.first);
    }
    std::pair<std::size_t, NvtxKey> find(const std::string &text)
    {
        const auto kind = text.front() == '1' ? NvtxKind::StartEnd : NvtxKind::PushPop;
        const std::string_view name = std::string_view(text).substr(1);
        return { 2 * localId(name) + (kind == NvtxKind::StartEnd ? 1 : 0), { m_names.intern(name), kind } };
    }
};

// Where a summary is computed: over the whole capture in `trace`, its rows named by the
// trace's pool; or over the part of a capture in `trace`, with the other parts through
// `parts`, its rows named in `names`.
struct Scope
{
    const TraceSet &trace;
    const PartsReduction *parts = nullptr;
    StringPool *names = nullptr;

    const StringPool &rowNames() const { return names ? *names : trace.strings; }
    template <typename Walk> NameGroups nameGroups(Walk walk) const
    {
        if (!parts)
            return NameGroups(trace.strings.size(), walk);
        return NameGroups(trace.strings.size(), walk, *parts, NameKeys(trace, *names));
    }
    template <typename Walk> NvtxGroups nvtxGroups(Walk walk) const
    {
        if (!parts)
            return NvtxGroups(2 * trace.strings.size(), walk);
        return NvtxGroups(2 * trace.strings.size(), walk, *parts, NvtxKeys(trace, *names));
    }
};

// A summary whose rows are keyed by name alone (kernels, CUDA API calls).
template <typename Summary> Summary summaryByName(const StringPool &names, const NameGroups &groups)
{
    using Row = typename decltype(Summary::rows)::value_type;
    Summary summary;
    summary.totalNs = groups.total();
    summary.instances = groups.count();
    groups.build([&](StringId name, const DurationStats &stats, double pct) {
        summary.rows.push_back({ name, stats, pct });
    });
    sortRows(names, summary.rows, [](const Row &a, const Row &b) { return a.name < b.name; });
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

namespace {

KernelSummary summarizeKernelsIn(const Scope &scope, const KernelSummaryOptions &options, std::uint32_t rank)
{
    const auto groups = scope.nameGroups([&](auto sink) {
        forEachKernel(scope.trace, options, [&](std::uint32_t, StringId name, TimeNs d) { sink(name, name, d); });
    });
    auto summary = summaryByName<KernelSummary>(scope.rowNames(), groups);
    summary.rank = rank;
    return summary;
}

} // namespace

KernelSummary summarizeKernels(const TraceSet &trace, const KernelSummaryOptions &options)
{
    return summarizeKernelsIn({ trace }, options, kNoIndex);
}

KernelSummary summarizeKernels(
    const TraceSet &part, const KernelSummaryOptions &options, const PartsReduction &parts, StringPool &names)
{
    return summarizeKernelsIn({ part, &parts, &names }, options, kNoIndex);
}

std::vector<KernelSummary> summarizeKernelsPerRank(const TraceSet &trace, const KernelSummaryOptions &options)
{
    std::vector<KernelSummary> out;
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
        if (!options.ranks.includes(r))
            continue;
        auto rankOptions = options;
        rankOptions.ranks = RankSelection::only({ r });
        out.push_back(summarizeKernelsIn({ trace }, rankOptions, r));
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
        sortRows(trace.strings, row.calls, [](const NvtxCallRow &a, const NvtxCallRow &b) { return a.name < b.name; });
}

} // namespace

const char *nvtxStyleName(NvtxKind kind)
{
    return kind == NvtxKind::PushPop ? "PushPop" : "StartEnd";
}

namespace {

NvtxSummary summarizeNvtxIn(const Scope &scope, const SummaryOptions &options)
{
    const auto &trace = scope.trace;
    const auto groups = scope.nvtxGroups([&](auto sink) {
        forEachNvtxRange(
            trace, options, [&](std::uint32_t t, std::size_t i, StringId group, NvtxKind kind, std::size_t slot) {
                const auto &n = trace.threads[t].nvtx;
                sink(slot, std::pair(group, kind), n.end[i] - n.start[i]);
            });
    });
    NvtxSummary summary;
    summary.totalNs = groups.total();
    summary.instances = groups.count();
    groups.build([&](const NvtxKey &key, const DurationStats &stats, double pct) {
        summary.rows.push_back({ key.first, key.second, stats, pct, {} });
    });
    sortRows(scope.rowNames(), summary.rows,
        [](const NvtxSummaryRow &a, const NvtxSummaryRow &b) { return a.kind < b.kind; });
    return summary;
}

NvtxProjectionSummary summarizeNvtxProjectionIn(const Scope &scope, const SummaryOptions &options)
{
    // Projecting a range costs far more than walking it: project once, keeping one duration per
    // range in walk order (8 bytes, as the summaries kept before), then group over a re-walk.
    constexpr TimeNs kNotProjected = std::numeric_limits<TimeNs>::min();
    const auto &trace = scope.trace;
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
    const auto groups = scope.nvtxGroups([&](auto sink) {
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
    groups.build([&](const NvtxKey &key, const DurationStats &stats, double pct) {
        summary.rows.push_back({ key.first, key.second, 0, stats, pct });
    });
    sortRows(scope.rowNames(), summary.rows,
        [](const NvtxProjectionRow &a, const NvtxProjectionRow &b) { return a.kind < b.kind; });
    // Every range of a row's group counts, projected or not: this part's, then every part's.
    auto rangesHere = [&](const NvtxProjectionRow &row) -> std::uint64_t {
        StringId local = row.name;
        if (scope.names) {
            const auto &text = scope.names->get(row.name);
            local = trace.strings.find(text);
            if (local == kEmptyString && !text.empty())
                return 0; // no such name in this part
        }
        const auto slot = nvtxSlot(local, row.kind);
        return slot < rangesOfSlot.size() ? rangesOfSlot[slot] : 0;
    };
    std::vector<std::uint64_t> ranges;
    for (const auto &row : summary.rows)
        ranges.push_back(rangesHere(row));
    if (scope.parts)
        scope.parts->sum(ranges);
    for (std::size_t r = 0; r < summary.rows.size(); ++r)
        summary.rows[r].rangeInstances = ranges[r];
    return summary;
}

ApiSummary summarizeApiIn(const Scope &scope, const SummaryOptions &options)
{
    const auto groups = scope.nameGroups([&](auto sink) {
        for (const auto &thread : scope.trace.threads) {
            if (!threadSelected(thread, options.ranks))
                continue;
            const auto &a = thread.api;
            const auto [lo, hi] = startsInWindow(a.start, options.window);
            for (std::size_t i = lo; i < hi; ++i)
                sink(a.name[i], a.name[i], a.end[i] - a.start[i]);
        }
    });
    return summaryByName<ApiSummary>(scope.rowNames(), groups);
}

} // namespace

NvtxSummary summarizeNvtx(const TraceSet &trace, const SummaryOptions &options, NvtxCalls calls)
{
    auto summary = summarizeNvtxIn({ trace }, options);
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

NvtxSummary summarizeNvtx(
    const TraceSet &part, const SummaryOptions &options, const PartsReduction &parts, StringPool &names)
{
    return summarizeNvtxIn({ part, &parts, &names }, options);
}

NvtxProjectionSummary summarizeNvtxProjection(const TraceSet &trace, const SummaryOptions &options)
{
    return summarizeNvtxProjectionIn({ trace }, options);
}

NvtxProjectionSummary summarizeNvtxProjection(
    const TraceSet &part, const SummaryOptions &options, const PartsReduction &parts, StringPool &names)
{
    return summarizeNvtxProjectionIn({ part, &parts, &names }, options);
}

ApiSummary summarizeApi(const TraceSet &trace, const SummaryOptions &options)
{
    return summarizeApiIn({ trace }, options);
}

ApiSummary summarizeApi(
    const TraceSet &part, const SummaryOptions &options, const PartsReduction &parts, StringPool &names)
{
    return summarizeApiIn({ part, &parts, &names }, options);
}

} // namespace gaplens::core
