// SPDX-License-Identifier: MIT
// `kernels`, `nvtx` and `api`: nsys-stats-like summaries sharing one row layout.
#include "command_context.h"

#include "gaplens/core/analysis/summaries.h"

#include <fmt/format.h>

namespace gaplens::cli {
namespace {

// The statistics columns every summary shares, in nsys stats order.
void addStatsColumns(Table &table)
{
    table.addColumn("calls", "calls");
    table.addColumn("total", "total_ns");
    table.addColumn("%", "pct");
    table.addColumn("avg", "avg_ns");
    table.addColumn("median", "median_ns");
    table.addColumn("min", "min_ns");
    table.addColumn("max", "max_ns");
    table.addColumn("stddev", "stddev_ns");
}

void appendStatsCells(std::vector<Cell> &row, const core::DurationStats &s, double percent)
{
    row.push_back(countCell(s.count));
    row.push_back(durationCell(double(s.totalNs)));
    row.push_back(percentCell(percent));
    row.push_back(durationCell(s.avgNs));
    row.push_back(durationCell(s.medianNs));
    row.push_back(durationCell(double(s.minNs)));
    row.push_back(durationCell(double(s.maxNs)));
    row.push_back(durationCell(s.stddevNs));
}

void writeStatsFields(JsonWriter &json, const core::DurationStats &s, double percent, const char *countName)
{
    json.field(countName, s.count);
    json.field("total_ns", s.totalNs);
    json.field("pct", percent);
    json.field("avg_ns", s.avgNs);
    json.field("median_ns", s.medianNs);
    json.field("min_ns", s.minNs);
    json.field("max_ns", s.maxNs);
    json.field("stddev_ns", s.stddevNs);
}

std::size_t rowLimit(const CommandContext &ctx, std::size_t size)
{
    return ctx.options.top ? std::min(ctx.options.top, size) : size;
}

Table kernelTable(const CommandContext &ctx, const core::KernelSummary &summary, const std::string &title)
{
    Table table(title);
    table.addColumn("kernel", "name");
    addStatsColumns(table);
    for (std::size_t i = 0; i < rowLimit(ctx, summary.rows.size()); ++i) {
        const auto &row = summary.rows[i];
        std::vector<Cell> cells{textCell(ctx.str(row.name))};
        appendStatsCells(cells, row.stats, row.percent);
        table.addRow(std::move(cells));
    }
    return table;
}

void writeKernelRows(JsonWriter &json, const CommandContext &ctx, const core::KernelSummary &summary)
{
    json.field("total_ns", summary.totalNs);
    json.field("instances", summary.instances);
    json.key("kernels").beginArray();
    for (std::size_t i = 0; i < rowLimit(ctx, summary.rows.size()); ++i) {
        const auto &row = summary.rows[i];
        json.beginObject();
        json.field("name", ctx.str(row.name));
        writeStatsFields(json, row.stats, row.percent, "calls");
        json.endObject();
    }
    json.endArray();
}

} // namespace

int runKernels(const CommandContext &ctx)
{
    core::KernelSummaryOptions options;
    options.ranks = ctx.rankSelection();
    options.useDemangledName = ctx.options.demangled;
    const auto overall = core::summarizeKernels(ctx.t(), options);
    std::vector<core::KernelSummary> perRank;
    if (ctx.options.perRank)
        perRank = core::summarizeKernelsPerRank(ctx.t(), options);

    if (ctx.options.format == Format::Json) {
        JsonWriter json;
        beginJsonDocument(json, ctx);
        json.field("name_kind", ctx.options.demangled ? "demangled" : "short");
        writeKernelRows(json, ctx, overall);
        if (ctx.options.perRank) {
            json.key("ranks").beginArray();
            for (const auto &s : perRank) {
                json.beginObject();
                json.field("rank", ctx.rankNumber(s.rank));
                writeKernelRows(json, ctx, s);
                json.endObject();
            }
            json.endArray();
        }
        json.endObject();
        printJson(json);
        return 0;
    }
    std::vector<Table> tables{kernelTable(
        ctx, overall,
        fmt::format("Top kernels over {} (% of all kernel time)", ctx.options.rankNumbers.empty() ? "all ranks" : "selected ranks"))};
    for (const auto &s : perRank)
        tables.push_back(kernelTable(ctx, s, fmt::format("Top kernels of rank {}", ctx.rankNumber(s.rank))));
    printTables(ctx, tables);
    return 0;
}

int runNvtx(const CommandContext &ctx)
{
    core::SummaryOptions options;
    options.ranks = ctx.rankSelection();
    const auto summary = core::summarizeNvtx(ctx.t(), options);
    auto style = [](core::NvtxKind k) { return k == core::NvtxKind::PushPop ? "PushPop" : "StartEnd"; };
    if (ctx.options.format == Format::Json) {
        JsonWriter json;
        beginJsonDocument(json, ctx);
        json.field("total_ns", summary.totalNs);
        json.field("instances", summary.instances);
        json.key("ranges").beginArray();
        for (std::size_t i = 0; i < rowLimit(ctx, summary.rows.size()); ++i) {
            const auto &row = summary.rows[i];
            json.beginObject();
            json.field("name", ctx.str(row.name));
            json.field("style", style(row.kind));
            writeStatsFields(json, row.stats, row.percent, "instances");
            json.endObject();
        }
        json.endArray();
        json.endObject();
        printJson(json);
        return 0;
    }
    Table table("NVTX ranges (CPU time; % of all range time)");
    table.addColumn("range", "name");
    table.addColumn("style", "style");
    addStatsColumns(table);
    for (std::size_t i = 0; i < rowLimit(ctx, summary.rows.size()); ++i) {
        const auto &row = summary.rows[i];
        std::vector<Cell> cells{textCell(ctx.str(row.name)), textCell(style(row.kind))};
        appendStatsCells(cells, row.stats, row.percent);
        table.addRow(std::move(cells));
    }
    printTables(ctx, {table});
    return 0;
}

int runApi(const CommandContext &ctx)
{
    core::SummaryOptions options;
    options.ranks = ctx.rankSelection();
    const auto summary = core::summarizeApi(ctx.t(), options);
    if (ctx.options.format == Format::Json) {
        JsonWriter json;
        beginJsonDocument(json, ctx);
        json.field("total_ns", summary.totalNs);
        json.field("instances", summary.instances);
        json.key("calls").beginArray();
        for (std::size_t i = 0; i < rowLimit(ctx, summary.rows.size()); ++i) {
            const auto &row = summary.rows[i];
            json.beginObject();
            json.field("name", ctx.str(row.name));
            writeStatsFields(json, row.stats, row.percent, "calls");
            json.endObject();
        }
        json.endArray();
        json.endObject();
        printJson(json);
        return 0;
    }
    Table table("CUDA API calls (% of all API time)");
    table.addColumn("API", "name");
    addStatsColumns(table);
    for (std::size_t i = 0; i < rowLimit(ctx, summary.rows.size()); ++i) {
        const auto &row = summary.rows[i];
        std::vector<Cell> cells{textCell(ctx.str(row.name))};
        appendStatsCells(cells, row.stats, row.percent);
        table.addRow(std::move(cells));
    }
    printTables(ctx, {table});
    return 0;
}

} // namespace gaplens::cli
