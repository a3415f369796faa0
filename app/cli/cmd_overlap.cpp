// SPDX-License-Identifier: MIT
// `overlap`: how much NCCL communication ran behind compute, per rank and GPU, and which rank
// the others waited for at each collective.
#include "command_context.h"

#include "gaplens/core/analysis/overlap.h"

#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <string>

namespace gaplens::cli {
namespace {

Json rankOrNull(const CommandContext &ctx, std::uint32_t rank)
{
    return rank == core::kNoIndex ? Json(nullptr) : Json(ctx.rankNumber(rank));
}

std::string rankText(const CommandContext &ctx, std::uint32_t rank)
{
    return rank == core::kNoIndex ? std::string("-") : std::to_string(ctx.rankNumber(rank));
}

} // namespace

core::OverlapOptions overlapOptions(const CommandContext &ctx)
{
    core::OverlapOptions options;
    options.ranks = ctx.rankSelection();
    return options;
}

int runOverlap(const CommandContext &ctx)
{
    return printOverlap(ctx, core::computeOverlap(ctx.t(), overlapOptions(ctx)));
}

int printOverlap(const CommandContext &ctx, const core::OverlapReport &report)
{
    const auto &trace = ctx.t();

    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        Json devices = Json::array();
        for (const auto &row : report.rows) {
            Json out;
            out["rank"] = rankOrNull(ctx, row.rank);
            out["device"] = trace.gpus[row.gpu].deviceId;
            out["comm_kernels"] = row.commKernels;
            out["compute_kernels"] = row.computeKernels;
            out["comm_ns"] = row.commNs;
            out["compute_ns"] = row.computeNs;
            out["overlap_ns"] = row.overlapNs;
            out["exposed_comm_ns"] = row.exposedCommNs;
            out["hidden_pct"] = numberOrNull(row.commNs > 0 ? std::optional(row.hiddenPercent) : std::nullopt);
            Json collectives = Json::array();
            for (const auto &c : row.collectives) {
                Json type;
                type["type"] = core::collectiveTypeName(c.type);
                type["calls"] = c.calls;
                type["total_ns"] = c.totalNs;
                collectives.push_back(std::move(type));
            }
            out["collectives"] = std::move(collectives);
            devices.push_back(std::move(out));
        }
        doc["devices"] = std::move(devices);
        doc["ranks"] = perRankJson(ctx, report.ranks, [&](const auto &r, std::size_t, Json &out) {
            out["instances"] = r.instances;
            out["median_skew_ns"] = numberOrNull(r.instances > 0 ? std::optional(r.medianSkewNs) : std::nullopt);
            out["max_skew_ns"] = r.maxSkewNs;
            out["times_last"] = r.timesLast;
        });
        Json instances = Json::array();
        for (const auto &instance : report.instances) {
            Json out;
            out["name"] = ctx.str(instance.name);
            out["type"] = core::collectiveTypeName(instance.type);
            out["occurrence"] = instance.occurrence;
            Json perRank = Json::array();
            for (std::size_t i = 0; i < instance.ranks.size(); ++i) {
                Json entry;
                entry["rank"] = ctx.rankNumber(instance.ranks[i]);
                entry["start_ns"] = instance.start[i];
                entry["skew_ns"] = instance.skewNs[i];
                perRank.push_back(std::move(entry));
            }
            out["ranks"] = std::move(perRank);
            out["last_rank"] = rankOrNull(ctx, instance.lastRank);
            instances.push_back(std::move(out));
        }
        doc["instances"] = std::move(instances);
        printJson(doc);
        return 0;
    }

    Table devices("Communication (NCCL kernels: union) and compute (all other kernels: union) per rank and GPU; "
                  "exposed = communication not overlapped by compute");
    devices.addColumns({ { "rank", "rank" }, { "GPU", "device" }, { "comm kernels", "comm_kernels" },
        { "compute kernels", "compute_kernels" }, { "comm", "comm_ns" }, { "compute", "compute_ns" },
        { "overlap", "overlap_ns" }, { "exposed comm", "exposed_comm_ns" }, { "hidden", "hidden_pct" } });
    for (const auto &row : report.rows) {
        // The label in the terminal, the CUDA device id in CSV.
        Cell gpu { ctx.gpuLabel(row.gpu), std::to_string(trace.gpus[row.gpu].deviceId) };
        devices.addRow({ textCell(rankText(ctx, row.rank)), gpu, countCell(row.commKernels),
            countCell(row.computeKernels), durationCell(double(row.commNs)), durationCell(double(row.computeNs)),
            durationCell(double(row.overlapNs)), durationCell(double(row.exposedCommNs)),
            row.commNs > 0 ? percentCell(row.hiddenPercent) : textCell("-") });
    }

    Table collectives("Collectives per rank and GPU (time: sum of kernel durations)");
    collectives.addColumns(
        { { "rank", "rank" }, { "GPU", "device" }, { "type", "type" }, { "calls", "calls" }, { "time", "total_ns" } });
    for (const auto &row : report.rows)
        for (const auto &c : row.collectives)
            collectives.addRow({ textCell(rankText(ctx, row.rank)),
                Cell { ctx.gpuLabel(row.gpu), std::to_string(trace.gpus[row.gpu].deviceId) },
                textCell(std::string(core::collectiveTypeName(c.type))), countCell(c.calls),
                durationCell(double(c.totalNs)) });

    Table skew("Start skew of collectives matched by order (k-th kernel of a name on each rank): start minus the "
               "earliest start; started last = the rank the others waited for");
    skew.addColumns({ { "rank", "rank" }, { "instances", "instances" }, { "median skew", "median_skew_ns" },
        { "max skew", "max_skew_ns" }, { "started last", "times_last" } });
    for (const auto &r : report.ranks)
        skew.addRow({ countCell(std::uint64_t(ctx.rankNumber(r.rank))), countCell(r.instances),
            r.instances > 0 ? durationCell(r.medianSkewNs) : textCell("-"), durationCell(double(r.maxSkewNs)),
            countCell(r.timesLast) });

    std::vector<Table> tables { devices };
    if (!collectives.empty())
        tables.push_back(collectives);
    if (!skew.empty())
        tables.push_back(skew);
    printTables(ctx.options.format, tables);
    if (ctx.options.format == Format::Table && report.instances.empty())
        std::printf("\nno collective ran on two or more ranks: no skew to show\n");
    return 0;
}

} // namespace gaplens::cli
