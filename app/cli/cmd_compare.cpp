// SPDX-License-Identifier: MIT
// `diff`: two captures side by side (headline with a noise verdict, kernels, idle time by
// cause and phase, NVTX), as tables, CSV, JSON or Markdown for a review.
#include "command_context.h"

#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/compare_headline.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>
#include <string_view>
#include <utility>

namespace gaplens::cli {
namespace {

// The first `top` rows, or all of them when top is 0 (--top's meaning).
template <typename Row> std::span<const Row> topRows(const std::vector<Row> &rows, std::size_t top)
{
    return std::span(rows).first(top == 0 ? rows.size() : std::min(top, rows.size()));
}

Cell signedDurationCell(double ns)
{
    auto cell = durationCell(ns);
    if (ns > 0)
        cell.text = "+" + cell.text;
    return cell;
}

Cell metricValueCell(core::MetricUnit unit, std::optional<double> value)
{
    if (!value)
        return rightText("-");
    switch (unit) {
    case core::MetricUnit::Duration: return durationCell(*value);
    case core::MetricUnit::Percent: return percentCell(*value);
    case core::MetricUnit::Count: return countCell(std::uint64_t(std::llround(*value)));
    case core::MetricUnit::Rate: return { core::formatGrouped(*value, 2), fmt::format("{:.6f}", *value), true };
    case core::MetricUnit::Ratio: return { fmt::format("{:.3f}", *value), fmt::format("{:.6f}", *value), true };
    }
    return rightText("-");
}

std::string_view unitName(core::MetricUnit unit)
{
    switch (unit) {
    case core::MetricUnit::Duration: return "ns";
    case core::MetricUnit::Percent: return "pct";
    case core::MetricUnit::Count: return "count";
    case core::MetricUnit::Rate: return "per_s";
    case core::MetricUnit::Ratio: return "ratio";
    }
    return "ns";
}

std::string_view judgementName(core::NoiseJudgement judgement)
{
    switch (judgement) {
    case core::NoiseJudgement::NotJudged: return "not_judged";
    case core::NoiseJudgement::WithinNoise: return "within_noise";
    case core::NoiseJudgement::ExceedsNoise: return "exceeds_noise";
    }
    return "not_judged";
}

std::string_view verdictName(core::Verdict verdict)
{
    switch (verdict) {
    case core::Verdict::Faster: return "faster";
    case core::Verdict::Slower: return "slower";
    case core::Verdict::NoSignificantChange: return "no_significant_change";
    case core::Verdict::NoSteps: return "no_steps";
    }
    return "no_steps";
}

Json figuresJson(const core::TraceSet &trace, const core::CaptureFigures &f)
{
    Json figures;
    addFilesAndErrors(figures, { &trace });
    figures["ranks"] = std::uint64_t(f.ranks);
    figures["gpus"] = std::uint64_t(f.gpus);
    figures["ranks_with_steps"] = std::uint64_t(f.ranksWithSteps);
    figures["steps"] = std::uint64_t(f.steps);
    figures["kernels"] = f.kernels;
    figures["kernel_ns"] = f.kernelNs;
    figures["busy_ns"] = f.busyNs;
    figures["window_ns"] = f.windowNs;
    figures["busy_pct"] = f.busyPercent;
    figures["gap_count"] = f.gapCount;
    figures["gap_ns"] = f.gapNs;
    figures["step_ns"] = f.stepNs;
    return figures;
}

// Headline or sustained rows: a metric before and after, its change and noise judgement.
Json metricsJson(const std::vector<core::MetricChange> &metrics)
{
    Json out = Json::array();
    for (const auto &m : metrics) {
        Json metric;
        metric["key"] = m.key;
        metric["label"] = m.label;
        metric["unit"] = unitName(m.unit);
        metric["higher_is_better"] = m.higherIsBetter;
        metric["before"] = numberOrNull(m.before);
        metric["after"] = numberOrNull(m.after);
        metric["delta"] = numberOrNull(m.delta);
        metric["change_pct"] = numberOrNull(m.changePercent);
        metric["judgement"] = judgementName(m.judgement);
        metric["noise_pct"] = numberOrNull(m.noisePercent);
        metric["p_value"] = numberOrNull(m.pValue);
        out.push_back(std::move(metric));
    }
    return out;
}

template <typename Row> Json idleRowsJson(const std::vector<Row> &rows)
{
    Json out = Json::array();
    for (const auto &r : rows) {
        Json row;
        row["key"] = r.key;
        row["presence"] = core::presenceName(r.presence);
        row["count_before"] = r.countBefore;
        row["count_after"] = r.countAfter;
        row["total_before_ns"] = r.totalBefore;
        row["total_after_ns"] = r.totalAfter;
        row["delta_ns"] = r.deltaNs;
        out.push_back(std::move(row));
    }
    return out;
}

// A kernel's or an NVTX range's change (KernelChange, NvtxChange): name, presence, how many
// `count` ("calls", "instances") before and after, total and average time, and the change.
template <typename Row>
Json namedChangeJson(const Row &r, std::string_view count, std::uint64_t countBefore, std::uint64_t countAfter)
{
    Json row;
    row["name"] = r.name;
    row["presence"] = core::presenceName(r.presence);
    row[fmt::format("{}_before", count)] = countBefore;
    row[fmt::format("{}_after", count)] = countAfter;
    row["total_before_ns"] = r.totalBefore;
    row["total_after_ns"] = r.totalAfter;
    row["avg_before_ns"] = r.avgBefore;
    row["avg_after_ns"] = r.avgAfter;
    row["delta_ns"] = r.deltaNs;
    return row;
}

void printDiffJson(
    const Options &options, const core::TraceSet &before, const core::TraceSet &after, const core::Comparison &c)
{
    // The common files and errors list both captures; before/after below keep them apart.
    auto doc = jsonDocument(options.command, { &before, &after });
    doc["min_gap_ns"] = options.minGapNs;
    doc["with_copies"] = options.withCopies;
    doc["step_range"] = c.stepRange;
    doc["range_source"] = c.rangeSource;
    doc["has_steps"] = c.hasSteps;
    doc["before"] = figuresJson(before, c.before);
    doc["after"] = figuresJson(after, c.after);
    doc["verdict"] = verdictName(c.verdict);
    doc["verdict_text"] = c.verdictText;
    doc["verdict_detail"] = c.verdictDetail;
    doc["noise_method"] = c.noiseMethod;
    doc["headline"] = metricsJson(c.headline);
    Json work;
    work["basis"] = core::workBasisName(c.work.basis);
    work["differs"] = c.work.differs;
    work["before"] = c.work.before;
    work["after"] = c.work.after;
    work["text"] = c.work.text;
    doc["work"] = std::move(work);
    doc["comparable"] = c.notComparable.empty();
    doc["not_comparable"] = c.notComparable;
    auto perCallJson = [](const std::vector<core::PerCallChange> &changes) {
        Json out = Json::array();
        for (const auto &p : changes) {
            Json row;
            row["name"] = p.name;
            row["calls_before"] = p.callsBefore;
            row["calls_after"] = p.callsAfter;
            row["avg_before_ns"] = p.avgBefore;
            row["avg_after_ns"] = p.avgAfter;
            row["ratio"] = p.ratio;
            row["impact_ns"] = p.impactNs;
            row["text"] = p.text;
            out.push_back(std::move(row));
        }
        return out;
    };
    doc["per_call_regressions"] = perCallJson(c.regressions);
    doc["per_call_improvements"] = perCallJson(c.improvements);
    doc["per_call_rule"] = c.perCallRule;
    Json kernels = Json::array();
    for (const auto &k : topRows(c.kernels, options.top)) {
        Json kernel = namedChangeJson(k, "calls", k.callsBefore, k.callsAfter);
        kernel["avg_ratio"] = numberOrNull(k.avgRatio);
        kernels.push_back(std::move(kernel));
    }
    doc["kernels"] = std::move(kernels);
    doc["idle_by_cause"] = idleRowsJson(c.idleByCause);
    doc["idle_by_phase"] = idleRowsJson(c.idleByPhase);
    Json nvtx = Json::array();
    for (const auto &n : topRows(c.nvtx, options.top)) {
        nvtx.push_back(namedChangeJson(n, "instances", n.instancesBefore, n.instancesAfter));
    }
    doc["nvtx"] = std::move(nvtx);
    Json sustained;
    sustained["step_range"] = c.sustained.empty() ? Json(nullptr) : Json(c.stepRange);
    sustained["work_unit"] = c.sustainedWorkUnit;
    sustained["error"] = c.sustainedError;
    sustained["metrics"] = metricsJson(c.sustained);
    doc["sustained"] = std::move(sustained);
    doc["warnings"] = c.warnings;
    printJson(doc);
}

std::string presenceNote(core::Presence presence)
{
    return presence == core::Presence::Both ? std::string() : std::string(core::presenceName(presence));
}

std::vector<Table> diffTables(const Options &options, const core::Comparison &c)
{
    std::vector<Table> tables;
    Table headline(c.hasSteps ? fmt::format("Before / after, steps = NVTX range '{}' ({} before, {} after)",
                       c.stepRange, c.before.steps, c.after.steps)
            : c.work.basis == core::WorkBasis::PerCall ? std::string("Before / after (no step range: per kernel call)")
                                                       : std::string("Before / after (no step range: totals only)"));
    headline.addColumns({ { "metric", "metric" }, { "before", "before" }, { "after", "after" },
        { "change", "change_pct" }, { "noise", "noise_pct" }, { "judgement", "judgement" } });
    for (const auto &m : c.headline) {
        Cell noise = m.noisePercent
            ? Cell { fmt::format("+-{:.1f}%", *m.noisePercent), fmt::format("{:.3f}", *m.noisePercent), true }
            : rightText("-");
        std::string judged = m.judgement == core::NoiseJudgement::ExceedsNoise
            ? "exceeds noise"
            : (m.judgement == core::NoiseJudgement::WithinNoise ? "within noise" : "-");
        headline.addRow({ textCell(m.label), metricValueCell(m.unit, m.before), metricValueCell(m.unit, m.after),
            changeCell(m.changePercent), noise, textCell(judged) });
    }
    tables.push_back(std::move(headline));

    if (!c.sustained.empty()) {
        Table sustained(fmt::format("Sustained throughput side by side (run accounting of '{}', default window; "
                                    "the partition: every instant of the window in one state)",
            c.stepRange));
        sustained.addColumns(
            { { "metric", "metric" }, { "before", "before" }, { "after", "after" }, { "change", "change_pct" } });
        for (const auto &m : c.sustained)
            sustained.addRow({ textCell(m.label), metricValueCell(m.unit, m.before), metricValueCell(m.unit, m.after),
                changeCell(m.changePercent) });
        tables.push_back(std::move(sustained));
    }

    Table perCall("Largest changes per call (kernels in both, beyond the noise rule)");
    perCall.addColumns({ { "kernel", "name" }, { "change", "direction" }, { "calls before", "calls_before" },
        { "calls after", "calls_after" }, { "avg before", "avg_before_ns" }, { "avg after", "avg_after_ns" },
        { "per call x", "ratio" }, { "impact", "impact_ns" } });
    for (const auto &[changes, direction] :
        { std::pair { &c.regressions, "slower" }, std::pair { &c.improvements, "faster" } })
        for (const auto &p : *changes)
            perCall.addRow({ textCell(p.name), textCell(direction), countCell(p.callsBefore), countCell(p.callsAfter),
                durationCell(p.avgBefore), durationCell(p.avgAfter),
                Cell { fmt::format("{:.2f}x", p.ratio), fmt::format("{:.6f}", p.ratio), true },
                signedDurationCell(p.impactNs) });
    tables.push_back(std::move(perCall));

    Table kernels("Kernels by short name (sorted by the change of total time)");
    kernels.addColumns({ { "kernel", "name" }, { "calls before", "calls_before" }, { "calls after", "calls_after" },
        { "total before", "total_before_ns" }, { "total after", "total_after_ns" }, { "avg before", "avg_before_ns" },
        { "avg after", "avg_after_ns" }, { "change", "delta_ns" }, { "avg x", "avg_ratio" }, { "note", "presence" } });
    for (const auto &k : topRows(c.kernels, options.top)) {
        Cell ratio = k.avgRatio ? Cell { fmt::format("{:.2f}x", *k.avgRatio), fmt::format("{:.6f}", *k.avgRatio), true }
                                : rightText("-");
        kernels.addRow(
            { textCell(k.name), countCell(k.callsBefore), countCell(k.callsAfter), durationCell(double(k.totalBefore)),
                durationCell(double(k.totalAfter)), k.callsBefore ? durationCell(k.avgBefore) : rightText("-"),
                k.callsAfter ? durationCell(k.avgAfter) : rightText("-"), signedDurationCell(double(k.deltaNs)), ratio,
                textCell(presenceNote(k.presence)) });
    }
    tables.push_back(std::move(kernels));

    auto idleTable = [&](std::string title, const char *what, const std::vector<core::IdleChange> &rows) {
        Table g(std::move(title));
        g.addColumns({ { what, "key" }, { "gaps before", "count_before" }, { "gaps after", "count_after" },
            { "idle before", "total_before_ns" }, { "idle after", "total_after_ns" }, { "change", "delta_ns" },
            { "note", "presence" } });
        for (const auto &r : rows)
            g.addRow({ textCell(r.key), countCell(r.countBefore), countCell(r.countAfter),
                durationCell(double(r.totalBefore)), durationCell(double(r.totalAfter)),
                signedDurationCell(double(r.deltaNs)), textCell(presenceNote(r.presence)) });
        return g;
    };
    const auto threshold = core::formatDuration(double(options.minGapNs));
    tables.push_back(idleTable(fmt::format("Idle time in gaps >= {} by cause", threshold), "cause", c.idleByCause));
    tables.push_back(
        idleTable(fmt::format("Idle time in gaps >= {} by NVTX phase", threshold), "phase", c.idleByPhase));

    Table nvtx("NVTX ranges by name (CPU time)");
    nvtx.addColumns({ { "range", "name" }, { "instances before", "instances_before" },
        { "instances after", "instances_after" }, { "total before", "total_before_ns" },
        { "total after", "total_after_ns" }, { "avg before", "avg_before_ns" }, { "avg after", "avg_after_ns" },
        { "change", "delta_ns" }, { "note", "presence" } });
    for (const auto &n : topRows(c.nvtx, options.top)) {
        nvtx.addRow({ textCell(n.name), countCell(n.instancesBefore), countCell(n.instancesAfter),
            durationCell(double(n.totalBefore)), durationCell(double(n.totalAfter)),
            n.instancesBefore ? durationCell(n.avgBefore) : rightText("-"),
            n.instancesAfter ? durationCell(n.avgAfter) : rightText("-"), signedDurationCell(double(n.deltaNs)),
            textCell(presenceNote(n.presence)) });
    }
    tables.push_back(std::move(nvtx));
    return tables;
}

// The headline's per-call lines under the verdict: what changed, whatever the totals say.
void printPerCallChanges(const core::Comparison &c)
{
    auto print = [](const char *what, const std::vector<core::PerCallChange> &changes) {
        if (changes.empty())
            std::printf("%snone beyond the noise rule\n", what);
        for (const auto &p : changes)
            std::printf("%s%s\n", what, p.text.c_str());
    };
    print("slower:  ", c.regressions);
    print("faster:  ", c.improvements);
    std::printf("rule:    %s\n", c.perCallRule.c_str());
}

} // namespace

core::CompareOptions compareOptions(const Options &options)
{
    core::CompareOptions compare;
    compare.rangeName = options.range.value_or(std::string());
    compare.minGapNs = options.minGapNs;
    compare.includeCopies = options.withCopies;
    return compare;
}

core::DerivedOptions compareDerivedOptions(const Options &options)
{
    core::DerivedOptions derivedOptions;
    derivedOptions.minGapNs = options.minGapNs;
    derivedOptions.includeCopies = options.withCopies;
    derivedOptions.foldIndexes = false;
    return derivedOptions;
}

int runDiff(const Options &options)
{
    const auto [before, after] = loadBeforeAfter(options);
    if (!before)
        return 1;
    // One derived capture per side: busy time, gaps and blame computed once each.
    const auto derivedOptions = compareDerivedOptions(options);
    return printDiff(options, *before, *after,
        core::compareTraces(*core::DerivedCapture::build(before, derivedOptions),
            *core::DerivedCapture::build(after, derivedOptions), compareOptions(options)));
}

int printDiff(
    const Options &options, const core::TraceSet &before, const core::TraceSet &after, const core::Comparison &c)
{
    const int rc = before.errors.empty() && after.errors.empty() ? 0 : 1;

    if (options.format == Format::Json) {
        printDiffJson(options, before, after, c);
        return rc;
    }
    const auto tables = diffTables(options, c);
    if (options.format == Format::Markdown) {
        std::printf("**Verdict: %s**\n\n", c.verdictText.c_str());
        if (!c.verdictDetail.empty())
            std::printf("%s\n\n", c.verdictDetail.c_str());
        for (const auto *changes : { &c.regressions, &c.improvements })
            for (const auto &p : *changes)
                std::printf("- %s\n", p.text.c_str());
        if (!c.regressions.empty() || !c.improvements.empty())
            std::printf("\n");
    }
    printTables(options.format, tables);
    if (options.format == Format::Table) {
        std::printf("\nverdict: %s\n", c.verdictText.c_str());
        if (!c.verdictDetail.empty())
            std::printf("detail:  %s\n", c.verdictDetail.c_str());
        printPerCallChanges(c);
        std::printf("work:    %s\n", c.work.text.c_str());
        if (c.sustained.empty())
            std::printf("sustained: none (%s)\n", c.sustainedError.c_str());
        std::printf("noise:   %s\n", c.noiseMethod.c_str());
        if (c.hasSteps)
            std::printf("steps:   NVTX range '%s', %s (choose another with --range NAME)\n", c.stepRange.c_str(),
                c.rangeSource.c_str());
    } else if (options.format == Format::Markdown) {
        std::printf("\n_Work: %s._\n\n_Noise test: %s._\n\n_Per-call changes: %s._\n", c.work.text.c_str(),
            c.noiseMethod.c_str(), c.perCallRule.c_str());
        if (c.sustained.empty())
            std::printf("\n_Sustained throughput: none (%s)._\n", c.sustainedError.c_str());
    }
    if (options.format != Format::Csv)
        for (const auto &w : c.warnings)
            std::printf("warning: %s\n", w.c_str());
    return rc;
}

} // namespace gaplens::cli
