// SPDX-License-Identifier: MIT
#include "interval_parts.h"
#include "wire.h"

#include <nlohmann/json.hpp>

#include <map>
#include <utility>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

Json uint128Json(core::UInt128 value)
{
    return { std::uint64_t(value >> 64), std::uint64_t(value) };
}

core::UInt128 uint128From(const Json &halves)
{
    return (core::UInt128(halves[0].get<std::uint64_t>()) << 64) | halves[1].get<std::uint64_t>();
}

Json intervalJson(const core::IntervalStats &s)
{
    Json copies = Json::array();
    for (std::size_t slot = 0; slot < core::kCopySlotCount; ++slot)
        if (s.copies[slot].count != 0 || s.copies[slot].bytes != 0 || s.copies[slot].ns != 0)
            copies.push_back({ slot, s.copies[slot].count, s.copies[slot].bytes, s.copies[slot].ns });
    const auto &k = s.kernels;
    return { k.count, uint128Json(core::UInt128(k.sum)), uint128Json(k.sumSquares), k.min, k.max, s.busyNs, copies };
}

core::IntervalStats intervalFrom(const Json &j)
{
    core::IntervalStats s;
    s.kernels.count = j[0].get<std::uint64_t>();
    s.kernels.sum = core::Int128(uint128From(j[1]));
    s.kernels.sumSquares = uint128From(j[2]);
    s.kernels.min = j[3].get<core::TimeNs>();
    s.kernels.max = j[4].get<core::TimeNs>();
    s.busyNs = j[5].get<core::TimeNs>();
    for (const auto &c : j[6])
        s.copies.at(c[0].get<std::size_t>())
            = { c[1].get<std::uint64_t>(), c[2].get<std::uint64_t>(), c[3].get<core::TimeNs>() };
    return s;
}

} // namespace

std::string packIntervalParts(const core::IntervalReport &report, const core::TraceSet *copiesOf)
{
    Json ranks = Json::array();
    for (std::size_t e = 0; e < report.ranks.size(); ++e) {
        const auto &ri = report.ranks[e];
        const auto &pp = report.pingPong[e];
        Json intervals = Json::array();
        for (const auto &iv : ri.intervals)
            intervals.push_back(intervalJson(iv));
        ranks.push_back({ { "rank", ri.rank }, { "first", ri.firstIndex }, { "before", ri.eventsBeforeOrigin },
            { "intervals", std::move(intervals) },
            { "ping_pong",
                { pp.runs, pp.copies, pp.htodDtohCopies, pp.medianBytes, pp.longestRun, pp.starts, pp.bytes } } });
    }
    Json sequences = Json::array();
    if (copiesOf)
        for (std::uint32_t r = 0; r < copiesOf->ranks.size(); ++r) {
            const auto copies = core::copySequence(*copiesOf, r);
            Json kinds = Json::array();
            for (const auto kind : copies.kind)
                kinds.push_back(int(kind));
            sequences.push_back({ r, std::move(kinds), copies.start, copies.bytes });
        }
    return pack(Json { { "ranks", std::move(ranks) }, { "copy_sequences", std::move(sequences) } });
}

core::IntervalReport finishIntervalParts(const std::vector<std::string> &parts,
    const std::vector<std::vector<std::uint32_t>> &globalRank, const core::IntervalOptions &options)
{
    // By global rank: the shards' statistics merged, and their copy sequences joined, in
    // process order.
    std::map<std::uint32_t, std::pair<core::RankIntervals, core::PingPong>> byRank;
    std::map<std::uint32_t, core::CopySequence> sequences;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const auto part = unpack(parts[p]);
        for (const auto &r : part["ranks"]) {
            core::RankIntervals ri;
            ri.rank = globalRank[p].at(r["rank"].get<std::size_t>());
            ri.firstIndex = r["first"].get<std::int64_t>();
            ri.eventsBeforeOrigin = r["before"].get<std::uint64_t>();
            for (const auto &iv : r["intervals"])
                ri.intervals.push_back(intervalFrom(iv));
            const auto &pp = r["ping_pong"];
            core::PingPong pingPong;
            pingPong.runs = pp[0].get<std::uint64_t>();
            pingPong.copies = pp[1].get<std::uint64_t>();
            pingPong.htodDtohCopies = pp[2].get<std::uint64_t>();
            pingPong.medianBytes = pp[3].get<double>();
            pingPong.longestRun = pp[4].get<std::uint64_t>();
            pingPong.starts = pp[5].get<std::vector<core::TimeNs>>();
            pingPong.bytes = pp[6].get<std::vector<std::uint64_t>>();
            auto [it, first] = byRank.try_emplace(ri.rank, ri, std::move(pingPong));
            if (!first)
                core::mergeRankIntervals(it->second.first, ri);
        }
        for (const auto &s : part["copy_sequences"]) {
            auto &into = sequences[globalRank[p].at(s[0].get<std::size_t>())];
            core::CopySequence copies;
            for (const auto &kind : s[1])
                copies.kind.push_back(core::CopyKind(kind.get<int>()));
            copies.start = s[2].get<std::vector<core::TimeNs>>();
            copies.bytes = s[3].get<std::vector<std::uint64_t>>();
            into.append(copies);
        }
    }
    core::IntervalReport report;
    report.originNs = options.originNs.value_or(0);
    report.intervalNs = options.intervalNs;
    report.metric = options.metric;
    report.pooled = options.pool;
    for (auto &[rank, figures] : byRank) {
        report.ranks.push_back(std::move(figures.first));
        const auto copies = sequences.find(rank);
        report.pingPong.push_back(
            copies == sequences.end() ? std::move(figures.second) : core::pingPongOf(copies->second));
    }
    core::finishIntervalReport(report, options);
    return report;
}

} // namespace gaplens::mpi
