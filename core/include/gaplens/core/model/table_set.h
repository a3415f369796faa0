// SPDX-License-Identifier: MIT
#pragma once
// Which activity tables of an export a load reads (LoadOptions::tables). Each analysis
// declares the tables its answer depends on (a `k...Tables` constant beside it); a command
// loads the union of those of the analyses it runs, so `kernels` does not read NVTX.
// A table outside the set leaves its columns empty: it is not read at all, and of the string
// table only the names the read tables use are looked up.
#include <cstdint>

namespace gaplens::core {

enum class ExportTable : std::uint8_t {
    Kernels, // CUPTI_ACTIVITY_KIND_KERNEL: Gpu::streams
    Copies, // CUPTI_ACTIVITY_KIND_MEMCPY and _MEMSET: Gpu::copies
    CudaApi, // CUPTI_ACTIVITY_KIND_RUNTIME: Thread::api
    Nvtx, // NVTX_EVENTS: Thread::nvtx and Thread::marks
    OsRuntime, // OSRT_API: Thread::osrt
    Syncs, // CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: Gpu::syncs
    GpuMemory, // CUDA_GPU_MEMORY_USAGE_EVENTS: Gpu::memory
    Callchains, // CUDA_CALLCHAINS and OSRT_CALLCHAINS: Report::callchains, ApiColumns::callchains
    Count
};

class TableSet
{
public:
    constexpr TableSet() = default;
    constexpr TableSet(ExportTable table) // NOLINT(google-explicit-constructor): a table is a set of one
        : m_bits(bit(table))
    {
    }
    static constexpr TableSet none() { return {}; }
    static constexpr TableSet all() { return fromBits((1u << unsigned(ExportTable::Count)) - 1); }

    constexpr bool contains(ExportTable table) const { return (m_bits & bit(table)) != 0; }
    constexpr bool containsAll(TableSet other) const { return (m_bits & other.m_bits) == other.m_bits; }
    constexpr bool isAll() const { return containsAll(all()); }
    constexpr std::uint32_t bits() const { return m_bits; }

    friend constexpr TableSet operator|(TableSet a, TableSet b) { return fromBits(a.m_bits | b.m_bits); }
    friend constexpr TableSet operator-(TableSet a, TableSet b) { return fromBits(a.m_bits & ~b.m_bits); }
    constexpr TableSet &operator|=(TableSet other) { return *this = *this | other; }
    friend constexpr bool operator==(TableSet, TableSet) = default;

private:
    static constexpr std::uint32_t bit(ExportTable table) { return 1u << unsigned(table); }
    static constexpr TableSet fromBits(std::uint32_t bits)
    {
        TableSet set;
        set.m_bits = bits;
        return set;
    }
    std::uint32_t m_bits = 0;
};

constexpr TableSet operator|(ExportTable a, ExportTable b)
{
    return TableSet(a) | TableSet(b);
}

// TraceSet::span and Rank::span run from the first to the last kernel, copy, CUDA call and
// NVTX range or mark: whatever shows a time relative to the capture's start, or weighs a
// range against the capture's length, reads these.
inline constexpr TableSet kCaptureSpanTables
    = TableSet(ExportTable::Kernels) | ExportTable::Copies | ExportTable::CudaApi | ExportTable::Nvtx;

// What a table set needs to be read exactly as a full load reads it: OS runtime calls are
// kept only for processes with CUDA calls or NVTX events (attachOsrt), so they bring both.
constexpr TableSet withDependencies(TableSet tables)
{
    if (tables.contains(ExportTable::OsRuntime))
        tables |= ExportTable::CudaApi | ExportTable::Nvtx;
    return tables;
}

} // namespace gaplens::core
