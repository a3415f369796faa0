// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/compare_headline.h"

#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gaplens::core {
namespace {

bool inBoth(const KernelChange &k)
{
    return k.presence == Presence::Both && k.callsBefore > 0 && k.callsAfter > 0 && k.avgBefore > 0;
}

std::string signedDuration(double ns)
{
    return (ns > 0 ? "+" : "") + formatDuration(ns);
}

PerCallChange perCallChange(const KernelChange &k)
{
    PerCallChange p;
    p.name = k.name;
    p.callsBefore = k.callsBefore;
    p.callsAfter = k.callsAfter;
    p.avgBefore = k.avgBefore;
    p.avgAfter = k.avgAfter;
    p.ratio = k.avgAfter / k.avgBefore;
    p.impactNs = (k.avgAfter - k.avgBefore) * double(k.callsAfter);
    // A slower kernel reads as "1.41x slower", a faster one as "1.25x faster" (before / after).
    const bool slower = p.ratio > 1;
    p.text = fmt::format("{} {:.2f}x {} per call ({})", p.name, slower ? p.ratio : 1.0 / p.ratio,
        slower ? "slower" : "faster", signedDuration(p.impactNs));
    return p;
}

} // namespace

std::string_view workBasisName(WorkBasis basis)
{
    switch (basis) {
    case WorkBasis::Capture: return "capture";
    case WorkBasis::PerStep: return "per_step";
    case WorkBasis::PerCall: return "per_call";
    }
    return "capture";
}

SharedKernels sharedKernels(const std::vector<KernelChange> &kernels)
{
    SharedKernels s;
    for (const auto &k : kernels) {
        if (!inBoth(k))
            continue;
        s.callsBefore += k.callsBefore;
        s.callsAfter += k.callsAfter;
        s.totalBefore += double(k.totalBefore);
        s.totalAfter += double(k.totalAfter);
        s.afterAtBeforeCalls += k.avgAfter * double(k.callsBefore);
    }
    return s;
}

WorkComparison compareWork(const Comparison &c)
{
    WorkComparison w;
    if (c.hasSteps) {
        w.basis = WorkBasis::PerStep;
        w.before = c.before.steps;
        w.after = c.after.steps;
        w.differs = w.before != w.after;
        w.text = w.differs
            ? fmt::format("different amounts of work ({} steps before, {} after): figures are per step of NVTX "
                          "range '{}'; capture totals are as measured",
                w.before, w.after, c.stepRange)
            : fmt::format(
                "the same work ({} steps each): figures are per step of NVTX range '{}'", w.before, c.stepRange);
        return w;
    }
    const auto shared = sharedKernels(c.kernels);
    w.before = shared.callsBefore;
    w.after = shared.callsAfter;
    const double larger = double(std::max(w.before, w.after));
    w.differs = larger > 0 && std::fabs(double(w.after) - double(w.before)) > kWorkTolerance * larger;
    if (w.differs) {
        w.basis = WorkBasis::PerCall;
        w.text = fmt::format("different amounts of work ({} calls of kernels in both before, {} after): figures "
                             "are per kernel call; capture totals are as measured",
            w.before, w.after);
    } else {
        w.text = fmt::format("the same work ({} -> {} calls of kernels in both, within {:.0f}%): totals are "
                             "compared as measured",
            w.before, w.after, kWorkTolerance * 100);
    }
    return w;
}

std::vector<std::string> comparabilityProblems(const Comparison &c)
{
    std::vector<std::string> problems;
    if (c.before.ranks != c.after.ranks)
        problems.push_back(fmt::format("ranks: {} before, {} after", c.before.ranks, c.after.ranks));
    if (c.before.gpus != c.after.gpus)
        problems.push_back(fmt::format("GPUs: {} before, {} after", c.before.gpus, c.after.gpus));
    if (c.before.kernels == 0 || c.after.kernels == 0) {
        problems.push_back(fmt::format("the {} capture has no kernels", c.before.kernels == 0 ? "before" : "after"));
        return problems;
    }
    const auto shared = sharedKernels(c.kernels);
    const double shareBefore = shared.totalBefore / double(std::max<TimeNs>(c.before.kernelNs, 1));
    const double shareAfter = shared.totalAfter / double(std::max<TimeNs>(c.after.kernelNs, 1));
    if (std::min(shareBefore, shareAfter) < kComparableSharedKernelTime)
        problems.push_back(fmt::format("only {} of the before's and {} of the after's kernel time is in kernels both "
                                       "ran",
            formatPercent(shareBefore * 100), formatPercent(shareAfter * 100)));
    const auto &w = c.work;
    if (w.before > 0 && w.after > 0) {
        const double ratio = double(w.after) / double(w.before);
        if (ratio > kComparableWorkRatio || ratio < 1.0 / kComparableWorkRatio)
            problems.push_back(fmt::format("the after capture holds {:.2f}x the work of the before ({} {} -> {})",
                ratio, w.basis == WorkBasis::PerStep ? "steps" : "calls of kernels in both", w.before, w.after));
    }
    return problems;
}

void findPerCallChanges(Comparison &c, double stepNoiseShare)
{
    const double minChange = std::max(kMinPerCallChange, stepNoiseShare);
    const double minImpact
        = std::max(kMinPerCallImpactNs, kMinPerCallImpactShare * double(std::max(c.before.kernelNs, c.after.kernelNs)));
    c.regressions.clear();
    c.improvements.clear();
    for (const auto &k : c.kernels) {
        if (!inBoth(k))
            continue;
        auto change = perCallChange(k);
        if (std::fabs(change.ratio - 1.0) < minChange || std::fabs(change.impactNs) < minImpact)
            continue;
        (change.impactNs > 0 ? c.regressions : c.improvements).push_back(std::move(change));
    }
    for (auto *list : { &c.regressions, &c.improvements }) {
        std::sort(list->begin(), list->end(), [](const PerCallChange &x, const PerCallChange &y) {
            const double dx = std::fabs(x.impactNs), dy = std::fabs(y.impactNs);
            return dx != dy ? dx > dy : x.name < y.name;
        });
        if (list->size() > kTopPerCallChanges)
            list->resize(kTopPerCallChanges);
    }
    c.perCallRule = fmt::format(
        "kernels both captures ran whose time per call changed by at least {:.1f}%{} and "
        "whose impact ((after avg - before avg) x after calls) is at least {} ({:.0f}% of the larger "
        "capture's kernel time, and at least {})",
        minChange * 100, stepNoiseShare > kMinPerCallChange ? " (the step-level noise of kernel time per step)" : "",
        formatDuration(minImpact), kMinPerCallImpactShare * 100, formatDuration(kMinPerCallImpactNs));
}

} // namespace gaplens::core
