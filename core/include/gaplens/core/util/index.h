// SPDX-License-Identifier: MIT
#pragma once
// Strong index types for the APIs that hand indices across: a GPU index cannot be passed
// where a rank index is expected. Each wraps the uint32_t the model's vectors are indexed
// by; the invalid value is the model's kNoIndex (0xFFFFFFFF).
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace gaplens::core {

template <typename Tag> class Index
{
public:
    using Value = std::uint32_t;
    static constexpr Value kInvalidValue = 0xFFFFFFFFu;

    constexpr Index() = default;
    constexpr explicit Index(Value value)
        : m_value(value)
    {
    }

    constexpr Value value() const { return m_value; }
    constexpr bool isValid() const { return m_value != kInvalidValue; }
    friend constexpr auto operator<=>(Index, Index) = default;

private:
    Value m_value = kInvalidValue;
};

using GpuIndex = Index<struct GpuIndexTag>; // into TraceSet::gpus
using RankIndex = Index<struct RankIndexTag>; // into TraceSet::ranks
using StreamIndex = Index<struct StreamIndexTag>; // into Gpu::streams
using ThreadIndex = Index<struct ThreadIndexTag>; // into TraceSet::threads

// A stable id of one idle gap of a DerivedCapture: the GPU and the gap's position among that
// GPU's gaps in start order. Stable for one (capture, threshold, includeCopies); a gap keeps
// its id in every scoped view of the same DerivedCapture.
struct GapId
{
    GpuIndex gpu;
    std::uint32_t ordinal = GpuIndex::kInvalidValue;

    constexpr bool isValid() const { return gpu.isValid() && ordinal != GpuIndex::kInvalidValue; }
    friend constexpr auto operator<=>(const GapId &, const GapId &) = default;
};

} // namespace gaplens::core

template <typename Tag> struct std::hash<gaplens::core::Index<Tag>>
{
    std::size_t operator()(gaplens::core::Index<Tag> index) const noexcept
    {
        return std::hash<std::uint32_t> {}(index.value());
    }
};

template <> struct std::hash<gaplens::core::GapId>
{
    std::size_t operator()(const gaplens::core::GapId &id) const noexcept
    {
        return std::hash<std::uint64_t> {}((std::uint64_t(id.gpu.value()) << 32) | id.ordinal);
    }
};
