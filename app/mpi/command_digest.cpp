// SPDX-License-Identifier: MIT
#include "collective_steps.h"
#include "distributed_commands.h"
#include "findings_parts.h"
#include "pace_parts.h"
#include "step_range_shards.h"
#include "wire.h"
#include "world_parts.h"

#include "command_context.h"
#include "command_json.h"

#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/step_range.h"
#include "gaplens/core/analysis/summaries.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::mpi {

using Json = nlohmann::json;

// digest: each rank's object where its report is, built by gaplens-cli's digestRankJson from
// the process's own parts (its ranks' paces and step accounting, per-rank kernel summaries,
// intervals over the whole capture's origin, run accounting decided over every process), with
// what is the whole capture's agreed first: whether any rank has the step range, the copy
// slots present anywhere, whether run accounting has an error anywhere. The findings come in
// parts (findings_parts.h); the root adds each rank's findings, compares the paces for the
// pace matrix, and writes the file with gaplens-cli's writeDigest.
int runDigestCommand(const World &world, const cli::Options &options)
{
    auto loaded = loadCommandCapture(world, options);
    if (!loaded)
        return 1;
    const auto &capture = *loaded;
    const auto &trace = *capture.local;
    const cli::CommandContext local { options, capture.local };
    const WorldParts parts(world);

    const auto stepRange = givenOrProposedStepRange(world, capture, options.range);
    auto intervalOptions = cli::intervalOptions(options);
    intervalOptions.top = std::numeric_limits<std::size_t>::max(); // every anomalous interval
    if (!intervalOptions.originNs) {
        constexpr auto kNone = std::numeric_limits<core::TimeNs>::max();
        const auto origin = world.allReduceMin(core::intervalOrigin(trace).value_or(kNone));
        intervalOptions.originNs = origin == kNone ? 0 : origin; // computeIntervals' origin without GPU work
    }

    cli::DigestParts mine;
    Json paces = Json::array();
    if (!onEveryProcess(world, [&] {
            if (stepRange) {
                core::PaceOptions paceOptions;
                paceOptions.rangeName = *stepRange;
                core::PaceReport pace;
                pace.rangeName = *stepRange;
                pace.ranks = core::computeRankPaces(trace, paceOptions);
                mine.steps = core::computeStepAccounting(trace, pace.ranks, cli::stepAccountingOptions(options));
                for (std::size_t i = 0; i < pace.ranks.size(); ++i)
                    paces.push_back(packRankPace(pace.ranks[i], mine.steps.at(i)));
                mine.pace = std::move(pace);
            }
            mine.kernels = core::summarizeKernelsPerRank(trace);
            // Per-rank anomalies (the digest does not pool): each rank's from its own intervals.
            mine.intervals = core::computeIntervals(local.derivedKernelsOnly(), intervalOptions);
        }))
        return 1;

    // What the whole capture decides: a pace when some rank has the step range, the copy
    // slots present on any rank, and run accounting only when no part has an error.
    std::vector<std::uint64_t> agreed { mine.pace ? mine.pace->ranks.size() : 0 };
    for (std::size_t s = 0; s < core::kCopySlotCount; ++s)
        agreed.push_back(0);
    for (const auto s : cli::presentCopySlots(mine.intervals))
        agreed[1 + s] = 1;
    std::optional<core::RunAccountingPart> accounting;
    if (stepRange)
        collectively(world, [&] {
            auto accountingOptions = cli::runAccountingOptions(options);
            accountingOptions.stepRange = *stepRange;
            accounting = core::computeRunAccountingPart(trace, accountingOptions, parts);
        });
    if (accounting)
        agreed.insert(agreed.end(),
            { std::uint64_t(!accounting->accounting.error.empty()), accounting->accounting.ranks.size(),
                accounting->stepRanges });
    world.allReduceSum(agreed);
    const bool paceExists = agreed[0] > 0;
    for (std::size_t s = 0; s < core::kCopySlotCount; ++s)
        if (agreed[1 + s] > 0)
            mine.slots.push_back(s);
    // finishRunAccounting's errors: any part's, no rank, no step range counted.
    const std::size_t a = 1 + core::kCopySlotCount;
    if (accounting && agreed[a] == 0 && agreed[a + 1] > 0 && agreed[a + 2] > 0)
        mine.accounting = std::move(accounting->accounting);
    if (!paceExists)
        mine.pace.reset();

    // The findings' step range is the pace's; without one, summarizeCapture proposes one.
    const auto findingRange = givenOrProposedStepRange(world, capture, paceExists ? stepRange : std::nullopt);
    std::vector<core::Finding> findings;
    if (!findingsInParts(world, capture, options, findingRange, findings))
        return 1;

    // Each rank's object as text: the ordered keys stay in order.
    Json ranks = Json::array();
    if (!onEveryProcess(world, [&] {
            for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
                ranks.push_back({ r, cli::digestRankJson(local, mine, r).dump() });
        }))
        return 1;
    const auto packed = pack(Json { std::move(ranks), std::move(paces) });
    printStatsIfAsked(world, capture, packed.size());
    const auto gathered = world.gatherToRoot(packed);
    int status = 0;
    if (world.isRoot()) {
        std::vector<std::pair<std::uint32_t, cli::Json>> rankObjects;
        std::vector<RankPaceResult> rankPaces;
        for (std::size_t p = 0; p < gathered.size(); ++p) {
            const auto one = unpack(gathered[p]);
            for (const auto &r : one[0])
                rankObjects.emplace_back(
                    capture.globalRank[p].at(r[0].get<std::uint32_t>()), cli::Json::parse(r[1].get<std::string>()));
            for (const auto &r : one[1])
                rankPaces.push_back(unpackRankPace(r, capture.globalRank[p].at(r[0].get<std::uint32_t>())));
        }
        std::sort(
            rankObjects.begin(), rankObjects.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
        std::sort(
            rankPaces.begin(), rankPaces.end(), [](const auto &x, const auto &y) { return x.pace.rank < y.pace.rank; });

        cli::DigestParts whole;
        if (paceExists) {
            std::vector<core::RankPace> all;
            for (auto &r : rankPaces) {
                all.push_back(std::move(r.pace));
                whole.steps.push_back(std::move(r.steps));
            }
            whole.pace = core::comparePaces(*stepRange, std::move(all));
        }
        whole.intervals.intervalNs = intervalOptions.intervalNs;
        whole.intervals.originNs = *intervalOptions.originNs;
        whole.intervals.metric = intervalOptions.metric;
        whole.findings = std::move(findings);
        std::vector<cli::Json> objects;
        for (auto &[rank, object] : rankObjects)
            objects.push_back(std::move(object));
        status = cli::writeDigest({ options, capture.skeleton }, whole, std::move(objects));
    }
    return finalStatus(world, capture, status);
}

} // namespace gaplens::mpi
