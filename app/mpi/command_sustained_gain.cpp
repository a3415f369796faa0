// SPDX-License-Identifier: MIT
// check --min-sustained-gain in parts: each capture loaded in parts in turn, its whole
// accounting window accounted in parts, split on the root (checkpoint commits or equal
// windows), and each window accounted in parts again; the root judges the two lists of
// windows and prints gaplens-cli's output.
#include "collective_steps.h"
#include "distributed_commands.h"
#include "run_accounting_parts.h"
#include "wire.h"

#include "command_context.h"

#include "gaplens/core/analysis/sustained_gain.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

// The windows of one capture (on the root; empty elsewhere): core's splitSustainedWindows
// with every accounting in parts.
core::SustainedWindows splitInParts(
    const World &world, const DistributedCapture &capture, const core::SustainedGainOptions &rule)
{
    core::SustainedWindows out;
    out.whole = accountInParts(world, capture, rule.accounting).whole;
    // The boundaries and the step range, from the root to every process: each window is
    // accounted together.
    std::vector<core::TimeNs> points;
    core::TimeNs zero = 0;
    if (world.isRoot()) {
        if (!out.whole.error.empty()) {
            out.error = out.whole.error;
        } else {
            const auto &skeleton = *capture.skeleton;
            zero = skeleton.reports[skeleton.ranks[out.whole.slowestRank].report].timeZero();
            points = core::sustainedWindowBoundaries(out.whole, rule.split, rule.windowCount);
        }
    }
    const auto agreed = unpack(
        world.broadcastFromRoot(world.isRoot() ? pack(Json { zero, points, out.whole.stepRange }) : std::string()));
    zero = agreed[0].get<core::TimeNs>();
    points = agreed[1].get<std::vector<core::TimeNs>>();
    const auto stepRange = agreed[2].get<std::string>();
    for (std::size_t i = 1; i < points.size(); ++i) {
        const auto window = accountInParts(
            world, capture, core::sustainedWindowOptions(rule.accounting, stepRange, points[i - 1], points[i], zero));
        if (world.isRoot())
            out.windows.push_back(core::sustainedWindow({ points[i - 1], points[i] }, window.whole));
    }
    return out;
}

} // namespace

int runSustainedGainCommand(const World &world, const cli::Options &options)
{
    const auto rule = cli::sustainedGainRule(options);
    auto captures = loadBeforeAfterInParts(world, options);
    if (!captures)
        return 1;
    const auto &before = captures->before;
    const auto &after = captures->after;
    int status = 0;
    auto beforeWindows = splitInParts(world, before, rule);
    auto afterWindows = splitInParts(world, after, rule);
    printStatsIfAsked(world, after);
    if (world.isRoot()) {
        const auto check
            = core::judgeSustainedGain(std::move(beforeWindows), std::move(afterWindows), *after.skeleton, rule);
        status = cli::printSustainedGainCheck(options, *before.skeleton, *after.skeleton, rule, check);
    }
    std::fflush(stdout);
    return agreedStatus(world, status);
}

} // namespace gaplens::mpi
