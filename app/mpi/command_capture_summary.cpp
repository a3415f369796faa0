// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "findings_parts.h"
#include "step_range_shards.h"
#include "wire.h"

#include "command_context.h"

#include "gaplens/core/analysis/pace.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

// What summary prints of one rank: its JSON object (as text: the ordered keys stay in
// order), its table rows and its GPU memory figures.
Json packSummaryRank(std::uint32_t localRank, const cli::SummaryRank &rank)
{
    Json rows = Json::array(), memory = Json::array();
    for (const auto &row : rank.rows) {
        Json cells = Json::array();
        for (const auto &cell : row)
            cells.push_back({ cell.text, cell.raw, cell.alignRight });
        rows.push_back(std::move(cells));
    }
    for (const auto &m : rank.memory)
        memory.push_back({ m.rank, m.gpu, m.peakBytes, m.peakTime, m.allocations, m.frees, m.unmatchedFrees });
    return { localRank, rank.json.dump(), std::move(rows), std::move(memory) };
}

cli::SummaryRank unpackSummaryRank(const Json &packed)
{
    cli::SummaryRank rank;
    rank.json = cli::Json::parse(packed[1].get<std::string>());
    for (const auto &row : packed[2]) {
        std::vector<cli::Cell> cells;
        for (const auto &c : row)
            cells.push_back({ c[0].get<std::string>(), c[1].get<std::string>(), c[2].get<bool>() });
        rank.rows.push_back(std::move(cells));
    }
    for (const auto &m : packed[3])
        rank.memory.push_back(
            { m[0].get<std::int32_t>(), m[1].get<std::string>(), m[2].get<std::uint64_t>(), m[3].get<core::TimeNs>(),
                m[4].get<std::uint64_t>(), m[5].get<std::uint64_t>(), m[6].get<std::uint64_t>() });
    return rank;
}

} // namespace

// summary: each rank's figures and rows where its report is (gaplens-cli's summaryRank), the
// step range proposed from the NVTX tallies in parts, and the findings in parts
// (findings_parts.h); printed on the root by gaplens-cli's printSummary.
int runCaptureSummaryCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const auto &trace = *capture.local;
    const cli::CommandContext local { options, capture.local };
    const auto stepRange = givenOrProposedStepRange(world, capture, options.range);

    Json ranks = Json::array();
    bool memoryRecorded = false;
    if (!onEveryProcess(world, [&] {
            // The median step of every rank (summary's pace does not narrow to --ranks).
            std::vector<core::RankPace> paces;
            if (stepRange) {
                core::PaceOptions paceOptions;
                paceOptions.rangeName = *stepRange;
                paces = core::computeRankPaces(trace, paceOptions);
            }
            const auto selection = local.rankSelection();
            for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
                if (!selection.includes(r))
                    continue;
                std::optional<double> medianStep;
                for (const auto &p : paces)
                    if (p.rank == r && !p.iterations.empty())
                        medianStep = p.medianNs;
                ranks.push_back(packSummaryRank(r, cli::summaryRank(local, r, medianStep)));
            }
            memoryRecorded = local.derived().gpuMemory().recorded();
        }))
        return 1;
    std::vector<core::Finding> findings;
    if (!findingsInParts(world, capture, options, stepRange, findings))
        return 1;

    const auto packed = pack(Json { std::move(ranks), memoryRecorded });
    printStatsIfAsked(world, capture, packed.size());
    const auto gathered = world.gatherToRoot(packed);
    int status = 0;
    if (world.isRoot()) {
        cli::SummaryOutput out;
        out.stepRange = stepRange;
        std::vector<std::pair<std::uint32_t, cli::SummaryRank>> summaryRanks;
        for (std::size_t p = 0; p < gathered.size(); ++p) {
            const auto one = unpack(gathered[p]);
            for (const auto &r : one[0])
                summaryRanks.emplace_back(capture.globalRank[p].at(r[0].get<std::uint32_t>()), unpackSummaryRank(r));
            out.memoryRecorded = out.memoryRecorded || one[1].get<bool>();
        }
        std::stable_sort(
            summaryRanks.begin(), summaryRanks.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        for (auto &[rank, summary] : summaryRanks)
            out.ranks.push_back(std::move(summary));
        for (const auto &f : findings)
            out.findings.push_back(f.text);
        status = cli::printSummary({ options, capture.skeleton }, out);
    }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
