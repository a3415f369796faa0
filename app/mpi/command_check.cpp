// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "wire.h"

#include "command_context.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

Json packBaseline(const std::optional<cli::CheckBaseline> &baseline)
{
    if (!baseline)
        return nullptr;
    Json ranks = Json::array();
    for (const auto &r : baseline->ranks) {
        Json devices = Json::array();
        for (const auto &d : r.devices)
            devices.push_back({ d.device, d.busyPercent });
        ranks.push_back({ r.rank, optionalJson(r.medianStepNs), std::move(devices) });
    }
    return { baseline->stepRange, baseline->withCopies ? Json(*baseline->withCopies) : Json(nullptr),
        std::move(ranks) };
}

std::optional<cli::CheckBaseline> unpackBaseline(const Json &j)
{
    if (j.is_null())
        return std::nullopt;
    cli::CheckBaseline baseline;
    baseline.stepRange = j[0].get<std::string>();
    if (!j[1].is_null())
        baseline.withCopies = j[1].get<bool>();
    for (const auto &r : j[2]) {
        cli::CheckBaselineRank rank;
        rank.rank = r[0].get<std::int32_t>();
        rank.medianStepNs = optionalDouble(r[1]);
        for (const auto &d : r[2])
            rank.devices.push_back({ d[0].get<std::int32_t>(), d[1].get<double>() });
        baseline.ranks.push_back(std::move(rank));
    }
    return baseline;
}

} // namespace

// check (against a stored summary): the root reads the baseline and sends it to every
// process; each process measures its ranks as the baseline did (gaplens-cli's checkFigures:
// busy % per GPU, the median step), and the root checks them in rank order with gaplens-cli's
// printCheck. --min-sustained-gain is command_sustained_gain.cpp's.
int runCheckCommand(const World &world, const cli::Options &options)
{
    std::optional<cli::CheckBaseline> baseline;
    if (world.isRoot())
        baseline = cli::readCheckBaseline(options); // says why it cannot be used
    baseline = unpackBaseline(unpack(world.broadcastFromRoot(world.isRoot() ? pack(packBaseline(baseline)) : "")));
    if (!baseline)
        return 1;

    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    // The baseline's step range unless --range says otherwise; proposed when it has none.
    std::optional<std::string> given = options.range.value_or(baseline->stepRange);
    if (given->empty())
        given.reset();
    const auto rangeName = givenOrProposedStepRange(world, *capture.local, given).value_or(std::string());

    Json ranks = Json::array();
    if (!onEveryProcess(world, [&] {
            const auto figures = cli::checkFigures(capture.local, options, *baseline, rangeName);
            for (std::uint32_t r = 0; r < figures.size(); ++r) {
                const auto &f = figures[r];
                ranks.push_back({ r, f.rank, f.busyPercent, optionalJson(f.medianStepNs) });
            }
        }))
        return 1;
    const auto packed = pack(ranks);
    printStatsIfAsked(world, capture, packed.size());
    const auto gathered = world.gatherToRoot(packed);
    int status = 0;
    if (world.isRoot()) {
        std::vector<std::pair<std::uint32_t, cli::CheckRankFigures>> all;
        for (std::size_t p = 0; p < gathered.size(); ++p)
            for (const auto &r : unpack(gathered[p])) {
                cli::CheckRankFigures f;
                f.rank = r[1].get<std::int32_t>();
                f.busyPercent = r[2].get<std::vector<std::pair<std::int32_t, double>>>();
                f.medianStepNs = optionalDouble(r[3]);
                all.emplace_back(capture.globalRank[p].at(r[0].get<std::uint32_t>()), std::move(f));
            }
        std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        std::vector<cli::CheckRankFigures> figures;
        for (auto &[rank, f] : all)
            figures.push_back(std::move(f));
        status = cli::printCheck(options, *capture.skeleton, *baseline, rangeName, figures);
    }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
