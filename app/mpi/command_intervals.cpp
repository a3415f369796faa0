// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "interval_parts.h"

#include "command_context.h"

#include "gaplens/core/analysis/intervals.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

namespace gaplens::mpi {

// intervals and transfers: each process computes its ranks' statistics and ping-pong runs
// over the whole capture's origin; the root puts them in rank order and finds the
// anomalies and the variability from them alone, as computeIntervals does.
int runIntervalCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;

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
        core::IntervalReport sorted;
        sorted.originNs = merged.originNs;
        sorted.intervalNs = merged.intervalNs;
        sorted.metric = merged.metric;
        sorted.pooled = merged.pooled;
        for (const auto i : order) {
            sorted.ranks.push_back(std::move(merged.ranks[i]));
            sorted.pingPong.push_back(std::move(merged.pingPong[i]));
        }
        core::finishIntervalReport(sorted, intervalOptions);
        const cli::CommandContext whole { options, capture.skeleton };
        status
            = options.command == "intervals" ? cli::printIntervals(whole, sorted) : cli::printTransfers(whole, sorted);
    }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
