// SPDX-License-Identifier: MIT
#include "trace_counts.h"

#include "gaplens/core/read/loader.h"

namespace gaplens::test {

namespace {

template <class Items, class Size> std::size_t total(const Items &items, Size size)
{
    std::size_t n = 0;
    for (const auto &item : items)
        n += size(item);
    return n;
}

} // namespace

std::shared_ptr<core::TraceSet> load(const std::vector<std::string> &files)
{
    core::LoadOptions options;
    options.files = files;
    return core::loadTraceSet(options);
}

std::size_t kernelCount(const core::TraceSet &t)
{
    return total(t.gpus, [](const core::Gpu &g) { return g.kernelCount(); });
}

std::size_t copyCount(const core::TraceSet &t)
{
    return total(t.gpus, [](const core::Gpu &g) { return g.copies.size(); });
}

std::size_t apiCallCount(const core::TraceSet &t)
{
    return total(t.threads, [](const core::Thread &th) { return th.api.size(); });
}

std::size_t nvtxRangeCount(const core::TraceSet &t)
{
    return total(t.threads, [](const core::Thread &th) { return th.nvtx.size(); });
}

} // namespace gaplens::test
