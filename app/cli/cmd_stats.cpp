// SPDX-License-Identifier: MIT
// `kernels`, `nvtx` and `api`: nsys-stats-like summaries sharing one row layout.
#include "command_context.h"
#include "command_json.h"

#include "gaplens/core/analysis/kernel_histogram.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/util/units.h"

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
void addSummaryRows(
    Json &object, const CommandContext &ctx, const Summary &summary, const SummaryLayout &layout, std::size_t limit)
{
    object["total_ns"] = summary.totalNs;
    object["instances"] = summary.instances;
    Json rows = Json::array();
    for (std::size_t i = 0; i < limit; ++i) {
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
        addSummaryRows(doc, ctx, summary, layout, rowLimit(ctx, summary.rows.size()));
        printJson(doc);
    } else {
        printTables(ctx.options.format, { summaryTable(ctx, summary, layout, std::move(title)) });
    }
    return 0;
}

} // namespace

// `nvtx --gpu`: nvtx_gpu_proj_sum's figures; the statistics are of the projected durations.
int printNvtxProjection(const CommandContext &ctx, const core::NvtxProjectionSummary &summary)
{
    const std::size_t shown = rowLimit(ctx, summary.rows.size());
    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        doc["projection"] = "gpu";
        doc["total_ns"] = summary.totalNs;
        doc["instances"] = summary.instances;
        Json rows = Json::array();
        for (std::size_t i = 0; i < shown; ++i) {
            const auto &row = summary.rows[i];
            Json out;
            out["name"] = ctx.str(row.name);
            out["style"] = core::nvtxStyleName(row.kind);
            out["range_instances"] = row.rangeInstances;
            addStatsFields(out, row.stats, row.percent, "instances");
            rows.push_back(std::move(out));
        }
        doc["ranges"] = std::move(rows);
        printJson(doc);
        return 0;
    }
    Table table("NVTX ranges projected onto the GPU (first start to last end of the kernels, copies and memsets "
                "each range launched; ranges without GPU work left out; % of all projected time)");
    table.addColumn("range", "name");
    table.addColumn("style", "style");
    table.addColumn("ranges", "range_instances");
    addStatsColumns(table, "instances");
    for (std::size_t i = 0; i < shown; ++i) {
        const auto &row = summary.rows[i];
        std::vector<Cell> cells { textCell(ctx.str(row.name)), textCell(core::nvtxStyleName(row.kind)),
            countCell(row.rangeInstances) };
        appendStatsCells(cells, row.stats, row.percent);
        table.addRow(std::move(cells));
    }
    printTables(ctx.options.format, { table });
    return 0;
}

namespace {

// `kernels --hist NAME` on the whole capture.
int printKernelHistogram(const CommandContext &ctx)
{
    const auto &trace = ctx.t();
    const auto h
        = core::computeKernelHistogram(trace, trace.strings.find(*ctx.options.histKernel), kernelHistogramOptions(ctx));
    return printKernelHistogram(ctx, core::histogramFigures(trace, h, kSlowestKernels));
}

constexpr SummaryLayout kKernelLayout { "kernel", "kernels", "calls" };
constexpr SummaryLayout kNvtxLayout { "range", "ranges", "instances", "style" };
constexpr SummaryLayout kApiLayout { "API", "calls", "calls" };

} // namespace

core::KernelHistogramOptions kernelHistogramOptions(const CommandContext &ctx)
{
    core::KernelHistogramOptions options;
    options.ranks = ctx.rankSelection();
    options.useDemangledName = ctx.options.demangled;
    options.bins = ctx.options.histBins;
    options.logarithmic = ctx.options.histLog;
    return options;
}

// `kernels --hist NAME`: the bins, then (table format) median, p95 and the slowest launches.
int printKernelHistogram(const CommandContext &ctx, const core::KernelHistogramFigures &h)
{
    const auto &trace = ctx.t();
    const std::string &name = *ctx.options.histKernel;
    if (h.count == 0) {
        std::fprintf(stderr, "gaplens-cli: error: no kernel named '%s'%s (names as `kernels%s` lists them)\n",
            name.c_str(), ctx.options.rankNumbers.empty() ? "" : " on the selected ranks",
            ctx.options.demangled ? " --demangled" : "");
        return 1;
    }
    const auto &slowest = h.slowest;
    auto percentOf = [&](std::uint64_t n) { return 100.0 * double(n) / double(h.count); };
    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        doc["name"] = name;
        doc["name_kind"] = ctx.options.demangled ? "demangled" : "short";
        doc["axis"] = h.logarithmic ? "log" : "linear";
        doc["instances"] = h.count;
        doc["min_ns"] = h.minNs;
        doc["max_ns"] = h.maxNs;
        doc["median_ns"] = h.medianNs;
        doc["p95_ns"] = h.p95Ns;
        Json bins = Json::array();
        for (const auto &b : h.bins) {
            Json out;
            out["lo_ns"] = b.lo;
            out["hi_ns"] = b.hi;
            out["count"] = b.count;
            out["pct"] = percentOf(b.count);
            bins.push_back(std::move(out));
        }
        doc["bins"] = std::move(bins);
        Json slow = Json::array();
        for (const auto &k : slowest) {
            Json out;
            out["rank"] = ctx.rankNumber(k.rank);
            out["device"] = trace.gpus[k.gpu].deviceId;
            out["stream"] = k.streamId;
            out["start_ns"] = k.start;
            out["duration_ns"] = k.duration;
            slow.push_back(std::move(out));
        }
        doc["slowest"] = std::move(slow);
        printJson(doc);
        return 0;
    }
    Table table(fmt::format("Duration histogram of {} ({} launches, {} bins on a {} axis; the last bin includes its "
                            "upper edge)",
        name, h.count, h.bins.size(), h.logarithmic ? "log" : "linear"));
    table.addColumn("from", "lo_ns");
    table.addColumn("to", "hi_ns");
    table.addColumn("launches", "count");
    table.addColumn("%", "pct");
    for (const auto &b : h.bins)
        table.addRow({ durationCell(b.lo), durationCell(b.hi), countCell(b.count), percentCell(percentOf(b.count)) });
    printTables(ctx.options.format, { table });
    if (ctx.options.format != Format::Table)
        return 0;
    std::printf("\nmin %s, median %s, p95 %s, max %s\n", core::formatDuration(double(h.minNs)).c_str(),
        core::formatDuration(h.medianNs).c_str(), core::formatDuration(double(h.p95Ns)).c_str(),
        core::formatDuration(double(h.maxNs)).c_str());
    std::printf("slowest launches:\n");
    for (const auto &k : slowest)
        std::printf("  %s  rank %d, %s, stream %lld, at %s\n", core::formatDuration(double(k.duration)).c_str(),
            ctx.rankNumber(k.rank), ctx.gpuLabel(k.gpu).c_str(), static_cast<long long>(k.streamId),
            ctx.relativeTime(k.start).c_str());
    return 0;
}

void addKernelSummaryRows(Json &object, const CommandContext &ctx, const core::KernelSummary &summary, std::size_t top)
{
    addSummaryRows(object, ctx, summary, kKernelLayout, std::min(top, summary.rows.size()));
}

core::KernelSummaryOptions kernelSummaryOptions(const CommandContext &ctx)
{
    core::KernelSummaryOptions options;
    options.ranks = ctx.rankSelection();
    options.useDemangledName = ctx.options.demangled;
    return options;
}

int printKernels(
    const CommandContext &ctx, const core::KernelSummary &overall, const std::vector<core::KernelSummary> &perRank)
{
    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        doc["name_kind"] = ctx.options.demangled ? "demangled" : "short";
        addSummaryRows(doc, ctx, overall, kKernelLayout, rowLimit(ctx, overall.rows.size()));
        if (ctx.options.perRank) {
            doc["ranks"] = perRankJson(ctx, perRank, [&](const auto &s, std::size_t, Json &out) {
                addSummaryRows(out, ctx, s, kKernelLayout, rowLimit(ctx, s.rows.size()));
            });
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

int printNvtx(const CommandContext &ctx, const core::NvtxSummary &summary)
{
    return printSummary(
        ctx, summary, kNvtxLayout, "NVTX ranges (CPU time; % of all range time; per-call ', op_id = N' grouped)");
}

int printApi(const CommandContext &ctx, const core::ApiSummary &summary)
{
    return printSummary(ctx, summary, kApiLayout, "CUDA API calls (% of all API time)");
}

int runKernels(const CommandContext &ctx)
{
    if (ctx.options.histKernel)
        return printKernelHistogram(ctx);
    const auto options = kernelSummaryOptions(ctx);
    std::vector<core::KernelSummary> perRank;
    if (ctx.options.perRank)
        perRank = core::summarizeKernelsPerRank(ctx.t(), options);
    return printKernels(ctx, core::summarizeKernels(ctx.t(), options), perRank);
}

int runNvtx(const CommandContext &ctx)
{
    core::SummaryOptions options;
    options.ranks = ctx.rankSelection();
    if (ctx.options.gpuProjection)
        return printNvtxProjection(ctx, core::summarizeNvtxProjection(ctx.t(), options));
    return printNvtx(ctx, core::summarizeNvtx(ctx.t(), options));
}

int runApi(const CommandContext &ctx)
{
    core::SummaryOptions options;
    options.ranks = ctx.rankSelection();
    return printApi(ctx, core::summarizeApi(ctx.t(), options));
}

} // namespace gaplens::cli
