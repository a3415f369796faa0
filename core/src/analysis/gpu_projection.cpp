// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/gpu_projection.h"

#include "launch_spans.h"

#include <algorithm>

namespace gaplens::core {
namespace detail {

std::size_t workMapCount(const TraceSet &trace)
{
    std::size_t count = trace.reports.size();
    for (const auto &gpu : trace.gpus)
        count = std::max<std::size_t>(count, gpu.report + std::size_t(1));
    return count;
}

std::vector<GpuWork> buildWorkMap(const TraceSet &trace, std::uint32_t report, bool includeCopies, bool perGpu)
{
    // Sized exactly: a map grown by doubling copies itself and keeps up to twice its entries.
    std::size_t count = 0;
    for (const auto &gpu : trace.gpus) {
        if (gpu.report != report)
            continue;
        for (const auto &stream : gpu.streams)
            if (stream.kernels.correlationId.size() == stream.kernels.size())
                count += stream.kernels.size();
        if (includeCopies)
            count += gpu.copies.size();
    }
    std::vector<GpuWork> map;
    map.reserve(count);
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        const auto &gpu = trace.gpus[g];
        if (gpu.report != report)
            continue;
        const std::uint32_t slot = perGpu ? g : 0;
        for (const auto &stream : gpu.streams) {
            const auto &k = stream.kernels;
            if (k.correlationId.size() != k.size())
                continue;
            for (std::size_t i = 0; i < k.size(); ++i)
                if (k.correlationId[i] != 0)
                    map.push_back({ launchKey(stream.pid, k.correlationId[i]), slot, k.start[i], k.end[i] });
        }
        if (includeCopies) {
            const auto &c = gpu.copies;
            for (std::size_t i = 0; i < c.size(); ++i)
                if (c.correlationId[i] != 0)
                    map.push_back({ launchKey(c.pid[i], c.correlationId[i]), slot, c.start[i], c.end[i] });
        }
    }
    std::sort(map.begin(), map.end(),
        [](const GpuWork &a, const GpuWork &b) { return a.key != b.key ? a.key < b.key : a.gpu < b.gpu; });
    // Fold several events of one correlation id (graph launches) into one span.
    std::size_t out = 0;
    for (std::size_t i = 0; i < map.size(); ++i) {
        if (out > 0 && map[out - 1].key == map[i].key && map[out - 1].gpu == map[i].gpu) {
            map[out - 1].start = std::min(map[out - 1].start, map[i].start);
            map[out - 1].end = std::max(map[out - 1].end, map[i].end);
        } else {
            map[out++] = map[i];
        }
    }
    map.resize(out);
    return map;
}

std::vector<std::vector<GpuWork>> buildWorkMaps(const TraceSet &trace, bool includeCopies, bool perGpu)
{
    std::vector<std::vector<GpuWork>> maps(workMapCount(trace));
    for (std::uint32_t r = 0; r < maps.size(); ++r)
        maps[r] = buildWorkMap(trace, r, includeCopies, perGpu);
    return maps;
}

std::span<const GpuWork> workOf(const std::vector<GpuWork> &map, std::uint64_t key)
{
    const auto first
        = std::lower_bound(map.begin(), map.end(), key, [](const GpuWork &w, std::uint64_t k) { return w.key < k; });
    auto last = first;
    while (last != map.end() && last->key == key)
        ++last;
    return { first, last };
}

} // namespace detail

GpuProjector::GpuProjector(const TraceSet &trace, const GpuProjectionOptions &options)
    : m_trace(trace)
    , m_threads(trace.threads.size())
{
    const auto maps = detail::buildWorkMaps(trace, options.includeCopies, false);
    for (std::size_t t = 0; t < trace.threads.size(); ++t) {
        const Thread &thread = trace.threads[t];
        if (thread.report >= maps.size())
            continue;
        const auto &map = maps[thread.report];
        auto &out = m_threads[t];
        // Calls are sorted by start, so the kept ones are too: one binary search per call.
        for (std::size_t c = 0; c < thread.api.size(); ++c) {
            const auto corr = thread.api.correlationId[c];
            if (corr == 0)
                continue;
            for (const auto &work : detail::workOf(map, launchKey(thread.pid, corr)))
                out.add(thread.api.start[c], work.start, work.end);
        }
        out.build();
    }
}

GpuProjector::~GpuProjector() = default;

std::optional<TimeRange> GpuProjector::project(std::uint32_t thread, TimeRange cpu) const
{
    if (thread >= m_threads.size())
        return std::nullopt;
    return m_threads[thread].project(cpu);
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
