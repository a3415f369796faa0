// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/summaries.h"

#include <algorithm>
#include <map>

namespace gaplens::core {
namespace {

// Index range of a start-sorted track whose starts lie in the window.
std::pair<std::size_t, std::size_t> startsInWindow(const std::vector<TimeNs> &start, const TimeWindow &window)
{
    if (!window)
        return {0, start.size()};
    const auto lo = std::lower_bound(start.begin(), start.end(), window->start);
    const auto hi = std::lower_bound(lo, start.end(), window->end);
    return {std::size_t(lo - start.begin()), std::size_t(hi - start.begin())};
}

// Durations grouped by a key; the only place rows are built, for all three summaries.
template<typename Key>
class DurationGroups
{
public:
    void add(const Key &key, TimeNs duration)
    {
        m_groups[key].push_back(duration);
        m_total += duration;
        ++m_count;
    }
    TimeNs total() const { return m_total; }
    std::uint64_t count() const { return m_count; }

    // Calls make(key, stats, percent) per group.
    template<typename Make>
    void build(Make make)
    {
        for (auto &[key, durations] : m_groups) {
            const DurationStats stats = computeDurationStats(durations);
            const double pct = m_total > 0 ? 100.0 * double(stats.totalNs) / double(m_total) : 0.0;
            make(key, stats, pct);
        }
    }

private:
    std::map<Key, std::vector<TimeNs>> m_groups;
    TimeNs m_total = 0;
    std::uint64_t m_count = 0;
};

// Total desc, then name (text, not id: ids depend on load order), then the row's own tiebreak.
template<typename Row, typename Tie>
void sortRows(const TraceSet &trace, std::vector<Row> &rows, Tie tie)
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

bool threadSelected(const Thread &thread, const RankSelection &ranks)
{
    return ranks.isAll() || (thread.rank != kNoIndex && ranks.includes(thread.rank));
}

KernelSummary buildKernelSummary(const TraceSet &trace, DurationGroups<StringId> &groups, std::uint32_t rank)
{
    KernelSummary summary;
    summary.rank = rank;
    summary.totalNs = groups.total();
    summary.instances = groups.count();
    groups.build([&](StringId name, const DurationStats &stats, double pct) {
        summary.rows.push_back({name, stats, pct});
    });
    sortRows(trace, summary.rows, [](const KernelSummaryRow &a, const KernelSummaryRow &b) { return a.name < b.name; });
    return summary;
}

template<typename Visit>
void forEachKernel(const TraceSet &trace, const KernelSummaryOptions &options, Visit visit)
{
    for (const auto &gpu : trace.gpus)
        for (const auto &stream : gpu.streams) {
            if (!options.ranks.isAll() && (stream.rank == kNoIndex || !options.ranks.includes(stream.rank)))
                continue;
            const auto &k = stream.kernels;
            const auto &names = options.useDemangledName && k.demangledName.size() == k.size() ? k.demangledName
                                                                                                : k.shortName;
            const auto [lo, hi] = startsInWindow(k.start, options.window);
            for (std::size_t i = lo; i < hi; ++i)
                visit(stream.rank, names[i], k.end[i] - k.start[i]);
        }
}

} // namespace

KernelSummary summarizeKernels(const TraceSet &trace, const KernelSummaryOptions &options)
{
    DurationGroups<StringId> groups;
    forEachKernel(trace, options, [&](std::uint32_t, StringId name, TimeNs d) { groups.add(name, d); });
    return buildKernelSummary(trace, groups, kNoIndex);
}

std::vector<KernelSummary> summarizeKernelsPerRank(const TraceSet &trace, const KernelSummaryOptions &options)
{
    std::vector<DurationGroups<StringId>> perRank(trace.ranks.size());
    forEachKernel(trace, options, [&](std::uint32_t rank, StringId name, TimeNs d) {
        if (rank < perRank.size())
            perRank[rank].add(name, d);
    });
    std::vector<KernelSummary> out;
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
        if (options.ranks.includes(r))
            out.push_back(buildKernelSummary(trace, perRank[r], r));
    return out;
}

NvtxSummary summarizeNvtx(const TraceSet &trace, const SummaryOptions &options)
{
    DurationGroups<std::pair<StringId, NvtxKind>> groups;
    for (const auto &thread : trace.threads) {
        if (!threadSelected(thread, options.ranks))
            continue;
        const auto &n = thread.nvtx;
        const auto [lo, hi] = startsInWindow(n.start, options.window);
        for (std::size_t i = lo; i < hi; ++i)
            groups.add({trace.nvtxGroup(n.name[i]), n.kind[i]}, n.end[i] - n.start[i]);
    }
    NvtxSummary summary;
    summary.totalNs = groups.total();
    summary.instances = groups.count();
    groups.build([&](const std::pair<StringId, NvtxKind> &key, const DurationStats &stats, double pct) {
        summary.rows.push_back({key.first, key.second, stats, pct});
    });
    sortRows(trace, summary.rows, [](const NvtxSummaryRow &a, const NvtxSummaryRow &b) { return a.kind < b.kind; });
    return summary;
}

ApiSummary summarizeApi(const TraceSet &trace, const SummaryOptions &options)
{
    DurationGroups<StringId> groups;
    for (const auto &thread : trace.threads) {
        if (!threadSelected(thread, options.ranks))
            continue;
        const auto &a = thread.api;
        const auto [lo, hi] = startsInWindow(a.start, options.window);
        for (std::size_t i = lo; i < hi; ++i)
            groups.add(a.name[i], a.end[i] - a.start[i]);
    }
    ApiSummary summary;
    summary.totalNs = groups.total();
    summary.instances = groups.count();
    groups.build([&](StringId name, const DurationStats &stats, double pct) { summary.rows.push_back({name, stats, pct}); });
    sortRows(trace, summary.rows, [](const ApiSummaryRow &a, const ApiSummaryRow &b) { return a.name < b.name; });
    return summary;
}

} // namespace gaplens::core
