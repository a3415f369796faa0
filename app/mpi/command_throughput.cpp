// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "run_accounting_parts.h"

#include "command_context.h"

namespace gaplens::mpi {

// throughput: the step range and work source decided over every process (core's accounting in
// parts); each rank accounted where its report is; on the root the ranks in the whole
// capture's order, the first failed one's error, and the overall figures.
int runThroughputCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const cli::CommandContext local { options, capture.local };
    auto accountingOptions = cli::runAccountingOptions(options);
    accountingOptions.ranks = local.rankSelection();
    const auto accounted = accountInParts(world, capture, accountingOptions);
    printStatsIfAsked(world, capture, accounted.bytesSent);
    int status = 0;
    if (world.isRoot())
        status = cli::printThroughput({ options, capture.skeleton }, accounted.whole);
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
