// SPDX-License-Identifier: MIT
#include "interval_union.h"

#include <algorithm>

namespace gaplens::core::detail {

IntervalRun kernelRun(const KernelColumns &kernels, const TimeWindow &window)
{
    IntervalRun run { kernels.start.data(), kernels.end.data(), 0, kernels.size() };
    if (!window)
        return run;
    const auto &s = kernels.start;
    run.hi = std::size_t(std::lower_bound(s.begin(), s.end(), window->end) - s.begin());
    run.lo = std::size_t(std::upper_bound(s.begin(), s.end(), window->start) - s.begin());
    // Kernels starting at or before the window start still count when they end inside it.
    while (run.lo > 0 && kernels.end[run.lo - 1] > window->start)
        --run.lo;
    run.lo = std::min(run.lo, run.hi);
    return run;
}

CollectedIntervals collectCopies(const CopyColumns &copies, const TimeWindow &window, std::uint32_t pid)
{
    CollectedIntervals out;
    const auto &s = copies.start;
    std::size_t lo = 0, hi = copies.size();
    if (window) {
        // Copies overlap across streams: the ones straddling the start come from the nesting
        // index (exact), the rest are a contiguous run by start.
        std::vector<std::uint32_t> open;
        copies.nesting.openAt(copies.start, copies.end, window->start, open);
        TimeNs openEnd = window->start;
        for (auto i : open)
            if (pid == kNoIndex || copies.pid[i] == pid)
                openEnd = std::max(openEnd, std::min(copies.end[i], window->end));
        if (openEnd > window->start) {
            out.start.push_back(window->start);
            out.end.push_back(openEnd);
        }
        lo = std::size_t(std::upper_bound(s.begin(), s.end(), window->start) - s.begin());
        hi = std::size_t(std::lower_bound(s.begin(), s.end(), window->end) - s.begin());
    }
    for (std::size_t i = lo; i < hi; ++i) {
        if (pid != kNoIndex && copies.pid[i] != pid)
            continue;
        const auto r = clip(copies.start[i], copies.end[i], window);
        if (r.end > r.start) {
            out.start.push_back(r.start);
            out.end.push_back(r.end);
        }
    }
    return out;
}

} // namespace gaplens::core::detail
