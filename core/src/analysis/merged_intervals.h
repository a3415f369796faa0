// SPDX-License-Identifier: MIT
#pragma once
// Private helper of the analyses: the union of several runs of intervals, streamed — sorted,
// disjoint, touching intervals merged, intervals empty after clipping dropped — handed over
// one merged interval at a time: the one merge behind computeGpuBusy and the DerivedCapture
// (gpu_union.h), blame's windowed gaps and step accounting. Blame used to build every GPU's
// merged intervals (millions at full scale) and a union per stream it never read, only to take
// the gaps between them; step accounting built one vector per step only to sum it.
#include "interval_union.h"

#include "gaplens/core/util/cancel.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace gaplens::core::detail {

// Calls onMerged(TimeRange) for each interval of the union of `runs` clipped to `window`, in
// time order. O(n log k) for n intervals in k runs. With a cancel token, polls it every
// kCancelCheckEvery input intervals and returns false (the union unfinished) once cancelled.
inline constexpr std::size_t kCancelCheckEvery = 4096;

template <typename OnMerged>
bool forEachMergedInterval(const std::vector<IntervalRun> &runs, const TimeWindow &window, OnMerged &&onMerged,
    const CancelToken *cancel = nullptr)
{
    // Min-heap on (clipped start, run index); clipping keeps each run's start order.
    using Head = std::pair<TimeNs, std::size_t>;
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    std::vector<std::size_t> next(runs.size());
    for (std::size_t r = 0; r < runs.size(); ++r) {
        next[r] = runs[r].lo;
        if (next[r] < runs[r].hi)
            heads.emplace(clip(runs[r].start[next[r]], runs[r].end[next[r]], window).start, r);
    }
    bool haveCurrent = false;
    TimeRange current {};
    std::size_t popped = 0;
    while (!heads.empty()) {
        if (cancel && ++popped % kCancelCheckEvery == 0 && cancel->isCancelled())
            return false;
        const std::size_t r = heads.top().second;
        heads.pop();
        const auto &run = runs[r];
        const auto iv = clip(run.start[next[r]], run.end[next[r]], window);
        if (++next[r] < run.hi)
            heads.emplace(clip(run.start[next[r]], run.end[next[r]], window).start, r);
        if (iv.end <= iv.start)
            continue;
        if (haveCurrent && iv.start <= current.end) {
            current.end = std::max(current.end, iv.end);
        } else {
            if (haveCurrent)
                onMerged(current);
            current = iv;
            haveCurrent = true;
        }
    }
    if (haveCurrent)
        onMerged(current);
    return true;
}

} // namespace gaplens::core::detail
