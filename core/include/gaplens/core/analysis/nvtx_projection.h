// SPDX-License-Identifier: MIT
#pragma once
// NVTX ranges projected onto each GPU, as Nsight Systems draws "NVTX" rows under a GPU: a
// range's projection on a GPU spans from the first start to the last end of the kernels,
// copies and memsets that CUDA calls on the range's thread, starting within the range, launched
// on that GPU (joined by correlation id; GpuProjector's rule, kept apart per GPU). A range that
// launched nothing on a GPU has no projection there. Built once per trace (DerivedCapture).
#include "gaplens/core/model/nesting.h"
#include "gaplens/core/model/trace.h"
#include "gaplens/core/util/cancel.h"
#include "gaplens/core/view/fold_index.h"
#include "gaplens/core/view/row_view.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace gaplens::core {

// One GPU's projected ranges, sorted by (start asc, end desc; then the range's CPU depth). A
// nested CPU range launches a subset of its parent's work, so its projection lies inside the
// parent's: NestingIndex puts it a level deeper. Ranges of different threads may overlap: they
// stack the same way.
struct ProjectedNvtxLane
{
    // The CPU range a projection comes from: a thread (index into TraceSet::threads) and the
    // range's index in that thread's NvtxColumns.
    struct Source
    {
        std::uint32_t thread = 0, range = 0;
    };

    std::vector<TimeNs> start, end;
    // Each projection's CPU range in one number, 4 bytes instead of a thread and a range:
    // sourceThreads' ranges numbered one after another, sourceThreads[k]'s from
    // sourceFirst[k]. Read with source(i).
    std::vector<std::uint32_t> sourceId;
    std::vector<std::uint32_t> sourceThreads; // ascending: the threads that project here
    std::vector<std::uint32_t> sourceFirst; // one per sourceThreads entry
    Column<std::uint8_t> depth;
    NestingIndex nesting;
    std::vector<FoldIndex> folds; // one per nesting level (empty without fold indexes)
    std::size_t size() const { return start.size(); }
    Source source(std::size_t i) const
    {
        const auto k
            = std::size_t(std::upper_bound(sourceFirst.begin(), sourceFirst.end(), sourceId[i]) - sourceFirst.begin())
            - 1;
        return { sourceThreads[k], sourceId[i] - sourceFirst[k] };
    }
    RowView level(std::size_t depth) const { return { start, end, nesting.level(depth) }; }
};

struct ProjectedNvtx
{
    std::vector<ProjectedNvtxLane> gpus; // one per TraceSet::gpus, same order
};

// Null once `cancel` (may be null) is seen cancelled. `foldIndexes`: build each level's
// FoldIndex (the timeline's frames stay O(pixels log n)).
std::shared_ptr<const ProjectedNvtx> projectNvtxOntoGpus(
    const TraceSet &trace, bool foldIndexes = true, const CancelToken *cancel = nullptr);

// The NVTX ranges of one report's threads that call CUDA must number below 2^32 (sourceId).
std::uint64_t projectableNvtxRangesOfLargestReport(const TraceSet &trace);

// An upper bound on the memory projectNvtxOntoGpus takes at its peak: the lanes of every NVTX
// range of a thread that calls CUDA, plus one report's launch map and unsorted ranges. The
// timeline checks it against the memory left before building (DerivedOptions).
std::uint64_t projectedNvtxPeakBytes(const TraceSet &trace);

} // namespace gaplens::core
