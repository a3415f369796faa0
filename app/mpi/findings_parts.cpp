// SPDX-License-Identifier: MIT
#include "findings_parts.h"

#include "collective_steps.h"
#include "interval_parts.h"
#include "overlap_parts.h"
#include "pace_parts.h"
#include "wire.h"
#include "world_parts.h"

#include "command_context.h"

#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/analysis/pace.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

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

bool findingsInParts(const World &world, const DistributedCapture &capture, const cli::Options &options,
    const std::optional<std::string> &stepRange, std::vector<core::Finding> &findings)
{
    const auto &trace = *capture.local;
    const cli::CommandContext local { options, capture.local };
    const WorldParts parts(world);
    core::TimeNs defaultLength = 0;
    std::optional<core::TimeNs> origin;
    // Collective: a process that failed could not tell the others, so a failure ends the job.
    collectively(world, [&] {
        defaultLength = core::defaultIntervalLength(trace, parts);
        origin = core::intervalOrigin(trace, parts);
    });
    const auto findingOptions = cli::summaryFindingOptions(local, stepRange);
    auto intervalOptions = core::findingIntervalOptions(findingOptions, defaultLength);
    intervalOptions.originNs = origin.value_or(0); // computeIntervals' origin without GPU work

    Json paces = Json::array();
    std::string overlap, intervals;
    bool intervalsTooShort = false;
    core::CaptureSummaryPart part;
    if (!onEveryProcess(world, [&] {
            // The steps of the selected ranks.
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
            part = core::summarizeCapturePart(derived, findingOptions, steps);
            overlap = packOverlapPart(trace, core::computeOverlapPart(trace, { findingOptions.ranks, std::nullopt }));
            try {
                intervals = packIntervalParts(core::computeIntervalStatistics(derived, intervalOptions));
            } catch (const std::invalid_argument &) {
                intervalsTooShort = true; // no interval findings, on every process (below)
            }
        }))
        return false;
    std::vector<std::uint64_t> tooShort { std::uint64_t(intervalsTooShort) };
    world.allReduceSum(tooShort);

    const auto gathered = world.gatherToRoot(pack(Json { packFindingsPart(part), std::move(paces), intervals }));
    const auto overlaps = world.gatherToRoot(overlap);
    if (!world.isRoot())
        return true;
    std::vector<Json> findingParts;
    std::vector<RankPaceResult> rankPaces;
    std::vector<std::string> intervalParts;
    for (std::size_t p = 0; p < gathered.size(); ++p) {
        auto one = unpack(gathered[p]);
        findingParts.push_back(std::move(one[0]));
        for (const auto &r : one[1])
            rankPaces.push_back(unpackRankPace(r, capture.globalRank[p].at(r[0].get<std::uint32_t>())));
        intervalParts.push_back(one[2].get<std::string>());
    }
    core::CaptureWideFacts wide;
    wide.stepRange = stepRange.value_or(std::string());
    if (!wide.stepRange.empty())
        wide.pace = core::comparePaces(wide.stepRange, inRankOrder(std::move(rankPaces)).paces);
    const auto &skeleton = *capture.skeleton;
    if (skeleton.ranks.size() >= 2)
        wide.lastToCollectives = core::findCollectiveStraggler(finishOverlapParts(capture, overlaps));
    if (tooShort[0] == 0)
        wide.intervals = finishIntervalParts(intervalParts, capture.globalRank, intervalOptions);
    const cli::CommandContext whole { options, capture.skeleton };
    findings = core::finishCaptureSummary(
        skeleton, mergeFindingsParts(capture, findingParts), wide, cli::summaryFindingOptions(whole, stepRange))
                   .findings;
    return true;
}

} // namespace gaplens::mpi
