// SPDX-License-Identifier: MIT
#pragma once
// The fold indexes (core::FoldIndex) of every row the timeline draws, built once per capture
// by the TimelineWorker, so a frame at any zoom costs O(items log n).
#include "gaplens/core/view/fold_index.h"
#include "gaplens/core/model/trace.h"

#include <atomic>
#include <memory>
#include <vector>

namespace gaplens::ui {

// Immutable once built.
struct TimelineFoldIndex
{
    std::vector<std::vector<core::FoldIndex>> streams; // [gpu][stream]: kernels
    std::vector<std::vector<core::FoldIndex>> copies;  // [gpu][nesting level]
    std::vector<std::vector<core::FoldIndex>> nvtx;    // [thread][nesting level]
    std::vector<std::vector<core::FoldIndex>> api;     // [thread][nesting level]
};

// One sequential pass over every event (about 0.2 s for 56M events); returns null as soon as
// `cancelled` is seen set. Rows too short to gain from an index get an empty one.
std::shared_ptr<const TimelineFoldIndex> buildTimelineFoldIndex(const core::TraceSet &trace, const std::atomic<bool> &cancelled);

} // namespace gaplens::ui
