// SPDX-License-Identifier: MIT
#include "ui/timeline/foldindex.h"

namespace gaplens::ui {

std::shared_ptr<const TimelineFoldIndex> buildTimelineFoldIndex(const core::TraceSet &trace, const std::atomic<bool> &cancelled)
{
    auto index = std::make_shared<TimelineFoldIndex>();
    auto levels = [](const auto &columns, std::vector<core::FoldIndex> &out) {
        const auto &nesting = columns.nesting;
        out.reserve(nesting.levelCount());
        for (std::size_t d = 0; d < nesting.levelCount(); ++d)
            out.emplace_back(core::RowView{columns.start, columns.end, nesting.level(d)});
    };
    index->streams.resize(trace.gpus.size());
    index->copies.resize(trace.gpus.size());
    for (std::size_t g = 0; g < trace.gpus.size(); ++g) {
        const auto &gpu = trace.gpus[g];
        for (const auto &stream : gpu.streams)
            index->streams[g].emplace_back(core::RowView{stream.kernels.start, stream.kernels.end, {}});
        levels(gpu.copies, index->copies[g]);
        if (cancelled.load(std::memory_order_relaxed))
            return nullptr;
    }
    index->nvtx.resize(trace.threads.size());
    index->api.resize(trace.threads.size());
    for (std::size_t t = 0; t < trace.threads.size(); ++t) {
        levels(trace.threads[t].nvtx, index->nvtx[t]);
        levels(trace.threads[t].api, index->api[t]);
        if (cancelled.load(std::memory_order_relaxed))
            return nullptr;
    }
    return index;
}

} // namespace gaplens::ui
