// SPDX-License-Identifier: MIT
#pragma once
// Private helpers of the analyses: windowed access to sorted tracks (the k-way union of such
// runs is merged_intervals.h).
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <vector>

namespace gaplens::core::detail {

// A run [lo, hi) of intervals sorted by start, read through a clip window.
struct IntervalRun
{
    const TimeNs *start = nullptr;
    const TimeNs *end = nullptr;
    std::size_t lo = 0, hi = 0;
};

// Intervals already materialised (clipped, sorted by start), e.g. a pid-filtered copy lane.
struct CollectedIntervals
{
    std::vector<TimeNs> start, end;
    IntervalRun run() const { return { start.data(), end.data(), 0, start.size() }; }
};

// Kernels of one stream that overlap the window. Relies on kernels of a stream not
// overlapping (so at most one kernel straddles window.start).
IntervalRun kernelRun(const KernelColumns &kernels, const TimeWindow &window);

// Copies overlapping the window, clipped, sorted by clipped start; pid filter when pid != kNoIndex.
// Uses the copy lane's nesting index for the ones open at window.start (copies overlap).
CollectedIntervals collectCopies(const CopyColumns &copies, const TimeWindow &window, std::uint32_t pid = kNoIndex);

inline TimeRange clip(TimeNs start, TimeNs end, const TimeWindow &window)
{
    if (!window)
        return { start, end };
    return { std::max(start, window->start), std::min(end, window->end) };
}

} // namespace gaplens::core::detail
