// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "wire.h"

#include "command_context.h"

#include "gaplens/core/analysis/ncu_command.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

core::NcuLaunchers unpackLaunchers(const std::string &bytes)
{
    const auto json = unpack(bytes);
    return { json[0].get<std::vector<std::int32_t>>(), json[1].get<std::vector<std::int32_t>>() };
}

} // namespace

// ncu: which ranks launched the kernel, united over every process (a few rank numbers each);
// every process chooses the same rank from them. The chosen rank's launches are counted over
// every process, for its report may be read in time shards, each holding the launches that
// start in it. Each process holding that rank (its report's metadata and ranks are in every
// shard) builds the same command line; the root prints the first.
int runNcuCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const auto &trace = *capture.local;
    const auto request = cli::ncuRequest(options);

    core::NcuLaunchers mine;
    if (!onEveryProcess(world, [&] { mine = core::ncuLaunchers(trace, request.kernel); }))
        return 1;
    core::NcuLaunchers all;
    for (const auto &bytes : world.allGather(pack(Json { mine.byShortName, mine.byDemangledName })))
        core::uniteNcuLaunchers(all, unpackLaunchers(bytes));
    const auto choice = core::chooseNcuRank(all, request, capture.rankNumbers);
    if (!choice.error.empty())
        return finalStatus(world, capture, world.isRoot() ? cli::printNcu({ .error = choice.error }) : 1);

    core::NcuLaunchCount counted;
    if (!onEveryProcess(world, [&] { counted = core::ncuLaunchCount(trace, request, choice); }))
        return 1;
    std::vector<std::uint64_t> sums { counted.launches, counted.byStart ? 1u : 0u };
    world.allReduceSum(sums);
    counted = { std::uint32_t(sums[0]), sums[1] > 0 };

    // The holders' command (text and error), or nothing from the other processes.
    Json built;
    if (!onEveryProcess(world, [&] {
            for (const auto &rank : trace.ranks)
                if (rank.rank == choice.rankNumber) {
                    const auto ncu = core::buildNcuCommand(trace, request, choice, counted);
                    built = { ncu.error, ncu.error.empty() ? core::ncuCommandText(ncu) : std::string() };
                }
        }))
        return 1;
    const auto gathered = world.gatherToRoot(pack(built));
    int status = 0;
    if (world.isRoot())
        for (const auto &bytes : gathered)
            if (const auto one = unpack(bytes); !one.is_null()) {
                const auto error = one[0].get<std::string>();
                if (error.empty())
                    std::fputs(one[1].get<std::string>().c_str(), stdout);
                else
                    status = cli::printNcu({ .error = error });
                break;
            }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
