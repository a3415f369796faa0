// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "interval_parts.h"
#include "overlap_parts.h"
#include "pace_parts.h"
#include "wire.h"
#include "world_parts.h"

#include "command_context.h"

#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/step_range.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

Json optionalJson(const std::optional<double> &value)
{
    return value ? Json(*value) : Json(nullptr);
}

std::optional<double> optionalDouble(const Json &value)
{
    return value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
}

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

// A GPU row of the findings and its idle story: every time an integer, every median and
// percentage a double (CBOR keeps them bit for bit).
Json packRow(const core::GpuSummaryRow &row, const std::optional<core::IdleStory> &idle)
{
    Json copies = Json::array();
    for (const auto &c : row.copies)
        copies.push_back({ int(c.kind), c.count, c.bytes, c.totalNs });
    Json story = nullptr;
    if (idle)
        story = { idle->idlePercent, idle->perStep, idle->hasCause, idle->most, idle->causePercent, idle->where,
            idle->cause, idle->phase, idle->hasCopies, idle->copyPercent };
    return { row.rank, row.gpu, row.busyNs, row.window.start, row.window.end, row.busyPercent, row.idleNs, row.gapCount,
        row.steps, optionalJson(row.medianStepNs), optionalJson(row.medianKernelNsPerStep),
        optionalJson(row.medianStepBusyPercent), std::move(copies), row.captureSpan.start, row.captureSpan.end,
        row.idleOutside.beforeNs, row.idleOutside.afterNs, std::move(story) };
}

std::pair<core::GpuSummaryRow, std::optional<core::IdleStory>> unpackRow(
    const Json &j, std::uint32_t globalRank, std::uint32_t globalGpu)
{
    core::GpuSummaryRow row;
    row.rank = globalRank;
    row.gpu = globalGpu;
    row.busyNs = j[2].get<core::TimeNs>();
    row.window = { j[3].get<core::TimeNs>(), j[4].get<core::TimeNs>() };
    row.busyPercent = j[5].get<double>();
    row.idleNs = j[6].get<core::TimeNs>();
    row.gapCount = j[7].get<std::uint64_t>();
    row.steps = j[8].get<std::uint64_t>();
    row.medianStepNs = optionalDouble(j[9]);
    row.medianKernelNsPerStep = optionalDouble(j[10]);
    row.medianStepBusyPercent = optionalDouble(j[11]);
    for (const auto &c : j[12])
        row.copies.push_back({ core::CopyKind(c[0].get<int>()), c[1].get<std::uint64_t>(), c[2].get<std::uint64_t>(),
            c[3].get<core::TimeNs>() });
    row.captureSpan = { j[13].get<core::TimeNs>(), j[14].get<core::TimeNs>() };
    row.idleOutside.beforeNs = j[15].get<core::TimeNs>();
    row.idleOutside.afterNs = j[16].get<core::TimeNs>();
    std::optional<core::IdleStory> idle;
    if (const auto &s = j[17]; !s.is_null())
        idle = core::IdleStory { s[0].get<std::int64_t>(), s[1].get<bool>(), s[2].get<bool>(), s[3].get<bool>(),
            s[4].get<std::int64_t>(), s[5].get<std::string>(), s[6].get<std::string>(), s[7].get<std::string>(),
            s[8].get<bool>(), s[9].get<std::int64_t>() };
    return { std::move(row), std::move(idle) };
}

Json packFindingsPart(const core::CaptureSummaryPart &part)
{
    Json rows = Json::array();
    for (std::size_t i = 0; i < part.rows.size(); ++i)
        rows.push_back(packRow(part.rows[i], part.idle[i]));
    const auto &p = part.pageable;
    return { std::move(rows), part.gpuEvents, part.nvtxRanges, p.count, p.totalNs, p.fromPageable, p.toPageable };
}

// Every process's findings parts as the whole capture's: rows in rank order, then in the
// order of the rank's GPUs; counts summed.
core::CaptureSummaryPart mergeFindingsParts(const DistributedCapture &capture, const std::vector<Json> &parts)
{
    const auto &skeleton = *capture.skeleton;
    std::vector<std::pair<core::GpuSummaryRow, std::optional<core::IdleStory>>> rows;
    core::CaptureSummaryPart whole;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const auto &part = parts[p];
        for (const auto &row : part[0]) {
            const auto gpu = row[1].get<std::uint32_t>();
            rows.push_back(unpackRow(row, capture.globalRank[p].at(row[0].get<std::uint32_t>()),
                gpu == core::kNoIndex ? gpu : capture.globalGpu[p].at(gpu)));
        }
        whole.gpuEvents += part[1].get<std::uint64_t>();
        whole.nvtxRanges += part[2].get<std::uint64_t>();
        auto &pageable = whole.pageable;
        pageable.count += part[3].get<std::uint64_t>();
        pageable.totalNs += part[4].get<core::TimeNs>();
        pageable.fromPageable = pageable.fromPageable || part[5].get<bool>();
        pageable.toPageable = pageable.toPageable || part[6].get<bool>();
    }
    const auto gpuPlace = [&](const core::GpuSummaryRow &row) {
        const auto &gpus = skeleton.ranks.at(row.rank).gpus;
        return std::size_t(std::find(gpus.begin(), gpus.end(), row.gpu) - gpus.begin());
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const auto &a, const auto &b) {
        return std::make_tuple(a.first.rank, gpuPlace(a.first)) < std::make_tuple(b.first.rank, gpuPlace(b.first));
    });
    for (auto &[row, idle] : rows) {
        whole.rows.push_back(std::move(row));
        whole.idle.push_back(std::move(idle));
    }
    return whole;
}

} // namespace

// summary: each rank's figures and rows where its report is; the findings from each process's
// part (core's summarizeCapturePart: rows, idle stories, counts, pageable copies) and the
// whole capture's facts, each computed in parts as its own command does (the step range
// from the NVTX tallies, pace compared on the root, overlap's collectives matched on the
// root, intervals over the whole capture's origin and length), told on the root by
// finishCaptureSummary, as summarizeCapture does.
int runCaptureSummaryCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const auto &trace = *capture.local;
    const cli::CommandContext local { options, capture.local };
    const WorldParts parts(world);

    std::optional<std::string> stepRange = options.range;
    core::TimeNs defaultLength = 0;
    std::optional<core::TimeNs> origin;
    // Collective: a process that failed could not tell the others, so a failure ends the job.
    collectively(world, [&] {
        if (!stepRange)
            stepRange = core::proposePaceRangeName(trace, parts);
        defaultLength = core::defaultIntervalLength(trace, parts);
        origin = core::intervalOrigin(trace, parts);
    });
    const auto findingOptions = cli::summaryFindingOptions(local, stepRange);
    auto intervalOptions = core::findingIntervalOptions(findingOptions, defaultLength);
    intervalOptions.originNs = origin.value_or(0); // computeIntervals' origin without GPU work

    Json ranks = Json::array(), paces = Json::array();
    std::string overlap, intervals;
    bool intervalsTooShort = false;
    core::CaptureSummaryPart findings;
    bool memoryRecorded = false;
    if (!onEveryProcess(world, [&] {
            // The median step of every rank (summary's pace does not narrow to --ranks).
            std::vector<core::RankPace> allPaces;
            if (stepRange) {
                core::PaceOptions paceOptions;
                paceOptions.rangeName = *stepRange;
                allPaces = core::computeRankPaces(trace, paceOptions);
            }
            const auto selection = local.rankSelection();
            for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
                if (!selection.includes(r))
                    continue;
                std::optional<double> medianStep;
                for (const auto &p : allPaces)
                    if (p.rank == r && !p.iterations.empty())
                        medianStep = p.medianNs;
                ranks.push_back(packSummaryRank(r, cli::summaryRank(local, r, medianStep)));
            }
            memoryRecorded = local.derived().gpuMemory().recorded();

            // The findings' steps: of the selected ranks.
            std::vector<core::RankSteps> steps;
            if (stepRange && !stepRange->empty()) {
                core::PaceOptions paceOptions;
                paceOptions.rangeName = *stepRange;
                paceOptions.ranks = findingOptions.ranks;
                const auto selected = core::computeRankPaces(trace, paceOptions);
                steps = core::computeStepAccounting(trace, selected);
                for (std::size_t i = 0; i < selected.size(); ++i)
                    paces.push_back(packRankPace(selected[i], steps.at(i)));
            }
            const auto &derived = local.derivedKernelsOnly();
            findings = core::summarizeCapturePart(derived, findingOptions, steps);
            overlap = packOverlapPart(trace, core::computeOverlapPart(trace, { findingOptions.ranks, std::nullopt }));
            try {
                intervals = packIntervalParts(core::computeIntervalStatistics(derived, intervalOptions));
            } catch (const std::invalid_argument &) {
                intervalsTooShort = true; // no interval findings, on every process (below)
            }
        }))
        return 1;
    std::vector<std::uint64_t> tooShort { std::uint64_t(intervalsTooShort) };
    world.allReduceSum(tooShort);
    intervalsTooShort = tooShort[0] > 0;

    const auto packed
        = pack(Json { std::move(ranks), memoryRecorded, packFindingsPart(findings), std::move(paces), intervals });
    printStatsIfAsked(world, capture, packed.size() + overlap.size());
    const auto gathered = world.gatherToRoot(packed);
    const auto overlaps = world.gatherToRoot(overlap);
    int status = 0;
    if (world.isRoot()) {
        const cli::CommandContext whole { options, capture.skeleton };
        cli::SummaryOutput out;
        out.stepRange = stepRange;
        std::vector<std::pair<std::uint32_t, cli::SummaryRank>> summaryRanks;
        std::vector<Json> findingParts;
        std::vector<RankPaceResult> rankPaces;
        std::vector<std::string> intervalParts;
        for (std::size_t p = 0; p < gathered.size(); ++p) {
            auto one = unpack(gathered[p]);
            for (const auto &r : one[0])
                summaryRanks.emplace_back(capture.globalRank[p].at(r[0].get<std::uint32_t>()), unpackSummaryRank(r));
            out.memoryRecorded = out.memoryRecorded || one[1].get<bool>();
            findingParts.push_back(std::move(one[2]));
            for (const auto &r : one[3])
                rankPaces.push_back(unpackRankPace(r, capture.globalRank[p].at(r[0].get<std::uint32_t>())));
            intervalParts.push_back(one[4].get<std::string>());
        }
        std::stable_sort(
            summaryRanks.begin(), summaryRanks.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        for (auto &[rank, summary] : summaryRanks)
            out.ranks.push_back(std::move(summary));

        core::CaptureWideFacts wide;
        wide.stepRange = stepRange.value_or(std::string());
        if (!wide.stepRange.empty()) {
            std::sort(rankPaces.begin(), rankPaces.end(),
                [](const auto &a, const auto &b) { return a.pace.rank < b.pace.rank; });
            std::vector<core::RankPace> selected;
            for (auto &r : rankPaces)
                selected.push_back(std::move(r.pace));
            wide.pace = core::comparePaces(wide.stepRange, std::move(selected));
        }
        const auto &skeleton = *capture.skeleton;
        if (skeleton.ranks.size() >= 2)
            wide.lastToCollectives = core::findCollectiveStraggler(finishOverlapParts(capture, overlaps));
        if (!intervalsTooShort)
            wide.intervals = finishIntervalParts(intervalParts, capture.globalRank, intervalOptions);
        const auto summary = core::finishCaptureSummary(
            skeleton, mergeFindingsParts(capture, findingParts), wide, cli::summaryFindingOptions(whole, stepRange));
        for (const auto &f : summary.findings)
            out.findings.push_back(f.text);
        status = cli::printSummary(whole, out);
    }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
