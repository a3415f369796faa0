// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/gpu_busy.h"

#include "gpu_union.h"
#include "idle_gaps.h"

#include <algorithm>

namespace gaplens::core {

GpuBusy computeGpuBusy(const TraceSet &trace, std::uint32_t gpuIndex, const GpuBusyOptions &options)
{
    GpuBusy busy;
    std::vector<TimeRange> intervals;
    detail::computeGpuBusyInto(trace, gpuIndex, options, busy, [&](TimeRange merged) { intervals.push_back(merged); });
    busy.intervals = std::move(intervals);
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
    detail::IdleGapFinder finder(minGapNs);
    for (const auto &interval : busy.intervals)
        finder.add(interval, [&](TimeRange gap) {
            gaps.gaps.push_back(gap);
            gaps.totalNs += gap.duration();
        });
    return gaps;
}

IdleOutsideWindow idleOutsideWindow(TimeRange span, TimeRange busyWindow)
{
    if (span.duration() <= 0)
        return {};
    if (busyWindow.duration() <= 0)
        return { span.duration(), 0 };
    return { std::max<TimeNs>(0, std::min(busyWindow.start, span.end) - span.start),
        std::max<TimeNs>(0, span.end - std::max(busyWindow.end, span.start)) };
}

} // namespace gaplens::core
