// SPDX-License-Identifier: MIT
#include "gaplens/core/read/work_division.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <utility>

namespace gaplens::core {

std::vector<std::vector<std::size_t>> divideFiles(const std::vector<std::uint64_t> &rows, std::size_t processes)
{
    if (processes == 0)
        throw std::invalid_argument("divideFiles needs at least one process");
    std::vector<std::size_t> byRows(rows.size());
    std::iota(byRows.begin(), byRows.end(), std::size_t(0));
    std::stable_sort(byRows.begin(), byRows.end(), [&](std::size_t a, std::size_t b) { return rows[a] > rows[b]; });

    // (rows so far, process): the least loaded first, the lowest process among equals.
    using Load = std::pair<std::uint64_t, std::size_t>;
    std::priority_queue<Load, std::vector<Load>, std::greater<Load>> least;
    for (std::size_t p = 0; p < processes; ++p)
        least.push({ 0, p });
    std::vector<std::vector<std::size_t>> files(processes);
    for (const auto f : byRows) {
        auto [load, p] = least.top();
        least.pop();
        files[p].push_back(f);
        // Saturate: row counts are estimates, and a sum past 2^64 must not wrap to "idle".
        least.push({ load > UINT64_MAX - rows[f] ? UINT64_MAX : load + rows[f], p });
    }
    for (auto &mine : files)
        std::sort(mine.begin(), mine.end());
    return files;
}

} // namespace gaplens::core
