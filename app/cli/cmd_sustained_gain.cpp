// SPDX-License-Identifier: MIT
// `check --min-sustained-gain`: the decision rule of a change meant to speed a run up
// (core/analysis/sustained_gain.h, docs/run-accounting.md): the windows' sustained rates of
// both captures, the four conditions, and exit status 3 with one line per failed condition.
#include "command_context.h"

#include "gaplens/core/analysis/sustained_gain.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <cstdio>

namespace gaplens::cli {
namespace {

constexpr int kExitRuleNotMet = 3;

Json windowsJson(const core::SustainedWindows &w)
{
    Json out;
    out["window_start_ns"] = w.whole.overall.window.start;
    out["window_end_ns"] = w.whole.overall.window.end;
    out["comparable_windows"] = w.comparableCount();
    Json windows = Json::array();
    for (const auto &x : w.windows) {
        Json window;
        window["start_ns"] = x.window.start;
        window["end_ns"] = x.window.end;
        window["steps"] = x.steps;
        window["work"] = x.work;
        window["sustained_rate"] = numberOrNull(x.sustainedRate);
        window["comparable"] = x.comparable;
        windows.push_back(std::move(window));
    }
    out["windows"] = std::move(windows);
    bool growing = false;
    for (const auto &r : w.whole.ranks)
        growing = growing || (r.checkpoint && r.checkpoint->backlogGrowing);
    out["backlog_growing"] = growing;
    return out;
}

Cell okCell(bool ok)
{
    return textCell(ok ? "ok" : "FAILED");
}

} // namespace

core::SustainedGainOptions sustainedGainRule(const Options &options)
{
    core::SustainedGainOptions rule;
    rule.accounting = runAccountingOptions(options);
    rule.split = options.windowCount > 0 ? core::WindowSplit::Equal : core::WindowSplit::CheckpointCommits;
    rule.windowCount = options.windowCount;
    rule.minGain = *options.minSustainedGainPercent / 100.0;
    rule.minWindows = options.minWindows;
    return rule;
}

int runSustainedGainCheck(const Options &options)
{
    const auto [before, after] = loadBeforeAfter(options);
    if (!before)
        return 1;
    const auto rule = sustainedGainRule(options);
    return printSustainedGainCheck(options, *before, *after, rule, core::checkSustainedGain(*before, *after, rule));
}

int printSustainedGainCheck(const Options &options, const core::TraceSet &before, const core::TraceSet &after,
    const core::SustainedGainOptions &rule, const core::SustainedGainCheck &c)
{
    for (const auto &[w, which] : { std::pair { &c.before, "before" }, std::pair { &c.after, "after" } })
        if (!w->error.empty()) {
            std::fprintf(stderr, "gaplens-cli: error: %s: %s\n", which, w->error.c_str());
            return 1;
        }
    const std::string split = rule.split == core::WindowSplit::Equal
        ? fmt::format("{} equal windows", rule.windowCount)
        : std::string("windows from one checkpoint commit to the next");
    const auto &unit = c.after.whole.workUnit;
    const int rc = !c.passed ? kExitRuleNotMet : (before.errors.empty() && after.errors.empty() ? 0 : 1);

    if (options.format == Format::Json) {
        auto doc = jsonDocument(options.command, { &before, &after });
        doc["rule"] = "sustained_gain";
        doc["min_sustained_gain_pct"] = *options.minSustainedGainPercent;
        doc["min_windows"] = rule.minWindows;
        doc["split"] = rule.split == core::WindowSplit::Equal ? "equal" : "checkpoint_commits";
        doc["window_count"] = rule.split == core::WindowSplit::Equal ? Json(rule.windowCount) : Json(nullptr);
        doc["step_range"] = c.after.whole.stepRange;
        doc["work_unit"] = unit;
        doc["before"] = windowsJson(c.before);
        doc["after"] = windowsJson(c.after);
        doc["median_sustained_rate_before"] = numberOrNull(c.medianBefore);
        doc["median_sustained_rate_after"] = numberOrNull(c.medianAfter);
        doc["gain_pct"] = c.gain ? Json(*c.gain * 100.0) : Json(nullptr);
        doc["noise_pct"] = c.gain ? Json(c.noise * 100.0) : Json(nullptr);
        doc["p_value"] = c.pValue;
        doc["significant"] = c.significant;
        Json conditions;
        conditions["enough_windows"] = c.enoughWindows;
        conditions["backlog_steady"] = c.backlogSteady;
        conditions["above_threshold"] = c.aboveThreshold;
        conditions["above_noise"] = c.aboveNoise;
        doc["conditions"] = std::move(conditions);
        doc["passed"] = c.passed;
        doc["failures"] = c.failures;
        printJson(doc);
    } else {
        Table windows(fmt::format("Sustained rate per window ({}; start from each capture's session start)", split));
        windows.addColumns({ { "capture", "capture" }, { "window", "window" }, { "start", "start_ns" },
            { "length", "length_ns" }, { "steps", "steps" }, { "work", "work" }, { "sustained rate", "sustained_rate" },
            { "comparable", "comparable" } });
        for (const auto &[w, trace, which] :
            { std::tuple { &c.before, &before, "before" }, std::tuple { &c.after, &after, "after" } }) {
            const auto zero = trace->reports[trace->ranks[w->whole.slowestRank].report].timeZero();
            for (std::size_t i = 0; i < w->windows.size(); ++i) {
                const auto &x = w->windows[i];
                windows.addRow({ textCell(which), countCell(i + 1), durationCell(double(x.window.start - zero)),
                    durationCell(double(x.window.duration())), countCell(x.steps),
                    Cell { core::formatGrouped(x.work, 0), fmt::format("{:.6f}", x.work), true },
                    x.sustainedRate ? Cell { fmt::format("{} {}/s", core::formatGrouped(*x.sustainedRate, 2), unit),
                        fmt::format("{:.6f}", *x.sustainedRate), true }
                                    : textCell("-"),
                    textCell(x.comparable ? "yes" : "no") });
            }
        }
        Table conditions(fmt::format("Sustained-gain rule: {}", c.passed ? "passed" : "NOT MET"));
        conditions.addColumns({ { "condition", "condition" }, { "measured", "measured" }, { "needed", "needed" },
            { "result", "result" } });
        conditions.addRow({ textCell("comparable windows"),
            textCell(fmt::format("{} before, {} after", c.before.comparableCount(), c.after.comparableCount())),
            textCell(fmt::format(">= {} each", rule.minWindows)), okCell(c.enoughWindows) });
        conditions.addRow({ textCell("checkpoint backlog after"), textCell(c.backlogSteady ? "not growing" : "growing"),
            textCell("not growing"), okCell(c.backlogSteady) });
        const auto rates = c.gain ? fmt::format("{:+.2f}% ({} -> {} {}/s, medians)", *c.gain * 100.0,
                               core::formatGrouped(*c.medianBefore, 2), core::formatGrouped(*c.medianAfter, 2), unit)
                                  : std::string("-");
        conditions.addRow({ textCell("sustained-rate gain"), textCell(rates),
            textCell(fmt::format("> {}%", *options.minSustainedGainPercent)), okCell(c.aboveThreshold) });
        conditions.addRow({ textCell("beyond run-to-run noise"),
            textCell(c.gain ? fmt::format("noise +-{:.2f}%, rank-sum p = {:.3g}", c.noise * 100.0, c.pValue) : "-"),
            textCell("a gain, significant"), okCell(c.aboveNoise) });
        if (options.format == Format::Markdown)
            std::printf("**Sustained-gain rule: %s**\n\n", c.passed ? "passed" : "not met");
        printTables(options.format, { windows, conditions });
        if (options.format == Format::Table)
            std::printf("\nnoise:   bootstrap half-width of the difference of the median window rates and the "
                        "rank-sum test at 0.05, as diff judges a median step\n");
    }
    for (const auto &failure : c.failures)
        std::fprintf(stderr, "gaplens-cli: check failed: %s\n", failure.c_str());
    return rc;
}

} // namespace gaplens::cli
