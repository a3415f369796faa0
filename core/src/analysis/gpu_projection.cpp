// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/gpu_projection.h"

#include <algorithm>
#include <limits>

namespace gaplens::core {
namespace {

struct GpuWork
{
    std::uint64_t key = 0; // launchKey(pid, correlationId)
    TimeNs start = 0;
    TimeNs end = 0;
};

constexpr TimeNs kNoStart = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kNoEnd = std::numeric_limits<TimeNs>::min();

// Per report: (pid, correlationId) -> first start / last end of the GPU work it launched.
std::vector<std::vector<GpuWork>> buildWorkMaps(const TraceSet &trace, const GpuProjectionOptions &options)
{
    std::vector<std::vector<GpuWork>> maps(trace.reports.size());
    for (const auto &gpu : trace.gpus) {
        if (gpu.report >= maps.size())
            maps.resize(gpu.report + 1);
        auto &map = maps[gpu.report];
        for (const auto &stream : gpu.streams) {
            const auto &k = stream.kernels;
            if (k.correlationId.size() != k.size())
                continue;
            for (std::size_t i = 0; i < k.size(); ++i)
                if (k.correlationId[i] != 0)
                    map.push_back({ launchKey(stream.pid, k.correlationId[i]), k.start[i], k.end[i] });
        }
        if (options.includeCopies) {
            const auto &c = gpu.copies;
            for (std::size_t i = 0; i < c.size(); ++i)
                if (c.correlationId[i] != 0)
                    map.push_back({ launchKey(c.pid[i], c.correlationId[i]), c.start[i], c.end[i] });
        }
    }
    for (auto &map : maps) {
        std::sort(map.begin(), map.end(), [](const GpuWork &a, const GpuWork &b) { return a.key < b.key; });
        // Fold several events of one correlation id (graph launches) into one span.
        std::size_t out = 0;
        for (std::size_t i = 0; i < map.size(); ++i) {
            if (out > 0 && map[out - 1].key == map[i].key) {
                map[out - 1].start = std::min(map[out - 1].start, map[i].start);
                map[out - 1].end = std::max(map[out - 1].end, map[i].end);
            } else {
                map[out++] = map[i];
            }
        }
        map.resize(out);
    }
    return maps;
}

} // namespace

GpuProjector::GpuProjector(const TraceSet &trace, const GpuProjectionOptions &options)
    : m_trace(trace)
    , m_threads(trace.threads.size())
{
    const auto maps = buildWorkMaps(trace, options);
    std::vector<TimeNs> leafStart, leafEnd;
    for (std::size_t t = 0; t < trace.threads.size(); ++t) {
        const Thread &thread = trace.threads[t];
        if (thread.report >= maps.size())
            continue;
        const auto &map = maps[thread.report];
        auto &out = m_threads[t];
        leafStart.clear();
        leafEnd.clear();
        // Calls are sorted by start, so the kept ones are too: one binary search per call.
        for (std::size_t c = 0; c < thread.api.size(); ++c) {
            const auto corr = thread.api.correlationId[c];
            if (corr == 0)
                continue;
            const auto key = launchKey(thread.pid, corr);
            auto it = std::lower_bound(
                map.begin(), map.end(), key, [](const GpuWork &w, std::uint64_t k) { return w.key < k; });
            if (it == map.end() || it->key != key)
                continue;
            out.callStart.push_back(thread.api.start[c]);
            leafStart.push_back(it->start);
            leafEnd.push_back(it->end);
        }
        // Bottom-up segment tree: 2n values instead of a sparse table's n log n, which
        // matters with millions of launches.
        const std::size_t n = out.callStart.size();
        out.minStart.assign(2 * n, kNoStart);
        out.maxEnd.assign(2 * n, kNoEnd);
        for (std::size_t i = 0; i < n; ++i) {
            out.minStart[n + i] = leafStart[i];
            out.maxEnd[n + i] = leafEnd[i];
        }
        for (std::size_t i = n; i-- > 1;) {
            out.minStart[i] = std::min(out.minStart[2 * i], out.minStart[2 * i + 1]);
            out.maxEnd[i] = std::max(out.maxEnd[2 * i], out.maxEnd[2 * i + 1]);
        }
    }
}

std::optional<TimeRange> GpuProjector::project(std::uint32_t thread, TimeRange cpu) const
{
    if (thread >= m_threads.size())
        return std::nullopt;
    const auto &t = m_threads[thread];
    const auto &cs = t.callStart;
    std::size_t lo = std::size_t(std::lower_bound(cs.begin(), cs.end(), cpu.start) - cs.begin());
    std::size_t hi = std::size_t(std::upper_bound(cs.begin(), cs.end(), cpu.end) - cs.begin());
    if (lo >= hi)
        return std::nullopt;
    const std::size_t n = cs.size();
    TimeNs start = kNoStart, end = kNoEnd;
    for (lo += n, hi += n; lo < hi; lo /= 2, hi /= 2) {
        if (lo & 1) {
            start = std::min(start, t.minStart[lo]);
            end = std::max(end, t.maxEnd[lo]);
            ++lo;
        }
        if (hi & 1) {
            --hi;
            start = std::min(start, t.minStart[hi]);
            end = std::max(end, t.maxEnd[hi]);
        }
    }
    return TimeRange { start, end };
}

std::vector<std::optional<TimeRange>> GpuProjector::projectThread(std::uint32_t thread) const
{
    std::vector<std::optional<TimeRange>> out;
    if (thread >= m_trace.threads.size())
        return out;
    const auto &nvtx = m_trace.threads[thread].nvtx;
    out.reserve(nvtx.size());
    for (std::size_t i = 0; i < nvtx.size(); ++i)
        out.push_back(project(thread, { nvtx.start[i], nvtx.end[i] }));
    return out;
}

std::vector<ProjectedRange> GpuProjector::projectNamed(StringId name) const
{
    std::vector<ProjectedRange> out;
    for (std::uint32_t t = 0; t < m_trace.threads.size(); ++t) {
        const auto &nvtx = m_trace.threads[t].nvtx;
        for (std::uint32_t i = 0; i < nvtx.size(); ++i)
            if (nvtx.name[i] == name) {
                const TimeRange cpu { nvtx.start[i], nvtx.end[i] };
                out.push_back({ t, i, cpu, project(t, cpu) });
            }
    }
    return out;
}

} // namespace gaplens::core
