// SPDX-License-Identifier: MIT
#include "command_context.h"

#include "gaplens/core/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace gaplens::cli {

core::RankSelection CommandContext::rankSelection() const
{
    if (options.rankNumbers.empty())
        return core::RankSelection::all();
    std::vector<std::uint32_t> indices;
    for (std::uint32_t i = 0; i < trace->ranks.size(); ++i)
        if (std::find(options.rankNumbers.begin(), options.rankNumbers.end(), trace->ranks[i].rank) !=
            options.rankNumbers.end())
            indices.push_back(i);
    // A selection that matches nothing must select nothing, not everything.
    if (indices.empty())
        indices.push_back(core::kNoIndex);
    return core::RankSelection::only(std::move(indices));
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

void printJson(const JsonWriter &json) { std::fputs(json.str().c_str(), stdout); }

void beginJsonDocument(JsonWriter &json, const CommandContext &ctx)
{
    json.beginObject();
    json.field("tool", "gaplens");
    json.field("format_version", 1);
    json.field("command", ctx.options.command);
    json.key("files").beginArray();
    for (const auto &r : ctx.t().reports)
        json.value(r.path);
    json.endArray();
    json.key("errors").beginArray();
    for (const auto &e : ctx.t().errors)
        json.beginObject().field("file", e.path).field("message", e.message).endObject();
    json.endArray();
}

} // namespace gaplens::cli
