// SPDX-License-Identifier: MIT
#pragma once
// GPU memory in use over time, per GPU, from the allocations and frees an export holds when
// the capture was made with `nsys profile --cuda-memory-usage=true`
// (CUDA_GPU_MEMORY_USAGE_EVENTS). Memory on the device only: pageable and pinned host
// memory (memKind 0 and 1) are left out of the counter.
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <vector>

namespace gaplens::core {

// The tables GPU memory reads: the memory events, and the kernels that make a GPU a rank's.
inline constexpr TableSet kGpuMemoryTables = ExportTable::GpuMemory | ExportTable::Kernels;

// One GPU's counter: after event i (in time order) `inUse[i]` bytes are allocated. A free
// lowers it by the size of the allocation at its address made during the capture; a free of
// an address not allocated in the capture (memory allocated before it began) changes nothing
// and is counted in unmatchedFrees.
struct GpuMemoryCounter
{
    std::uint32_t gpu = kNoIndex; // index into TraceSet::gpus
    std::vector<TimeNs> time;
    std::vector<std::uint64_t> inUse;
    std::uint64_t peakBytes = 0;
    TimeNs peakTime = 0; // the first time the peak was reached
    std::uint64_t allocations = 0;
    std::uint64_t frees = 0;
    std::uint64_t unmatchedFrees = 0;
    std::size_t size() const { return time.size(); }
    // Bytes in use at t (after every event at or before t); 0 before the first event.
    std::uint64_t inUseAt(TimeNs t) const;
    // The largest value in use during [from, to): the value at `from` and every event in it.
    std::uint64_t maxIn(TimeNs from, TimeNs to) const;

    // Max-tree over inUse (size 2n, leaves at [n, 2n)), so maxIn is O(log n): the timeline's
    // counter lane asks once per pixel column.
    std::vector<std::uint64_t> maxTree;
};

struct GpuMemoryUsage
{
    std::vector<GpuMemoryCounter> gpus; // one per TraceSet::gpus, same order (empty counters too)
    // Whether any GPU has a device-memory event: false when the table is absent or empty
    // (the capture was made without --cuda-memory-usage).
    bool recorded() const;
};

// A counter per GPU: one pass over each GPU's events.
GpuMemoryUsage computeGpuMemoryUsage(const TraceSet &trace);

// The sentence a view shows when nothing was recorded.
inline constexpr const char *kNoMemoryUsageNote
    = "GPU memory usage was not recorded: the capture was made without --cuda-memory-usage=true";

} // namespace gaplens::core
