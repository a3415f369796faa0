// SPDX-License-Identifier: MIT
// `kernels`, `nvtx` and `api`: nsys-stats-like summaries sharing one row layout.
#include "command_context.h"

#include "gaplens/core/analysis/summaries.h"

#include <fmt/format.h>

namespace gaplens::cli {
namespace {

// The statistics columns every summary shares, in nsys stats order.
void addStatsColumns(Table &table, const char *countName)
{
    table.addColumns({ { countName, countName }, { "total", "total_ns" }, { "%", "pct" }, { "avg", "avg_ns" },
        { "median", "median_ns" }, { "min", "min_ns" }, { "max", "max_ns" }, { "stddev", "stddev_ns" } });
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

void addStatsFields(Json &row, const core::DurationStats &s, double percent, const char *countName)
{
    row[countName] = s.count;
    row["total_ns"] = s.totalNs;
    row["pct"] = percent;
    row["avg_ns"] = s.avgNs;
    row["median_ns"] = s.medianNs;
    row["min_ns"] = s.minNs;
    row["max_ns"] = s.maxNs;
    row["stddev_ns"] = s.stddevNs;
}

std::size_t rowLimit(const CommandContext &ctx, std::size_t size)
{
    return ctx.options.top ? std::min(ctx.options.top, size) : size;
}

// What differs between the kernel, NVTX and API summaries: names, and NVTX's style column.
struct SummaryLayout
{
    const char *nameHeader; // table header of the name column
    const char *arrayKey; // JSON array of rows
    const char *countKey; // JSON name of the count
    const char *styleHeader = nullptr; // an extra text column (NVTX push/pop or start/end)
};

template <typename Row> const char *styleOf(const Row &row)
{
    if constexpr (requires { row.kind; })
        return core::nvtxStyleName(row.kind);
    else
        return "";
}

template <typename Summary>
Table summaryTable(const CommandContext &ctx, const Summary &summary, const SummaryLayout &layout, std::string title)
{
    Table table(std::move(title));
    table.addColumn(layout.nameHeader, "name");
    if (layout.styleHeader)
        table.addColumn(layout.styleHeader, "style");
    addStatsColumns(table, layout.countKey);
    for (std::size_t i = 0; i < rowLimit(ctx, summary.rows.size()); ++i) {
        const auto &row = summary.rows[i];
        std::vector<Cell> cells { textCell(ctx.str(row.name)) };
        if (layout.styleHeader)
            cells.push_back(textCell(styleOf(row)));
        appendStatsCells(cells, row.stats, row.percent);
        table.addRow(std::move(cells));
    }
    return table;
}

template <typename Summary>
void addSummaryRows(Json &object, const CommandContext &ctx, const Summary &summary, const SummaryLayout &layout)
{
    object["total_ns"] = summary.totalNs;
    object["instances"] = summary.instances;
    Json rows = Json::array();
    for (std::size_t i = 0; i < rowLimit(ctx, summary.rows.size()); ++i) {
        const auto &row = summary.rows[i];
        Json out;
        out["name"] = ctx.str(row.name);
        if (layout.styleHeader)
            out["style"] = styleOf(row);
        addStatsFields(out, row.stats, row.percent, layout.countKey);
        rows.push_back(std::move(out));
    }
    object[layout.arrayKey] = std::move(rows);
}

// nvtx and api: one summary, printed in the chosen format.
template <typename Summary>
int printSummary(const CommandContext &ctx, const Summary &summary, const SummaryLayout &layout, std::string title)
{
    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        addSummaryRows(doc, ctx, summary, layout);
        printJson(doc);
    } else {
        printTables(ctx.options.format, { summaryTable(ctx, summary, layout, std::move(title)) });
    }
    return 0;
}

constexpr SummaryLayout kKernelLayout { "kernel", "kernels", "calls" };
constexpr SummaryLayout kNvtxLayout { "range", "ranges", "instances", "style" };
constexpr SummaryLayout kApiLayout { "API", "calls", "calls" };

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
        auto doc = jsonDocument(ctx);
        doc["name_kind"] = ctx.options.demangled ? "demangled" : "short";
        addSummaryRows(doc, ctx, overall, kKernelLayout);
        if (ctx.options.perRank) {
            Json ranks = Json::array();
            for (const auto &s : perRank) {
                Json out;
                out["rank"] = ctx.rankNumber(s.rank);
                addSummaryRows(out, ctx, s, kKernelLayout);
                ranks.push_back(std::move(out));
            }
            doc["ranks"] = std::move(ranks);
        }
        printJson(doc);
        return 0;
    }
    std::vector<Table> tables { summaryTable(ctx, overall, kKernelLayout,
        fmt::format("Top kernels over {} (% of all kernel time)",
            ctx.options.rankNumbers.empty() ? "all ranks" : "selected ranks")) };
    for (const auto &s : perRank)
        tables.push_back(
            summaryTable(ctx, s, kKernelLayout, fmt::format("Top kernels of rank {}", ctx.rankNumber(s.rank))));
    printTables(ctx.options.format, tables);
    return 0;
}

int runNvtx(const CommandContext &ctx)
{
    core::SummaryOptions options;
    options.ranks = ctx.rankSelection();
    return printSummary(ctx, core::summarizeNvtx(ctx.t(), options), kNvtxLayout,
        "NVTX ranges (CPU time; % of all range time; per-call ', op_id = N' grouped)");
}

int runApi(const CommandContext &ctx)
{
    core::SummaryOptions options;
    options.ranks = ctx.rankSelection();
    return printSummary(ctx, core::summarizeApi(ctx.t(), options), kApiLayout, "CUDA API calls (% of all API time)");
}

} // namespace gaplens::cli
