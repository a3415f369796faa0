// SPDX-License-Identifier: MIT
// `gaps` and `blame`: where the GPU was idle, and why.
#include "command_context.h"
#include "command_json.h"

#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/util/parallel.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

namespace gaplens::cli {
namespace {

// The gaps of the selected ranks' GPUs, in (GPU, start) order; none when the selection
// matches no GPU.
template <typename OnGap> void forEachSelectedGap(const CommandContext &ctx, OnGap onGap)
{
    const auto &derived = ctx.derived();
    for (const auto &range : derived.gapsIn(ctx.rankSelection(), std::nullopt))
        for (auto k = range.begin; k < range.end; ++k)
            onGap(derived.gap({ range.gpu, k }));
}

std::string stackText(const CommandContext &ctx, const core::GapBlame &gap)
{
    std::string s;
    for (auto name : gap.phaseStack)
        s += (s.empty() ? "" : " > ") + ctx.str(name);
    return s;
}

std::string causeText(const CommandContext &ctx, const core::GapBlame &gap)
{
    return gap.cause == core::GapCause::ApiCall ? ctx.str(gap.apiName) : std::string(core::gapCauseLabel(gap.cause));
}

// A call stack's frames, outer to inner, as {module, symbol} objects; [] for chain 0.
Json stackJson(const CommandContext &ctx, std::uint32_t report, std::uint32_t chain)
{
    Json frames = Json::array();
    const auto stack = ctx.t().reports[report].callchains.stackOf(chain);
    for (std::size_t i = 0; i < stack.size(); ++i) {
        Json frame;
        frame["module"] = ctx.str(stack.module[i]);
        frame["symbol"] = ctx.str(stack.symbol[i]);
        frames.push_back(std::move(frame));
    }
    return frames;
}

const char *causeId(core::GapCause cause)
{
    switch (cause) {
    case core::GapCause::QueuedDependencyWait: return "queued";
    case core::GapCause::ApiCall: return "api_call";
    case core::GapCause::NoCudaCall: return "no_cuda_call";
    case core::GapCause::Copy: return "copy";
    }
    return "unknown";
}

// A blame row's figures, after its keys: every kind of row (cause, phase, OS call) the same.
void addBucketFigures(Json &row, const core::BlameBucket &b, core::TimeNs total)
{
    row["count"] = b.count;
    row["total_ns"] = b.totalNs;
    row["pct"] = total ? 100.0 * double(b.totalNs) / double(total) : 0.0;
    row["longest_ns"] = b.longestNs;
    row["copy_ns"] = b.copyNs;
}

Json bucketsJson(
    const CommandContext &ctx, const std::vector<core::BlameBucket> &buckets, core::TimeNs total, bool causes)
{
    Json rows = Json::array();
    for (const auto &b : buckets) {
        Json row;
        if (causes) {
            row["cause"] = causeId(b.cause);
            row["label"] = b.key;
            row["api"] = b.cause == core::GapCause::ApiCall ? ctx.str(b.name) : std::string();
        } else {
            row["nvtx"] = b.key;
        }
        addBucketFigures(row, b, total);
        rows.push_back(std::move(row));
    }
    return rows;
}

// Rows of by_os_call (`osCalls`) or by_os_category: the per-gap fields' values, "" for the
// gaps without an OS call.
Json osBucketsJson(
    const CommandContext &ctx, const std::vector<core::BlameBucket> &buckets, core::TimeNs total, bool osCalls)
{
    Json rows = Json::array();
    for (const auto &b : buckets) {
        Json row;
        if (osCalls)
            row["os_call"] = b.name != core::kEmptyString ? ctx.str(b.name) : std::string();
        row["os_category"] = std::string(core::osCategoryId(b.osCategory));
        addBucketFigures(row, b, total);
        rows.push_back(std::move(row));
    }
    return rows;
}

Table bucketTable(
    const std::string &title, const char *keyHeader, const std::vector<core::BlameBucket> &buckets, core::TimeNs total)
{
    Table table(title);
    table.addColumns({ { keyHeader, keyHeader }, { "gaps", "count" }, { "idle", "total_ns" }, { "% of idle", "pct" },
        { "longest", "longest_ns" } });
    for (const auto &b : buckets)
        table.addRow({ textCell(b.key), countCell(b.count), durationCell(double(b.totalNs)),
            percentCell(total ? 100.0 * double(b.totalNs) / double(total) : 0.0), durationCell(double(b.longestNs)) });
    return table;
}

} // namespace

void addBlameTotals(Json &object, const CommandContext &ctx, const core::BlameTotals &t)
{
    object["gap_count"] = t.gapCount;
    object["gap_ns"] = t.totalGapNs;
    object["copy_ns"] = t.copyNs;
    object["copy_cause_ns"] = t.copyCauseNs;
    object["by_cause"] = bucketsJson(ctx, t.byCause, t.totalGapNs, true);
    object["by_phase"] = bucketsJson(ctx, t.byPhase, t.totalGapNs, false);
    object["by_os_call"] = osBucketsJson(ctx, t.byOsCall, t.totalGapNs, true);
    object["by_os_category"] = osBucketsJson(ctx, t.byOsCategory, t.totalGapNs, false);
}

Json gapJson(const CommandContext &ctx, const core::GapBlame &gap)
{
    Json out;
    out["rank"] = ctx.rankNumber(gap.rank);
    out["device"] = ctx.t().gpus[gap.gpu].deviceId;
    out["start_ns"] = gap.gap.start;
    out["end_ns"] = gap.gap.end;
    out["duration_ns"] = gap.gap.duration();
    out["cause"] = causeId(gap.cause);
    out["api"] = gap.cause == core::GapCause::ApiCall ? ctx.str(gap.apiName) : std::string();
    out["api_kind"] = std::string(core::apiKindId(gap.apiKind));
    out["copy_ns"] = gap.copyNs;
    out["launch_tid"] = gap.launchTid;
    out["waited_on"] = std::string(core::waitKindId(gap.waitedOn));
    out["waited_on_stream"] = gap.waitStream ? Json(*gap.waitStream) : Json(nullptr);
    out["stack"] = stackJson(ctx, ctx.t().gpus[gap.gpu].report, gap.launchCallchain);
    out["nvtx"] = ctx.str(gap.phase());
    Json stack = Json::array();
    for (auto name : gap.phaseStack)
        stack.push_back(ctx.str(name));
    out["nvtx_stack"] = std::move(stack);
    out["os_call"] = gap.osCall != core::kEmptyString ? ctx.str(gap.osCall) : std::string();
    out["os_category"] = std::string(core::osCategoryId(gap.osCategory));
    out["os_stack"] = gap.phaseThread != core::kNoIndex
        ? stackJson(ctx, ctx.t().threads[gap.phaseThread].report, gap.osCallchain)
        : Json::array();
    return out;
}

std::vector<Cell> gapRow(const CommandContext &ctx, const core::GapBlame &gap)
{
    auto start = textCell(ctx.relativeTime(gap.gap.start));
    start.raw = fmt::format("{}", gap.gap.start);
    start.alignRight = true;
    return { countCell(std::uint64_t(ctx.rankNumber(gap.rank))),
        countCell(std::uint64_t(ctx.t().gpus[gap.gpu].deviceId)), start, durationCell(double(gap.gap.duration())),
        textCell(causeText(ctx, gap)), textCell(core::gapCauseDetail(ctx.t(), gap)), textCell(stackText(ctx, gap)) };
}

Table gapTable(const Options &options)
{
    Table table(fmt::format("Idle gaps >= {} (start relative to the capture's first event)",
        core::formatDuration(double(options.minGapNs))));
    table.addColumns({ { "rank", "rank" }, { "GPU", "device" }, { "start", "start_ns" }, { "length", "duration_ns" },
        { "cause", "cause" }, { "detail", "detail" }, { "NVTX phase", "nvtx_stack" } });
    return table;
}

Json gapsDocument(const CommandContext &ctx)
{
    auto doc = jsonDocument(ctx);
    doc["min_gap_ns"] = ctx.options.minGapNs;
    doc["with_copies"] = ctx.options.withCopies;
    return doc;
}

int runGaps(const CommandContext &ctx)
{
    // A big capture has tens of thousands of gaps: their rows are written on the load's threads.
    std::vector<const core::GapBlame *> gaps;
    forEachSelectedGap(ctx, [&](const core::GapBlame &gap) { gaps.push_back(&gap); });
    if (ctx.options.format == Format::Json) {
        printJsonWithArray(gapsDocument(ctx), "gaps", gaps.size(), core::threadsOrEveryCore(ctx.options.threads),
            [&](std::size_t i) { return gapJson(ctx, *gaps[i]); });
        return 0;
    }
    std::vector<std::vector<Cell>> rows(gaps.size());
    core::parallelFor(gaps.size(), core::threadsOrEveryCore(ctx.options.threads),
        [&](std::size_t i) { rows[i] = gapRow(ctx, *gaps[i]); });
    std::vector<Table> tables { gapTable(ctx.options) };
    for (auto &row : rows)
        tables.front().addRow(std::move(row));
    printTables(ctx.options.format, tables);
    return 0;
}

core::GapBlameReport blameReport(const CommandContext &ctx)
{
    // Every rank: the derived capture's own totals; a selection: those of its GPUs' gaps.
    const auto selection = ctx.rankSelection();
    const auto &derived = ctx.derived();
    core::GapBlameReport report;
    if (selection.isAll()) {
        report.overall = derived.overallTotals();
        report.perGpu = derived.gpuTotals();
        report.perRank = derived.rankTotals();
    } else {
        report = derived.blameReport(selection);
    }
    return report;
}

int runBlame(const CommandContext &ctx)
{
    return printBlame(ctx, blameReport(ctx));
}

int printBlame(const CommandContext &ctx, const core::GapBlameReport &report)
{
    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        doc["min_gap_ns"] = ctx.options.minGapNs;
        doc["with_copies"] = ctx.options.withCopies;
        Json overall;
        addBlameTotals(overall, ctx, report.overall);
        doc["overall"] = std::move(overall);
        doc["ranks"] = perRankJson(
            ctx, report.perRank, [&](const auto &r, std::size_t, Json &out) { addBlameTotals(out, ctx, r.totals); });
        Json devices = Json::array();
        for (const auto &g : report.perGpu) {
            Json out;
            out["device"] = ctx.t().gpus[g.gpu].deviceId;
            Json rankNumbers = Json::array();
            for (auto r : ctx.t().gpus[g.gpu].ranks)
                rankNumbers.push_back(ctx.rankNumber(r));
            out["ranks"] = std::move(rankNumbers);
            addBlameTotals(out, ctx, g.totals);
            devices.push_back(std::move(out));
        }
        doc["devices"] = std::move(devices);
        printJson(doc);
        return 0;
    }
    const auto &o = report.overall;
    auto heading = fmt::format("{} idle gaps >= {}, {} in total", o.gapCount,
        core::formatDuration(double(ctx.options.minGapNs)), core::formatDuration(double(o.totalGapNs)));
    if (o.copyNs > 0)
        heading += fmt::format(", of which copies or memsets ran {}", core::formatDuration(double(o.copyNs)));
    std::vector<Table> tables { bucketTable("Idle time by cause: " + heading, "cause", o.byCause, o.totalGapNs),
        bucketTable("Idle time by NVTX phase", "NVTX phase", o.byPhase, o.totalGapNs),
        bucketTable("Idle time by OS runtime call", "OS call", o.byOsCall, o.totalGapNs),
        bucketTable("Idle time by OS call category", "OS category", o.byOsCategory, o.totalGapNs) };
    if (ctx.options.perRank)
        for (const auto &r : report.perRank) {
            const auto n = ctx.rankNumber(r.rank);
            tables.push_back(bucketTable(
                fmt::format("Rank {}: idle time by cause", n), "cause", r.totals.byCause, r.totals.totalGapNs));
            tables.push_back(bucketTable(fmt::format("Rank {}: idle time by NVTX phase", n), "NVTX phase",
                r.totals.byPhase, r.totals.totalGapNs));
            tables.push_back(bucketTable(fmt::format("Rank {}: idle time by OS runtime call", n), "OS call",
                r.totals.byOsCall, r.totals.totalGapNs));
            tables.push_back(bucketTable(fmt::format("Rank {}: idle time by OS call category", n), "OS category",
                r.totals.byOsCategory, r.totals.totalGapNs));
        }
    printTables(ctx.options.format, tables);
    return 0;
}

} // namespace gaplens::cli
