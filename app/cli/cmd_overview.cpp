// SPDX-License-Identifier: MIT
// `summary` and `ranks`: what was loaded, which rank is which, and how busy each GPU was.
#include "command_context.h"
#include "command_json.h"

#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/read/rank_identity.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <filesystem>

namespace gaplens::cli {
namespace {

std::string fileName(const std::string &path)
{
    return std::filesystem::path(path).filename().string();
}

void addProblems(Json &rank, const core::DataProblems &p, const core::LoadNotes &notes)
{
    Json problems;
    problems["null_start"] = p.nullStart;
    problems["null_end"] = p.nullEnd;
    problems["end_before_start"] = p.endBeforeStart;
    problems["unknown_string_id"] = p.unknownStringId;
    problems["time_not_integer"] = p.timeNotInteger;
    problems["time_out_of_range"] = p.timeOutOfRange;
    problems["device_id_out_of_range"] = p.deviceIdOutOfRange;
    problems["null_sync_column"] = p.nullSyncColumn;
    problems["null_callchain_column"] = p.nullCallchainColumn;
    problems["unknown_callchain_id"] = p.unknownCallchainId;
    problems["bad_memory_event"] = p.badMemoryEvent;
    problems["total"] = p.total();
    rank["problems"] = std::move(problems);
    rank["backtrace_duplicates_folded"] = notes.backtraceDuplicates;
    rank["overlapping_kernels_on_stream"] = notes.overlappingKernels;
}

std::string describeProblems(const core::DataProblems &p)
{
    std::vector<std::string> parts;
    auto add = [&](std::uint64_t n, const char *what) {
        if (n)
            parts.push_back(fmt::format("{} {}", n, what));
    };
    add(p.nullStart, "NULL start");
    add(p.nullEnd, "NULL end");
    add(p.endBeforeStart, "end<start");
    add(p.unknownStringId, "unknown string id");
    add(p.timeNotInteger, "time not an integer");
    add(p.timeOutOfRange, "time out of range");
    add(p.deviceIdOutOfRange, "deviceId out of range");
    add(p.nullSyncColumn, "NULL in a synchronisation record");
    add(p.nullCallchainColumn, "NULL in a callchain frame");
    add(p.unknownCallchainId, "unknown callchainId");
    add(p.badMemoryEvent, "bad GPU memory event");
    std::string s;
    for (const auto &part : parts)
        s += (s.empty() ? "" : ", ") + part;
    return s.empty() ? std::string("none") : s;
}

// Per GPU of the selected ranks: the peak of memory in use, allocations and frees; or why
// there is nothing to say.
void printGpuMemory(const CommandContext &ctx, const SummaryOutput &out)
{
    if (!out.memoryRecorded) {
        std::printf("\n%s\n", core::kNoMemoryUsageNote);
        return;
    }
    std::printf("\nGPU memory in use (device memory allocated during the capture):\n");
    for (const auto &rank : out.ranks)
        for (const auto &m : rank.memory) {
            std::printf("- rank %d %s: peak %s at %s, %llu allocations, %llu frees", m.rank, m.gpu.c_str(),
                core::formatBytes(m.peakBytes).c_str(), ctx.relativeTime(m.peakTime).c_str(),
                static_cast<unsigned long long>(m.allocations), static_cast<unsigned long long>(m.frees));
            if (m.unmatchedFrees)
                std::printf(" (%llu of memory allocated before the capture)",
                    static_cast<unsigned long long>(m.unmatchedFrees));
            std::printf("\n");
        }
}

std::string summaryTableTitle(const Options &options)
{
    return fmt::format("GPU busy time (union of kernels{} over all streams), idle gaps >= {}; busy % is over "
                       "the window from the first to the last kernel, idle outside is the rest of the capture",
        options.withCopies ? ", copies and memsets" : "", core::formatDuration(double(options.minGapNs)));
}

} // namespace

Json captureWarningsJson(const core::TraceSet &trace)
{
    Json warnings = trace.warnings;
    for (const auto &report : trace.reports)
        for (const auto &w : report.warnings)
            warnings.push_back(fmt::format("{}: {}", report.path, w));
    return warnings;
}

Json deviceSummaryJson(const CommandContext &ctx, std::uint32_t rankIndex, std::uint32_t g)
{
    const auto &trace = ctx.t();
    const auto &derived = ctx.derived();
    const auto &rank = trace.ranks[rankIndex];
    const auto &busy = derived.busy(core::GpuIndex(g));
    const auto &gaps = derived.gaps(core::GpuIndex(g));
    const auto outside = core::idleOutsideWindow(rank.span, busy.window);
    Json gpu;
    gpu["device"] = trace.gpus[g].deviceId;
    gpu["name"] = trace.gpus[g].name;
    gpu["busy_ns"] = busy.busyNs;
    gpu["window_start_ns"] = busy.window.start;
    gpu["window_end_ns"] = busy.window.end;
    gpu["busy_pct"] = busy.busyPercent;
    gpu["gap_count"] = std::uint64_t(gaps.size());
    gpu["gap_ns"] = gaps.totalNs;
    gpu["idle_before_first_ns"] = outside.beforeNs;
    gpu["idle_after_last_ns"] = outside.afterNs;
    gpu["kernel_count"] = std::uint64_t(trace.gpus[g].kernelCount());
    gpu["copy_count"] = std::uint64_t(trace.gpus[g].copies.size());
    gpu["shared_by_ranks"] = std::uint64_t(trace.gpus[g].ranks.size());
    const auto &memory = derived.gpuMemory().gpus[g];
    const bool recorded = derived.gpuMemory().recorded();
    gpu["memory_peak_bytes"] = recorded ? Json(memory.peakBytes) : Json();
    gpu["memory_allocations"] = recorded ? Json(memory.allocations) : Json();
    gpu["memory_frees"] = recorded ? Json(memory.frees) : Json();
    return gpu;
}

core::CaptureSummaryOptions summaryFindingOptions(
    const CommandContext &ctx, const std::optional<std::string> &stepRange)
{
    core::CaptureSummaryOptions options;
    options.ranks = ctx.rankSelection();
    options.minGapNs = ctx.options.minGapNs;
    options.stepRange = stepRange;
    return options;
}

SummaryRank summaryRank(const CommandContext &ctx, std::uint32_t r, std::optional<double> medianStep)
{
    const auto &trace = ctx.t();
    const auto &derived = ctx.derived();
    const auto &rank = trace.ranks[r];
    const auto &report = trace.reports[rank.report];
    SummaryRank out;

    Json &json = out.json;
    json["rank"] = rank.rank;
    json["file"] = report.path;
    json["pid"] = rank.pid;
    json["process"] = rank.processName;
    json["host"] = rank.host;
    json["rank_source"] = core::rankSourceName(rank.source);
    json["rank_detail"] = rank.sourceDetail;
    json["schema_version"] = report.schemaVersion;
    json["threads"] = std::uint64_t(rank.threads.size());
    json["median_step_ns"] = numberOrNull(medianStep);
    json["span_start_ns"] = rank.span.start;
    json["span_end_ns"] = rank.span.end;
    Json gpus = Json::array();
    for (auto g : rank.gpus)
        gpus.push_back(deviceSummaryJson(ctx, r, g));
    json["devices"] = std::move(gpus);
    addProblems(json, report.problems, report.notes);

    auto stepCell = medianStep ? durationCell(*medianStep) : textCell("-");
    stepCell.alignRight = true;
    if (rank.gpus.empty())
        out.rows.push_back({ countCell(std::uint64_t(rank.rank)), textCell(rank.host), textCell(fileName(report.path)),
            textCell("no GPU work (NVTX/CPU only)"), textCell(""), textCell(""), textCell(""), textCell(""),
            textCell(""), durationCell(double(rank.span.duration())), textCell(""), textCell(""), stepCell,
            textCell(describeProblems(report.problems)) });
    for (auto g : rank.gpus) {
        const auto &busy = derived.busy(core::GpuIndex(g));
        const auto &gaps = derived.gaps(core::GpuIndex(g));
        const auto outside = core::idleOutsideWindow(rank.span, busy.window);
        out.rows.push_back({ countCell(std::uint64_t(rank.rank)), textCell(rank.host), textCell(fileName(report.path)),
            textCell(ctx.gpuLabel(g)), durationCell(double(busy.busyNs)), durationCell(double(busy.window.duration())),
            percentCell(busy.busyPercent), countCell(gaps.size()), durationCell(double(gaps.totalNs)),
            durationCell(double(rank.span.duration())), durationCell(double(outside.totalNs())),
            countCell(trace.gpus[g].kernelCount()), stepCell, textCell(describeProblems(report.problems)) });
    }

    const auto &memory = derived.gpuMemory();
    if (memory.recorded())
        for (auto g : rank.gpus) {
            const auto &c = memory.gpus[g];
            out.memory.push_back(
                { rank.rank, ctx.gpuLabel(g), c.peakBytes, c.peakTime, c.allocations, c.frees, c.unmatchedFrees });
        }
    return out;
}

int printSummary(const CommandContext &ctx, const SummaryOutput &out)
{
    const auto &trace = ctx.t();
    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        doc["findings"] = out.findings;
        doc["min_gap_ns"] = ctx.options.minGapNs;
        doc["with_copies"] = ctx.options.withCopies;
        doc["step_range"] = out.stepRange.value_or(std::string());
        doc["gpu_memory_recorded"] = out.memoryRecorded;
        Json ranks = Json::array();
        for (const auto &rank : out.ranks)
            ranks.push_back(rank.json);
        doc["ranks"] = std::move(ranks);
        doc["warnings"] = captureWarningsJson(trace);
        printJson(doc);
        return 0;
    }

    Table table(summaryTableTitle(ctx.options));
    for (const char *h : { "rank", "host", "file", "GPU", "busy", "window", "busy %", "gaps", "idle in gaps", "capture",
             "idle outside", "kernels", "median step", "problems" })
        table.addColumn(h);
    for (const auto &rank : out.ranks)
        for (const auto &row : rank.rows)
            table.addRow(row);
    std::vector<Table> tables { table };
    printTables(ctx.options.format, tables);
    if (ctx.options.format == Format::Table) {
        if (out.stepRange)
            std::printf("\nmedian step: NVTX range '%s' (choose another with --range NAME)\n", out.stepRange->c_str());
        if (!out.findings.empty())
            std::printf("\nfindings:\n");
        for (const auto &f : out.findings)
            std::printf("- %s\n", f.c_str());
        printGpuMemory(ctx, out);
        for (const auto &w : trace.warnings)
            std::printf("warning: %s\n", w.c_str());
        for (const auto &report : trace.reports)
            for (const auto &w : report.warnings)
                std::printf("warning: %s: %s\n", report.path.c_str(), w.c_str());
    }
    return 0;
}

int runSummary(const CommandContext &ctx)
{
    const auto &trace = ctx.t();
    // The step-like NVTX range gives a per-rank median step time (what `check` compares).
    std::optional<core::PaceReport> pace;
    if (auto name = ctx.options.range ? ctx.options.range : core::proposePaceRangeName(trace)) {
        core::PaceOptions paceOptions;
        paceOptions.rangeName = *name;
        pace = core::computePace(trace, paceOptions);
    }
    auto medianStep = [&](std::uint32_t rankIndex) -> std::optional<double> {
        if (!pace)
            return std::nullopt;
        for (const auto &r : pace->ranks)
            if (r.rank == rankIndex && !r.iterations.empty())
                return r.medianNs;
        return std::nullopt;
    };

    SummaryOutput out;
    if (pace)
        out.stepRange = pace->rangeName;
    // Plain-language findings, the same the GUI's Summary panel shows.
    for (auto &f : core::summarizeCapture(ctx.derivedKernelsOnly(), summaryFindingOptions(ctx, out.stepRange)).findings)
        out.findings.push_back(std::move(f.text));
    out.memoryRecorded = ctx.derived().gpuMemory().recorded();
    const auto selection = ctx.rankSelection();
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
        if (selection.includes(r))
            out.ranks.push_back(summaryRank(ctx, r, medianStep(r)));
    return printSummary(ctx, out);
}

int runRanks(const CommandContext &ctx)
{
    const auto &trace = ctx.t();
    const auto mapping = core::rankMapping(trace); // the facts the GUI's Ranks dialog shows
    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        Json ranks = Json::array();
        for (const auto &row : mapping) {
            Json out;
            out["rank"] = row.rank;
            out["file"] = row.file;
            out["pid"] = row.pid;
            out["process"] = row.process;
            out["host"] = row.host;
            out["rank_source"] = row.decidedBy;
            out["rank_detail"] = row.detail;
            out["devices"] = row.deviceIds;
            ranks.push_back(std::move(out));
        }
        doc["ranks"] = std::move(ranks);
        doc["warnings"] = trace.warnings;
        printJson(doc);
        return 0;
    }
    Table table("Rank mapping (override with --rank-map FILE[:PID]=RANK)");
    for (const char *h : { "rank", "file", "pid", "process", "host", "GPUs", "decided by", "detail" })
        table.addColumn(h);
    for (const auto &row : mapping)
        table.addRow(
            { countCell(std::uint64_t(row.rank)), textCell(row.file), countCell(row.pid), textCell(row.process),
                textCell(row.host), textCell(row.gpus), textCell(row.decidedBy), textCell(row.detail) });
    printTables(ctx.options.format, { table });
    if (ctx.options.format == Format::Table)
        for (const auto &w : trace.warnings)
            std::printf("warning: %s\n", w.c_str());
    return 0;
}

} // namespace gaplens::cli
