// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/transfers.h"

#include "gaplens/core/analysis/duration_stats.h"

#include <algorithm>
#include <tuple>

namespace gaplens::core {

std::size_t copySlot(CopyKind kind)
{
    return kind == CopyKind::Memset ? kMemsetSlot : std::size_t(kind);
}

CopyKind copySlotKind(std::size_t slot)
{
    return slot == kMemsetSlot ? CopyKind::Memset : CopyKind(slot);
}

CopyFigures transferTotal(const CopyMix &mix)
{
    CopyFigures total;
    for (std::size_t s = 0; s < kCopySlotCount; ++s)
        if (s != kMemsetSlot)
            total.merge(mix[s]);
    return total;
}

std::vector<std::uint32_t> copyGpusOfRank(const TraceSet &trace, std::uint32_t rank)
{
    std::vector<std::uint32_t> gpus;
    if (rank >= trace.ranks.size())
        return gpus;
    const auto &r = trace.ranks[rank];
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        const auto &gpu = trace.gpus[g];
        if (gpu.report == r.report
            && std::find(gpu.copies.pid.begin(), gpu.copies.pid.end(), r.pid) != gpu.copies.pid.end())
            gpus.push_back(g);
    }
    return gpus;
}

PingPong findPingPong(const TraceSet &trace, std::uint32_t rank)
{
    return pingPongOf(copySequence(trace, rank));
}

void CopySequence::append(const CopySequence &later)
{
    kind.insert(kind.end(), later.kind.begin(), later.kind.end());
    start.insert(start.end(), later.start.begin(), later.start.end());
    bytes.insert(bytes.end(), later.bytes.begin(), later.bytes.end());
}

CopySequence copySequence(const TraceSet &trace, std::uint32_t rank)
{
    CopySequence sequence;
    if (rank >= trace.ranks.size())
        return sequence;
    const auto &r = trace.ranks[rank];
    struct Copy
    {
        TimeNs start, end;
        std::uint32_t gpu, index;
    };
    std::vector<Copy> copies;
    for (const auto g : copyGpusOfRank(trace, rank)) {
        const auto &c = trace.gpus[g].copies;
        for (std::uint32_t i = 0; i < c.size(); ++i)
            if (c.pid[i] == r.pid)
                copies.push_back({ c.start[i], c.end[i], g, i });
    }
    // Each GPU's copies are in (start, end desc) order already; this orders across GPUs.
    std::stable_sort(copies.begin(), copies.end(),
        [](const Copy &a, const Copy &b) { return std::tie(a.start, b.end, a.gpu) < std::tie(b.start, a.end, b.gpu); });
    for (const auto &copy : copies) {
        const auto &c = trace.gpus[copy.gpu].copies;
        sequence.kind.push_back(c.kind[copy.index]);
        sequence.start.push_back(copy.start);
        sequence.bytes.push_back(c.bytes[copy.index]);
    }
    return sequence;
}

PingPong pingPongOf(const CopySequence &copies)
{
    PingPong result;
    std::vector<TimeNs> sizes;
    std::size_t runBegin = 0;
    const auto isPingPongKind = [](CopyKind k) { return k == CopyKind::HostToDevice || k == CopyKind::DeviceToHost; };
    const auto closeRun = [&](std::size_t end) {
        const std::size_t length = end - runBegin;
        if (length >= kPingPongMinRun) {
            ++result.runs;
            result.copies += length;
            result.longestRun = std::max<std::uint64_t>(result.longestRun, length);
            for (std::size_t i = runBegin; i < end; ++i) {
                result.starts.push_back(copies.start[i]);
                result.bytes.push_back(copies.bytes[i]);
                sizes.push_back(TimeNs(copies.bytes[i]));
            }
        }
    };
    const std::size_t count = copies.kind.size();
    for (std::size_t i = 0; i < count; ++i) {
        const CopyKind k = copies.kind[i];
        if (isPingPongKind(k))
            ++result.htodDtohCopies;
        // A run continues while this copy is HtoD/DtoH and differs from the one before.
        const bool continues
            = i > runBegin && isPingPongKind(k) && isPingPongKind(copies.kind[i - 1]) && k != copies.kind[i - 1];
        if (!continues) {
            closeRun(i);
            runBegin = i;
        }
    }
    closeRun(count);
    std::sort(sizes.begin(), sizes.end());
    result.medianBytes = sortedMedian(sizes);
    // Runs are in start order and so are the copies inside them: starts ascend already.
    return result;
}

} // namespace gaplens::core
