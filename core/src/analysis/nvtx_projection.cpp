// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/nvtx_projection.h"

#include "launch_spans.h"

#include <algorithm>
#include <numeric>

namespace gaplens::core {
namespace {

struct Projected
{
    TimeNs start, end;
    std::uint32_t thread, range;
    std::uint8_t cpuDepth;
};

void finishLane(const TraceSet &trace, std::vector<Projected> &ranges, ProjectedNvtxLane &lane, bool foldIndexes)
{
    // Number the ranges of the threads that project here one thread after another.
    for (const auto &r : ranges)
        if (lane.sourceThreads.empty() || lane.sourceThreads.back() != r.thread)
            lane.sourceThreads.push_back(r.thread); // collected per thread: a thread's run is contiguous
    std::sort(lane.sourceThreads.begin(), lane.sourceThreads.end());
    lane.sourceThreads.erase(
        std::unique(lane.sourceThreads.begin(), lane.sourceThreads.end()), lane.sourceThreads.end());
    std::uint64_t next = 0; // below 2^32: projectableNvtxRangesOfLargestReport
    for (const auto t : lane.sourceThreads) {
        lane.sourceFirst.push_back(std::uint32_t(next));
        next += trace.threads[t].nvtx.size();
    }
    const auto firstOf = [&](std::uint32_t thread) {
        const auto k = std::lower_bound(lane.sourceThreads.begin(), lane.sourceThreads.end(), thread)
            - lane.sourceThreads.begin();
        return lane.sourceFirst[std::size_t(k)];
    };
    // Equal projections keep the CPU parent first, so the child nests under it.
    std::sort(ranges.begin(), ranges.end(), [](const Projected &a, const Projected &b) {
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end > b.end;
        if (a.thread != b.thread)
            return a.thread < b.thread;
        return a.cpuDepth < b.cpuDepth;
    });
    // Exact sizes: a column grown by doubling would copy itself and keep up to twice the rows.
    lane.start.reserve(ranges.size());
    lane.end.reserve(ranges.size());
    lane.sourceId.reserve(ranges.size());
    for (const auto &r : ranges) {
        lane.start.push_back(r.start);
        lane.end.push_back(r.end);
        lane.sourceId.push_back(firstOf(r.thread) + r.range);
    }
    std::vector<Projected>().swap(ranges); // copied into the lane: free before the next GPU's
    lane.depth = lane.nesting.build(lane.start, lane.end);
    if (!foldIndexes)
        return;
    lane.folds.reserve(lane.nesting.levelCount());
    for (std::size_t d = 0; d < lane.nesting.levelCount(); ++d)
        lane.folds.emplace_back(lane.level(d));
}

// Appends the projections of thread `t`'s NVTX ranges onto each GPU it launched on.
void projectThread(const TraceSet &trace, std::uint32_t t, const std::vector<detail::GpuWork> &map,
    std::vector<std::vector<Projected>> &perGpu)
{
    const Thread &thread = trace.threads[t];
    // The thread's launches per GPU it launched on (few: usually one).
    std::vector<std::pair<std::uint32_t, detail::LaunchSpans>> launches;
    for (std::size_t c = 0; c < thread.api.size(); ++c) {
        const auto corr = thread.api.correlationId[c];
        if (corr == 0)
            continue;
        for (const auto &work : detail::workOf(map, launchKey(thread.pid, corr))) {
            auto it
                = std::find_if(launches.begin(), launches.end(), [&](const auto &l) { return l.first == work.gpu; });
            if (it == launches.end())
                it = launches.insert(launches.end(), { work.gpu, {} });
            it->second.add(thread.api.start[c], work.start, work.end);
        }
    }
    for (auto &[gpu, spans] : launches) {
        spans.build();
        const auto &n = thread.nvtx;
        for (std::uint32_t i = 0; i < n.size(); ++i)
            if (const auto gpuSpan = spans.project({ n.start[i], n.end[i] }))
                perGpu[gpu].push_back(
                    { gpuSpan->start, gpuSpan->end, t, i, i < n.depth.size() ? n.depth[i] : std::uint8_t(0) });
    }
}

// Per report: the NVTX ranges of its threads that call CUDA, the ones that may project.
std::vector<std::uint64_t> projectableRangesPerReport(const TraceSet &trace)
{
    std::vector<std::uint64_t> ranges(detail::workMapCount(trace));
    for (const auto &thread : trace.threads)
        if (thread.report < ranges.size() && thread.api.size() > 0)
            ranges[thread.report] += thread.nvtx.size();
    return ranges;
}

} // namespace

std::shared_ptr<const ProjectedNvtx> projectNvtxOntoGpus(
    const TraceSet &trace, bool foldIndexes, const CancelToken *cancel)
{
    auto out = std::make_shared<ProjectedNvtx>();
    out->gpus.resize(trace.gpus.size());
    // A thread launches only on its own report's GPUs: work a report at a time, so that only
    // one report's launch map and unsorted ranges are alive at once (for a job of many ranks,
    // a small part of the whole).
    const std::size_t reportCount = detail::workMapCount(trace);
    std::vector<std::vector<std::uint32_t>> threadsOf(reportCount);
    for (std::uint32_t t = 0; t < trace.threads.size(); ++t)
        if (trace.threads[t].nvtx.size() > 0 && trace.threads[t].report < reportCount)
            threadsOf[trace.threads[t].report].push_back(t);
    std::vector<std::vector<Projected>> perGpu(trace.gpus.size());
    for (std::uint32_t report = 0; report < reportCount; ++report) {
        const auto map = detail::buildWorkMap(trace, report, true, true);
        for (const std::uint32_t t : threadsOf[report]) {
            if (cancel && cancel->isCancelled())
                return nullptr;
            projectThread(trace, t, map, perGpu);
        }
        for (std::size_t g = 0; g < trace.gpus.size(); ++g) {
            if (trace.gpus[g].report != report)
                continue;
            if (cancel && cancel->isCancelled())
                return nullptr;
            finishLane(trace, perGpu[g], out->gpus[g], foldIndexes);
        }
    }
    return out;
}

std::uint64_t projectableNvtxRangesOfLargestReport(const TraceSet &trace)
{
    const auto ranges = projectableRangesPerReport(trace);
    return ranges.empty() ? 0 : *std::max_element(ranges.begin(), ranges.end());
}

std::uint64_t projectedNvtxPeakBytes(const TraceSet &trace)
{
    // A lane keeps start, end, source, depth and a nesting slot (25 bytes) and a share of its
    // fold indexes. While a report is worked: its ranges are collected (32 bytes each,
    // twice that while the vector grows into a copy), its launches mapped (32 bytes per kernel
    // or copy), and a thread's launches put in LaunchSpans (call start 8, leaves 16 and two
    // segment trees 32 bytes per launch; at most the report's launches).
    constexpr std::uint64_t kLaneBytes = 26, kCollectBytes = 64;
    constexpr std::uint64_t kLaunchBytes = sizeof(detail::GpuWork) + 8 + 16 + 32;
    const auto ranges = projectableRangesPerReport(trace);
    const std::size_t reportCount = ranges.size();
    std::vector<std::uint64_t> launches(reportCount);
    for (const auto &gpu : trace.gpus) {
        launches[gpu.report] += gpu.copies.size();
        for (const auto &stream : gpu.streams)
            launches[gpu.report] += stream.kernels.size();
    }
    std::uint64_t lanes = 0, worstReport = 0;
    for (std::size_t r = 0; r < reportCount; ++r) {
        lanes += ranges[r] * kLaneBytes;
        worstReport = std::max(worstReport, ranges[r] * kCollectBytes + launches[r] * kLaunchBytes);
    }
    return lanes + worstReport;
}

} // namespace gaplens::core
