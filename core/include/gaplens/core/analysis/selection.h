// SPDX-License-Identifier: MIT
#pragma once
// Selections shared by the analyses: which ranks, which time window.
#include "gaplens/core/model/time.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace gaplens::core {

// A set of rank indices (into TraceSet::ranks). Empty means "all ranks"; with "all",
// work that belongs to no rank (Stream::rank == kNoIndex) is included too.
struct RankSelection
{
    std::vector<std::uint32_t> ranks;

    static RankSelection all() { return {}; }
    static RankSelection only(std::vector<std::uint32_t> indices) { return { std::move(indices) }; }
    bool isAll() const { return ranks.empty(); }
    bool includes(std::uint32_t rankIndex) const
    {
        return ranks.empty() || std::find(ranks.begin(), ranks.end(), rankIndex) != ranks.end();
    }
};

// Optional half-open time window [start, end) (absolute ns); std::nullopt = whole capture.
using TimeWindow = std::optional<TimeRange>;

// Default idle-gap threshold: 100 us.
inline constexpr TimeNs kDefaultMinGapNs = 100'000;

} // namespace gaplens::core
