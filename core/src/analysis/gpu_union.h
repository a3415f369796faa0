// SPDX-License-Identifier: MIT
#pragma once
// Private helper of the analyses: the one place a GPU's busy union is computed. computeGpuBusy
// keeps the merged intervals as TimeRanges, the DerivedCapture as columns; both get them from
// here, one at a time.
#include "merged_intervals.h"

#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/util/cancel.h"

namespace gaplens::core::detail {

// computeGpuBusy(trace, gpuIndex, options) with every merged interval handed to
// onMerged(TimeRange), in time order, instead of stored in busy.intervals. Returns false once
// `cancel` (may be null) is seen cancelled; `busy` is then incomplete.
template <typename OnMerged>
bool computeGpuBusyInto(const TraceSet &trace, std::uint32_t gpuIndex, const GpuBusyOptions &options, GpuBusy &busy,
    OnMerged &&onMerged, const CancelToken *cancel = nullptr)
{
    busy = GpuBusy {};
    busy.gpu = gpuIndex;
    if (gpuIndex >= trace.gpus.size())
        return true;
    const Gpu &gpu = trace.gpus[gpuIndex];

    std::vector<IntervalRun> runs;
    runs.reserve(gpu.streams.size() + 1);
    busy.streams.reserve(gpu.streams.size());
    for (std::uint32_t s = 0; s < gpu.streams.size(); ++s) {
        const Stream &stream = gpu.streams[s];
        const auto run = kernelRun(stream.kernels, options.window);
        runs.push_back(run);
        StreamBusy sb;
        sb.stream = s;
        sb.pid = stream.pid;
        sb.streamId = stream.streamId;
        // The per-stream union is the same merge with a single run (kernels of one stream
        // should not overlap, but a data problem must not count time twice).
        if (!forEachMergedInterval(
                { run }, options.window, [&](TimeRange merged) { sb.busyNs += merged.duration(); }, cancel))
            return false;
        for (std::size_t i = run.lo; i < run.hi; ++i) {
            const auto r = clip(run.start[i], run.end[i], options.window);
            if (r.end > r.start)
                ++sb.kernelCount;
        }
        busy.streams.push_back(sb);
    }
    CollectedIntervals copies;
    if (options.includeCopies) {
        copies = collectCopies(gpu.copies, options.window);
        runs.push_back(copies.run());
    }

    bool any = false;
    const bool finished = forEachMergedInterval(
        runs, options.window,
        [&](TimeRange merged) {
            busy.busyNs += merged.duration();
            if (!any)
                busy.window.start = merged.start;
            busy.window.end = merged.end;
            any = true;
            onMerged(merged);
        },
        cancel);
    if (!finished)
        return false;
    busy.busyPercent = busyPercentOf(busy.busyNs, busy.window); // {0,0} without work: 0
    return true;
}

} // namespace gaplens::core::detail
