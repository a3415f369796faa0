// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/trace.h"

#include <memory>
#include <vector>

namespace gaplens::ui {

// Each GPU's merged busy intervals (the union of all its streams' kernels) in columns, for
// gap search. Immutable.
struct GpuBusyLanes
{
    struct Lane
    {
        std::vector<core::TimeNs> start, end;
    };
    std::vector<Lane> gpus; // one per TraceSet::gpus
};

// O(n log k) per GPU (core::computeGpuBusy); call it on a worker thread for big captures.
std::shared_ptr<const GpuBusyLanes> computeBusyLanes(const core::TraceSet &trace);

// A loaded capture, shared by the timeline and the panels. Immutable.
struct TimelineData
{
    std::shared_ptr<const core::TraceSet> trace;
    // Null when the capture was handed over as soon as it was loaded (LoadController): the
    // timeline model then computes the lanes with the gaps, on its worker thread.
    std::shared_ptr<const GpuBusyLanes> busy;
};

// The capture alone, ready to draw at once: no derived data is computed.
std::shared_ptr<const TimelineData> timelineDataOf(std::shared_ptr<const core::TraceSet> trace);
// The capture with its busy lanes computed on the calling thread (tools, tests, exports).
std::shared_ptr<const TimelineData> prepareTimelineData(std::shared_ptr<const core::TraceSet> trace);

} // namespace gaplens::ui
