// SPDX-License-Identifier: MIT
// `diff`: two captures side by side (headline with a noise verdict, kernels, idle time by
// cause and phase, NVTX), as tables, CSV, JSON or Markdown for a review.
// `check`: a capture against a stored `summary --format json`, the nightly regression gate.
#include "command_context.h"
#include "json_reader.h"

#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/units.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace gaplens::cli {
namespace {

constexpr int kExitRegression = 3;

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
    return {fmt::format("{:+.1f}%", *percent), fmt::format("{:.3f}", *percent), true};
}

Cell metricValueCell(core::MetricUnit unit, std::optional<double> value)
{
    if (!value)
        return rightText("-");
    switch (unit) {
    case core::MetricUnit::Duration: return durationCell(*value);
    case core::MetricUnit::Percent: return percentCell(*value);
    case core::MetricUnit::Count: return countCell(std::uint64_t(std::llround(*value)));
    }
    return rightText("-");
}

std::string_view unitName(core::MetricUnit unit)
{
    switch (unit) {
    case core::MetricUnit::Duration: return "ns";
    case core::MetricUnit::Percent: return "pct";
    case core::MetricUnit::Count: return "count";
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

void optionalField(JsonWriter &json, std::string_view key, std::optional<double> value)
{
    if (value)
        json.field(key, *value);
    else
        json.key(key).null();
}

std::shared_ptr<core::TraceSet> loadCapture(const Options &options, const std::vector<std::string> &files,
                                            const char *label)
{
    core::LoadOptions load;
    load.files = files;
    load.rankOverrides = options.rankOverrides;
    load.threads = options.threads;
    auto trace = core::loadTraceSet(load);
    for (const auto &error : trace->errors)
        std::fprintf(stderr, "gaplens-cli: error: %s%s\n", label, error.message.c_str());
    return trace;
}

void writeFileList(JsonWriter &json, const core::TraceSet &trace)
{
    json.key("files").beginArray();
    for (const auto &r : trace.reports)
        json.value(r.path);
    json.endArray();
    json.key("errors").beginArray();
    for (const auto &e : trace.errors)
        json.beginObject().field("file", e.path).field("message", e.message).endObject();
    json.endArray();
}

void writeFigures(JsonWriter &json, const core::TraceSet &trace, const core::CaptureFigures &f)
{
    json.beginObject();
    writeFileList(json, trace);
    json.field("ranks", std::uint64_t(f.ranks));
    json.field("gpus", std::uint64_t(f.gpus));
    json.field("ranks_with_steps", std::uint64_t(f.ranksWithSteps));
    json.field("steps", std::uint64_t(f.steps));
    json.field("kernels", f.kernels);
    json.field("kernel_ns", f.kernelNs);
    json.field("busy_ns", f.busyNs);
    json.field("window_ns", f.windowNs);
    json.field("busy_pct", f.busyPercent);
    json.field("gap_count", f.gapCount);
    json.field("gap_ns", f.gapNs);
    json.key("step_ns").beginArray();
    for (double v : f.stepNs)
        json.value(v);
    json.endArray();
    json.endObject();
}

template<typename Row>
void writeIdleRows(JsonWriter &json, std::string_view key, const std::vector<Row> &rows)
{
    json.key(key).beginArray();
    for (const auto &r : rows) {
        json.beginObject();
        json.field("key", r.key);
        json.field("presence", core::presenceName(r.presence));
        json.field("count_before", r.countBefore);
        json.field("count_after", r.countAfter);
        json.field("total_before_ns", r.totalBefore);
        json.field("total_after_ns", r.totalAfter);
        json.field("delta_ns", r.deltaNs);
        json.endObject();
    }
    json.endArray();
}

void printDiffJson(const Options &options, const core::TraceSet &before, const core::TraceSet &after,
                   const core::Comparison &c)
{
    JsonWriter json;
    json.beginObject();
    json.field("tool", "gaplens");
    json.field("format_version", 1);
    json.field("command", options.command);
    // The common keys list both captures; before/after below keep them apart.
    json.key("files").beginArray();
    for (const auto *trace : {&before, &after})
        for (const auto &r : trace->reports)
            json.value(r.path);
    json.endArray();
    json.key("errors").beginArray();
    for (const auto *trace : {&before, &after})
        for (const auto &e : trace->errors)
            json.beginObject().field("file", e.path).field("message", e.message).endObject();
    json.endArray();
    json.field("min_gap_ns", options.minGapNs);
    json.field("with_copies", options.withCopies);
    json.field("step_range", c.stepRange);
    json.field("range_source", c.rangeSource);
    json.field("has_steps", c.hasSteps);
    json.key("before");
    writeFigures(json, before, c.before);
    json.key("after");
    writeFigures(json, after, c.after);
    json.field("verdict", verdictName(c.verdict));
    json.field("verdict_text", c.verdictText);
    json.field("verdict_detail", c.verdictDetail);
    json.field("noise_method", c.noiseMethod);
    json.key("headline").beginArray();
    for (const auto &m : c.headline) {
        json.beginObject();
        json.field("key", m.key);
        json.field("label", m.label);
        json.field("unit", unitName(m.unit));
        json.field("higher_is_better", m.higherIsBetter);
        optionalField(json, "before", m.before);
        optionalField(json, "after", m.after);
        optionalField(json, "delta", m.delta);
        optionalField(json, "change_pct", m.changePercent);
        json.field("judgement", judgementName(m.judgement));
        optionalField(json, "noise_pct", m.noisePercent);
        optionalField(json, "p_value", m.pValue);
        json.endObject();
    }
    json.endArray();
    json.key("kernels").beginArray();
    for (std::size_t i = 0; i < c.kernels.size() && (options.top == 0 || i < options.top); ++i) {
        const auto &k = c.kernels[i];
        json.beginObject();
        json.field("name", k.name);
        json.field("presence", core::presenceName(k.presence));
        json.field("calls_before", k.callsBefore);
        json.field("calls_after", k.callsAfter);
        json.field("total_before_ns", k.totalBefore);
        json.field("total_after_ns", k.totalAfter);
        json.field("avg_before_ns", k.avgBefore);
        json.field("avg_after_ns", k.avgAfter);
        json.field("delta_ns", k.deltaNs);
        optionalField(json, "avg_ratio", k.avgRatio);
        json.endObject();
    }
    json.endArray();
    writeIdleRows(json, "idle_by_cause", c.idleByCause);
    writeIdleRows(json, "idle_by_phase", c.idleByPhase);
    json.key("nvtx").beginArray();
    for (std::size_t i = 0; i < c.nvtx.size() && (options.top == 0 || i < options.top); ++i) {
        const auto &n = c.nvtx[i];
        json.beginObject();
        json.field("name", n.name);
        json.field("presence", core::presenceName(n.presence));
        json.field("instances_before", n.instancesBefore);
        json.field("instances_after", n.instancesAfter);
        json.field("total_before_ns", n.totalBefore);
        json.field("total_after_ns", n.totalAfter);
        json.field("avg_before_ns", n.avgBefore);
        json.field("avg_after_ns", n.avgAfter);
        json.field("delta_ns", n.deltaNs);
        json.endObject();
    }
    json.endArray();
    json.key("warnings").beginArray();
    for (const auto &w : c.warnings)
        json.value(w);
    json.endArray();
    json.endObject();
    printJson(json);
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
                                : std::string("Before / after (no step range: totals only)"));
    headline.addColumn("metric");
    headline.addColumn("before", "before");
    headline.addColumn("after", "after");
    headline.addColumn("change", "change_pct");
    headline.addColumn("noise", "noise_pct");
    headline.addColumn("judgement");
    for (const auto &m : c.headline) {
        Cell noise = m.noisePercent ? Cell{fmt::format("+-{:.1f}%", *m.noisePercent),
                                           fmt::format("{:.3f}", *m.noisePercent), true}
                                    : rightText("-");
        std::string judged = m.judgement == core::NoiseJudgement::ExceedsNoise
            ? "exceeds noise"
            : (m.judgement == core::NoiseJudgement::WithinNoise ? "within noise" : "-");
        headline.addRow({textCell(m.label), metricValueCell(m.unit, m.before), metricValueCell(m.unit, m.after),
                                 changeCell(m.changePercent), noise, textCell(judged)});
    }
    tables.push_back(std::move(headline));

    Table kernels("Kernels by short name (sorted by the change of total time)");
    for (const auto &[h, csv] : std::vector<std::pair<const char *, const char *>>{
             {"kernel", "name"}, {"calls before", "calls_before"}, {"calls after", "calls_after"},
             {"total before", "total_before_ns"}, {"total after", "total_after_ns"}, {"avg before", "avg_before_ns"},
             {"avg after", "avg_after_ns"}, {"change", "delta_ns"}, {"avg x", "avg_ratio"}, {"note", "presence"}})
        kernels.addColumn(h, csv);
    for (std::size_t i = 0; i < c.kernels.size() && (options.top == 0 || i < options.top); ++i) {
        const auto &k = c.kernels[i];
        Cell ratio = k.avgRatio ? Cell{fmt::format("{:.2f}x", *k.avgRatio), fmt::format("{:.6f}", *k.avgRatio), true}
                                : rightText("-");
        kernels.addRow({textCell(k.name), countCell(k.callsBefore), countCell(k.callsAfter),
                                durationCell(double(k.totalBefore)), durationCell(double(k.totalAfter)),
                                k.callsBefore ? durationCell(k.avgBefore) : rightText("-"),
                                k.callsAfter ? durationCell(k.avgAfter) : rightText("-"),
                                signedDurationCell(double(k.deltaNs)), ratio, textCell(presenceNote(k.presence))});
    }
    tables.push_back(std::move(kernels));

    auto idleTable = [&](std::string title, const char *what, const std::vector<core::IdleChange> &rows) {
        Table g(std::move(title));
        g.addColumn(what, "key");
        g.addColumn("gaps before", "count_before");
        g.addColumn("gaps after", "count_after");
        g.addColumn("idle before", "total_before_ns");
        g.addColumn("idle after", "total_after_ns");
        g.addColumn("change", "delta_ns");
        g.addColumn("note", "presence");
        for (const auto &r : rows)
            g.addRow({textCell(r.key), countCell(r.countBefore), countCell(r.countAfter),
                              durationCell(double(r.totalBefore)), durationCell(double(r.totalAfter)),
                              signedDurationCell(double(r.deltaNs)), textCell(presenceNote(r.presence))});
        return g;
    };
    const auto threshold = core::formatDuration(double(options.minGapNs));
    tables.push_back(idleTable(fmt::format("Idle time in gaps >= {} by cause", threshold), "cause", c.idleByCause));
    tables.push_back(
        idleTable(fmt::format("Idle time in gaps >= {} by NVTX phase", threshold), "phase", c.idleByPhase));

    Table nvtx("NVTX ranges by name (CPU time)");
    for (const auto &[h, csv] : std::vector<std::pair<const char *, const char *>>{
             {"range", "name"}, {"instances before", "instances_before"}, {"instances after", "instances_after"},
             {"total before", "total_before_ns"}, {"total after", "total_after_ns"}, {"avg before", "avg_before_ns"},
             {"avg after", "avg_after_ns"}, {"change", "delta_ns"}, {"note", "presence"}})
        nvtx.addColumn(h, csv);
    for (std::size_t i = 0; i < c.nvtx.size() && (options.top == 0 || i < options.top); ++i) {
        const auto &n = c.nvtx[i];
        nvtx.addRow({textCell(n.name), countCell(n.instancesBefore), countCell(n.instancesAfter),
                             durationCell(double(n.totalBefore)), durationCell(double(n.totalAfter)),
                             n.instancesBefore ? durationCell(n.avgBefore) : rightText("-"),
                             n.instancesAfter ? durationCell(n.avgAfter) : rightText("-"),
                             signedDurationCell(double(n.deltaNs)), textCell(presenceNote(n.presence))});
    }
    tables.push_back(std::move(nvtx));
    return tables;
}

} // namespace

int runDiff(const Options &options)
{
    const auto before = loadCapture(options, options.beforeFiles, "before: ");
    const auto after = loadCapture(options, options.afterFiles, "after: ");
    for (const auto &[trace, which, count] : {std::tuple{before.get(), "before", options.beforeFiles.size()},
                                              std::tuple{after.get(), "after", options.afterFiles.size()}})
        if (trace->ranks.empty()) {
            std::fprintf(stderr, "gaplens-cli: error: none of the %zu %s file(s) could be loaded\n", count, which);
            return 1;
        }
    core::CompareOptions compare;
    compare.rangeName = options.range.value_or(std::string());
    compare.minGapNs = options.minGapNs;
    compare.includeCopies = options.withCopies;
    const auto c = core::compareTraces(*before, *after, compare);
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
    }
    printTables(options.format, tables);
    if (options.format == Format::Table) {
        std::printf("\nverdict: %s\n", c.verdictText.c_str());
        if (!c.verdictDetail.empty())
            std::printf("detail:  %s\n", c.verdictDetail.c_str());
        std::printf("noise:   %s\n", c.noiseMethod.c_str());
        if (c.hasSteps)
            std::printf("steps:   NVTX range '%s', %s (choose another with --range NAME)\n", c.stepRange.c_str(),
                        c.rangeSource.c_str());
    } else if (options.format == Format::Markdown) {
        std::printf("\n_Noise test: %s._\n", c.noiseMethod.c_str());
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

Baseline readBaseline(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw BaselineError{fmt::format("cannot read baseline '{}': {}", path, std::strerror(errno))};
    std::ostringstream text;
    text << in.rdbuf();
    JsonValue doc = JsonValue::makeNull();
    try {
        doc = parseJson(text.str());
    } catch (const JsonParseError &e) {
        throw BaselineError{fmt::format("baseline '{}' is not JSON: {}", path, e.describe())};
    }
    const std::string expected = "expected the output of `gaplens-cli summary --format json`";
    auto shape = [&](const std::string &what) {
        return BaselineError{fmt::format("baseline '{}' {}; {}", path, what, expected)};
    };
    if (!doc.isObject())
        throw shape("is not a JSON object");
    if (const auto *command = doc.find("command"); command && command->isString() && command->string() != "summary")
        throw shape(fmt::format("was written by `gaplens-cli {}`", command->string()));
    const auto *ranks = doc.find("ranks");
    if (!ranks || !ranks->isArray())
        throw shape("has no ranks[] array");
    if (ranks->items().empty())
        throw shape("has an empty ranks[] array: nothing to check against");
    Baseline baseline;
    if (const auto *range = doc.find("step_range"); range && range->isString())
        baseline.stepRange = range->string();
    if (const auto *copies = doc.find("with_copies"); copies && copies->isBool())
        baseline.withCopies = copies->boolean();
    for (std::size_t i = 0; i < ranks->items().size(); ++i) {
        const auto &item = ranks->items()[i];
        const auto *rank = item.isObject() ? item.find("rank") : nullptr;
        if (!rank || !rank->integer())
            throw shape(fmt::format("has ranks[{}] without an integer \"rank\"", i));
        BaselineRank r;
        r.rank = std::int32_t(*rank->integer());
        if (const auto *step = item.find("median_step_ns"); step && !step->isNull()) {
            if (!step->isNumber())
                throw shape(fmt::format("has ranks[{}].median_step_ns that is neither a number nor null", i));
            r.medianStepNs = step->number();
        }
        const auto *devices = item.find("devices");
        if (!devices || !devices->isArray())
            throw shape(fmt::format("has ranks[{}] without a devices[] array", i));
        for (std::size_t d = 0; d < devices->items().size(); ++d) {
            const auto &dev = devices->items()[d];
            const auto *id = dev.isObject() ? dev.find("device") : nullptr;
            const auto *busy = dev.isObject() ? dev.find("busy_pct") : nullptr;
            if (!id || !id->integer() || !busy || !busy->isNumber())
                throw shape(fmt::format("has ranks[{}].devices[{}] without integer \"device\" and number \"busy_pct\"",
                                        i, d));
            r.devices.push_back({std::int32_t(*id->integer()), busy->number()});
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
    Baseline baseline;
    try {
        baseline = readBaseline(options.baselinePath);
    } catch (const BaselineError &e) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", e.message.c_str());
        return 1;
    }
    const auto trace = loadCapture(options, options.files, "");
    if (trace->ranks.empty()) {
        std::fprintf(stderr, "gaplens-cli: error: none of the %zu input file(s) could be loaded\n",
                     options.files.size());
        return 1;
    }

    // Measure as the baseline did: its copies setting and its step range, unless overridden.
    core::GpuBusyOptions busyOptions;
    busyOptions.includeCopies = baseline.withCopies.value_or(options.withCopies);
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
                        row.current = core::computeGpuBusy(*trace, g, busyOptions).busyPercent;
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
        JsonWriter json;
        json.beginObject();
        json.field("tool", "gaplens");
        json.field("format_version", 1);
        json.field("command", options.command);
        writeFileList(json, *trace);
        json.field("baseline", options.baselinePath);
        json.field("tolerance_pct", options.tolerancePercent);
        json.field("step_range", rangeName);
        json.field("with_copies", busyOptions.includeCopies);
        json.field("passed", !failed);
        json.key("checks").beginArray();
        for (const auto &row : rows) {
            json.beginObject();
            json.field("rank", row.rank);
            if (row.device)
                json.field("device", *row.device);
            else
                json.key("device").null();
            json.field("metric", row.isStep ? "median_step_ns" : "busy_pct");
            json.field("baseline", row.baseline);
            optionalField(json, "current", row.current);
            optionalField(json, "change_pct", change(row));
            json.field("limit", row.limit);
            json.field("status", statusName(row.status));
            json.endObject();
        }
        json.endArray();
        json.endObject();
        printJson(json);
    } else {
        Table grid(fmt::format("Check against {} (tolerance {}% of the baseline value{})", options.baselinePath,
                                 options.tolerancePercent,
                                 rangeName.empty() ? std::string() : fmt::format("; steps = NVTX range '{}'", rangeName)));
        for (const auto &[h, csv] : std::vector<std::pair<const char *, const char *>>{
                 {"rank", "rank"}, {"GPU", "device"}, {"metric", "metric"}, {"baseline", "baseline"},
                 {"current", "current"}, {"change", "change_pct"}, {"limit", "limit"}, {"result", "status"}})
            grid.addColumn(h, csv);
        for (const auto &row : rows) {
            auto value = [&](std::optional<double> v) {
                if (!v)
                    return rightText("-");
                return row.isStep ? durationCell(*v) : percentCell(*v);
            };
            grid.addRow({countCell(std::uint64_t(row.rank)),
                                 row.device ? countCell(std::uint64_t(*row.device)) : rightText("-"),
                                 textCell(row.isStep ? "median step time" : "GPU busy %"), value(row.baseline),
                                 value(row.current), changeCell(change(row)),
                                 textCell(fmt::format("{} {}", row.isStep ? "<=" : ">=", value(row.limit).text)),
                                 textCell(row.status == CheckStatus::Ok ? "ok"
                                                                        : (row.status == CheckStatus::Missing
                                                                               ? "MISSING"
                                                                               : "REGRESSION"))});
        }
        printTables(options.format, {grid});
    }

    for (const auto &row : rows) {
        if (row.status == CheckStatus::Ok)
            continue;
        const std::string where = row.device ? fmt::format("rank {} GPU {}", row.rank, *row.device)
                                             : fmt::format("rank {}", row.rank);
        if (row.status == CheckStatus::Missing)
            std::fprintf(stderr, "gaplens-cli: check failed: %s: %s is in the baseline but not in the capture\n",
                         where.c_str(), row.isStep ? fmt::format("median step of '{}'", rangeName).c_str()
                                                   : "the GPU");
        else if (row.isStep)
            std::fprintf(stderr,
                         "gaplens-cli: check failed: %s: median step time rose from %s to %s (%+.1f%%, tolerance "
                         "%g%%)\n",
                         where.c_str(), core::formatDuration(row.baseline).c_str(),
                         core::formatDuration(*row.current).c_str(), change(row).value_or(0), options.tolerancePercent);
        else
            std::fprintf(stderr,
                         "gaplens-cli: check failed: %s: GPU busy fell from %s to %s (%+.1f%%, tolerance %g%%)\n",
                         where.c_str(), core::formatPercent(row.baseline).c_str(),
                         core::formatPercent(*row.current).c_str(), change(row).value_or(0), options.tolerancePercent);
    }
    if (failed)
        return kExitRegression;
    return trace->errors.empty() ? 0 : 1;
}

} // namespace gaplens::cli
