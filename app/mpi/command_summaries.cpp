// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "wire.h"
#include "world_parts.h"

#include "command_context.h"

#include "gaplens/core/analysis/summaries.h"

#include <algorithm>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

// One kernel summary of a rank, for the root: names as text, every figure exact (CBOR keeps
// doubles bit for bit).
Json packKernelSummary(const core::TraceSet &trace, const core::KernelSummary &summary)
{
    Json rows = Json::array();
    for (const auto &row : summary.rows) {
        const auto &s = row.stats;
        rows.push_back({ trace.str(row.name), s.count, s.totalNs, s.minNs, s.maxNs, s.avgNs, s.medianNs, s.stddevNs,
            row.percent });
    }
    return { summary.rank, summary.totalNs, summary.instances, std::move(rows) };
}

core::KernelSummary unpackKernelSummary(const Json &packed, core::StringPool &names)
{
    core::KernelSummary summary;
    summary.rank = packed[0].get<std::uint32_t>();
    summary.totalNs = packed[1].get<core::TimeNs>();
    summary.instances = packed[2].get<std::uint64_t>();
    for (const auto &r : packed[3]) {
        core::KernelSummaryRow row;
        row.name = names.intern(r[0].get<std::string>());
        row.stats = { r[1].get<std::uint64_t>(), r[2].get<core::TimeNs>(), r[3].get<core::TimeNs>(),
            r[4].get<core::TimeNs>(), r[5].get<double>(), r[6].get<double>(), r[7].get<double>() };
        row.percent = r[8].get<double>();
        summary.rows.push_back(std::move(row));
    }
    return summary;
}

// kernels --per-rank: each rank's summary is computed where its report is; the root names
// them in the whole capture's ranks and puts them in rank order.
std::vector<core::KernelSummary> gatherPerRank(const World &world, const DistributedCapture &capture,
    const std::vector<core::KernelSummary> &local, core::StringPool &names)
{
    Json packed = Json::array();
    for (const auto &summary : local)
        packed.push_back(packKernelSummary(*capture.local, summary));
    const auto parts = world.gatherToRoot(pack(packed));
    std::vector<core::KernelSummary> all;
    for (std::size_t p = 0; p < parts.size(); ++p)
        for (const auto &one : unpack(parts[p])) {
            all.push_back(unpackKernelSummary(one, names));
            all.back().rank = capture.globalRank[p].at(all.back().rank);
        }
    std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.rank < b.rank; });
    return all;
}

// kernels --per-rank over time shards: a rank's kernels lie on the processes of its file's
// shards, so each rank's summary is computed in parts as the overall one is, rank after rank
// in the whole capture's order (every process takes part in each, with its share or none).
std::vector<core::KernelSummary> perRankInParts(const DistributedCapture &capture, const cli::Options &options,
    core::KernelSummaryOptions kernelOptions, const core::PartsReduction &parts, core::StringPool &names)
{
    std::vector<core::KernelSummary> all;
    const auto &numbers = capture.rankNumbers;
    for (std::uint32_t g = 0; g < numbers.size(); ++g) {
        const auto &wanted = options.rankNumbers;
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), numbers[g]) == wanted.end())
            continue;
        const auto &mine = capture.localToGlobalRank;
        const auto local = std::find(mine.begin(), mine.end(), g);
        kernelOptions.ranks
            = core::RankSelection::only({ local == mine.end() ? core::kNoIndex : std::uint32_t(local - mine.begin()) });
        all.push_back(core::summarizeKernels(*capture.local, kernelOptions, parts, names));
        all.back().rank = g;
    }
    return all;
}

} // namespace

// kernels, nvtx and api: the summary of the whole capture, computed in parts by core's
// summaries with a PartsReduction (group names matched across processes, exact moments
// summed, each median found by histogram passes summed over the processes), so every process
// holds it, named in the root's skeleton there.
int runSummaryCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const WorldParts parts(world);
    core::StringPool scratch; // the rows' names off the root, where nothing prints them
    core::StringPool &names = world.isRoot() ? capture.skeleton->strings : scratch;
    const cli::CommandContext local { options, capture.local };
    core::SummaryOptions summaryOptions;
    summaryOptions.ranks = local.rankSelection();
    const auto &trace = *capture.local;

    int status = 0;
    // Only the root prints, in the whole capture's names (its skeleton; the others have none).
    auto print = [&](auto printer, const auto &...results) {
        if (world.isRoot())
            status = printer(cli::CommandContext { options, capture.skeleton }, results...);
    };
    // Collective from here: a process that failed could not tell the others, which would
    // wait for it, so a failure ends the job.
    collectively(world, [&] {
        if (options.command == "kernels") {
            const auto kernelOptions = cli::kernelSummaryOptions(local);
            const auto overall = core::summarizeKernels(trace, kernelOptions, parts, names);
            std::vector<core::KernelSummary> perRank;
            if (options.perRank && capture.timeShards)
                perRank = perRankInParts(capture, options, kernelOptions, parts, names);
            else if (options.perRank)
                perRank = gatherPerRank(world, capture, core::summarizeKernelsPerRank(trace, kernelOptions), names);
            print(cli::printKernels, overall, perRank);
        } else if (options.command == "nvtx" && options.gpuProjection) {
            print(cli::printNvtxProjection, core::summarizeNvtxProjection(trace, summaryOptions, parts, names));
        } else if (options.command == "nvtx") {
            print(cli::printNvtx, core::summarizeNvtx(trace, summaryOptions, parts, names));
        } else {
            print(cli::printApi, core::summarizeApi(trace, summaryOptions, parts, names));
        }
    });
    printStatsIfAsked(world, capture);
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
