// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/busy_shards.h"

#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/gpu_busy.h"

#include <algorithm>
#include <limits>

namespace gaplens::core {

void GpuBusyPart::add(const GpuBusyPart &other)
{
    busyNs += other.busyNs;
    if (!other.window)
        return;
    if (!window)
        window = other.window;
    else
        window = TimeRange { std::min(window->start, other.window->start), std::max(window->end, other.window->end) };
}

double GpuBusyPart::busyPercent() const
{
    return window ? busyPercentOf(busyNs, *window) : 0.0;
}

GpuBusyPart gpuBusyPart(const DerivedCapture &derived, std::uint32_t gpu, const EarlierShards &earlier)
{
    GpuBusyPart part;
    if (gpu >= derived.trace().gpus.size())
        return part;
    const auto &lane = derived.busy(GpuIndex(gpu));
    if (lane.start.empty())
        return part;
    // The whole file's window runs from its first shard's first start to the latest end of any.
    part.window = lane.window;
    const auto counted = earlier.busyUntilOf(gpu);
    part.busyNs = counted
        ? derived.busyIn(GpuIndex(gpu), TimeRange { *counted, std::numeric_limits<TimeNs>::max() }).busyNs
        : lane.busyNs;
    return part;
}

} // namespace gaplens::core
