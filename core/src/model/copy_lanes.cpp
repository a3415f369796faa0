// SPDX-License-Identifier: MIT
#include "gaplens/core/model/copy_lanes.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <utility>

namespace gaplens::core {

CopyLanes buildCopyLanes(std::span<const std::uint32_t> pid, std::span<const std::uint32_t> streamId,
    std::span<const TimeNs> start, std::span<const TimeNs> end)
{
    // Each lane's copies, in the columns' order (by start).
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> byLane;
    for (std::uint32_t i = 0; i < start.size(); ++i)
        byLane[{ pid[i], streamId[i] }].push_back(i);

    CopyLanes out;
    out.rowOf.assign(start.size(), 0);
    for (const auto &[key, copies] : byLane) {
        CopyLane lane { key.first, key.second, std::uint32_t(out.rows.size()), 0 };
        // Rows in use, by the end of their last copy; rows free again, lowest first.
        using Busy = std::pair<TimeNs, std::uint32_t>;
        std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
        std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> free;
        for (const auto i : copies) {
            while (!busy.empty() && busy.top().first <= start[i]) {
                free.push(busy.top().second);
                busy.pop();
            }
            std::uint32_t row = lane.rowCount;
            if (!free.empty()) {
                row = free.top();
                free.pop();
            } else {
                ++lane.rowCount;
                out.rows.emplace_back();
            }
            out.rows[lane.firstRow + row].push_back(i);
            out.rowOf[i] = lane.firstRow + row;
            busy.push({ std::max(end[i], start[i]), row });
        }
        out.lanes.push_back(lane);
    }
    return out;
}

} // namespace gaplens::core
