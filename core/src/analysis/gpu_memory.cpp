// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/gpu_memory.h"

#include <algorithm>
#include <unordered_map>

namespace gaplens::core {
namespace {

bool isHostMemory(std::uint8_t memKind)
{
    return memKind == std::uint8_t(MemKind::Pageable) || memKind == std::uint8_t(MemKind::Pinned);
}

GpuMemoryCounter countGpu(const Gpu &gpu, std::uint32_t index)
{
    GpuMemoryCounter counter;
    counter.gpu = index;
    const auto &m = gpu.memory;
    // (pid, address) -> bytes of the live allocation there.
    std::unordered_map<std::uint64_t, std::uint64_t> live;
    auto key = [&](std::size_t i) { return m.address[i] ^ (std::uint64_t(m.pid[i]) << 48); };
    std::uint64_t inUse = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
        if (isHostMemory(m.memKind[i]))
            continue;
        if (m.operation[i] == MemoryOperation::Allocation) {
            ++counter.allocations;
            live[key(i)] += m.bytes[i];
            inUse += m.bytes[i];
        } else {
            ++counter.frees;
            const auto it = live.find(key(i));
            if (it == live.end()) {
                ++counter.unmatchedFrees;
                continue;
            }
            inUse -= it->second;
            live.erase(it);
        }
        if (!counter.time.empty() && counter.time.back() == m.time[i])
            counter.inUse.back() = inUse; // one sample per instant: the value after it
        else {
            counter.time.push_back(m.time[i]);
            counter.inUse.push_back(inUse);
        }
        if (inUse > counter.peakBytes) {
            counter.peakBytes = inUse;
            counter.peakTime = m.time[i];
        }
    }
    const std::size_t n = counter.size();
    counter.maxTree.assign(2 * n, 0);
    std::copy(counter.inUse.begin(), counter.inUse.end(), counter.maxTree.begin() + std::ptrdiff_t(n));
    for (std::size_t i = n; i-- > 1;)
        counter.maxTree[i] = std::max(counter.maxTree[2 * i], counter.maxTree[2 * i + 1]);
    return counter;
}

} // namespace

std::uint64_t GpuMemoryCounter::inUseAt(TimeNs t) const
{
    const auto it = std::upper_bound(time.begin(), time.end(), t);
    return it == time.begin() ? 0 : inUse[std::size_t(it - time.begin()) - 1];
}

std::uint64_t GpuMemoryCounter::maxIn(TimeNs from, TimeNs to) const
{
    std::uint64_t best = inUseAt(from);
    auto lo = std::size_t(std::upper_bound(time.begin(), time.end(), from) - time.begin());
    auto hi = std::size_t(std::lower_bound(time.begin(), time.end(), to) - time.begin());
    const std::size_t n = size();
    for (lo += n, hi += n; lo < hi; lo /= 2, hi /= 2) {
        if (lo & 1)
            best = std::max(best, maxTree[lo++]);
        if (hi & 1)
            best = std::max(best, maxTree[--hi]);
    }
    return best;
}

bool GpuMemoryUsage::recorded() const
{
    return std::any_of(gpus.begin(), gpus.end(), [](const GpuMemoryCounter &c) { return c.size() > 0; });
}

GpuMemoryUsage computeGpuMemoryUsage(const TraceSet &trace)
{
    GpuMemoryUsage usage;
    usage.gpus.reserve(trace.gpus.size());
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
        usage.gpus.push_back(countGpu(trace.gpus[g], g));
    return usage;
}

} // namespace gaplens::core
