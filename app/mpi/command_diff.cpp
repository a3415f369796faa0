// SPDX-License-Identifier: MIT
// diff in parts: both captures loaded in parts; the step range given, else proposed from the
// before capture's NVTX, else the after capture's (in parts, as gaplens-cli proposes it);
// each process measures its part of each capture (busy, gaps, kernels, idle causes and
// phases, NVTX by name: core's measureCapturePart) and its ranks' paces and steps; the root
// adds the parts up, compares the paces across ranks, takes each capture's run accounting in
// parts, and compares the two (core's compareMeasures) with gaplens-cli's output.
#include "collective_steps.h"
#include "distributed_commands.h"
#include "pace_parts.h"
#include "run_accounting_parts.h"
#include "step_range_shards.h"
#include "wire.h"

#include "command_context.h"

#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/pace.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

Json packTotals(const std::map<std::string, core::NamedTotals> &totals)
{
    Json out = Json::array();
    for (const auto &[key, t] : totals)
        out.push_back({ key, t.count, t.totalNs });
    return out;
}

std::map<std::string, core::NamedTotals> unpackTotals(const Json &packed)
{
    std::map<std::string, core::NamedTotals> out;
    for (const auto &row : packed)
        out[row[0].get<std::string>()] = { row[1].get<std::uint64_t>(), row[2].get<core::TimeNs>() };
    return out;
}

Json packMeasures(const core::CaptureMeasures &m)
{
    const auto &f = m.figures;
    return { f.busyNs, f.windowNs, f.gapCount, f.gapNs, f.kernels, packTotals(m.kernels), packTotals(m.causes),
        packTotals(m.phases), packTotals(m.nvtx) };
}

core::CaptureMeasures unpackMeasures(const Json &j)
{
    core::CaptureMeasures m;
    auto &f = m.figures;
    f.busyNs = j[0].get<core::TimeNs>();
    f.windowNs = j[1].get<core::TimeNs>();
    f.gapCount = j[2].get<std::uint64_t>();
    f.gapNs = j[3].get<core::TimeNs>();
    f.kernels = j[4].get<std::uint64_t>();
    m.kernels = unpackTotals(j[5]);
    m.causes = unpackTotals(j[6]);
    m.phases = unpackTotals(j[7]);
    m.nvtx = unpackTotals(j[8]);
    return m;
}

struct MeasuredCapture
{
    core::CaptureMeasures measures; // the whole capture's, on the root
    core::RunAccounting accounting; // with the step range, on the root
};

// Collective. One capture measured in parts, as compareTraces measures it whole.
MeasuredCapture measureInParts(
    const World &world, const DistributedCapture &capture, const cli::Options &options, const std::string &stepRange)
{
    core::CaptureMeasures mine;
    Json ranks = Json::array();
    collectively(world, [&] {
        mine = core::measureCapturePart(
            *core::DerivedCapture::build(capture.local, cli::compareDerivedOptions(options)));
        if (stepRange.empty())
            return;
        core::PaceOptions paceOptions;
        paceOptions.rangeName = stepRange;
        const auto paces = core::computeRankPaces(*capture.local, paceOptions);
        core::StepAccountingOptions stepOptions;
        stepOptions.includeCopies = options.withCopies;
        const auto steps = core::computeStepAccounting(*capture.local, paces, stepOptions);
        for (std::size_t i = 0; i < paces.size(); ++i)
            ranks.push_back(packRankPace(paces[i], steps.at(i)));
    });
    const auto gathered = world.gatherToRoot(pack(Json { packMeasures(mine), std::move(ranks) }));
    MeasuredCapture out;
    if (world.isRoot()) {
        std::vector<RankPaceResult> all;
        for (std::size_t p = 0; p < gathered.size(); ++p) {
            const auto one = unpack(gathered[p]);
            core::addCaptureMeasures(out.measures, unpackMeasures(one[0]));
            for (const auto &rank : one[1])
                all.push_back(unpackRankPace(rank, capture.globalRank[p].at(rank[0].get<std::uint32_t>())));
        }
        auto ordered = inRankOrder(std::move(all));
        const auto &skeleton = *capture.skeleton;
        std::optional<core::PaceReport> pace;
        if (!stepRange.empty())
            pace = core::comparePaces(stepRange, std::move(ordered.paces));
        core::finishCaptureMeasures(
            out.measures, skeleton.ranks.size(), skeleton.gpus.size(), pace ? &*pace : nullptr, ordered.steps);
    }
    if (!stepRange.empty()) {
        core::RunAccountingOptions accounting;
        accounting.stepRange = stepRange;
        out.accounting = accountInParts(world, capture, accounting).whole;
    }
    return out;
}

} // namespace

int runDiffCommand(const World &world, const cli::Options &options)
{
    auto captures = loadBeforeAfterInParts(world, options);
    if (!captures)
        return 1;
    const auto &before = captures->before;
    const auto &after = captures->after;
    // As compareTraces chooses it: given, else the before capture's proposal, else the after's.
    std::string stepRange, rangeSource;
    if (options.range) {
        stepRange = *options.range;
        rangeSource = "option";
    } else if (const auto proposed = givenOrProposedStepRange(world, before, std::nullopt)) {
        stepRange = *proposed;
        rangeSource = "proposed (before)";
    } else if (const auto fallback = givenOrProposedStepRange(world, after, std::nullopt)) {
        stepRange = *fallback;
        rangeSource = "proposed (after)";
    }
    const auto measuredBefore = measureInParts(world, before, options, stepRange);
    const auto measuredAfter = measureInParts(world, after, options, stepRange);
    printStatsIfAsked(world, after);
    int status = 0;
    if (world.isRoot())
        status = cli::printDiff(options, *before.skeleton, *after.skeleton,
            core::compareMeasures(measuredBefore.measures, measuredAfter.measures, stepRange, rangeSource,
                measuredBefore.accounting, measuredAfter.accounting, cli::compareOptions(options)));
    std::fflush(stdout);
    return agreedStatus(world, status);
}

} // namespace gaplens::mpi
