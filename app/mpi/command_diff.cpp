// SPDX-License-Identifier: MIT
// diff in parts: both captures loaded in parts, with gaps' time shards (distributed_commands.cpp);
// each process measures its part of each capture's GPU work (busy, gaps, kernels, idle causes
// and phases: core's measureGpuWorkPart). A capture read in time shards is then read again in
// time shards of its own rows only (its NVTX ranges, kernels, copies and CUDA calls, as pace
// reads it): a gap's shard also holds the host rows open at its gaps, which another shard
// counts. From that read, or the first one for whole files: the step range given, else
// proposed from the before capture's NVTX, else the after capture's (as gaplens-cli proposes
// it); the NVTX ranges by name, the ranks' paces and steps (rank_paces.h), and the run
// accounting in parts. The root adds the parts up, compares the paces across ranks, and
// compares the two captures (core's compareMeasures) with gaplens-cli's output.
#include "collective_steps.h"
#include "distributed_commands.h"
#include "pace_parts.h"
#include "rank_paces.h"
#include "run_accounting_parts.h"
#include "step_range_shards.h"
#include "wire.h"

#include "command_context.h"

#include "gaplens/core/analysis/busy_shards.h"
#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/step_range.h"
#include "gaplens/core/analysis/summaries.h"

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

// What a capture read in time shards reads again, of its own rows only: the step range's
// proposal, the paces with step accounting, the run accounting and the NVTX summary.
constexpr core::TableSet kStepTables = core::kStepRangeTables | core::kPaceTables | core::kStepAccountingTables
    | core::kRunAccountingTables | core::kNvtxSummaryTables;

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

// Collective. The capture's GPU work measured in parts, added up on the root. A GPU of a file
// read in time shards has each gap, and its blame, on the shard of the work that ends it, so
// those add up; its busy time and window do not, so each shard sends its busy part
// (busy_shards.h), joined per GPU on the root.
core::CaptureMeasures measureGpuWork(const World &world, const DistributedCapture &capture, const cli::Options &options)
{
    core::CaptureMeasures mine;
    Json busyParts = Json::array(); // [local GPU, busy ns, window start, window end]
    collectively(world, [&] {
        auto derivedOptions = cli::compareDerivedOptions(options);
        derivedOptions.earlierShards = capture.earlierShards;
        const auto derived = core::DerivedCapture::build(capture.local, derivedOptions);
        mine = core::measureGpuWorkPart(*derived);
        if (!capture.timeShards)
            return;
        mine.figures.busyNs = 0;
        mine.figures.windowNs = 0;
        for (std::uint32_t g = 0; g < derived->gpuCount(); ++g)
            if (const auto part = core::gpuBusyPart(*derived, g, capture.earlierShards); part.window)
                busyParts.push_back({ g, part.busyNs, part.window->start, part.window->end });
    });
    const auto gathered = world.gatherToRoot(pack(Json { packMeasures(mine), std::move(busyParts) }));
    core::CaptureMeasures whole;
    if (!world.isRoot())
        return whole;
    std::map<std::uint32_t, core::GpuBusyPart> busy; // by the skeleton's GPU index
    for (std::size_t p = 0; p < gathered.size(); ++p) {
        const auto one = unpack(gathered[p]);
        core::addCaptureMeasures(whole, unpackMeasures(one[0]));
        for (const auto &b : one[1])
            busy[capture.globalGpu[p].at(b[0].get<std::uint32_t>())].add(
                { b[1].get<core::TimeNs>(), core::TimeRange { b[2].get<core::TimeNs>(), b[3].get<core::TimeNs>() } });
    }
    for (const auto &[gpu, part] : busy) {
        whole.figures.busyNs += part.busyNs;
        whole.figures.windowNs += part.window->duration();
    }
    return whole;
}

// Collective. The capture's input files that loaded on every process, in input order: what its
// second read takes, so that it holds the same reports (a file given twice stays twice).
std::vector<std::string> filesThatLoaded(const World &world, const DistributedCapture &capture)
{
    std::vector<std::int64_t> failed(capture.inputFiles.size(), 0);
    for (const auto file : capture.errorFile)
        if (file < failed.size())
            failed[file] = 1;
    world.allReduceMax(failed);
    std::vector<std::string> files;
    for (std::size_t i = 0; i < failed.size(); ++i)
        if (!failed[i])
            files.push_back(capture.inputFiles[i]);
    return files;
}

// One capture of the comparison: `gapWork` as loaded for its GPU work (the skeleton printed),
// and the read its steps and NVTX ranges come from: `stepRows` for a capture in time shards,
// else `gapWork` itself.
struct DiffCapture
{
    DistributedCapture gapWork;
    std::optional<DistributedCapture> stepRows;
    core::CaptureMeasures measures; // on the root

    const DistributedCapture &steps() const { return stepRows ? *stepRows : gapWork; }
};

// Collective. In time shards, the capture's first read released and its own rows read again.
void rereadInTimeShards(const World &world, DiffCapture &capture, const cli::Options &options, const char *label)
{
    if (!capture.gapWork.timeShards)
        return;
    const auto files = filesThatLoaded(world, capture.gapWork);
    capture.gapWork.local.reset();
    capture.stepRows = loadDistributed(world, options, files, kStepTables, TimeShardUse::AddsUp, label);
}

// Collective. The capture's NVTX ranges by name, its ranks' paces and steps of `stepRange`,
// and its run accounting, added to `capture.measures` on the root; the accounting returned
// there. nullopt when the paces failed on any process (the root has said why).
std::optional<core::RunAccounting> measureSteps(
    const World &world, DiffCapture &capture, const cli::Options &options, const std::string &stepRange)
{
    const auto &steps = capture.steps();
    std::map<std::string, core::NamedTotals> nvtx;
    collectively(world, [&] { nvtx = core::measureNvtxByName(*steps.local); });
    Json ranks = Json::array();
    if (!stepRange.empty()) {
        core::PaceOptions paceOptions;
        paceOptions.rangeName = stepRange;
        core::StepAccountingOptions stepOptions;
        stepOptions.includeCopies = options.withCopies;
        if (!rankPacesOfProcess(world, steps, paceOptions, stepOptions, ranks))
            return std::nullopt;
    }
    const auto gathered = world.gatherToRoot(pack(Json { packTotals(nvtx), std::move(ranks) }));
    core::RunAccounting accounting;
    if (!stepRange.empty()) {
        core::RunAccountingOptions accountingOptions;
        accountingOptions.stepRange = stepRange;
        accounting = accountInParts(world, steps, accountingOptions).whole;
    }
    if (!world.isRoot())
        return accounting;
    std::vector<RankPaceResult> all;
    for (std::size_t p = 0; p < gathered.size(); ++p) {
        const auto one = unpack(gathered[p]);
        core::CaptureMeasures part;
        part.nvtx = unpackTotals(one[0]);
        core::addCaptureMeasures(capture.measures, part);
        for (const auto &rank : one[1])
            all.push_back(unpackRankPace(rank, steps.globalRank[p].at(rank[0].get<std::uint32_t>())));
    }
    auto ordered = inRankOrder(std::move(all));
    const auto &skeleton = *capture.gapWork.skeleton;
    std::optional<core::PaceReport> pace;
    if (!stepRange.empty())
        pace = core::comparePaces(stepRange, std::move(ordered.paces));
    core::finishCaptureMeasures(
        capture.measures, skeleton.ranks.size(), skeleton.gpus.size(), pace ? &*pace : nullptr, ordered.steps);
    return accounting;
}

} // namespace

int runDiffCommand(const World &world, const cli::Options &options)
{
    auto captures = loadBeforeAfterInParts(world, options);
    if (!captures)
        return 1;
    // Both captures' GPU work measured before either is read again: one capture's two reads
    // are never held together with the other's.
    DiffCapture before { std::move(captures->before), std::nullopt, {} };
    DiffCapture after { std::move(captures->after), std::nullopt, {} };
    before.measures = measureGpuWork(world, before.gapWork, options);
    after.measures = measureGpuWork(world, after.gapWork, options);
    rereadInTimeShards(world, before, options, "before: ");
    rereadInTimeShards(world, after, options, "after: ");
    // As compareTraces chooses it: given, else the before capture's proposal, else the after's.
    std::string stepRange, rangeSource;
    if (options.range) {
        stepRange = *options.range;
        rangeSource = "option";
    } else if (const auto proposed = givenOrProposedStepRange(world, before.steps(), std::nullopt)) {
        stepRange = *proposed;
        rangeSource = "proposed (before)";
    } else if (const auto fallback = givenOrProposedStepRange(world, after.steps(), std::nullopt)) {
        stepRange = *fallback;
        rangeSource = "proposed (after)";
    }
    const auto accountingBefore = measureSteps(world, before, options, stepRange);
    if (!accountingBefore)
        return 1;
    const auto accountingAfter = measureSteps(world, after, options, stepRange);
    if (!accountingAfter)
        return 1;
    printStatsIfAsked(world, after.steps());
    int status = 0;
    if (world.isRoot())
        status = cli::printDiff(options, *before.gapWork.skeleton, *after.gapWork.skeleton,
            core::compareMeasures(before.measures, after.measures, stepRange, rangeSource, *accountingBefore,
                *accountingAfter, cli::compareOptions(options)));
    std::fflush(stdout);
    return agreedStatus(world, status);
}

} // namespace gaplens::mpi
