// SPDX-License-Identifier: MIT
#include "interval_parts.h"
#include "wire.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>

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

std::string packIntervalParts(const core::IntervalReport &report)
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
    return pack(ranks);
}

void unpackIntervalParts(
    const std::string &bytes, const std::vector<std::uint32_t> &globalRank, core::IntervalReport &report)
{
    for (const auto &r : unpack(bytes)) {
        core::RankIntervals ri;
        ri.rank = globalRank.at(r["rank"].get<std::size_t>());
        ri.firstIndex = r["first"].get<std::int64_t>();
        ri.eventsBeforeOrigin = r["before"].get<std::uint64_t>();
        for (const auto &iv : r["intervals"])
            ri.intervals.push_back(intervalFrom(iv));
        const auto &p = r["ping_pong"];
        core::PingPong pp;
        pp.runs = p[0].get<std::uint64_t>();
        pp.copies = p[1].get<std::uint64_t>();
        pp.htodDtohCopies = p[2].get<std::uint64_t>();
        pp.medianBytes = p[3].get<double>();
        pp.longestRun = p[4].get<std::uint64_t>();
        pp.starts = p[5].get<std::vector<core::TimeNs>>();
        pp.bytes = p[6].get<std::vector<std::uint64_t>>();
        report.ranks.push_back(std::move(ri));
        report.pingPong.push_back(std::move(pp));
    }
}

core::IntervalReport finishIntervalParts(const std::vector<std::string> &parts,
    const std::vector<std::vector<std::uint32_t>> &globalRank, const core::IntervalOptions &options)
{
    core::IntervalReport merged;
    merged.originNs = options.originNs.value_or(0);
    merged.intervalNs = options.intervalNs;
    merged.metric = options.metric;
    merged.pooled = options.pool;
    for (std::size_t p = 0; p < parts.size(); ++p)
        unpackIntervalParts(parts[p], globalRank[p], merged);
    std::vector<std::size_t> order(merged.ranks.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
        [&](std::size_t a, std::size_t b) { return merged.ranks[a].rank < merged.ranks[b].rank; });
    core::IntervalReport sorted;
    sorted.originNs = merged.originNs;
    sorted.intervalNs = merged.intervalNs;
    sorted.metric = merged.metric;
    sorted.pooled = merged.pooled;
    for (const auto i : order) {
        sorted.ranks.push_back(std::move(merged.ranks[i]));
        sorted.pingPong.push_back(std::move(merged.pingPong[i]));
    }
    core::finishIntervalReport(sorted, options);
    return sorted;
}

} // namespace gaplens::mpi
