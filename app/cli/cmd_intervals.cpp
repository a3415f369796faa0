// SPDX-License-Identifier: MIT
// `intervals`: per rank and fixed interval, kernel statistics, busy time and copies, the
// anomalous intervals by the IQR rule and the transfer mix of the most variable ones.
// `transfers`: copies per rank and direction, in total and per interval, and ping-pong.
// docs/intervals.md defines the figures, docs/cli-json.md the JSON.
#include "command_context.h"
#include "command_json.h"

#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::cli {
namespace {

// "Unified HtoD" -> "unified_htod", for CSV headers.
std::string slug(std::size_t slot)
{
    std::string out;
    for (char c : core::copySlotName(slot))
        out += c == ' ' ? '_' : char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::optional<double> gibPerSecond(const core::CopyFigures &f)
{
    if (f.ns <= 0)
        return std::nullopt;
    return double(f.bytes) / double(f.ns) * 1e9 / double(1ull << 30);
}

Cell bandwidthCell(const core::CopyFigures &f)
{
    const auto gib = gibPerSecond(f);
    return { core::formatBandwidth(f.bytes, f.ns), gib ? fmt::format("{:.3f}", *gib) : std::string(), true };
}

// The document of the intervals and transfers commands: the common fields and the interval grid.
Json gridDocument(const CommandContext &ctx, const core::IntervalReport &report)
{
    auto doc = jsonDocument(ctx);
    doc["origin_ns"] = report.originNs;
    doc["interval_ns"] = report.intervalNs;
    return doc;
}

// An interval's place on the grid: its index from the origin and its start.
Json gridIntervalJson(const core::IntervalReport &report, std::int64_t index)
{
    Json iv;
    iv["index"] = index;
    iv["start_ns"] = report.originNs + index * report.intervalNs;
    return iv;
}

Cell metricCell(core::IntervalMetric metric, double value)
{
    switch (metric) {
    case core::IntervalMetric::Kernels: return countCell(std::uint64_t(value));
    case core::IntervalMetric::Bytes:
    case core::IntervalMetric::HtoD:
    case core::IntervalMetric::DtoH: return bytesCell(std::uint64_t(value));
    default: return durationCell(value);
    }
}

Json fencesJson(const core::Fences &f)
{
    Json out;
    out["n"] = f.n;
    out["q1"] = f.q1;
    out["q3"] = f.q3;
    out["iqr"] = f.iqr;
    out["lower"] = f.lower;
    out["upper"] = f.upper;
    return out;
}

Json anomaliesJson(const CommandContext &ctx, const core::AnomalyGroup &group, bool withRank)
{
    Json out = Json::array();
    for (const auto &a : group.top) {
        Json entry;
        if (withRank)
            entry["rank"] = ctx.rankNumber(a.rank);
        entry["index"] = a.index;
        entry["start_ns"] = a.startNs;
        entry["value"] = a.value;
        entry["score"] = a.score;
        out.push_back(std::move(entry));
    }
    return out;
}

Json groupJson(const core::TransferGroup &g, const std::vector<std::size_t> &slots)
{
    const auto total = core::transferTotal(g.copies);
    Json out;
    out["intervals"] = g.intervals;
    Json copies = Json::object();
    for (const auto s : slots) {
        Json c = copyJson(g.copies[s], false);
        const bool transfer = s != core::kMemsetSlot;
        c["bytes_share"]
            = numberOrNull(transfer && total.bytes > 0 ? std::optional(double(g.copies[s].bytes) / double(total.bytes))
                                                       : std::nullopt);
        c["ns_share"] = numberOrNull(
            transfer && total.ns > 0 ? std::optional(double(g.copies[s].ns) / double(total.ns)) : std::nullopt);
        copies[std::string(core::copySlotName(s))] = std::move(c);
    }
    out["copies"] = std::move(copies);
    out["ping_pong_copies"] = g.pingPongCopies;
    return out;
}

} // namespace

// The copy slots with a copy anywhere in the report: every interval's `copies` lists these.
std::vector<std::size_t> presentCopySlots(const core::IntervalReport &report)
{
    std::vector<std::size_t> slots;
    for (std::size_t s = 0; s < core::kCopySlotCount; ++s) {
        bool any = false;
        for (const auto &ri : report.ranks)
            for (const auto &iv : ri.intervals)
                any = any || iv.copies[s].count > 0;
        if (any)
            slots.push_back(s);
    }
    return slots;
}

Json copyJson(const core::CopyFigures &f, bool bandwidth)
{
    Json out;
    out["count"] = f.count;
    out["bytes"] = f.bytes;
    out["ns"] = f.ns;
    if (bandwidth)
        out["bandwidth_gib_s"] = numberOrNull(gibPerSecond(f));
    return out;
}

Json copiesJson(const core::CopyMix &mix, const std::vector<std::size_t> &slots, bool bandwidth)
{
    Json out = Json::object();
    for (const auto s : slots)
        out[std::string(core::copySlotName(s))] = copyJson(mix[s], bandwidth);
    return out;
}

void addIntervalRankFields(Json &rank, const CommandContext &ctx, const core::IntervalReport &report, std::size_t e,
    const std::vector<std::size_t> &slots)
{
    const auto &ri = report.ranks[e];
    rank["events_before_origin"] = ri.eventsBeforeOrigin;
    Json intervals = Json::array();
    for (std::size_t i = 0; i < ri.intervals.size(); ++i) {
        const auto &s = ri.intervals[i];
        Json iv = gridIntervalJson(report, ri.firstIndex + std::int64_t(i));
        iv["kernel_count"] = s.kernels.count;
        iv["kernel_ns"] = core::TimeNs(s.kernels.sum);
        iv["kernel_min_ns"] = s.kernels.min;
        iv["kernel_max_ns"] = s.kernels.max;
        iv["kernel_mean_ns"] = s.kernels.mean();
        iv["kernel_stddev_ns"] = s.kernels.sampleStddev();
        iv["busy_ns"] = s.busyNs;
        iv["stall_ns"] = s.stallNs();
        iv["copies"] = copiesJson(s.copies, slots, false);
        intervals.push_back(std::move(iv));
    }
    rank["intervals"] = std::move(intervals);
    if (!report.pooled) {
        const auto &group = report.anomalies[e];
        rank["fences"] = fencesJson(group.fences);
        rank["anomalous"] = group.anomalous;
        rank["anomalies"] = anomaliesJson(ctx, group, false);
    }
}

Json pingPongJson(const core::PingPong &pp)
{
    Json pingPong;
    pingPong["runs"] = pp.runs;
    pingPong["copies"] = pp.copies;
    pingPong["htod_dtoh_copies"] = pp.htodDtohCopies;
    pingPong["median_bytes"] = numberOrNull(pp.copies > 0 ? std::optional(pp.medianBytes) : std::nullopt);
    pingPong["longest_run"] = pp.longestRun;
    return pingPong;
}

core::CopyMix rankCopyTotals(const core::IntervalReport &report, std::size_t e)
{
    core::CopyMix totals;
    for (const auto &iv : report.ranks[e].intervals)
        for (std::size_t s = 0; s < core::kCopySlotCount; ++s)
            totals[s].merge(iv.copies[s]);
    return totals;
}

core::IntervalOptions intervalOptions(const Options &cli)
{
    core::IntervalOptions options;
    options.intervalNs = cli.intervalNs;
    options.originNs = cli.originNs;
    options.metric = core::parseIntervalMetric(cli.intervalMetric).value_or(core::IntervalMetric::Stddev);
    options.top = cli.anomalyTop;
    options.topPercent = cli.topPercent;
    options.pool = cli.pool;
    options.threads = cli.threads;
    return options;
}

core::IntervalReport intervalReport(const CommandContext &ctx)
{
    // Busy time is the union of kernels, whatever --with-copies would say elsewhere.
    return core::computeIntervals(ctx.derivedKernelsOnly(), intervalOptions(ctx.options));
}

int runIntervals(const CommandContext &ctx)
{
    return printIntervals(ctx, intervalReport(ctx));
}

int runTransfers(const CommandContext &ctx)
{
    return printTransfers(ctx, intervalReport(ctx));
}

int printIntervals(const CommandContext &ctx, const core::IntervalReport &report)
{
    const auto slots = presentCopySlots(report);
    const auto metricName = std::string(core::intervalMetricName(report.metric));
    const auto &v = report.variability;

    if (ctx.options.format == Format::Json) {
        auto doc = gridDocument(ctx, report);
        doc["metric"] = metricName;
        doc["pooled"] = report.pooled;
        doc["ranks"] = perRankJson(ctx, report.ranks,
            [&](const auto &, std::size_t e, Json &rank) { addIntervalRankFields(rank, ctx, report, e, slots); });
        if (report.pooled) {
            Json pooled;
            const auto &group = report.anomalies.front();
            pooled["fences"] = fencesJson(group.fences);
            pooled["anomalous"] = group.anomalous;
            pooled["anomalies"] = anomaliesJson(ctx, group, true);
            doc["pool"] = std::move(pooled);
        }
        Json variability;
        variability["top_percent"] = v.topPercent;
        variability["pattern"] = core::variabilityPatternName(v.pattern);
        variability["dominant_direction"] = v.pattern == core::VariabilityPattern::Direction
            ? Json(std::string(core::copySlotName(v.dominantSlot)))
            : Json(nullptr);
        variability["ping_pong_median_bytes"] = numberOrNull(
            v.pattern == core::VariabilityPattern::PingPong ? std::optional(v.pingPongMedianBytes) : std::nullopt);
        variability["finding"] = v.finding;
        variability["top"] = groupJson(v.top, slots);
        variability["rest"] = groupJson(v.rest, slots);
        doc["variability"] = std::move(variability);
        printJson(doc);
        return 0;
    }

    Table table(fmt::format("Intervals of {} from {} (absolute {} ns); kernels by start, busy = union of kernels "
                            "clipped to the interval, stall = copy time",
        core::formatDuration(double(report.intervalNs)), ctx.relativeTime(report.originNs), report.originNs));
    table.addColumns({ { "rank", "rank" }, { "interval", "index" }, { "start", "start_ns" },
        { "kernels", "kernel_count" }, { "kernel time", "kernel_ns" }, { "min", "kernel_min_ns" },
        { "max", "kernel_max_ns" }, { "mean", "kernel_mean_ns" }, { "stddev", "kernel_stddev_ns" },
        { "busy", "busy_ns" }, { "stall", "stall_ns" } });
    for (const auto s : slots) {
        const std::string name(core::copySlotName(s));
        table.addColumn(name + " copies", slug(s) + "_count");
        table.addColumn(name + " bytes", slug(s) + "_bytes");
        table.addColumn(name + " time", slug(s) + "_ns");
    }
    for (const auto &ri : report.ranks)
        for (std::size_t i = 0; i < ri.intervals.size(); ++i) {
            const auto &s = ri.intervals[i];
            const auto index = ri.firstIndex + std::int64_t(i);
            const auto start = report.originNs + index * report.intervalNs;
            std::vector<Cell> row { countCell(std::uint64_t(ctx.rankNumber(ri.rank))),
                Cell { std::to_string(index), std::to_string(index), true },
                Cell { ctx.relativeTime(start), std::to_string(start), true }, countCell(s.kernels.count),
                durationCell(double(core::TimeNs(s.kernels.sum))), durationCell(double(s.kernels.min)),
                durationCell(double(s.kernels.max)), durationCell(s.kernels.mean()),
                durationCell(s.kernels.sampleStddev()), durationCell(double(s.busyNs)),
                durationCell(double(s.stallNs())) };
            for (const auto slot : slots) {
                row.push_back(countCell(s.copies[slot].count));
                row.push_back(bytesCell(s.copies[slot].bytes));
                row.push_back(durationCell(double(s.copies[slot].ns)));
            }
            table.addRow(std::move(row));
        }

    Table anomalies(fmt::format("Anomalous intervals by {} ({}): beyond Q1 - 1.5 IQR or Q3 + 1.5 IQR; score = "
                                "distance beyond the fence / IQR (the distance when IQR is 0)",
        metricName, report.pooled ? "all ranks pooled" : "per rank"));
    anomalies.addColumns({ { "rank", "rank" }, { "interval", "index" }, { "start", "start_ns" }, { "value", "value" },
        { "score", "score" }, { "Q1", "q1" }, { "Q3", "q3" }, { "anomalous", "anomalous" } });
    for (const auto &group : report.anomalies)
        for (const auto &a : group.top)
            anomalies.addRow({ countCell(std::uint64_t(ctx.rankNumber(a.rank))),
                Cell { std::to_string(a.index), std::to_string(a.index), true },
                Cell { ctx.relativeTime(a.startNs), std::to_string(a.startNs), true },
                metricCell(report.metric, a.value),
                Cell { fmt::format("{:.2f}", a.score), fmt::format("{:.6g}", a.score), true },
                metricCell(report.metric, group.fences.q1), metricCell(report.metric, group.fences.q3),
                countCell(group.anomalous) });

    Table mix(fmt::format("Transfers of the top {}% of intervals by {} against the rest", v.topPercent, metricName));
    mix.addColumns({ { "intervals", "group" }, { "count", "intervals" }, { "direction", "direction" },
        { "copies", "count" }, { "bytes", "bytes" }, { "time", "ns" }, { "per interval", "ns_per_interval" } });
    for (const auto *group : { &v.top, &v.rest })
        for (const auto s : slots)
            mix.addRow({ textCell(group == &v.top ? "top" : "rest"), countCell(group->intervals),
                textCell(std::string(core::copySlotName(s))), countCell(group->copies[s].count),
                bytesCell(group->copies[s].bytes), durationCell(double(group->copies[s].ns)),
                durationCell(group->intervals ? double(group->copies[s].ns) / double(group->intervals) : 0.0) });

    std::vector<Table> tables { table };
    if (!anomalies.empty())
        tables.push_back(anomalies);
    if (!mix.empty())
        tables.push_back(mix);
    printTables(ctx.options.format, tables);
    if (ctx.options.format == Format::Table) {
        if (anomalies.empty())
            std::printf("\nno anomalous interval by %s\n", metricName.c_str());
        std::printf("\n%s\n", v.finding.c_str());
    }
    return 0;
}

int printTransfers(const CommandContext &ctx, const core::IntervalReport &report)
{
    const auto slots = presentCopySlots(report);
    std::vector<core::CopyMix> totals;
    for (std::size_t e = 0; e < report.ranks.size(); ++e)
        totals.push_back(rankCopyTotals(report, e));

    if (ctx.options.format == Format::Json) {
        auto doc = gridDocument(ctx, report);
        doc["ranks"] = perRankJson(ctx, report.ranks, [&](const auto &ri, std::size_t e, Json &rank) {
            rank["totals"] = copiesJson(totals[e], slots, true);
            Json intervals = Json::array();
            for (std::size_t i = 0; i < ri.intervals.size(); ++i) {
                Json iv = gridIntervalJson(report, ri.firstIndex + std::int64_t(i));
                iv["copies"] = copiesJson(ri.intervals[i].copies, slots, true);
                intervals.push_back(std::move(iv));
            }
            rank["intervals"] = std::move(intervals);
            rank["ping_pong"] = pingPongJson(report.pingPong[e]);
        });
        printJson(doc);
        return 0;
    }

    const auto directionColumns = [](Table &t) {
        t.addColumns({ { "direction", "direction" }, { "copies", "count" }, { "bytes", "bytes" }, { "time", "ns" },
            { "bandwidth", "bandwidth_gib_s" } });
    };
    Table total("Copies per rank and direction (bandwidth = bytes / copy time, binary units: GiB/s = 2^30 B/s)");
    total.addColumns({ { "rank", "rank" } });
    directionColumns(total);
    for (std::size_t e = 0; e < report.ranks.size(); ++e)
        for (const auto s : slots)
            if (totals[e][s].count > 0)
                total.addRow({ countCell(std::uint64_t(ctx.rankNumber(report.ranks[e].rank))),
                    textCell(std::string(core::copySlotName(s))), countCell(totals[e][s].count),
                    bytesCell(totals[e][s].bytes), durationCell(double(totals[e][s].ns)),
                    bandwidthCell(totals[e][s]) });

    Table perInterval(fmt::format("Copies per interval of {} from {} (absolute {} ns), by the interval of their start",
        core::formatDuration(double(report.intervalNs)), ctx.relativeTime(report.originNs), report.originNs));
    perInterval.addColumns({ { "rank", "rank" }, { "interval", "index" }, { "start", "start_ns" } });
    directionColumns(perInterval);
    for (const auto &ri : report.ranks)
        for (std::size_t i = 0; i < ri.intervals.size(); ++i) {
            const auto index = ri.firstIndex + std::int64_t(i);
            const auto start = report.originNs + index * report.intervalNs;
            for (const auto s : slots) {
                const auto &f = ri.intervals[i].copies[s];
                if (f.count == 0)
                    continue;
                perInterval.addRow({ countCell(std::uint64_t(ctx.rankNumber(ri.rank))),
                    Cell { std::to_string(index), std::to_string(index), true },
                    Cell { ctx.relativeTime(start), std::to_string(start), true },
                    textCell(std::string(core::copySlotName(s))), countCell(f.count), bytesCell(f.bytes),
                    durationCell(double(f.ns)), bandwidthCell(f) });
            }
        }

    Table pingPong(fmt::format("Ping-pong: runs of at least {} consecutive copies of a rank alternating HtoD and DtoH",
        core::kPingPongMinRun));
    pingPong.addColumns({ { "rank", "rank" }, { "runs", "runs" }, { "copies in runs", "copies" },
        { "HtoD+DtoH copies", "htod_dtoh_copies" }, { "median size", "median_bytes" },
        { "longest run", "longest_run" } });
    for (std::size_t e = 0; e < report.ranks.size(); ++e) {
        const auto &pp = report.pingPong[e];
        pingPong.addRow({ countCell(std::uint64_t(ctx.rankNumber(report.ranks[e].rank))), countCell(pp.runs),
            countCell(pp.copies), countCell(pp.htodDtohCopies),
            pp.copies > 0 ? bytesCell(std::uint64_t(pp.medianBytes)) : textCell("-"), countCell(pp.longestRun) });
    }

    std::vector<Table> tables { total };
    if (!perInterval.empty())
        tables.push_back(perInterval);
    tables.push_back(pingPong);
    printTables(ctx.options.format, tables);
    if (ctx.options.format == Format::Table && total.empty())
        std::printf("\nno copy or memset in the capture\n");
    return 0;
}

} // namespace gaplens::cli
