// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/gpu_busy.h"

#include "interval_union.h"

namespace gaplens::core {

GpuBusy computeGpuBusy(const TraceSet &trace, std::uint32_t gpuIndex, const GpuBusyOptions &options)
{
    GpuBusy busy;
    busy.gpu = gpuIndex;
    if (gpuIndex >= trace.gpus.size())
        return busy;
    const Gpu &gpu = trace.gpus[gpuIndex];

    std::vector<detail::IntervalRun> runs;
    runs.reserve(gpu.streams.size() + 1);
    busy.streams.reserve(gpu.streams.size());
    for (std::uint32_t s = 0; s < gpu.streams.size(); ++s) {
        const Stream &stream = gpu.streams[s];
        const auto run = detail::kernelRun(stream.kernels, options.window);
        runs.push_back(run);
        StreamBusy sb;
        sb.stream = s;
        sb.pid = stream.pid;
        sb.streamId = stream.streamId;
        // The per-stream union is the same merge with a single run (kernels of one stream
        // should not overlap, but a data problem must not count time twice).
        const auto own = detail::unionOfRuns({run}, options.window);
        sb.busyNs = detail::totalLength(own);
        for (std::size_t i = run.lo; i < run.hi; ++i) {
            const auto r = detail::clip(run.start[i], run.end[i], options.window);
            if (r.end > r.start)
                ++sb.kernelCount;
        }
        busy.streams.push_back(sb);
    }
    detail::CollectedIntervals copies;
    if (options.includeCopies) {
        copies = detail::collectCopies(gpu.copies, options.window);
        runs.push_back(copies.run());
    }

    busy.intervals = detail::unionOfRuns(runs, options.window);
    busy.busyNs = detail::totalLength(busy.intervals);
    if (!busy.intervals.empty()) {
        busy.window = {busy.intervals.front().start, busy.intervals.back().end};
        if (busy.window.duration() > 0)
            busy.busyPercent = 100.0 * double(busy.busyNs) / double(busy.window.duration());
    }
    return busy;
}

std::vector<GpuBusy> computeAllGpuBusy(const TraceSet &trace, const GpuBusyOptions &options)
{
    std::vector<GpuBusy> all;
    all.reserve(trace.gpus.size());
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
        all.push_back(computeGpuBusy(trace, g, options));
    return all;
}

GpuGaps findIdleGaps(const GpuBusy &busy, TimeNs minGapNs)
{
    GpuGaps gaps;
    gaps.gpu = busy.gpu;
    for (std::size_t i = 1; i < busy.intervals.size(); ++i) {
        const TimeRange gap{busy.intervals[i - 1].end, busy.intervals[i].start};
        if (gap.duration() >= minGapNs && gap.duration() > 0) {
            gaps.gaps.push_back(gap);
            gaps.totalNs += gap.duration();
        }
    }
    return gaps;
}

} // namespace gaplens::core
