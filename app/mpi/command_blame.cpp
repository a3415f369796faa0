// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "wire.h"

#include "command_context.h"

#include "gaplens/core/analysis/gap_blame.h"

#include <algorithm>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

Json packBuckets(const core::TraceSet &trace, const std::vector<core::BlameBucket> &buckets)
{
    Json out = Json::array();
    for (const auto &b : buckets)
        out.push_back(
            { b.key, int(b.cause), trace.str(b.name), int(b.osCategory), b.count, b.totalNs, b.longestNs, b.copyNs });
    return out;
}

std::vector<core::BlameBucket> unpackBuckets(const Json &packed, core::StringPool &names)
{
    std::vector<core::BlameBucket> out;
    for (const auto &b : packed)
        out.push_back({ b[0].get<std::string>(), core::GapCause(b[1].get<int>()), names.intern(b[2].get<std::string>()),
            core::OsCategory(b[3].get<int>()), b[4].get<std::uint64_t>(), b[5].get<core::TimeNs>(),
            b[6].get<core::TimeNs>(), b[7].get<core::TimeNs>() });
    return out;
}

// Names travel as text; every figure is an integer.
Json packTotals(const core::TraceSet &trace, const core::BlameTotals &t)
{
    return { t.gapCount, t.totalGapNs, t.copyNs, t.copyCauseNs, packBuckets(trace, t.byCause),
        packBuckets(trace, t.byPhase), packBuckets(trace, t.byOsCall), packBuckets(trace, t.byOsCategory) };
}

core::BlameTotals unpackTotals(const Json &packed, core::StringPool &names)
{
    core::BlameTotals t;
    t.gapCount = packed[0].get<std::uint64_t>();
    t.totalGapNs = packed[1].get<core::TimeNs>();
    t.copyNs = packed[2].get<core::TimeNs>();
    t.copyCauseNs = packed[3].get<core::TimeNs>();
    t.byCause = unpackBuckets(packed[4], names);
    t.byPhase = unpackBuckets(packed[5], names);
    t.byOsCall = unpackBuckets(packed[6], names);
    t.byOsCategory = unpackBuckets(packed[7], names);
    return t;
}

// Totals per GPU or rank (`key`) from the processes, in process order: sorted by key, the
// parts of one key merged in process order.
template <class Totals> std::vector<Totals> mergedInOrder(std::vector<Totals> parts, std::uint32_t Totals::*key)
{
    std::stable_sort(parts.begin(), parts.end(), [&](const Totals &a, const Totals &b) { return a.*key < b.*key; });
    std::vector<Totals> merged;
    for (std::size_t i = 0; i < parts.size();) {
        std::vector<core::BlameTotals> same;
        std::size_t j = i;
        for (; j < parts.size() && parts[j].*key == parts[i].*key; ++j)
            same.push_back(std::move(parts[j].totals));
        merged.push_back({ parts[i].*key, same.size() == 1 ? std::move(same.front()) : core::mergeBlameTotals(same) });
        i = j;
    }
    return merged;
}

} // namespace

// blame: a GPU's gaps, and so its totals and its rank's, are all on the process that loaded
// its report, or, for a file read in time shards, on its shards' processes, in process order.
// Each process sends its GPUs' and its ranks' totals; the root puts them in the whole
// capture's order, merges each GPU's and each rank's parts in process order, and the GPUs'
// totals in GPU order into the overall ones (mergeBlameTotals), which is what adding every
// gap at once gives.
int runBlameCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const cli::CommandContext local { options, capture.local, capture.earlierShards };
    core::GapBlameReport report;
    if (!onEveryProcess(world, [&] { report = cli::blameReport(local); }))
        return 1;

    const auto &trace = *capture.local;
    Json gpus = Json::array(), ranks = Json::array();
    for (const auto &g : report.perGpu)
        gpus.push_back({ g.gpu, packTotals(trace, g.totals) });
    for (const auto &r : report.perRank)
        ranks.push_back({ r.rank, packTotals(trace, r.totals) });
    const auto parts = world.gatherToRoot(pack(Json { gpus, ranks }));
    int status = 0;
    if (world.isRoot()) {
        auto &names = capture.skeleton->strings;
        core::GapBlameReport whole;
        for (std::size_t p = 0; p < parts.size(); ++p) {
            const auto part = unpack(parts[p]);
            for (const auto &g : part[0])
                whole.perGpu.push_back(
                    { capture.globalGpu[p].at(g[0].get<std::uint32_t>()), unpackTotals(g[1], names) });
            for (const auto &r : part[1])
                whole.perRank.push_back(
                    { capture.globalRank[p].at(r[0].get<std::uint32_t>()), unpackTotals(r[1], names) });
        }
        whole.perGpu = mergedInOrder(std::move(whole.perGpu), &core::GpuBlameTotals::gpu);
        whole.perRank = mergedInOrder(std::move(whole.perRank), &core::RankBlameTotals::rank);
        std::vector<core::BlameTotals> gpuTotals;
        for (const auto &g : whole.perGpu)
            gpuTotals.push_back(g.totals);
        whole.overall = core::mergeBlameTotals(gpuTotals);
        status = cli::printBlame({ options, capture.skeleton }, whole);
    }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
