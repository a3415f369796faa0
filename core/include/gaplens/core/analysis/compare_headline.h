// SPDX-License-Identifier: MIT
#pragma once
// The parts of a comparison's headline that judge whether its figures mean what they seem:
// which denominator the figures use when the captures hold different amounts of work, why
// the captures may not be comparable, and the kernels whose time per call changed beyond
// the noise. compareTraces fills them once; the CLI and the compare panel only show them.
#include "gaplens/core/analysis/compare.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gaplens::core {

// Work differs when the step counts differ, or (without steps) when the calls of the kernels
// both captures ran differ by more than this share: a capture window cut a few calls apart
// is the same work.
inline constexpr double kWorkTolerance = 0.02;
// Not comparable beyond this ratio of work (after / before, either way).
inline constexpr double kComparableWorkRatio = 2.0;
// Not comparable when less than this share of either capture's kernel time is in kernels
// both ran.
inline constexpr double kComparableSharedKernelTime = 0.5;
// The per-call noise rule: a kernel's time per call must change by at least this share (or
// the step-level noise of kernel time per step, when larger) and its impact must be at least
// kMinPerCallImpactShare of the larger kernel time and kMinPerCallImpactNs.
inline constexpr double kMinPerCallChange = 0.05;
inline constexpr double kMinPerCallImpactShare = 0.01;
inline constexpr double kMinPerCallImpactNs = 10'000;
inline constexpr std::size_t kTopPerCallChanges = 3;

// The kernels both captures ran (present in both, with calls on both sides), summed.
struct SharedKernels
{
    std::uint64_t callsBefore = 0, callsAfter = 0;
    double totalBefore = 0, totalAfter = 0; // ns
    // The after capture's time at the before's calls: sum of avgAfter * callsBefore. Divided by
    // callsBefore it is the after's time per call in the before's mix of kernels.
    double afterAtBeforeCalls = 0;
};
SharedKernels sharedKernels(const std::vector<KernelChange> &kernels);

// The basis from c.hasSteps, the step counts and c.kernels (calls of kernels in both).
WorkComparison compareWork(const Comparison &c);

// The reasons the captures may not be comparable (see Comparison::notComparable), from the
// figures, c.kernels and c.work.
std::vector<std::string> comparabilityProblems(const Comparison &c);

// Regressions and improvements per call among c.kernels, by |impact| desc then name;
// `stepNoiseShare` is the relative step-level noise of kernel time per step (0 without steps).
void findPerCallChanges(Comparison &c, double stepNoiseShare);

} // namespace gaplens::core
