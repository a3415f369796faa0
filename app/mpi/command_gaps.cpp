// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "wire.h"

#include "command_context.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace gaplens::mpi {

// gaps: each GPU belongs to one report, so each process renders its GPUs' gaps (JSON objects,
// or table rows against the whole capture's span) and the root puts the GPUs in the whole
// capture's order (the skeleton's). A GPU of a file read in time shards has its gaps on the
// processes of its shards, each gap on the one whose work ends it, in process order.
int runGapsCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    auto &capture = *loaded;
    // Relative times in tables count from the whole capture's first event.
    constexpr auto kNone = std::numeric_limits<core::TimeNs>::max();
    const bool hasSpan = capture.local->span != core::TimeRange {};
    const auto start = world.allReduceMin(hasSpan ? capture.local->span.start : kNone);
    const auto end = world.allReduceMax(hasSpan ? capture.local->span.end : std::numeric_limits<core::TimeNs>::min());
    if (start != kNone)
        capture.local->span = { start, end };

    using Json = cli::Json;
    const bool json = options.format == cli::Format::Json;
    Json fragments = Json::array();
    const cli::CommandContext local { options, capture.local, capture.earlierShards };
    if (!onEveryProcess(world, [&] {
            const auto &derived = local.derived();
            for (const auto &range : derived.gapsIn(local.rankSelection(), std::nullopt)) {
                if (range.empty())
                    continue;
                Json items = Json::array();
                for (auto k = range.begin; k < range.end; ++k) {
                    const auto &gap = derived.gap({ range.gpu, k });
                    if (json) {
                        items.push_back(cli::gapJson(local, gap));
                        continue;
                    }
                    Json row = Json::array();
                    for (const auto &cell : cli::gapRow(local, gap))
                        row.push_back({ cell.text, cell.raw, cell.alignRight });
                    items.push_back(std::move(row));
                }
                fragments.push_back({ range.gpu.value(), std::move(items) });
            }
        }))
        return 1;

    const auto parts = world.gatherToRoot(pack(fragments));
    if (world.isRoot()) {
        // (the skeleton's GPU index, its gaps)
        std::vector<std::pair<std::uint32_t, Json>> all;
        for (std::size_t p = 0; p < parts.size(); ++p)
            for (auto &f : unpack<Json>(parts[p]))
                all.emplace_back(capture.globalGpu[p].at(f[0].get<std::uint32_t>()), std::move(f[1]));
        std::stable_sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        const cli::CommandContext whole { options, capture.skeleton };
        if (json) {
            auto doc = cli::gapsDocument(whole);
            Json gaps = Json::array();
            for (auto &f : all)
                for (auto &gap : f.second)
                    gaps.push_back(std::move(gap));
            doc["gaps"] = std::move(gaps);
            cli::printJson(doc);
        } else {
            auto table = cli::gapTable(options);
            for (const auto &f : all)
                for (const auto &row : f.second) {
                    std::vector<cli::Cell> cells;
                    for (const auto &c : row)
                        cells.push_back({ c[0].get<std::string>(), c[1].get<std::string>(), c[2].get<bool>() });
                    table.addRow(std::move(cells));
                }
            cli::printTables(options.format, { table });
        }
    }
    return finalStatus(world, capture, 0);
}

} // namespace gaplens::mpi
