// SPDX-License-Identifier: MIT
// `check`: a capture against a stored `summary --format json`, the nightly regression gate
// (the baseline read and checked, each rank's busy % and median step now, the verdict).
#include "command_context.h"
#include "command_tables.h"

#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

namespace gaplens::cli {
namespace {

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

CheckBaseline readBaseline(const std::string &path)
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
    CheckBaseline baseline;
    if (const auto *range = member(doc, "step_range"); range && range->is_string())
        baseline.stepRange = range->get<std::string>();
    if (const auto *copies = member(doc, "with_copies"); copies && copies->is_boolean())
        baseline.withCopies = copies->get<bool>();
    for (std::size_t i = 0; i < ranks->size(); ++i) {
        const auto &item = (*ranks)[i];
        const auto rank = int32Value(member(item, "rank"));
        if (!rank)
            throw shape(fmt::format("has ranks[{}] without an integer \"rank\"", i));
        CheckBaselineRank r;
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

std::optional<CheckBaseline> readCheckBaseline(const Options &options)
{
    try {
        return readBaseline(options.baselinePath);
    } catch (const BaselineError &e) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", e.message.c_str());
        return std::nullopt;
    }
}

bool checkWithCopies(const Options &options, const CheckBaseline &baseline)
{
    return baseline.withCopies.value_or(options.withCopies);
}

core::DerivedOptions checkDerivedOptions(const Options &options, const CheckBaseline &baseline)
{
    // Measure as the baseline did: its copies setting.
    core::DerivedOptions derivedOptions;
    derivedOptions.minGapNs = options.minGapNs;
    derivedOptions.includeCopies = checkWithCopies(options, baseline);
    derivedOptions.foldIndexes = false;
    return derivedOptions;
}

Options checkLoadOptions(const Options &options, const CheckBaseline &baseline)
{
    auto measured = options;
    measured.range = options.range.value_or(baseline.stepRange);
    if (measured.range->empty())
        measured.range.reset();
    measured.withCopies = checkWithCopies(options, baseline);
    return measured;
}

core::PaceOptions checkPaceOptions(const std::string &rangeName)
{
    core::PaceOptions paceOptions;
    paceOptions.rangeName = rangeName;
    return paceOptions;
}

std::vector<CheckRankFigures> checkFigures(const std::shared_ptr<const core::TraceSet> &trace, const Options &options,
    const CheckBaseline &baseline, const std::string &rangeName)
{
    const auto derived = core::DerivedCapture::build(trace, checkDerivedOptions(options, baseline));
    std::optional<core::PaceReport> pace;
    if (!rangeName.empty())
        pace = core::computePace(*trace, checkPaceOptions(rangeName));
    std::vector<CheckRankFigures> figures;
    for (std::uint32_t r = 0; r < trace->ranks.size(); ++r) {
        CheckRankFigures f;
        f.rank = trace->ranks[r].rank;
        for (auto g : trace->ranks[r].gpus)
            f.busyPercent.emplace_back(trace->gpus[g].deviceId, derived->busy(core::GpuIndex(g)).busyPercent);
        if (pace)
            for (const auto &rp : pace->ranks)
                if (rp.rank == r && !rp.iterations.empty())
                    f.medianStepNs = rp.medianNs;
        figures.push_back(std::move(f));
    }
    return figures;
}

int printCheck(const Options &options, const core::TraceSet &trace, const CheckBaseline &baseline,
    const std::string &rangeName, const std::vector<CheckRankFigures> &ranks)
{
    const double tol = options.tolerancePercent / 100.0;
    std::vector<CheckRow> rows;
    for (const auto &b : baseline.ranks) {
        const CheckRankFigures *current = nullptr; // the last rank of that number, as the loader orders them
        for (const auto &f : ranks)
            if (f.rank == b.rank)
                current = &f;
        for (const auto &d : b.devices) {
            CheckRow row;
            row.rank = b.rank;
            row.device = d.device;
            row.baseline = d.busyPercent;
            row.limit = d.busyPercent * (1.0 - tol);
            if (current)
                for (const auto &[device, busy] : current->busyPercent)
                    if (device == d.device)
                        row.current = busy;
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
            if (current)
                row.current = current->medianStepNs;
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
        auto doc = jsonDocument(options.command, { &trace });
        doc["baseline"] = options.baselinePath;
        doc["tolerance_pct"] = options.tolerancePercent;
        doc["step_range"] = rangeName;
        doc["with_copies"] = checkWithCopies(options, baseline);
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
    return trace.errors.empty() ? 0 : 1;
}

int runCheck(const Options &options)
{
    if (options.minSustainedGainPercent)
        return runSustainedGainCheck(options);
    const auto baseline = readCheckBaseline(options);
    if (!baseline)
        return 1;
    const auto measured = checkLoadOptions(options, *baseline);
    const auto trace = loadCapture(options, options.files, "", commandTables(measured));
    if (trace->ranks.empty()) {
        std::fprintf(
            stderr, "gaplens-cli: error: none of the %zu input file(s) could be loaded\n", options.files.size());
        return 1;
    }
    const auto rangeName
        = measured.range ? *measured.range : core::proposePaceRangeName(*trace).value_or(std::string());
    return printCheck(options, *trace, *baseline, rangeName, checkFigures(trace, options, *baseline, rangeName));
}

} // namespace gaplens::cli
