// SPDX-License-Identifier: MIT
// `diff`: two captures side by side (headline with a noise verdict, kernels, idle time by
// cause and phase, NVTX), as tables, CSV, JSON or Markdown for a review.
// `check`: a capture against a stored `summary --format json`, the nightly regression gate.
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

constexpr int kExitRegression = 3;

// The first `top` rows, or all of them when top is 0 (--top's meaning).
template <typename Row> std::span<const Row> topRows(const std::vector<Row> &rows, std::size_t top)
{
    return std::span(rows).first(top == 0 ? rows.size() : std::min(top, rows.size()));
}

Cell rightText(std::string text)
{
    auto cell = textCell(std::move(text));
    cell.alignRight = true;
    return cell;
}

Cell signedDurationCell(double ns)
{
    auto cell = durationCell(ns);
    if (ns > 0)
        cell.text = "+" + cell.text;
    return cell;
}

Cell changeCell(std::optional<double> percent)
{
    if (!percent)
        return rightText("-");
    return { fmt::format("{:+.1f}%", *percent), fmt::format("{:.3f}", *percent), true };
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

int runDiff(const Options &options)
{
    const auto [before, after] = loadBeforeAfter(options);
    if (!before)
        return 1;
    core::CompareOptions compare;
    compare.rangeName = options.range.value_or(std::string());
    compare.minGapNs = options.minGapNs;
    compare.includeCopies = options.withCopies;
    // One derived capture per side: busy time, gaps and blame computed once each.
    core::DerivedOptions derivedOptions;
    derivedOptions.minGapNs = compare.minGapNs;
    derivedOptions.includeCopies = compare.includeCopies;
    derivedOptions.foldIndexes = false;
    const auto c = core::compareTraces(*core::DerivedCapture::build(before, derivedOptions),
        *core::DerivedCapture::build(after, derivedOptions), compare);
    const int rc = before->errors.empty() && after->errors.empty() ? 0 : 1;

    if (options.format == Format::Json) {
        printDiffJson(options, *before, *after, c);
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

namespace {

// What `check` needs from a baseline written by `summary --format json`.
struct BaselineDevice
{
    std::int32_t device = 0;
    double busyPercent = 0;
};

struct BaselineRank
{
    std::int32_t rank = 0;
    std::optional<double> medianStepNs;
    std::vector<BaselineDevice> devices;
};

struct Baseline
{
    std::string stepRange;
    std::optional<bool> withCopies;
    std::vector<BaselineRank> ranks;
};

// A baseline that cannot be used; the message already names the file.
struct BaselineError
{
    std::string message;
};

// "line L, column C" of the byte a parser stopped at; `byte` counts from 1, as nlohmann's does.
std::string textPosition(std::string_view text, std::size_t byte)
{
    const auto offset = std::min(byte > 0 ? byte - 1 : 0, text.size());
    const auto before = text.substr(0, offset);
    const auto line = 1 + std::count(before.begin(), before.end(), '\n');
    const auto lineStart = before.rfind('\n');
    const auto column = offset - (lineStart == std::string_view::npos ? 0 : lineStart + 1) + 1;
    return fmt::format("line {}, column {}", line, column);
}

// nlohmann's name of a JSON token ("string literal", "'[', '{', or a literal"), in words.
std::string tokenInWords(std::string_view token)
{
    constexpr std::string_view literal = " literal";
    if (token == "'[', '{', or a literal")
        return "a value";
    if (token == "string literal")
        return "a string";
    if (token == "number literal")
        return "a number";
    if (token == "end of input")
        return "the end of the input";
    if (token.ends_with(literal)) // true, false, null
        return std::string(token.substr(0, token.size() - literal.size()));
    return std::string(token); // one quoted character, e.g. ']'
}

// Where in the document nlohmann was ("while parsing object separator"), in words.
std::string contextInWords(std::string_view context)
{
    if (context == "object key")
        return " as an object key";
    if (context == "object separator")
        return " after an object key";
    if (context == "object")
        return " in an object";
    if (context == "array")
        return " in an array";
    return {}; // "value": the document itself, an item or a member's value
}

// The reason in one of nlohmann's syntax errors, e.g. from "syntax error while parsing value -
// unexpected ']'; expected '[', '{', or a literal" the words "expected a value, found ']'". A
// lexer error ("invalid literal; last read: 'tru'") keeps nlohmann's words without the echo.
std::string syntaxErrorReason(std::string_view what)
{
    constexpr std::string_view syntaxError = "syntax error ", whileParsing = "while parsing ", separator = " - ",
                               unexpected = "unexpected ", expected = "; expected ", lastRead = "; last read: ";
    const auto syntaxAt = what.find(syntaxError);
    if (syntaxAt == std::string_view::npos) { // not the parser's: drop "[json.exception...] ... column C: "
        const auto colon = what.find(": ");
        return std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
    }
    auto rest = what.substr(syntaxAt + syntaxError.size());
    std::string_view context;
    if (rest.starts_with(whileParsing)) {
        const auto dash = rest.find(separator);
        context = rest.substr(whileParsing.size(), dash - whileParsing.size());
        rest = dash == std::string_view::npos ? std::string_view() : rest.substr(dash + separator.size());
    } else if (rest.starts_with("- ")) {
        rest.remove_prefix(2);
    }
    if (const auto echo = rest.find(lastRead); echo != std::string_view::npos)
        return std::string(rest.substr(0, echo));
    if (!rest.starts_with(unexpected))
        return std::string(rest);
    rest.remove_prefix(unexpected.size());
    const auto expectedAt = rest.find(expected);
    const auto found = tokenInWords(rest.substr(0, expectedAt));
    if (expectedAt == std::string_view::npos)
        return "unexpected " + found + contextInWords(context);
    return "expected " + tokenInWords(rest.substr(expectedAt + expected.size())) + contextInWords(context) + ", found "
        + found;
}

// The member `key` of an object; nullptr when it is missing or `value` is no object.
const nlohmann::json *member(const nlohmann::json &value, const char *key)
{
    if (!value.is_object())
        return nullptr;
    const auto it = value.find(key);
    return it == value.end() ? nullptr : &*it;
}

// An integer literal that fits a rank number or device id. A fraction, an exponent or a
// number out of range is none: a rank of 2^32 must not wrap around to rank 0.
std::optional<std::int32_t> int32Value(const nlohmann::json *value)
{
    if (!value || !value->is_number_integer())
        return std::nullopt;
    if (value->is_number_unsigned()) {
        const auto number = value->get<std::uint64_t>();
        return std::in_range<std::int32_t>(number) ? std::optional(std::int32_t(number)) : std::nullopt;
    }
    const auto number = value->get<std::int64_t>();
    return std::in_range<std::int32_t>(number) ? std::optional(std::int32_t(number)) : std::nullopt;
}

Baseline readBaseline(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw BaselineError { fmt::format("cannot read baseline '{}': {}", path, std::strerror(errno)) };
    std::ostringstream read;
    read << in.rdbuf();
    const std::string text = read.str();
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error &e) {
        throw BaselineError { fmt::format(
            "baseline '{}' is not JSON: {}: {}", path, textPosition(text, e.byte), syntaxErrorReason(e.what())) };
    }
    const std::string expected = "expected the output of `gaplens-cli summary --format json`";
    auto shape = [&](const std::string &what) {
        return BaselineError { fmt::format("baseline '{}' {}; {}", path, what, expected) };
    };
    if (!doc.is_object())
        throw shape("is not a JSON object");
    if (const auto *command = member(doc, "command"); command && command->is_string()) {
        const auto &name = command->get_ref<const std::string &>();
        if (name != "summary")
            throw shape(fmt::format("was written by `gaplens-cli {}`", name));
    }
    const auto *ranks = member(doc, "ranks");
    if (!ranks || !ranks->is_array())
        throw shape("has no ranks[] array");
    if (ranks->empty())
        throw shape("has an empty ranks[] array: nothing to check against");
    Baseline baseline;
    if (const auto *range = member(doc, "step_range"); range && range->is_string())
        baseline.stepRange = range->get<std::string>();
    if (const auto *copies = member(doc, "with_copies"); copies && copies->is_boolean())
        baseline.withCopies = copies->get<bool>();
    for (std::size_t i = 0; i < ranks->size(); ++i) {
        const auto &item = (*ranks)[i];
        const auto rank = int32Value(member(item, "rank"));
        if (!rank)
            throw shape(fmt::format("has ranks[{}] without an integer \"rank\"", i));
        BaselineRank r;
        r.rank = *rank;
        if (const auto *step = member(item, "median_step_ns"); step && !step->is_null()) {
            if (!step->is_number())
                throw shape(fmt::format("has ranks[{}].median_step_ns that is neither a number nor null", i));
            r.medianStepNs = step->get<double>();
        }
        const auto *devices = member(item, "devices");
        if (!devices || !devices->is_array())
            throw shape(fmt::format("has ranks[{}] without a devices[] array", i));
        for (std::size_t d = 0; d < devices->size(); ++d) {
            const auto &device = (*devices)[d];
            const auto id = int32Value(member(device, "device"));
            const auto *busy = member(device, "busy_pct");
            if (!id || !busy || !busy->is_number())
                throw shape(
                    fmt::format("has ranks[{}].devices[{}] without integer \"device\" and number \"busy_pct\"", i, d));
            r.devices.push_back({ *id, busy->get<double>() });
        }
        baseline.ranks.push_back(std::move(r));
    }
    return baseline;
}

enum class CheckStatus { Ok, Regression, Missing };

struct CheckRow
{
    std::int32_t rank = 0;
    std::optional<std::int32_t> device; // nullopt for the step row
    bool isStep = false;
    double baseline = 0;
    std::optional<double> current;
    double limit = 0;
    CheckStatus status = CheckStatus::Ok;
};

std::string_view statusName(CheckStatus status)
{
    switch (status) {
    case CheckStatus::Ok: return "ok";
    case CheckStatus::Regression: return "regression";
    case CheckStatus::Missing: return "missing";
    }
    return "ok";
}

} // namespace

int runCheck(const Options &options)
{
    if (options.minSustainedGainPercent)
        return runSustainedGainCheck(options);
    Baseline baseline;
    try {
        baseline = readBaseline(options.baselinePath);
    } catch (const BaselineError &e) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", e.message.c_str());
        return 1;
    }
    const auto trace = loadCapture(options, options.files, "");
    if (trace->ranks.empty()) {
        std::fprintf(
            stderr, "gaplens-cli: error: none of the %zu input file(s) could be loaded\n", options.files.size());
        return 1;
    }

    // Measure as the baseline did: its copies setting and its step range, unless overridden.
    core::DerivedOptions derivedOptions;
    derivedOptions.minGapNs = options.minGapNs;
    derivedOptions.includeCopies = baseline.withCopies.value_or(options.withCopies);
    derivedOptions.foldIndexes = false;
    const auto derived = core::DerivedCapture::build(trace, derivedOptions);
    std::string rangeName = options.range.value_or(baseline.stepRange);
    if (rangeName.empty())
        rangeName = core::proposePaceRangeName(*trace).value_or(std::string());
    std::optional<core::PaceReport> pace;
    if (!rangeName.empty()) {
        core::PaceOptions paceOptions;
        paceOptions.rangeName = rangeName;
        pace = core::computePace(*trace, paceOptions);
    }

    const double tol = options.tolerancePercent / 100.0;
    std::vector<CheckRow> rows;
    for (const auto &b : baseline.ranks) {
        std::uint32_t index = core::kNoIndex;
        for (std::uint32_t r = 0; r < trace->ranks.size(); ++r)
            if (trace->ranks[r].rank == b.rank)
                index = r;
        for (const auto &d : b.devices) {
            CheckRow row;
            row.rank = b.rank;
            row.device = d.device;
            row.baseline = d.busyPercent;
            row.limit = d.busyPercent * (1.0 - tol);
            if (index != core::kNoIndex)
                for (auto g : trace->ranks[index].gpus)
                    if (trace->gpus[g].deviceId == d.device)
                        row.current = derived->busy(core::GpuIndex(g)).busyPercent;
            row.status = !row.current ? CheckStatus::Missing
                                      : (*row.current < row.limit ? CheckStatus::Regression : CheckStatus::Ok);
            rows.push_back(row);
        }
        if (b.medianStepNs) {
            CheckRow row;
            row.rank = b.rank;
            row.isStep = true;
            row.baseline = *b.medianStepNs;
            row.limit = *b.medianStepNs * (1.0 + tol);
            if (pace && index != core::kNoIndex)
                for (const auto &rp : pace->ranks)
                    if (rp.rank == index && !rp.iterations.empty())
                        row.current = rp.medianNs;
            row.status = !row.current ? CheckStatus::Missing
                                      : (*row.current > row.limit ? CheckStatus::Regression : CheckStatus::Ok);
            rows.push_back(row);
        }
    }

    bool failed = false;
    for (const auto &row : rows)
        failed = failed || row.status != CheckStatus::Ok;
    auto change = [](const CheckRow &row) -> std::optional<double> {
        if (!row.current || row.baseline == 0)
            return std::nullopt;
        return (*row.current / row.baseline - 1.0) * 100.0;
    };

    if (options.format == Format::Json) {
        auto doc = jsonDocument(options.command, { trace.get() });
        doc["baseline"] = options.baselinePath;
        doc["tolerance_pct"] = options.tolerancePercent;
        doc["step_range"] = rangeName;
        doc["with_copies"] = derivedOptions.includeCopies;
        doc["passed"] = !failed;
        Json checks = Json::array();
        for (const auto &row : rows) {
            Json out;
            out["rank"] = row.rank;
            out["device"] = row.device ? Json(*row.device) : Json(nullptr);
            out["metric"] = row.isStep ? "median_step_ns" : "busy_pct";
            out["baseline"] = row.baseline;
            out["current"] = numberOrNull(row.current);
            out["change_pct"] = numberOrNull(change(row));
            out["limit"] = row.limit;
            out["status"] = statusName(row.status);
            checks.push_back(std::move(out));
        }
        doc["checks"] = std::move(checks);
        printJson(doc);
    } else {
        Table grid(fmt::format("Check against {} (tolerance {}% of the baseline value{})", options.baselinePath,
            options.tolerancePercent,
            rangeName.empty() ? std::string() : fmt::format("; steps = NVTX range '{}'", rangeName)));
        grid.addColumns({ { "rank", "rank" }, { "GPU", "device" }, { "metric", "metric" }, { "baseline", "baseline" },
            { "current", "current" }, { "change", "change_pct" }, { "limit", "limit" }, { "result", "status" } });
        for (const auto &row : rows) {
            auto value = [&](std::optional<double> v) {
                if (!v)
                    return rightText("-");
                return row.isStep ? durationCell(*v) : percentCell(*v);
            };
            grid.addRow({ countCell(std::uint64_t(row.rank)),
                row.device ? countCell(std::uint64_t(*row.device)) : rightText("-"),
                textCell(row.isStep ? "median step time" : "GPU busy %"), value(row.baseline), value(row.current),
                changeCell(change(row)),
                textCell(fmt::format("{} {}", row.isStep ? "<=" : ">=", value(row.limit).text)),
                textCell(row.status == CheckStatus::Ok
                        ? "ok"
                        : (row.status == CheckStatus::Missing ? "MISSING" : "REGRESSION")) });
        }
        printTables(options.format, { grid });
    }

    for (const auto &row : rows) {
        if (row.status == CheckStatus::Ok)
            continue;
        const std::string where
            = row.device ? fmt::format("rank {} GPU {}", row.rank, *row.device) : fmt::format("rank {}", row.rank);
        if (row.status == CheckStatus::Missing)
            std::fprintf(stderr, "gaplens-cli: check failed: %s: %s is in the baseline but not in the capture\n",
                where.c_str(), row.isStep ? fmt::format("median step of '{}'", rangeName).c_str() : "the GPU");
        else if (row.isStep)
            std::fprintf(stderr,
                "gaplens-cli: check failed: %s: median step time rose from %s to %s (%+.1f%%, tolerance "
                "%g%%)\n",
                where.c_str(), core::formatDuration(row.baseline).c_str(), core::formatDuration(*row.current).c_str(),
                change(row).value_or(0), options.tolerancePercent);
        else
            std::fprintf(stderr,
                "gaplens-cli: check failed: %s: GPU busy fell from %s to %s (%+.1f%%, tolerance %g%%)\n", where.c_str(),
                core::formatPercent(row.baseline).c_str(), core::formatPercent(*row.current).c_str(),
                change(row).value_or(0), options.tolerancePercent);
    }
    if (failed)
        return kExitRegression;
    return trace->errors.empty() ? 0 : 1;
}

} // namespace gaplens::cli
