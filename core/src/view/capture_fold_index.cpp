// SPDX-License-Identifier: MIT
#include "gaplens/core/view/capture_fold_index.h"

namespace gaplens::core {

std::shared_ptr<const CaptureFoldIndex> buildCaptureFoldIndex(const TraceSet &trace, const CancelToken *cancel)
{
    const auto cancelled = [cancel] { return cancel && cancel->isCancelled(); };
    auto index = std::make_shared<CaptureFoldIndex>();
    auto levels = [](const auto &columns, std::vector<FoldIndex> &out) {
        const auto &nesting = columns.nesting;
        out.reserve(nesting.levelCount());
        for (std::size_t d = 0; d < nesting.levelCount(); ++d)
            out.emplace_back(RowView { columns.start, columns.end, nesting.level(d) });
    };
    index->streams.resize(trace.gpus.size());
    index->copies.resize(trace.gpus.size());
    for (std::size_t g = 0; g < trace.gpus.size(); ++g) {
        const auto &gpu = trace.gpus[g];
        for (const auto &stream : gpu.streams)
            index->streams[g].emplace_back(RowView { stream.kernels.start, stream.kernels.end, {} });
        const auto &lanes = gpu.copies.lanes;
        index->copies[g].reserve(lanes.rowCount());
        for (const auto &row : lanes.rows)
            index->copies[g].emplace_back(RowView { gpu.copies.start, gpu.copies.end, row });
        if (cancelled())
            return nullptr;
    }
    index->nvtx.resize(trace.threads.size());
    index->api.resize(trace.threads.size());
    index->osrt.resize(trace.threads.size());
    index->marks.reserve(trace.threads.size());
    for (std::size_t t = 0; t < trace.threads.size(); ++t) {
        levels(trace.threads[t].nvtx, index->nvtx[t]);
        levels(trace.threads[t].api, index->api[t]);
        levels(trace.threads[t].osrt, index->osrt[t]);
        const auto &marks = trace.threads[t].marks.time;
        index->marks.emplace_back(RowView { marks, marks, {} });
        if (cancelled())
            return nullptr;
    }
    return index;
}

} // namespace gaplens::core
