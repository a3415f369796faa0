// SPDX-License-Identifier: MIT
#include "command_context.h"

#include "command_tables.h"

#include "gaplens/core/read/loader.h"
#include "gaplens/core/util/parallel.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace gaplens::cli {

std::shared_ptr<core::TraceSet> loadCapture(
    const Options &options, const std::vector<std::string> &files, const char *label, core::TableSet tables)
{
    core::LoadOptions load;
    load.files = files;
    load.tables = tables;
    load.rankOverrides = options.rankOverrides;
    load.threads = options.threads;
    load.memoryLimitBytes = options.maxMemoryBytes;
    if (!options.noCache)
        load.cache = core::defaultReportCacheOptions();
    auto trace = core::loadTraceSet(load);
    for (const auto &error : trace->errors)
        std::fprintf(stderr, "gaplens-cli: error: %s%s\n", label, error.message.c_str());
    if (!trace->cacheProblem.empty())
        std::fprintf(stderr, "gaplens-cli: note: %s (--no-cache turns the cache off)\n", trace->cacheProblem.c_str());
    return trace;
}

BeforeAfter loadBeforeAfter(const Options &options)
{
    const auto tables = commandTables(options);
    BeforeAfter captures { loadCapture(options, options.beforeFiles, "before: ", tables),
        loadCapture(options, options.afterFiles, "after: ", tables) };
    for (const auto &[trace, which, count] :
        { std::tuple { captures.before.get(), "before", options.beforeFiles.size() },
            std::tuple { captures.after.get(), "after", options.afterFiles.size() } })
        if (trace->ranks.empty()) {
            std::fprintf(stderr, "gaplens-cli: error: none of the %zu %s file(s) could be loaded\n", count, which);
            return {};
        }
    return captures;
}

core::RunAccountingOptions runAccountingOptions(const Options &options)
{
    core::RunAccountingOptions accounting;
    accounting.stepRange = options.range.value_or(std::string());
    accounting.patterns = options.statePatterns;
    accounting.window = options.runWindow;
    accounting.workPerStep = options.workPerStep;
    accounting.workUnit = options.workUnit;
    return accounting;
}

core::RankSelection CommandContext::rankSelection() const
{
    if (options.rankNumbers.empty())
        return core::RankSelection::all();
    std::vector<std::uint32_t> indices;
    for (std::uint32_t i = 0; i < trace->ranks.size(); ++i)
        if (std::find(options.rankNumbers.begin(), options.rankNumbers.end(), trace->ranks[i].rank)
            != options.rankNumbers.end())
            indices.push_back(i);
    // A selection that matches nothing must select nothing, not everything.
    if (indices.empty())
        indices.push_back(core::kNoIndex);
    return core::RankSelection::only(std::move(indices));
}

const core::DerivedCapture &CommandContext::derived() const
{
    if (!derivedCache) {
        core::DerivedOptions derivedOptions;
        derivedOptions.minGapNs = options.minGapNs;
        derivedOptions.includeCopies = options.withCopies;
        derivedOptions.foldIndexes = false; // nothing is drawn
        derivedOptions.earlierShards = earlierShards;
        derivedCache = core::DerivedCapture::build(trace, derivedOptions);
    }
    return *derivedCache;
}

const core::DerivedCapture &CommandContext::derivedKernelsOnly() const
{
    if (!options.withCopies)
        return derived();
    if (!derivedKernelsOnlyCache) {
        core::DerivedOptions derivedOptions;
        derivedOptions.minGapNs = options.minGapNs;
        derivedOptions.foldIndexes = false;
        derivedKernelsOnlyCache = core::DerivedCapture::build(trace, derivedOptions, nullptr, derivedCache.get());
    }
    return *derivedKernelsOnlyCache;
}

std::int32_t CommandContext::rankNumber(std::uint32_t rankIndex) const
{
    return rankIndex < trace->ranks.size() ? trace->ranks[rankIndex].rank : -1;
}

std::string CommandContext::gpuLabel(std::uint32_t gpuIndex) const
{
    const auto &gpu = trace->gpus[gpuIndex];
    return gpu.name.empty() ? fmt::format("GPU {}", gpu.deviceId) : fmt::format("GPU {} ({})", gpu.deviceId, gpu.name);
}

std::string CommandContext::relativeTime(core::TimeNs t) const
{
    return "+" + core::formatDuration(double(t - trace->span.start));
}

void printTables(Format format, const std::vector<Table> &tables)
{
    bool first = true;
    for (const auto &table : tables) {
        if (!first)
            std::fputs("\n", stdout);
        first = false;
        const auto text = format == Format::Csv ? table.toCsv()
            : format == Format::Markdown        ? table.toMarkdown()
                                                : table.toText();
        std::fputs(text.c_str(), stdout);
    }
}

namespace {

// Invalid UTF-8 (a kernel name in a damaged export) becomes U+FFFD rather than an exception.
// NaN and infinities are written as null, as the format documents for a missing statistic.
std::string dumpedJson(const Json &value)
{
    return value.dump(2, ' ', false, Json::error_handler_t::replace);
}

// Appends `text`, a value dumped at depth 0, as it reads at `indent` spaces in: every line but
// the first moves right. A dumped string never holds a raw newline (JSON escapes it), so every
// newline is a line break of the layout.
void appendIndented(std::string &out, const std::string &text, std::size_t indent)
{
    std::size_t from = 0;
    for (auto newline = text.find('\n'); newline != std::string::npos; newline = text.find('\n', from)) {
        out.append(text, from, newline + 1 - from);
        out.append(indent, ' ');
        from = newline + 1;
    }
    out.append(text, from);
}

} // namespace

void printJson(const Json &document)
{
    const auto text = dumpedJson(document);
    std::fputs(text.c_str(), stdout);
    std::fputs("\n", stdout);
}

void printJsonWithArray(Json document, const std::string &key, std::size_t count, unsigned threads,
    const std::function<Json(std::size_t)> &element)
{
    if (count == 0 || !document.is_object() || document.contains(key)) {
        auto &array = document[key] = Json::array();
        for (std::size_t i = 0; i < count; ++i)
            array.push_back(element(i));
        printJson(document);
        return;
    }
    // What printJson writes, spliced: the document's members, then `key` with its elements,
    // each dumped alone at the array's depth (two levels in: 4 spaces).
    auto head = dumpedJson(document);
    if (document.empty()) {
        head.pop_back(); // "{}" -> "{"
    } else {
        head.resize(head.size() - 2); // "...\n}" -> "...,"
        head += ',';
    }
    head += "\n  ";
    head += dumpedJson(Json(key));
    head += ": [\n";
    std::fputs(head.c_str(), stdout);

    constexpr std::size_t kBlock = 256;
    std::vector<std::string> blocks((count + kBlock - 1) / kBlock);
    core::parallelFor(blocks.size(), threads, [&](std::size_t b) {
        auto &text = blocks[b];
        for (auto i = b * kBlock; i < std::min(count, (b + 1) * kBlock); ++i) {
            text += "    ";
            appendIndented(text, dumpedJson(element(i)), 4);
            text += i + 1 < count ? ",\n" : "\n";
        }
    });
    for (const auto &text : blocks)
        std::fputs(text.c_str(), stdout);
    std::fputs("  ]\n}\n", stdout);
}

void addFilesAndErrors(Json &object, std::initializer_list<const core::TraceSet *> captures)
{
    Json files = Json::array(), errors = Json::array();
    for (const auto *trace : captures) {
        for (const auto &r : trace->reports)
            files.push_back(r.path);
        for (const auto &e : trace->errors) {
            Json error;
            error["file"] = e.path;
            error["message"] = e.message;
            errors.push_back(std::move(error));
        }
    }
    object["files"] = std::move(files);
    object["errors"] = std::move(errors);
}

Json jsonDocument(const std::string &command, std::initializer_list<const core::TraceSet *> captures)
{
    Json document;
    document["tool"] = "gaplens";
    document["format_version"] = 1;
    document["command"] = command;
    addFilesAndErrors(document, captures);
    return document;
}

Json jsonDocument(const CommandContext &ctx)
{
    return jsonDocument(ctx.options.command, { ctx.trace.get() });
}

Json rankNumberOrNull(const CommandContext &ctx, std::uint32_t rankIndex)
{
    return rankIndex == core::kNoIndex ? Json(nullptr) : Json(ctx.rankNumber(rankIndex));
}

Json numberOrNull(std::optional<double> value)
{
    return value ? Json(*value) : Json(nullptr);
}

} // namespace gaplens::cli
