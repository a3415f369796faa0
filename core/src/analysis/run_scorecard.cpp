// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/run_scorecard.h"

#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

namespace gaplens::core {
namespace {

constexpr RunState kAllStates[] = { RunState::Active, RunState::Checkpoint, RunState::Validation, RunState::DataWait,
    RunState::Barrier, RunState::Unexplained };

// Whole numbers without decimals (tokens, steps), others with two.
std::string amount(double value)
{
    return formatGrouped(value, std::trunc(value) == value ? 0 : 2);
}

// Durations in the formulas are in seconds, as the rates are per second; to the microsecond
// below 100 s, where milliseconds would hide a short capture's figures.
// `scale` picks the decimals, so two times of one row share them.
std::string seconds(double ns, double scale)
{
    return formatGrouped(ns / 1e9, std::fabs(scale) >= 1e11 ? 3 : 6) + " s";
}

std::string seconds(double ns)
{
    return seconds(ns, ns);
}

std::string rate(std::optional<double> value, const std::string &unit)
{
    return value ? formatGrouped(*value, 2) + " " + unit + "/s" : std::string("-");
}

std::string share(TimeNs part, TimeNs whole)
{
    return whole > 0 ? formatPercent(100.0 * double(part) / double(whole)) : std::string("-");
}

std::string stepsText(std::uint64_t steps)
{
    return fmt::format("{} step{}", formatGrouped(double(steps), 0), steps == 1 ? "" : "s");
}

ScorecardSection rates(const RunAccounting &a)
{
    const auto &o = a.overall;
    const auto &unit = a.workUnit;
    ScorecardSection s { std::string(kScorecardRates), {} };
    std::string workHow;
    switch (a.workSource) {
    case WorkSource::Payload:
        workHow
            = fmt::format("the NVTX payloads of the {} of '{}' ending in the window", stepsText(o.steps), a.stepRange);
        break;
    case WorkSource::PerStep:
        workHow = fmt::format("{} of '{}' ending in the window x --work-per-step", stepsText(o.steps), a.stepRange);
        break;
    case WorkSource::StepCount:
        workHow = fmt::format(
            "the {} of '{}' ending in the window (no payload, no --work-per-step)", stepsText(o.steps), a.stepRange);
        break;
    }
    s.rows.push_back({ "work", amount(o.work) + " " + unit, workHow });
    s.rows.push_back({ "active time", seconds(double(o.activeNs())),
        fmt::format("the union of the '{}' ranges inside the window", a.stepRange) });
    s.rows.push_back({ "window time", seconds(double(o.windowNs())), "the window's wall time" });
    s.rows.push_back({ "active rate", rate(o.activeRate, unit),
        fmt::format("work / active time = {} {} / {}", amount(o.work), unit, seconds(double(o.activeNs()))) });
    s.rows.push_back({ "sustained rate", rate(o.sustainedRate, unit),
        fmt::format("work / window time = {} {} / {}", amount(o.work), unit, seconds(double(o.windowNs()))) });
    s.rows.push_back({ "sustained / active",
        o.sustainedOverActive ? fmt::format("{:.3f}", *o.sustainedOverActive) : std::string("-"),
        o.sustainedOverActive ? fmt::format("sustained rate / active rate = {} / {} = active time / window time",
            formatGrouped(*o.sustainedRate, 2), formatGrouped(*o.activeRate, 2))
                              : std::string("no active time") });
    return s;
}

ScorecardSection partition(const RunAccounting &a)
{
    const auto &o = a.overall;
    ScorecardSection s { std::string(kScorecardPartition), {} };
    for (const auto state : kAllStates) {
        const auto ns = o.partitionNs[std::size_t(state)];
        std::string how;
        switch (state) {
        case RunState::Active: how = "a step range open on any thread"; break;
        case RunState::Unexplained: how = "no state range open"; break;
        default:
            how = fmt::format("no step open; a range matching '{}' open",
                a.patterns[std::size_t(state) - std::size_t(RunState::Checkpoint)]);
        }
        s.rows.push_back({ std::string(runStateName(state)),
            fmt::format("{} ({})", formatDuration(double(ns)), share(ns, o.windowNs())), how });
    }
    s.rows.push_back({ "total", formatDuration(double(o.windowNs())),
        "= the window: every instant in exactly one state (first open in the order above)" });
    return s;
}

ScorecardSection checkpoints(const RunAccounting &a)
{
    ScorecardSection s { std::string(kScorecardCheckpoints), {} };
    if (!a.overall.checkpoint) {
        s.rows.push_back(
            { "checkpoints", "none", fmt::format("no range matching '{}' starts in the window", a.patterns[0]) });
        return s;
    }
    const auto &h = *a.overall.checkpoint;
    s.rows.push_back({ "checkpoints", fmt::format("{} blocking, {} staging", h.count, h.stagingCount),
        "blocking: on a thread that runs steps; staging: on the rank's other threads" });
    s.rows.push_back({ "cadence", h.cadenceNs ? formatDuration(*h.cadenceNs) : std::string("-"),
        h.cadenceNs ? "median interval between checkpoint starts" : "needs two checkpoints" });
    s.rows.push_back({ "duration",
        fmt::format("median {}, p95 {}", formatDuration(h.medianDurationNs), formatDuration(double(h.p95DurationNs))),
        h.count ? "of the blocking checkpoints (the stall)" : "of the staging ranges" });
    s.rows.push_back(
        { "commit p95 / cadence", h.p95OverCadence ? fmt::format("{:.3f}", *h.p95OverCadence) : std::string("-"),
            h.cadenceNs ? fmt::format("{} / {}; above 1, commits outlast the interval",
                formatDuration(double(h.commitP95Ns)), formatDuration(*h.cadenceNs))
                        : fmt::format("commit p95 {}", formatDuration(double(h.commitP95Ns))) });
    s.rows.push_back({ "backlog",
        fmt::format("{:.2f} then {:.2f} (max {}): {}", h.backlogFirstHalf, h.backlogSecondHalf, h.backlogMax,
            h.backlogGrowing ? "growing" : "not growing"),
        "earlier checkpoints still being written at each one's start, mean of the first and second half" });
    return s;
}

ScorecardSection exclusions(const TraceSet &trace, const RunAccounting &a)
{
    const auto &o = a.overall;
    ScorecardSection s { std::string(kScorecardExclusions), {} };
    for (const auto state : kAllStates) {
        const auto ns = o.partitionNs[std::size_t(state)];
        if (state == RunState::Active || ns == 0)
            continue;
        s.rows.push_back({ fmt::format("{} time", runStateName(state)), formatDuration(double(ns)),
            "left out of the active time, kept in the window time" });
    }
    s.rows.push_back({ "steps ending outside the window", stepsText(o.stepsOutsideWindow),
        "not counted as work (a step counts when its end is in the window, its end included)" });
    if (a.workSource == WorkSource::Payload)
        s.rows.push_back({ "steps without a payload", stepsText(o.stepsWithoutPayload),
            "counted as --work-per-step when given, else 0" });
    if (a.ranks.size() < trace.ranks.size())
        s.rows.push_back({ "ranks not selected",
            fmt::format("{} of {}", trace.ranks.size() - a.ranks.size(), trace.ranks.size()), "left out by --ranks" });
    return s;
}

ScorecardSection window(const TraceSet &trace, const RunAccounting &a)
{
    ScorecardSection s { std::string(kScorecardWindow), {} };
    const auto &w = a.overall.window;
    const auto &rank = trace.ranks[a.slowestRank];
    const TimeNs zero = trace.reports[rank.report].timeZero();
    s.rows.push_back({ "window",
        fmt::format("{} to {}", seconds(double(w.start - zero), double(w.end - zero)), seconds(double(w.end - zero))),
        fmt::format("rank {}, from its session start (the time zero nsys shows)", rank.rank) });
    s.rows.push_back({ "length", seconds(double(a.overall.windowNs())),
        a.ranks.size() > 1 ? "the longest rank window: the overall figures take it" : "" });
    std::string source;
    switch (a.windowRule) {
    case RunWindowRule::Explicit: source = fmt::format("--window {}", a.windowText); break;
    case RunWindowRule::Between: source = fmt::format("--between {}", a.windowText); break;
    case RunWindowRule::StateSpan: source = "default (state_span)"; break;
    case RunWindowRule::Absolute: source = "the time selection"; break;
    }
    s.rows.push_back({ "chosen by", source,
        a.windowRule == RunWindowRule::StateSpan      ? "from the first to the last instant of any state range"
            : a.windowRule == RunWindowRule::Between  ? "from the end of the K-th to the end of the M-th occurrence"
            : a.windowRule == RunWindowRule::Absolute ? "the same absolute times on every rank"
                                                      : "given, relative to the session start" });
    std::string patterns;
    for (std::size_t i = 0; i < kPatternStates.size(); ++i)
        patterns += fmt::format("{}{}={}", i ? "  " : "", runStateName(kPatternStates[i]), a.patterns[i]);
    s.rows.push_back({ "states", fmt::format("active = '{}'", a.stepRange), patterns });
    return s;
}

ScorecardSection capture(const TraceSet &trace, const RunAccounting &a)
{
    ScorecardSection s { std::string(kScorecardCapture), {} };
    std::set<std::int32_t> numbers;
    std::set<std::string> hosts;
    std::map<std::size_t, std::size_t> ranksByGpuCount; // GPUs per rank -> ranks
    for (const auto &r : trace.ranks) {
        numbers.insert(r.rank);
        if (!r.host.empty())
            hosts.insert(r.host);
        ++ranksByGpuCount[r.gpus.size()];
    }
    std::string rankText = std::to_string(trace.ranks.size());
    if (!numbers.empty())
        rankText += numbers.size() == 1 ? fmt::format(" (rank {})", *numbers.begin())
                                        : fmt::format(" (ranks {} to {})", *numbers.begin(), *numbers.rbegin());
    s.rows.push_back({ "ranks", rankText,
        hosts.empty() ? std::string() : fmt::format("on {} host{}", hosts.size(), hosts.size() == 1 ? "" : "s") });
    std::string perRank;
    for (const auto &[gpus, ranks] : ranksByGpuCount)
        perRank += fmt::format("{}{} rank{} x {} GPU{}", perRank.empty() ? "" : ", ", ranks, ranks == 1 ? "" : "s",
            gpus, gpus == 1 ? "" : "s");
    std::map<std::string, std::size_t> names;
    for (const auto &g : trace.gpus)
        ++names[g.name.empty() ? std::string("(name not in the export)") : g.name];
    std::string nameText;
    for (const auto &[name, n] : names)
        nameText += fmt::format("{}{} x {}", nameText.empty() ? "" : ", ", n, name);
    s.rows.push_back({ "GPUs per rank", perRank.empty() ? std::string("-") : perRank,
        fmt::format("{} GPU{}{}{}", trace.gpus.size(), trace.gpus.size() == 1 ? "" : "s", nameText.empty() ? "" : ": ",
            nameText) });
    if (a.error.empty()) {
        s.rows.push_back({ "step range", fmt::format("'{}'", a.stepRange),
            fmt::format("{} counted over {} rank{}", stepsText(a.overall.steps), a.ranks.size(),
                a.ranks.size() == 1 ? "" : "s") });
        s.rows.push_back({ "window length", seconds(double(a.overall.windowNs())), "" });
    }
    return s;
}

ScorecardSection supplied(const std::vector<RunMeta> &meta)
{
    ScorecardSection s { std::string(kScorecardSupplied), {} };
    for (const auto &m : meta)
        s.rows.push_back({ m.key, m.value, "" });
    if (meta.empty())
        s.rows.push_back({ "nothing", "-", "give --meta KEY=VALUE (model, precision, global batch, ...)" });
    return s;
}

} // namespace

std::optional<RunMeta> parseRunMeta(std::string_view text, std::string &error)
{
    const auto eq = text.find('=');
    auto trim = [](std::string_view v) {
        const auto first = v.find_first_not_of(" \t");
        if (first == std::string_view::npos)
            return std::string_view();
        return v.substr(first, v.find_last_not_of(" \t") - first + 1);
    };
    const auto key = eq == std::string_view::npos ? std::string_view() : trim(text.substr(0, eq));
    if (key.empty()) {
        error = fmt::format("--meta expects KEY=VALUE (e.g. model=llama-8b), got '{}'", text);
        return std::nullopt;
    }
    return RunMeta { std::string(key), std::string(trim(text.substr(eq + 1))) };
}

const ScorecardSection *RunScorecard::section(std::string_view title) const
{
    for (const auto &s : sections)
        if (s.title == title)
            return &s;
    return nullptr;
}

const ScorecardRow *RunScorecard::row(std::string_view title, std::string_view item) const
{
    if (const auto *s = section(title))
        for (const auto &r : s->rows)
            if (r.item == item)
                return &r;
    return nullptr;
}

RunScorecard buildRunScorecard(const TraceSet &trace, const RunAccounting &accounting, const std::vector<RunMeta> &meta)
{
    RunScorecard card;
    if (!accounting.error.empty() || accounting.ranks.empty()) {
        card.unavailable = accounting.error.empty() ? std::string("no rank accounted") : accounting.error;
    } else {
        card.sections.push_back(rates(accounting));
        card.sections.push_back(partition(accounting));
        card.sections.push_back(checkpoints(accounting));
        card.sections.push_back(exclusions(trace, accounting));
        card.sections.push_back(window(trace, accounting));
    }
    card.sections.push_back(capture(trace, accounting));
    card.sections.push_back(supplied(meta));
    return card;
}

} // namespace gaplens::core
