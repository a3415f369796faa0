// SPDX-License-Identifier: MIT
#pragma once
// Call stacks of one report: CUDA_CALLCHAINS (the backtraces of CUDA API calls) and
// OSRT_CALLCHAINS (of OS runtime calls) in one interned, columnar store. A chain is named by
// the store's own id (1-based, 0 = none), found from the export's id with find().
#include "gaplens/core/model/string_pool.h"

#include <cstdint>
#include <span>
#include <vector>

namespace gaplens::core {

namespace detail {
struct CallchainsCodec; // the report cache's, which stores the chains as they are
}

enum class CallchainSource : std::uint8_t { Cuda, Osrt };

// One chain's frames, outer to inner: element 0 is the outermost caller (`_start`, `main`),
// the last element the innermost frame (inside libcupti for CUDA calls). The export's
// stackDepth counts from the innermost frame (0) outwards, so depth descends along the span.
struct CallStack
{
    std::span<const StringId> module, symbol;
    std::span<const std::uint16_t> depth; // the export's stackDepth
    std::size_t size() const { return symbol.size(); }
    bool empty() const { return symbol.empty(); }
};

class Callchains
{
public:
    // Adds a chain from its frames in any order (module, symbol and stackDepth per frame, same
    // length); returns its store id. Chains must be added in ascending exportId per source.
    std::uint32_t add(CallchainSource source, std::int64_t exportId, std::span<const StringId> module,
        std::span<const StringId> symbol, std::span<const std::uint16_t> depth);
    // The store id of the export's chain `exportId` of that source, 0 when there is none.
    std::uint32_t find(CallchainSource source, std::int64_t exportId) const;
    // Frames of a chain, outer to inner; empty for 0 or an unknown id.
    CallStack stackOf(std::uint32_t chain) const;
    CallchainSource sourceOf(std::uint32_t chain) const { return m_source[chain - 1]; }
    std::size_t chainCount() const { return m_source.size(); }
    std::size_t frameCount() const { return m_symbol.size(); }

private:
    friend struct detail::CallchainsCodec;
    // Per frame, chains one after another, each outer to inner.
    std::vector<StringId> m_module, m_symbol;
    std::vector<std::uint16_t> m_depth;
    // Per chain (index = store id - 1): its first frame (m_begin has one more entry: the end),
    // its source and the export's id.
    std::vector<std::uint32_t> m_begin { 0 };
    std::vector<CallchainSource> m_source;
    // Per source, the export's ids ascending and their store ids.
    struct ExportIds
    {
        std::vector<std::int64_t> exportId;
        std::vector<std::uint32_t> chain;
    };
    ExportIds m_ids[2];
};

} // namespace gaplens::core
