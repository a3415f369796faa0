// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/trace.h"
#include "ui/timeline/timelinemodel.h"

namespace gaplens::ui {

// ProjectedNvtx: index into core::ProjectedNvtxLane of the GPU; Memory: index of the counter's
// sample in effect at `start` (kNoIndex before the first).
enum class HitKind { None, Kernel, Copy, Api, Nvtx, Gap, Fold, Mark, Osrt, State, ProjectedNvtx, Memory };

// What is drawn at a pixel: one event (index into its columns; a Mark's into Thread::marks, a
// State's into the rank's core::RunStateSpans of TimelineModel::stateLanes()),
// a fold of events (first..last indices, count) or an idle gap (index into
// TimelineModel::gaps(gpu).blame).
// Times are absolute (not display) ns.
struct HitResult
{
    HitKind kind = HitKind::None;
    HitKind foldOf = HitKind::None; // for Fold: what was folded
    int row = -1;
    core::RankIndex rank;
    core::GpuIndex gpu;
    core::StreamIndex stream;
    core::ThreadIndex thread;
    std::uint32_t level = 0;
    std::uint32_t index = core::kNoIndex; // event, first event of a fold, or gap index
    std::uint32_t last = core::kNoIndex; // last event of a fold
    std::uint32_t count = 0;
    core::TimeNs start = 0, end = 0;

    bool isValid() const { return kind != HitKind::None; }
    // Same thing (row may differ: a kernel shown on the merged and on its stream lane).
    bool sameItem(const HitResult &o) const
    {
        return kind == o.kind && gpu == o.gpu && stream == o.stream && thread == o.thread && index == o.index
            && count == o.count;
    }
};

} // namespace gaplens::ui
