// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "wire.h"

#include "command_context.h"
#include "command_tables.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace gaplens::mpi {

// gaps: each GPU belongs to one report, so each process renders its GPUs' gaps (JSON objects,
// or table rows against the whole capture's span) and the root puts the GPUs in the whole
// capture's order: by first rank, then device id, then input order.
int runGapsCommand(const World &world, const cli::Options &options)
{
    auto capture = loadDistributed(world, options, options.files, cli::commandTables(options));
    if (!anyFileLoaded(world, capture, options))
        return 1;
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
    const cli::CommandContext local { options, capture.local };
    if (!onEveryProcess(world, [&] {
            const auto &derived = local.derived();
            for (const auto &range : derived.gapsIn(local.rankSelection(), std::nullopt)) {
                if (range.empty())
                    continue;
                const auto &gpu = local.t().gpus[range.gpu.value()];
                std::uint32_t firstRank = core::kNoIndex;
                for (const auto &stream : gpu.streams)
                    firstRank = std::min(firstRank, stream.rank);
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
                fragments.push_back({ firstRank, gpu.deviceId, local.t().reports[gpu.report].path, range.gpu.value(),
                    std::move(items) });
            }
        }))
        return 1;

    const auto parts = world.gatherToRoot(pack(fragments));
    if (world.isRoot()) {
        struct Fragment
        {
            std::uint32_t firstRank;
            std::int64_t deviceId;
            std::size_t file, order;
            Json items;
        };
        std::map<std::string, std::size_t> fileOf;
        for (std::size_t r = 0; r < capture.skeleton->reports.size(); ++r)
            fileOf.try_emplace(capture.skeleton->reports[r].path, r);
        std::vector<Fragment> all;
        for (std::size_t p = 0; p < parts.size(); ++p)
            for (auto &f : unpack<Json>(parts[p])) {
                const auto localRank = f[0].get<std::uint32_t>();
                all.push_back({ localRank == core::kNoIndex ? core::kNoIndex : capture.globalRank[p].at(localRank),
                    f[1].get<std::int64_t>(), fileOf.at(f[2].get<std::string>()), f[3].get<std::size_t>(),
                    std::move(f[4]) });
            }
        std::sort(all.begin(), all.end(), [](const Fragment &a, const Fragment &b) {
            return std::tie(a.firstRank, a.deviceId, a.file, a.order)
                < std::tie(b.firstRank, b.deviceId, b.file, b.order);
        });
        const cli::CommandContext whole { options, capture.skeleton };
        if (json) {
            auto doc = cli::gapsDocument(whole);
            Json gaps = Json::array();
            for (auto &f : all)
                for (auto &gap : f.items)
                    gaps.push_back(std::move(gap));
            doc["gaps"] = std::move(gaps);
            cli::printJson(doc);
        } else {
            auto table = cli::gapTable(options);
            for (const auto &f : all)
                for (const auto &row : f.items) {
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
