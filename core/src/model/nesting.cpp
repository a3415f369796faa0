// SPDX-License-Identifier: MIT
#include "gaplens/core/model/nesting.h"

#include "util/resident_memory.h"

#include <algorithm>

namespace gaplens::core {

bool inNestingOrder(std::span<const TimeNs> start, std::span<const TimeNs> end)
{
    for (std::size_t i = 1; i < start.size(); ++i)
        if (start[i] < start[i - 1] || (start[i] == start[i - 1] && end[i] > end[i - 1]))
            return false;
    return true;
}

Column<std::uint8_t> NestingIndex::build(std::span<const TimeNs> start, std::span<const TimeNs> end)
{
    m_levels.clear();
    m_properlyNested = true;
    Column<std::uint8_t> depth;
    detail::reserveResident(depth, start.size());
    depth.resize(start.size(), 0);
    std::vector<std::size_t> levelSizes;
    std::vector<std::uint32_t> stack;
    for (std::uint32_t i = 0; i < start.size(); ++i) {
        // Pop only from the top: a range stays "open" for nesting until everything started
        // inside it has ended, which keeps same-level intervals disjoint.
        while (!stack.empty() && end[stack.back()] <= start[i])
            stack.pop_back();
        if (!stack.empty() && end[i] > end[stack.back()])
            m_properlyNested = false;
        const std::size_t d = std::min(stack.size(), kMaxDepth);
        if (stack.size() > kMaxDepth) // clamped: the last level may overlap
            m_properlyNested = false;
        depth[i] = static_cast<std::uint8_t>(d);
        if (levelSizes.size() <= d)
            levelSizes.resize(d + 1, 0);
        ++levelSizes[d];
        stack.push_back(i);
    }
    // Levels sized exactly before they are filled: growing them by doubling copied and
    // faulted in each big level several times.
    m_levels.resize(levelSizes.size());
    for (std::size_t d = 0; d < levelSizes.size(); ++d)
        detail::reserveResident(m_levels[d], levelSizes[d]);
    for (std::uint32_t i = 0; i < start.size(); ++i)
        m_levels[depth[i]].push_back(i);
    return depth;
}

void NestingIndex::openAt(
    std::span<const TimeNs> start, std::span<const TimeNs> end, TimeNs t, std::vector<std::uint32_t> &out) const
{
    out.clear();
    for (const auto &lvl : m_levels) {
        // Last interval on this level that starts at or before t.
        auto it = std::upper_bound(
            lvl.begin(), lvl.end(), t, [&](TimeNs value, std::uint32_t idx) { return value < start[idx]; });
        if (it == lvl.begin()) {
            if (m_properlyNested)
                break;
            continue;
        }
        const std::uint32_t idx = *std::prev(it);
        if (end[idx] > t)
            out.push_back(idx);
        else if (m_properlyNested)
            break; // nothing open here: nothing deeper is either
    }
}

} // namespace gaplens::core
