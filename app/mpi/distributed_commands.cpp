// SPDX-License-Identifier: MIT
#include "distributed_commands.h"

#include "distributed_capture.h"
#include "interval_parts.h"

#include "command_context.h"
#include "command_tables.h"
#include "run_command.h"

#include "gaplens/core/analysis/intervals.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <sys/resource.h>
#include <tuple>
#include <vector>

namespace gaplens::mpi {
namespace {

// Runs `step` on every process; when it throws on any, every process learns so and the root
// prints the first process's message as gaplens-cli would. true when all succeeded.
template <class Step> bool onEveryProcess(const World &world, Step step)
{
    std::string error;
    try {
        step();
    } catch (const std::exception &e) {
        error = e.what();
        if (error.empty())
            error = "unknown error";
    }
    const auto errors = world.allGather(error);
    const auto failed = std::find_if(errors.begin(), errors.end(), [](const auto &e) { return !e.empty(); });
    if (failed == errors.end())
        return true;
    if (world.isRoot())
        std::fprintf(stderr, "gaplens-mpi: error: %s\n", failed->c_str());
    return false;
}

// Fault injection for tests/mpi: GAPLENS_MPI_TEST_ABORT=N makes process N die after loading,
// as a lost node would, so the test can see the job end instead of hang.
void dieIfAsked(const World &world)
{
    if (const char *process = std::getenv("GAPLENS_MPI_TEST_ABORT"); process && std::atoi(process) == world.rank())
        std::abort();
}

// GAPLENS_MPI_STATS=1: each process says on stderr what it held and sent, for the scaling
// figures of docs/mpi.md (peak memory from getrusage: this process alone).
void printStatsIfAsked(const World &world, const DistributedCapture &capture, std::size_t bytesSent)
{
    if (!std::getenv("GAPLENS_MPI_STATS"))
        return;
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    std::fprintf(stderr,
        "gaplens-mpi: process %d of %d: %zu files, %llu rows, %zu bytes to the root, peak RSS %.1f MiB\n", world.rank(),
        world.size(), capture.files, static_cast<unsigned long long>(capture.rows), bytesSent,
        double(usage.ru_maxrss) / 1024.0);
}

int agreedStatus(const World &world, int rootStatus)
{
    return int(std::stoi(world.broadcastFromRoot(std::to_string(rootStatus))));
}

// After a distributed load: false (and the message on the root) when no file loaded anywhere.
bool anyFileLoaded(const World &world, const DistributedCapture &capture, const cli::Options &options)
{
    int status = 0;
    if (world.isRoot() && capture.skeleton->ranks.empty()) {
        std::fprintf(
            stderr, "gaplens-mpi: error: none of the %zu input file(s) could be loaded\n", options.files.size());
        status = 1;
    }
    return agreedStatus(world, status) == 0;
}

// The root's exit status after printing: the command's, else 1 when an input failed to load.
int finalStatus(const World &world, const DistributedCapture &capture, int printed)
{
    std::fflush(stdout);
    int status = printed;
    if (world.isRoot() && status == 0 && !capture.skeleton->errors.empty())
        status = 1;
    return agreedStatus(world, status);
}

// intervals and transfers: each process computes its ranks' statistics and ping-pong runs
// over the whole capture's origin; the root puts them in rank order and finds the
// anomalies and the variability from them alone, as computeIntervals does.
int runIntervalCommand(const World &world, const cli::Options &options)
{
    const auto capture = loadDistributed(world, options, options.files, cli::commandTables(options));
    dieIfAsked(world);
    if (!anyFileLoaded(world, capture, options))
        return 1;

    auto intervalOptions = cli::intervalOptions(options);
    if (!intervalOptions.originNs) {
        constexpr auto kNone = std::numeric_limits<core::TimeNs>::max();
        const auto origin = world.allReduceMin(core::intervalOrigin(*capture.local).value_or(kNone));
        intervalOptions.originNs = origin == kNone ? 0 : origin; // computeIntervals' origin without GPU work
    }
    core::IntervalReport local;
    const cli::CommandContext localContext { options, capture.local };
    if (!onEveryProcess(world, [&] {
            // Busy time is the union of kernels, whatever --with-copies would say elsewhere.
            local = core::computeIntervalStatistics(localContext.derivedKernelsOnly(), intervalOptions);
        }))
        return 1;

    const auto packed = packIntervalParts(local);
    printStatsIfAsked(world, capture, packed.size());
    const auto parts = world.gatherToRoot(packed);
    int status = 0;
    if (world.isRoot()) {
        core::IntervalReport merged;
        merged.originNs = *intervalOptions.originNs;
        merged.intervalNs = intervalOptions.intervalNs;
        merged.metric = intervalOptions.metric;
        merged.pooled = intervalOptions.pool;
        for (std::size_t p = 0; p < parts.size(); ++p)
            unpackIntervalParts(parts[p], capture.globalRank[p], merged);
        std::vector<std::size_t> order(merged.ranks.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return merged.ranks[a].rank < merged.ranks[b].rank; });
        core::IntervalReport sorted = merged;
        for (std::size_t i = 0; i < order.size(); ++i) {
            sorted.ranks[i] = std::move(merged.ranks[order[i]]);
            sorted.pingPong[i] = std::move(merged.pingPong[order[i]]);
        }
        core::finishIntervalReport(sorted, intervalOptions);
        const cli::CommandContext whole { options, capture.skeleton };
        status
            = options.command == "intervals" ? cli::printIntervals(whole, sorted) : cli::printTransfers(whole, sorted);
    }
    return finalStatus(world, capture, status);
}

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

    const auto bytes = Json::to_cbor(fragments);
    const auto parts = world.gatherToRoot({ bytes.begin(), bytes.end() });
    int status = 0;
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
            for (auto &f : Json::from_cbor(parts[p].begin(), parts[p].end())) {
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
    return finalStatus(world, capture, status);
}

} // namespace

bool isDistributed(const std::string &command)
{
    return command == "intervals" || command == "transfers" || command == "gaps";
}

int runDistributed(const World &world, const cli::Options &options)
{
    return options.command == "gaps" ? runGapsCommand(world, options) : runIntervalCommand(world, options);
}

int runOnRoot(const World &world, const cli::Options &options)
{
    int status = 0;
    if (world.isRoot()) {
        std::fprintf(stderr,
            "gaplens-mpi: note: %s is not computed in parts yet: process 0 analyses every file (docs/mpi.md)\n",
            options.command.c_str());
        try {
            status = cli::runCommand(options);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "gaplens-mpi: error: %s\n", e.what());
            status = 1;
        }
        std::fflush(stdout);
    }
    return agreedStatus(world, status);
}

} // namespace gaplens::mpi
