// SPDX-License-Identifier: MIT
// Idle gaps grouped the way a user asks "why": by cause, then what the host was doing (the
// CUDA or OS call in progress), then the NVTX phase. Each group keeps its gaps in time order, so a
// view can step through them.
#pragma once
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/gap_blame.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gaplens::core {

enum class BlameLevel : std::uint8_t {
    Cause, // gapCauseLabel(cause)
    Call, // gapCallKey: the CUDA or OS call the host was in
    Phase, // gapPhaseKey: the innermost NVTX range open at the midpoint
};
inline constexpr std::size_t kBlameLevelCount = 3;

// Level 2 of the tree, what the host was doing at the gap's midpoint: the CUDA call (ApiCall
// gaps, and Copy gaps whose host was in a call); for a NoCudaCall gap the OS runtime call
// (GapBlame::osCall), else kNoOsCallLabel; else kNoCallLabel.
inline constexpr std::string_view kNoCallLabel = "(no CUDA call)";
inline constexpr std::string_view kNoOsCallLabel = "(no OS call traced)";
std::string_view gapCallKey(const TraceSet &trace, const GapBlame &gap);

struct BlameTreeNode
{
    BlameLevel level = BlameLevel::Cause;
    std::string key;
    GapCause cause = GapCause::NoCudaCall; // of every gap under the node
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
    TimeNs longestNs = 0;
    TimeNs copyNs = 0; // of totalNs, the time copies or memsets ran
    std::vector<std::uint32_t> children; // indices into BlameTree::nodes, largest total first
    std::vector<GapId> gaps; // every gap under the node, by start time (then GPU)
};

struct BlameTree
{
    std::vector<BlameTreeNode> nodes;
    std::vector<std::uint32_t> roots; // the causes, largest total first
};

// O(n log n) in the gaps. Siblings are ordered by total idle time, largest first, then by key.
BlameTree buildBlameTree(const DerivedCapture &derived, std::span<const GapId> gaps);

} // namespace gaplens::core
