// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "interval_parts.h"

#include "command_context.h"

#include "gaplens/core/analysis/intervals.h"

#include <limits>

namespace gaplens::mpi {

// intervals and transfers: each process computes its ranks' statistics and ping-pong runs
// over the whole capture's origin; the root puts them in rank order (a rank in time shards
// merged over its shards) and finds the anomalies and the variability from them alone, as
// computeIntervals does.
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
            // Busy time is the union of kernels, whatever --with-copies would say elsewhere;
            // in time shards, after the earlier shards' (kernels-only) busy end.
            auto shardOptions = intervalOptions;
            shardOptions.earlierShards = capture.earlierShards;
            local = core::computeIntervalStatistics(localContext.derivedKernelsOnly(), shardOptions);
        }))
        return 1;

    const auto packed = packIntervalParts(local, capture.timeShards ? capture.local.get() : nullptr);
    printStatsIfAsked(world, capture, packed.size());
    const auto parts = world.gatherToRoot(packed);
    int status = 0;
    if (world.isRoot()) {
        const auto sorted = finishIntervalParts(parts, capture.globalRank, intervalOptions);
        const cli::CommandContext whole { options, capture.skeleton };
        status
            = options.command == "intervals" ? cli::printIntervals(whole, sorted) : cli::printTransfers(whole, sorted);
    }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
