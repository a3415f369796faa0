// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/overlap.h"

#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/util/units.h"
#include "merged_intervals.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace gaplens::core {
namespace {

bool equalsIgnoringCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    });
}

constexpr std::array<std::pair<std::string_view, CollectiveType>, 10> kCollectiveWords { {
    { "AllReduce", CollectiveType::AllReduce },
    { "AllGather", CollectiveType::AllGather },
    { "ReduceScatter", CollectiveType::ReduceScatter },
    { "Reduce", CollectiveType::Reduce },
    { "Broadcast", CollectiveType::Broadcast },
    { "AllToAll", CollectiveType::AllToAll },
    { "SendRecv", CollectiveType::SendRecv },
    { "Send", CollectiveType::Send },
    { "Recv", CollectiveType::Recv },
    { "Other", CollectiveType::Other },
} };

// The length of the union of the lanes' runs (already clipped to the options' window) after
// `from`: what a time shard counts after its file's earlier shards' kernels of that kind.
TimeNs unionNsAfter(std::initializer_list<const std::vector<detail::CollectedIntervals> *> laneSets, TimeNs from)
{
    std::vector<detail::IntervalRun> runs;
    for (const auto *lanes : laneSets)
        for (const auto &lane : *lanes)
            runs.push_back(lane.run());
    TimeNs total = 0;
    detail::forEachMergedInterval(
        runs, TimeRange { from, std::numeric_limits<TimeNs>::max() }, [&](TimeRange r) { total += r.duration(); });
    return total;
}

// A collective's kernel runs until its peers have joined, so the ranks of one job have
// communication spans (first collective start to last collective end) that overlap. Ranks
// whose spans do not are separate jobs (two runs opened together, say): matching the k-th
// collective across them would invent skews of hours. Each rank's job number (by position in
// `ranks`): ranks sorted by first start, a new job wherever one starts after all before it
// have ended. Ranks that tie on first start join one job in either order.
std::vector<std::uint32_t> jobsByCommunicationSpan(const std::vector<RankCommunication> &ranks)
{
    std::vector<std::size_t> order(ranks.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(),
        [&](std::size_t a, std::size_t b) { return ranks[a].kernels.front().start < ranks[b].kernels.front().start; });
    std::vector<std::uint32_t> jobOf(ranks.size(), 0);
    std::uint32_t job = 0;
    TimeNs jobEnd = std::numeric_limits<TimeNs>::min();
    for (const auto i : order) {
        if (jobEnd != std::numeric_limits<TimeNs>::min() && ranks[i].kernels.front().start > jobEnd)
            ++job;
        jobOf[i] = job;
        jobEnd = std::max(jobEnd, ranks[i].lastEnd);
    }
    return jobOf;
}

// The figures that follow from a row's unions and overlap.
void setExposure(OverlapRow &row)
{
    row.exposedCommNs = row.commNs - row.overlapNs;
    row.hiddenPercent = row.commNs > 0 ? 100.0 * double(row.overlapNs) / double(row.commNs) : 0.0;
}

// `shard`'s figures added to `row` (the same rank and GPU).
void addRow(OverlapRow &row, const OverlapRow &shard)
{
    row.commKernels += shard.commKernels;
    row.computeKernels += shard.computeKernels;
    row.commNs += shard.commNs;
    row.computeNs += shard.computeNs;
    row.overlapNs += shard.overlapNs;
    setExposure(row);
    for (const auto &c : shard.collectives) {
        auto at = std::lower_bound(row.collectives.begin(), row.collectives.end(), c.type,
            [](const CollectiveTotals &t, CollectiveType type) { return t.type < type; });
        if (at == row.collectives.end() || at->type != c.type)
            at = row.collectives.insert(at, { c.type, 0, 0 });
        at->calls += c.calls;
        at->totalNs += c.totalNs;
    }
}

} // namespace

bool isCommunicationKernel(std::string_view shortName)
{
    return shortName.size() >= 4 && equalsIgnoringCase(shortName.substr(0, 4), "nccl");
}

std::string_view collectiveTypeName(CollectiveType type)
{
    for (const auto &[word, t] : kCollectiveWords)
        if (t == type)
            return word;
    return "Other";
}

CollectiveType parseCollectiveType(std::string_view shortName)
{
    if (!isCommunicationKernel(shortName))
        return CollectiveType::Other;
    const auto underscore = shortName.find('_');
    if (underscore == std::string_view::npos)
        return CollectiveType::Other;
    auto word = shortName.substr(underscore + 1);
    word = word.substr(0, word.find('_'));
    // "AlltoAll" (NCCL's own spelling in some versions) compares equal without case.
    for (const auto &[name, type] : kCollectiveWords)
        if (type != CollectiveType::Other && equalsIgnoringCase(word, name))
            return type;
    return CollectiveType::Other;
}

OverlapReport computeOverlap(const TraceSet &trace, const OverlapOptions &options)
{
    return finishOverlap(computeOverlapPart(trace, options), trace.ranks.size(), trace.strings);
}

OverlapPart computeOverlapPart(const TraceSet &trace, const OverlapOptions &options)
{
    OverlapPart part;
    // Communication kernels per rank, for the matching across ranks.
    std::vector<RankCommunication> commByRank(trace.ranks.size());

    // (rank, gpu) -> the streams of that rank on that GPU. kNoIndex sorts last.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<const Stream *>> groups;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
        for (const auto &stream : trace.gpus[g].streams) {
            const bool selected = stream.rank == kNoIndex ? options.ranks.isAll() : options.ranks.includes(stream.rank);
            if (selected && stream.kernels.size() > 0)
                groups[{ stream.rank, g }].push_back(&stream);
        }

    for (const auto &[key, streams] : groups) {
        OverlapRow row;
        row.rank = key.first;
        row.gpu = key.second;
        std::array<CollectiveTotals, kCollectiveTypeCount> byType {};
        std::vector<detail::CollectedIntervals> comm(streams.size()), compute(streams.size());
        for (std::size_t s = 0; s < streams.size(); ++s) {
            const auto &k = streams[s]->kernels;
            const auto run = detail::kernelRun(k, options.window);
            for (std::size_t i = run.lo; i < run.hi; ++i) {
                const auto r = detail::clip(k.start[i], k.end[i], options.window);
                if (r.end <= r.start)
                    continue;
                const std::string_view name = trace.str(k.shortName[i]);
                if (isCommunicationKernel(name)) {
                    // Clipping keeps the stream's start order, so each lane stays sorted.
                    comm[s].start.push_back(r.start);
                    comm[s].end.push_back(r.end);
                    ++row.commKernels;
                    auto &totals = byType[std::size_t(parseCollectiveType(name))];
                    ++totals.calls;
                    totals.totalNs += r.duration();
                    if (row.rank != kNoIndex) {
                        auto &rank = commByRank[row.rank];
                        rank.lastEnd = rank.kernels.empty() ? k.end[i] : std::max(rank.lastEnd, k.end[i]);
                        rank.kernels.push_back({ k.start[i], k.shortName[i] });
                    }
                } else {
                    compute[s].start.push_back(r.start);
                    compute[s].end.push_back(r.end);
                    ++row.computeKernels;
                }
            }
        }
        if (row.commKernels + row.computeKernels == 0)
            continue;
        // Each union counts what lies after the earlier shards' kernels of its kind (all of it
        // outside time shards), so the shards' figures add up; the overlap is then
        // |comm| + |compute| - |comm or compute|, which adds up too.
        constexpr TimeNs kAll = std::numeric_limits<TimeNs>::min();
        const auto carry = options.earlierShards.find(key);
        const auto commFrom = carry == options.earlierShards.end() ? kAll : carry->second.commUntil.value_or(kAll);
        const auto computeFrom
            = carry == options.earlierShards.end() ? kAll : carry->second.computeUntil.value_or(kAll);
        row.commNs = unionNsAfter({ &comm }, commFrom);
        row.computeNs = unionNsAfter({ &compute }, computeFrom);
        row.overlapNs = row.commNs + row.computeNs - unionNsAfter({ &comm, &compute }, std::max(commFrom, computeFrom));
        setExposure(row);
        for (std::size_t t = 0; t < kCollectiveTypeCount; ++t)
            if (byType[t].calls > 0) {
                byType[t].type = CollectiveType(t);
                row.collectives.push_back(byType[t]);
            }
        part.rows.push_back(std::move(row));
    }

    // Per rank, its kernels of all GPUs and streams in start order (ties by name: the k-th
    // kernel of each name, which is all the matching reads, never depends on the streams').
    for (std::uint32_t rank = 0; rank < commByRank.size(); ++rank) {
        auto &comm = commByRank[rank];
        if (comm.kernels.empty())
            continue;
        std::sort(comm.kernels.begin(), comm.kernels.end(),
            [](const auto &a, const auto &b) { return std::tie(a.start, a.name) < std::tie(b.start, b.name); });
        comm.rank = rank;
        part.communication.push_back(std::move(comm));
    }
    return part;
}

OverlapPart joinOverlapParts(std::vector<OverlapPart> parts)
{
    OverlapPart joined;
    for (auto &part : parts)
        for (auto &row : part.rows)
            joined.rows.push_back(std::move(row));
    // The whole capture's order: by rank (work of no rank last), then GPU; a row's shards in
    // shard order.
    std::stable_sort(joined.rows.begin(), joined.rows.end(),
        [](const auto &a, const auto &b) { return std::tie(a.rank, a.gpu) < std::tie(b.rank, b.gpu); });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < joined.rows.size(); ++i) {
        if (kept > 0
            && std::tie(joined.rows[kept - 1].rank, joined.rows[kept - 1].gpu)
                == std::tie(joined.rows[i].rank, joined.rows[i].gpu))
            addRow(joined.rows[kept - 1], joined.rows[i]);
        else if (kept++ != i) // never a self-move, which leaves a vector unspecified
            joined.rows[kept - 1] = std::move(joined.rows[i]);
    }
    joined.rows.resize(kept);

    // A rank's shards start one after the other: their kernels, each in start order, joined.
    std::map<std::uint32_t, RankCommunication> byRank;
    for (auto &part : parts)
        for (auto &comm : part.communication) {
            auto [it, added] = byRank.try_emplace(comm.rank, std::move(comm));
            if (added)
                continue;
            auto &rank = it->second;
            rank.lastEnd = std::max(rank.lastEnd, comm.lastEnd);
            rank.kernels.insert(rank.kernels.end(), comm.kernels.begin(), comm.kernels.end());
        }
    for (auto &[rank, comm] : byRank)
        joined.communication.push_back(std::move(comm));
    return joined;
}

OverlapCarries overlapCarries(const TraceSet &trace, std::uint32_t report)
{
    OverlapCarries carries;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        if (trace.gpus[g].report != report)
            continue;
        for (const auto &stream : trace.gpus[g].streams) {
            const auto &k = stream.kernels;
            for (std::size_t i = 0; i < k.size(); ++i) {
                auto &carry = carries[{ stream.rank, g }];
                auto &until = isCommunicationKernel(trace.str(k.shortName[i])) ? carry.commUntil : carry.computeUntil;
                until = std::max(until.value_or(k.end[i]), k.end[i]);
            }
        }
    }
    return carries;
}

OverlapReport finishOverlap(OverlapPart part, std::size_t rankCount, const StringPool &names)
{
    OverlapReport report;
    report.rows = std::move(part.rows);
    // Ranks in ascending order, so each instance's ranks are too.
    auto &ranks = part.communication;
    std::sort(ranks.begin(), ranks.end(), [](const auto &a, const auto &b) { return a.rank < b.rank; });

    // Matching by order: the k-th kernel of a name on each rank of one job.
    const auto jobOf = jobsByCommunicationSpan(ranks);
    // (job, name, k) -> the instance's index in instances.
    std::map<std::tuple<std::uint32_t, StringId, std::uint32_t>, std::size_t> instanceOf;
    std::vector<CollectiveInstance> instances;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        std::map<StringId, std::uint32_t> seen;
        for (const auto &kernel : ranks[i].kernels) {
            const std::uint32_t k = seen[kernel.name]++;
            auto [it, added] = instanceOf.try_emplace({ jobOf[i], kernel.name, k }, instances.size());
            if (added) {
                CollectiveInstance instance;
                instance.name = kernel.name;
                instance.type = parseCollectiveType(names.get(kernel.name));
                instance.occurrence = k;
                instances.push_back(std::move(instance));
            }
            auto &instance = instances[it->second];
            instance.ranks.push_back(ranks[i].rank);
            instance.start.push_back(kernel.start);
        }
    }

    std::vector<std::vector<TimeNs>> skewsOfRank(rankCount);
    std::vector<std::uint64_t> timesLast(rankCount, 0);
    for (auto &instance : instances) {
        // A kernel on one rank only has no one to wait for.
        if (instance.ranks.size() < 2)
            continue;
        const TimeNs earliest = *std::min_element(instance.start.begin(), instance.start.end());
        const TimeNs latest = *std::max_element(instance.start.begin(), instance.start.end());
        std::size_t atLatest = 0;
        for (std::size_t i = 0; i < instance.ranks.size(); ++i) {
            instance.skewNs.push_back(instance.start[i] - earliest);
            skewsOfRank[instance.ranks[i]].push_back(instance.skewNs.back());
            if (instance.start[i] == latest) {
                ++atLatest;
                instance.lastRank = instance.ranks[i];
            }
        }
        if (atLatest != 1)
            instance.lastRank = kNoIndex;
        else
            ++timesLast[instance.lastRank];
        report.instances.push_back(std::move(instance));
    }
    // Ties on the earliest start by the name's text, not its id: an id depends on the order
    // the strings were interned in, which differs between loads (and between processes).
    std::sort(report.instances.begin(), report.instances.end(), [&](const auto &a, const auto &b) {
        const TimeNs aStart = *std::min_element(a.start.begin(), a.start.end());
        const TimeNs bStart = *std::min_element(b.start.begin(), b.start.end());
        if (aStart != bStart)
            return aStart < bStart;
        if (a.name != b.name)
            return names.get(a.name) < names.get(b.name);
        return a.occurrence < b.occurrence;
    });

    for (const auto &comm : ranks) {
        RankSkew skew;
        skew.rank = comm.rank;
        auto &skews = skewsOfRank[comm.rank];
        std::sort(skews.begin(), skews.end());
        skew.instances = skews.size();
        skew.medianSkewNs = sortedMedian(skews);
        skew.maxSkewNs = skews.empty() ? 0 : skews.back();
        skew.timesLast = timesLast[comm.rank];
        report.ranks.push_back(skew);
    }
    return report;
}

std::optional<RankSkew> findCollectiveStraggler(const OverlapReport &report)
{
    const RankSkew *found = nullptr;
    bool tied = false;
    for (const auto &skew : report.ranks) {
        if (skew.timesLast < kMinCollectiveStragglerInstances || 2 * skew.timesLast <= skew.instances)
            continue;
        // More than half of its instances: two ranks can both qualify only with different
        // instance counts; the one that started last more often is named, a tie names no one.
        if (!found || skew.timesLast > found->timesLast) {
            found = &skew;
            tied = false;
        } else if (skew.timesLast == found->timesLast) {
            tied = true;
        }
    }
    if (!found || tied)
        return std::nullopt;
    return *found;
}

std::string describeCollectiveStraggler(const RankSkew &skew)
{
    return fmt::format("started last in {} of {} collectives (median skew {}): the other ranks waited for it",
        skew.timesLast, skew.instances, formatDuration(skew.medianSkewNs));
}

} // namespace gaplens::core
