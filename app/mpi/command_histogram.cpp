// SPDX-License-Identifier: MIT
// `kernels --hist NAME` computed in parts: every figure of the histogram is reduced exactly by
// core (min and max, bin counts, median and p95 by distributed selection); the slowest launches
// are each process's candidates, named in the whole capture's GPUs and ranks on the root and
// merged there.
#include "collective_steps.h"
#include "distributed_commands.h"
#include "wire.h"
#include "world_parts.h"

#include "command_context.h"

#include "gaplens/core/analysis/kernel_histogram.h"

#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

// Every process's candidates for the slowest launches, on the root, in the whole capture's GPU
// and rank indices and merged in its order.
std::vector<core::SlowKernel> gatherSlowest(
    const World &world, const DistributedCapture &capture, const std::vector<core::SlowKernel> &local)
{
    Json packed = Json::array();
    for (const auto &k : local)
        packed.push_back({ k.gpu, k.rank, k.streamId, k.start, k.duration });
    const auto parts = world.gatherToRoot(pack(packed));
    std::vector<core::SlowKernel> all;
    for (std::size_t p = 0; p < parts.size(); ++p)
        for (const auto &k : unpack(parts[p])) {
            const auto rank = k[1].get<std::uint32_t>();
            all.push_back({ capture.globalGpu[p].at(k[0].get<std::uint32_t>()),
                rank == core::kNoIndex ? rank : capture.globalRank[p].at(rank), k[2].get<std::int64_t>(),
                k[3].get<core::TimeNs>(), k[4].get<core::TimeNs>() });
        }
    return core::mergeSlowest(std::move(all), cli::kSlowestKernels);
}

} // namespace

int runKernelHistogramCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const WorldParts parts(world);
    const auto &trace = *capture.local;
    const cli::CommandContext local { options, capture.local };
    int status = 0;
    collectively(world, [&] {
        auto figures = core::computeKernelHistogram(trace, trace.strings.find(*options.histKernel),
            cli::kernelHistogramOptions(local), cli::kSlowestKernels, parts);
        auto slowest = gatherSlowest(world, capture, figures.slowest);
        if (world.isRoot()) {
            figures.slowest = std::move(slowest);
            status = cli::printKernelHistogram(cli::CommandContext { options, capture.skeleton }, figures);
        }
    });
    printStatsIfAsked(world, capture);
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
