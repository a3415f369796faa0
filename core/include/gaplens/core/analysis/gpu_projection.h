// SPDX-License-Identifier: MIT
#pragma once
// NVTX GPU projection (nsys nvtx_gpu_proj_trace): a CPU range's GPU footprint = from the
// first start to the last end of the GPU work launched by CUDA calls that STARTED on the
// range's thread within [range.start, range.end] (both ends inclusive).
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gaplens::core {
namespace detail {
class LaunchSpans;
}

struct GpuProjectionOptions
{
    bool includeCopies = true; // copies and memsets launched in the range count as its GPU work
};

struct ProjectedRange
{
    std::uint32_t thread = kNoIndex;
    std::uint32_t range = kNoIndex; // index into Thread::nvtx
    TimeRange cpu;
    std::optional<TimeRange> gpu; // nullopt: the range launched no GPU work
};

// Built once per trace: one (pid, correlationId) -> GPU (start, end) map per report, then per
// thread the launching calls sorted by start with a min/max segment tree, so each range is
// two binary searches plus an O(log n) query. A correlation id with several GPU events (graph
// launches) maps to their first start and last end. Keeps a reference: the trace must outlive it.
class GpuProjector
{
public:
    explicit GpuProjector(const TraceSet &trace, const GpuProjectionOptions &options = {});
    ~GpuProjector();

    // Projection of `cpu` for calls of `thread`; nullopt when they launched nothing.
    std::optional<TimeRange> project(std::uint32_t thread, TimeRange cpu) const;
    // One entry per range of Thread::nvtx of `thread`, same order.
    std::vector<std::optional<TimeRange>> projectThread(std::uint32_t thread) const;
    // Every range named `name` on every thread (ordered by thread, then range index).
    std::vector<ProjectedRange> projectNamed(StringId name) const;

private:
    const TraceSet &m_trace;
    std::vector<detail::LaunchSpans> m_threads; // one per TraceSet::threads
};

} // namespace gaplens::core
