// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/model/trace.h"

#include <memory>

namespace gaplens::ui {

// A loaded capture, shared by the timeline and the panels. Immutable.
struct TimelineData
{
    std::shared_ptr<const core::TraceSet> trace;
    // Null when the capture was handed over as soon as it was loaded (LoadController): the
    // window's DerivedCaptureController builds it off the GUI thread. Otherwise built on the
    // calling thread at the default options, and used when those are the window's.
    std::shared_ptr<const core::DerivedCapture> derived;
    std::shared_ptr<const core::BusyLanes> busy; // derived->busyLanes(), or null
    // A staged load's first stage (LoadController::firstStageLoaded): no NVTX ranges or OS
    // runtime calls yet. Drawn as it is, but nothing is derived from it (gap blame names the
    // NVTX phase): the full capture follows.
    bool firstStage = false;
};

// The capture alone, ready to draw at once: no derived data is computed.
std::shared_ptr<const TimelineData> timelineDataOf(std::shared_ptr<const core::TraceSet> trace);
// A staged load's first stage, ready to draw at once (TimelineData::firstStage).
std::shared_ptr<const TimelineData> firstStageDataOf(std::shared_ptr<const core::TraceSet> trace);
// The capture with its DerivedCapture built on the calling thread (tools, tests, exports).
std::shared_ptr<const TimelineData> prepareTimelineData(std::shared_ptr<const core::TraceSet> trace);

} // namespace gaplens::ui
