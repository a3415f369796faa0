// SPDX-License-Identifier: MIT
#pragma once
// The fold indexes (FoldIndex) of every row the timeline draws, built once per capture (a
// DerivedCapture holds them), so a frame at any zoom costs O(items log n).
#include "gaplens/core/model/trace.h"
#include "gaplens/core/util/cancel.h"
#include "gaplens/core/view/fold_index.h"

#include <memory>
#include <vector>

namespace gaplens::core {

// Immutable once built. Rows too short to gain from an index get an empty one.
struct CaptureFoldIndex
{
    std::vector<std::vector<FoldIndex>> streams; // [gpu][stream]: kernels
    std::vector<std::vector<FoldIndex>> copies; // [gpu][row of CopyColumns::lanes]
    std::vector<std::vector<FoldIndex>> nvtx; // [thread][nesting level]
    std::vector<std::vector<FoldIndex>> api; // [thread][nesting level]
    std::vector<std::vector<FoldIndex>> osrt; // [thread][nesting level]: OS runtime calls
    std::vector<FoldIndex> marks; // [thread]: NVTX marks, instants (start == end)
};

// One sequential pass over every event (about 0.2 s for 56M events); null as soon as
// `cancel` (may be null) is seen cancelled.
std::shared_ptr<const CaptureFoldIndex> buildCaptureFoldIndex(
    const TraceSet &trace, const CancelToken *cancel = nullptr);

} // namespace gaplens::core
