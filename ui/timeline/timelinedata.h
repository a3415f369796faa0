// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/trace.h"

#include <memory>
#include <vector>

namespace gaplens::ui {

// A loaded capture plus what the timeline derives from it once, off the GUI thread:
// each GPU's merged busy intervals in columns (for draw lists and gap search). Immutable.
struct TimelineData
{
    std::shared_ptr<const core::TraceSet> trace;
    struct GpuLane
    {
        std::vector<core::TimeNs> busyStart, busyEnd; // union of all streams' kernels
    };
    std::vector<GpuLane> gpus; // one per TraceSet::gpus
};

// O(n log k) per GPU; call on a worker thread for big captures.
std::shared_ptr<const TimelineData> prepareTimelineData(std::shared_ptr<const core::TraceSet> trace);

} // namespace gaplens::ui
