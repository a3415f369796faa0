// SPDX-License-Identifier: MIT
#pragma once
// The timeline's copy lanes: a GPU's copies and memsets grouped by (process, stream), as
// Nsight draws a lane per stream, each lane packed into rows in which no two overlap.
#include "gaplens/core/model/time.h"

#include <cstdint>
#include <span>
#include <vector>

namespace gaplens::core {

struct CopyLane
{
    std::uint32_t pid = 0;
    std::uint32_t streamId = 0;
    std::uint32_t firstRow = 0; // its rows are [firstRow, firstRow + rowCount) of CopyLanes::rows
    std::uint32_t rowCount = 0;
};

struct CopyLanes
{
    std::vector<CopyLane> lanes; // ascending (pid, streamId)
    // Copy indices of each row, in the copies' (start, end desc) order; a copy goes to the
    // lowest row of its lane that is free when it starts, so a lane has as many rows as copies
    // ever overlapped on it (one, on a well-formed stream).
    std::vector<std::vector<std::uint32_t>> rows;
    std::vector<std::uint32_t> rowOf; // per copy: its row
    std::size_t rowCount() const { return rows.size(); }
};

// O(n log n). The columns are the copies' in their sorted order.
CopyLanes buildCopyLanes(std::span<const std::uint32_t> pid, std::span<const std::uint32_t> streamId,
    std::span<const TimeNs> start, std::span<const TimeNs> end);

} // namespace gaplens::core
