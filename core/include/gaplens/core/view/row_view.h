// SPDX-License-Identifier: MIT
#pragma once
// One timeline row's events as spans over the model's columns: what the draw lists
// (lod.h) and their fold indexes (fold_index.h) both read.
#include "gaplens/core/model/time.h"

#include <cstdint>
#include <span>

namespace gaplens::core {

// A row of intervals: start/end columns plus an optional index list (e.g. one nesting level,
// NestingIndex::level(d)) selecting and ordering the events of the row. Empty index = all.
struct RowView
{
    std::span<const TimeNs> start;
    std::span<const TimeNs> end;
    std::span<const std::uint32_t> index; // optional
    std::size_t size() const { return index.empty() ? start.size() : index.size(); }
    // Event index (into start/end) of position pos in the row.
    std::uint32_t at(std::size_t pos) const { return index.empty() ? std::uint32_t(pos) : index[pos]; }
    TimeNs startAt(std::size_t pos) const { return start[at(pos)]; }
    TimeNs endAt(std::size_t pos) const { return end[at(pos)]; }
};

} // namespace gaplens::core
