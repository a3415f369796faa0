// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "step_range_shards.h"
#include "wire.h"

#include "command_context.h"

#include "gaplens/core/analysis/busy_shards.h"
#include "gaplens/core/analysis/pace.h"

#include <algorithm>
#include <map>
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

// Whole files: each process measures its ranks with gaplens-cli's checkFigures; per rank
// [index on this process, number, [[device, busy %]...], median step].
Json wholeFileFigures(const DistributedCapture &capture, const cli::Options &options,
    const cli::CheckBaseline &baseline, const std::string &rangeName)
{
    Json ranks = Json::array();
    const auto figures = cli::checkFigures(capture.local, options, baseline, rangeName);
    for (std::uint32_t r = 0; r < figures.size(); ++r) {
        const auto &f = figures[r];
        ranks.push_back({ r, f.rank, f.busyPercent, optionalJson(f.medianStepNs) });
    }
    return ranks;
}

// Time shards: each GPU's busy part after its file's earlier shards (core::gpuBusyPart) and
// the rank's outermost step candidates (core::paceCandidates); per rank [index on this
// process, number, [[device, busy ns, window start, window end]...], [[start, end]...]].
Json shardParts(const DistributedCapture &capture, const cli::Options &options, const cli::CheckBaseline &baseline,
    const std::string &rangeName)
{
    const auto &trace = *capture.local;
    const auto derived = core::DerivedCapture::build(capture.local, cli::checkDerivedOptions(options, baseline));
    // No step range, no steps (paceCandidates would take an empty name for the unnamed ranges).
    const auto candidates = rangeName.empty() ? std::vector<std::vector<core::PaceCandidate>>()
                                              : core::paceCandidates(trace, cli::checkPaceOptions(rangeName));
    Json ranks = Json::array();
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
        Json devices = Json::array(), steps = Json::array();
        for (const auto g : trace.ranks[r].gpus) {
            const auto part = core::gpuBusyPart(*derived, g, capture.earlierShards);
            Json device { trace.gpus[g].deviceId, part.busyNs };
            if (part.window) {
                device.push_back(part.window->start);
                device.push_back(part.window->end);
            }
            devices.push_back(std::move(device));
        }
        if (r < candidates.size())
            for (const auto &c : candidates[r])
                steps.push_back({ c.start, c.end });
        ranks.push_back({ r, trace.ranks[r].rank, std::move(devices), std::move(steps) });
    }
    return ranks;
}

// A rank's shards added up: its GPUs' busy parts (by device, in the order first sent) and its
// step candidates in shard order (the processes' order).
struct RankShards
{
    std::int32_t rank = 0;
    std::vector<std::pair<std::int32_t, core::GpuBusyPart>> devices;
    std::vector<core::PaceCandidate> candidates;
};

cli::CheckRankFigures addedUp(std::uint32_t globalRank, const RankShards &shards, const std::string &rangeName)
{
    cli::CheckRankFigures f;
    f.rank = shards.rank;
    for (const auto &[device, part] : shards.devices)
        f.busyPercent.emplace_back(device, part.busyPercent());
    if (!rangeName.empty())
        if (const auto pace = core::rankPaceFromShards(globalRank, shards.candidates, cli::checkPaceOptions(rangeName));
            pace && !pace->iterations.empty())
            f.medianStepNs = pace->medianNs;
    return f;
}

// On the root: every process's ranks (gathered) as check's figures, in rank order.
std::vector<cli::CheckRankFigures> figuresInRankOrder(
    const DistributedCapture &capture, const std::vector<std::string> &gathered, const std::string &rangeName)
{
    std::map<std::uint32_t, cli::CheckRankFigures> whole;
    std::map<std::uint32_t, RankShards> sharded;
    for (std::size_t p = 0; p < gathered.size(); ++p)
        for (const auto &r : unpack(gathered[p])) {
            const auto global = capture.globalRank[p].at(r[0].get<std::uint32_t>());
            if (!capture.timeShards) {
                auto &f = whole[global];
                f.rank = r[1].get<std::int32_t>();
                f.busyPercent = r[2].get<std::vector<std::pair<std::int32_t, double>>>();
                f.medianStepNs = optionalDouble(r[3]);
                continue;
            }
            auto &shards = sharded[global];
            shards.rank = r[1].get<std::int32_t>();
            for (const auto &d : r[2]) {
                core::GpuBusyPart part;
                part.busyNs = d[1].get<core::TimeNs>();
                if (d.size() == 4)
                    part.window = core::TimeRange { d[2].get<core::TimeNs>(), d[3].get<core::TimeNs>() };
                const auto device = d[0].get<std::int32_t>();
                auto known = std::find_if(shards.devices.begin(), shards.devices.end(),
                    [&](const auto &entry) { return entry.first == device; });
                if (known == shards.devices.end())
                    shards.devices.emplace_back(device, part);
                else
                    known->second.add(part);
            }
            for (const auto &c : r[3])
                shards.candidates.push_back({ c[0].get<core::TimeNs>(), c[1].get<core::TimeNs>() });
        }
    for (const auto &[global, shards] : sharded)
        whole[global] = addedUp(global, shards, rangeName);
    std::vector<cli::CheckRankFigures> figures;
    for (auto &[global, f] : whole)
        figures.push_back(std::move(f));
    return figures;
}

} // namespace

// check (against a stored summary): the root reads the baseline and sends it to every
// process; each process measures its ranks as the baseline did (gaplens-cli's checkFigures:
// busy % per GPU, the median step), and the root checks them in rank order with gaplens-cli's
// printCheck. A big file may be read in time shards: the step range, unless the baseline or
// --range names it, proposed from every shard's tallies (step_range_shards.h), and each
// shard's busy parts and step candidates added up on the root. --min-sustained-gain is
// command_sustained_gain.cpp's.
int runCheckCommand(const World &world, const cli::Options &options)
{
    std::optional<cli::CheckBaseline> baseline;
    if (world.isRoot())
        baseline = cli::readCheckBaseline(options); // says why it cannot be used
    baseline = unpackBaseline(unpack(world.broadcastFromRoot(world.isRoot() ? pack(packBaseline(baseline)) : "")));
    if (!baseline)
        return 1;

    // Measured as the baseline was: its step range (proposed in parts when there is none) and
    // copies setting, which decide the tables and the division into time shards.
    const auto measured = cli::checkLoadOptions(options, *baseline);
    auto loaded = loadCommandCapture(world, measured);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const auto rangeName = givenOrProposedStepRange(world, capture, measured.range).value_or(std::string());

    Json ranks;
    if (!onEveryProcess(world, [&] {
            ranks = capture.timeShards ? shardParts(capture, options, *baseline, rangeName)
                                       : wholeFileFigures(capture, options, *baseline, rangeName);
        }))
        return 1;
    const auto packed = pack(ranks);
    printStatsIfAsked(world, capture, packed.size());
    const auto gathered = world.gatherToRoot(packed);
    int status = 0;
    if (world.isRoot())
        status = cli::printCheck(
            options, *capture.skeleton, *baseline, rangeName, figuresInRankOrder(capture, gathered, rangeName));
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
