// SPDX-License-Identifier: MIT
#pragma once
// The launches of one thread (or of one thread onto one GPU), sorted by the call's start, with
// a min/max segment tree over the GPU spans they launched: "first start and last end of the
// work launched by calls starting in [a, b]" is two binary searches and an O(log n) climb.
// Shared by GpuProjector and the per-GPU NVTX projection.
#include "gaplens/core/model/time.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace gaplens::core::detail {

class LaunchSpans
{
public:
    // Calls must come in ascending start order.
    void add(TimeNs callStart, TimeNs gpuStart, TimeNs gpuEnd)
    {
        m_callStart.push_back(callStart);
        m_leafStart.push_back(gpuStart);
        m_leafEnd.push_back(gpuEnd);
    }
    bool empty() const { return m_callStart.empty(); }

    // Bottom-up segment tree: 2n values instead of a sparse table's n log n, which matters
    // with millions of launches.
    void build()
    {
        const std::size_t n = m_callStart.size();
        m_minStart.assign(2 * n, kNoStart);
        m_maxEnd.assign(2 * n, kNoEnd);
        std::copy(m_leafStart.begin(), m_leafStart.end(), m_minStart.begin() + std::ptrdiff_t(n));
        std::copy(m_leafEnd.begin(), m_leafEnd.end(), m_maxEnd.begin() + std::ptrdiff_t(n));
        for (std::size_t i = n; i-- > 1;) {
            m_minStart[i] = std::min(m_minStart[2 * i], m_minStart[2 * i + 1]);
            m_maxEnd[i] = std::max(m_maxEnd[2 * i], m_maxEnd[2 * i + 1]);
        }
        m_leafStart = {};
        m_leafEnd = {};
    }

    // The span of the work launched by calls starting in [cpu.start, cpu.end] (both ends
    // inclusive); nullopt when none did.
    std::optional<TimeRange> project(TimeRange cpu) const
    {
        const auto &cs = m_callStart;
        auto lo = std::size_t(std::lower_bound(cs.begin(), cs.end(), cpu.start) - cs.begin());
        auto hi = std::size_t(std::upper_bound(cs.begin(), cs.end(), cpu.end) - cs.begin());
        if (lo >= hi)
            return std::nullopt;
        const std::size_t n = cs.size();
        TimeNs start = kNoStart, end = kNoEnd;
        for (lo += n, hi += n; lo < hi; lo /= 2, hi /= 2) {
            if (lo & 1) {
                start = std::min(start, m_minStart[lo]);
                end = std::max(end, m_maxEnd[lo]);
                ++lo;
            }
            if (hi & 1) {
                --hi;
                start = std::min(start, m_minStart[hi]);
                end = std::max(end, m_maxEnd[hi]);
            }
        }
        return TimeRange { start, end };
    }

private:
    static constexpr TimeNs kNoStart = std::numeric_limits<TimeNs>::max();
    static constexpr TimeNs kNoEnd = std::numeric_limits<TimeNs>::min();
    std::vector<TimeNs> m_callStart; // sorted
    std::vector<TimeNs> m_leafStart, m_leafEnd; // until build()
    std::vector<TimeNs> m_minStart, m_maxEnd; // segment trees (size 2n, leaves at [n, 2n))
};

} // namespace gaplens::core::detail

#include "gaplens/core/model/trace.h"

namespace gaplens::core::detail {

// The GPU work one (pid, correlationId) launched on one GPU: its first start and last end.
struct GpuWork
{
    std::uint64_t key = 0; // launchKey(pid, correlationId)
    std::uint32_t gpu = 0; // index into TraceSet::gpus
    TimeNs start = 0;
    TimeNs end = 0;
};

// Per report, sorted by (key, gpu): kernels (and copies and memsets when `includeCopies`)
// with a correlation id. Several events of one id (graph launches) fold into one span: per
// GPU when `perGpu`, else over the report's GPUs.
std::vector<std::vector<GpuWork>> buildWorkMaps(const TraceSet &trace, bool includeCopies, bool perGpu);

// One report's map of buildWorkMaps, for a caller that works a report at a time; reports are
// numbered below workMapCount (a GPU's report may lie past TraceSet::reports).
std::vector<GpuWork> buildWorkMap(const TraceSet &trace, std::uint32_t report, bool includeCopies, bool perGpu);
std::size_t workMapCount(const TraceSet &trace);

// The work of `key` in a map: a run of entries (one, unless perGpu and it ran on several GPUs).
std::span<const GpuWork> workOf(const std::vector<GpuWork> &map, std::uint64_t key);

} // namespace gaplens::core::detail
