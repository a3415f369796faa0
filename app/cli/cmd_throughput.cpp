// SPDX-License-Identifier: MIT
// `throughput`: run accounting — where a window's wall time went per rank, and the active
// and sustained rates of useful work (docs/run-accounting.md).
#include "command_context.h"
#include "command_json.h"

#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/run_scorecard.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace gaplens::cli {
namespace {

using core::RunState;

constexpr RunState kAllStates[] = { RunState::Active, RunState::Checkpoint, RunState::Validation, RunState::DataWait,
    RunState::Barrier, RunState::Unexplained };

std::string rateText(std::optional<double> rate, const std::string &unit)
{
    return rate ? fmt::format("{:.2f} {}/s", *rate, unit) : std::string("-");
}

Cell rateCell(std::optional<double> rate, const std::string &unit)
{
    Cell cell { rateText(rate, unit), rate ? fmt::format("{:.6f}", *rate) : std::string(), true };
    return cell;
}

// Whole numbers as such (work in tokens), others with three decimals (ratios, means).
Cell numberCell(double value)
{
    const bool whole = std::trunc(value) == value && std::fabs(value) < 1e15;
    return { whole ? fmt::format("{:.0f}", value) : fmt::format("{:.4f}", value), fmt::format("{:.6f}", value), true };
}

Json statsJson(const core::StepTimeGroup &g, const char *prefix, Json &out)
{
    const std::string p = prefix;
    out[p + "_count"] = g.count;
    out[p + "_median_ns"] = g.count ? Json(g.medianNs) : Json(nullptr);
    out[p + "_p95_ns"] = g.count ? Json(g.p95Ns) : Json(nullptr);
    out[p + "_max_ns"] = g.count ? Json(g.maxNs) : Json(nullptr);
    return out;
}

std::string windowDescription(const core::RunAccounting &a)
{
    switch (a.windowRule) {
    case core::RunWindowRule::Explicit: return fmt::format("--window {} (from the session start)", a.windowText);
    case core::RunWindowRule::Between:
        return fmt::format("--between {} (end of the K-th to end of the M-th occurrence)", a.windowText);
    case core::RunWindowRule::Absolute: return fmt::format("{} (absolute times)", a.windowText);
    case core::RunWindowRule::StateSpan: break;
    }
    return "first to last instant of any state range (default)";
}

// The scorecard as Markdown: one table per section (item, value, how it is made).
void printScorecard(const core::RunScorecard &card)
{
    std::printf("## Run scorecard\n\n");
    if (!card.unavailable.empty())
        std::printf("No run scorecard: %s.\n\n", card.unavailable.c_str());
    std::vector<Table> tables;
    for (const auto &section : card.sections) {
        Table table(section.title);
        table.addColumns({ { "item", "item" }, { "value", "value" }, { "how", "how" } });
        for (const auto &row : section.rows)
            table.addRow({ textCell(row.item), textCell(row.value), textCell(row.how) });
        tables.push_back(std::move(table));
    }
    printTables(Format::Markdown, tables);
    std::printf("\n");
}

} // namespace

Json runAccountingRankJson(const core::RankRunAccounting &r, const core::RunAccounting &a)
{
    Json out;
    out["window_start_ns"] = r.window.start;
    out["window_end_ns"] = r.window.end;
    out["window_ns"] = r.windowNs();
    out["active_ns"] = r.activeNs();
    out["steps"] = r.steps;
    out["steps_without_payload"] = r.stepsWithoutPayload;
    out["work"] = r.work;
    out["work_unit"] = a.workUnit;
    out["active_rate"] = numberOrNull(r.activeRate);
    out["sustained_rate"] = numberOrNull(r.sustainedRate);
    out["sustained_over_active"] = numberOrNull(r.sustainedOverActive);
    Json partition;
    for (const auto state : kAllStates)
        partition[std::string(core::runStateName(state))] = r.partitionNs[std::size_t(state)];
    out["partition"] = std::move(partition);
    Json byState = Json::array();
    for (const auto &row : r.stepTimeByState) {
        Json entry;
        entry["state"] = core::runStateName(row.state);
        statsJson(row.inside, "inside", entry);
        statsJson(row.outside, "outside", entry);
        entry["p_value"] = row.pValue;
        entry["significant"] = row.significant;
        byState.push_back(std::move(entry));
    }
    out["step_time_by_state"] = std::move(byState);
    Json checkpoint = nullptr;
    if (r.checkpoint) {
        const auto &h = *r.checkpoint;
        checkpoint["count"] = h.count;
        checkpoint["staging_count"] = h.stagingCount;
        checkpoint["cadence_ns"] = numberOrNull(h.cadenceNs);
        checkpoint["median_duration_ns"] = h.medianDurationNs;
        checkpoint["p95_duration_ns"] = h.p95DurationNs;
        checkpoint["commit_p95_ns"] = h.commitP95Ns;
        checkpoint["p95_over_cadence"] = numberOrNull(h.p95OverCadence);
        checkpoint["backlog_first_half"] = h.backlogFirstHalf;
        checkpoint["backlog_second_half"] = h.backlogSecondHalf;
        checkpoint["backlog_max"] = h.backlogMax;
        checkpoint["backlog_growing"] = h.backlogGrowing;
    }
    out["checkpoint"] = std::move(checkpoint);
    return out;
}

int runThroughput(const CommandContext &ctx)
{
    auto options = runAccountingOptions(ctx.options);
    options.ranks = ctx.rankSelection();
    return printThroughput(ctx, core::computeRunAccounting(ctx.t(), options));
}

int printThroughput(const CommandContext &ctx, const core::RunAccounting &a)
{
    if (ctx.options.format == Format::Markdown)
        printScorecard(core::buildRunScorecard(ctx.t(), a, ctx.options.meta));
    if (!a.error.empty()) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", a.error.c_str());
        return 1;
    }

    if (ctx.options.format == Format::Json) {
        auto doc = jsonDocument(ctx);
        doc["step_range"] = a.stepRange;
        doc["work_unit"] = a.workUnit;
        doc["work_source"] = core::workSourceName(a.workSource);
        doc["window_source"] = core::runWindowRuleName(a.windowRule);
        doc["window_spec"] = a.windowText;
        Json patterns;
        for (std::size_t i = 0; i < core::kPatternStates.size(); ++i)
            patterns[std::string(core::runStateName(core::kPatternStates[i]))] = a.patterns[i];
        doc["patterns"] = std::move(patterns);
        Json meta = Json::array();
        for (const auto &m : ctx.options.meta)
            meta.push_back({ { "key", m.key }, { "value", m.value } });
        doc["meta"] = std::move(meta);
        doc["ranks"] = perRankJson(
            ctx, a.ranks, [&](const auto &r, std::size_t, Json &out) { out.update(runAccountingRankJson(r, a)); });
        doc["overall"] = runAccountingRankJson(a.overall, a);
        printJson(doc);
        return 0;
    }

    const auto &unit = a.workUnit;
    Table rates(fmt::format("Throughput of step range '{}', work in {} ({}); window: {}", a.stepRange, unit,
        core::workSourceName(a.workSource), windowDescription(a)));
    rates.addColumns({ { "rank", "rank" }, { "window", "window_ns" }, { "active", "active_ns" }, { "steps", "steps" },
        { "work", "work" }, { "active rate", "active_rate" }, { "sustained rate", "sustained_rate" },
        { "sustained/active", "sustained_over_active" } });
    auto ratesRow = [&](std::string label, const core::RankRunAccounting &r) {
        rates.addRow(
            { textCell(std::move(label)), durationCell(double(r.windowNs())), durationCell(double(r.activeNs())),
                countCell(r.steps), numberCell(r.work), rateCell(r.activeRate, unit), rateCell(r.sustainedRate, unit),
                r.sustainedOverActive ? numberCell(*r.sustainedOverActive) : textCell("-") });
    };
    for (const auto &r : a.ranks)
        ratesRow(std::to_string(ctx.rankNumber(r.rank)), r);
    ratesRow("overall", a.overall);

    Table partition("Partition of the window: every instant in one state (share of the window)");
    partition.addColumn("rank", "rank");
    for (const auto state : kAllStates)
        partition.addColumn(std::string(core::runStateName(state)), fmt::format("{}_ns", core::runStateName(state)));
    auto partitionRow = [&](std::string label, const core::RankRunAccounting &r) {
        std::vector<Cell> row { textCell(std::move(label)) };
        for (const auto state : kAllStates) {
            const auto ns = r.partitionNs[std::size_t(state)];
            auto cell = durationCell(double(ns));
            if (r.windowNs() > 0)
                cell.text += fmt::format(" ({})", core::formatPercent(100.0 * double(ns) / double(r.windowNs())));
            row.push_back(cell);
        }
        partition.addRow(std::move(row));
    };
    for (const auto &r : a.ranks)
        partitionRow(std::to_string(ctx.rankNumber(r.rank)), r);

    Table steps("Step time inside vs outside each state (steps overlapping a range of it, any thread of the rank); "
                "significant: beyond run-to-run noise, as diff judges");
    steps.addColumns({ { "rank", "rank" }, { "state", "state" }, { "inside", "inside_count" },
        { "median", "inside_median_ns" }, { "p95", "inside_p95_ns" }, { "outside", "outside_count" },
        { "median", "outside_median_ns" }, { "p95", "outside_p95_ns" }, { "significant", "significant" } });
    for (const auto &r : a.ranks)
        for (const auto &row : r.stepTimeByState) {
            auto stat
                = [](const core::StepTimeGroup &g, double v) { return g.count ? durationCell(v) : textCell("-"); };
            steps.addRow({ countCell(std::uint64_t(ctx.rankNumber(r.rank))),
                textCell(std::string(core::runStateName(row.state))), countCell(row.inside.count),
                stat(row.inside, row.inside.medianNs), stat(row.inside, double(row.inside.p95Ns)),
                countCell(row.outside.count), stat(row.outside, row.outside.medianNs),
                stat(row.outside, double(row.outside.p95Ns)), textCell(row.significant ? "yes" : "no") });
        }

    Table checkpoints("Checkpoint health: blocking checkpoints (on a step thread) and staging (other threads); "
                      "cadence = median interval between checkpoint starts; backlog = earlier staging ranges still "
                      "open at a start (mean of the first and second half)");
    checkpoints.addColumns({ { "rank", "rank" }, { "checkpoints", "count" }, { "staging", "staging_count" },
        { "cadence", "cadence_ns" }, { "median", "median_duration_ns" }, { "p95", "p95_duration_ns" },
        { "commit p95", "commit_p95_ns" }, { "commit p95/cadence", "p95_over_cadence" },
        { "backlog", "backlog_first_half" }, { "then", "backlog_second_half" }, { "growing", "backlog_growing" } });
    for (const auto &r : a.ranks)
        if (r.checkpoint) {
            const auto &h = *r.checkpoint;
            checkpoints.addRow(
                { countCell(std::uint64_t(ctx.rankNumber(r.rank))), countCell(h.count), countCell(h.stagingCount),
                    h.cadenceNs ? durationCell(*h.cadenceNs) : textCell("-"), durationCell(h.medianDurationNs),
                    durationCell(double(h.p95DurationNs)), durationCell(double(h.commitP95Ns)),
                    h.p95OverCadence ? numberCell(*h.p95OverCadence) : textCell("-"), numberCell(h.backlogFirstHalf),
                    numberCell(h.backlogSecondHalf), textCell(h.backlogGrowing ? "yes" : "no") });
        }

    std::vector<Table> tables { rates, partition, steps };
    if (!checkpoints.empty())
        tables.push_back(checkpoints);
    if (ctx.options.format == Format::Markdown)
        std::printf("## Per rank\n\n");
    printTables(ctx.options.format, tables);
    return 0;
}

} // namespace gaplens::cli
