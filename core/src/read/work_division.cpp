// SPDX-License-Identifier: MIT
#include "gaplens/core/read/work_division.h"

#include <algorithm>
#include <cmath>
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

bool needsTimeShards(const std::vector<std::uint64_t> &rows, std::size_t processes, bool mayShard)
{
    if (!mayShard || processes < 2)
        return false;
    long double total = 0;
    std::size_t withRows = 0;
    for (const auto r : rows) {
        total += (long double)r;
        withRows += r != 0;
    }
    if (withRows == 0)
        return false;
    if (withRows < processes)
        return true;
    const auto fairShare = total / (long double)processes;
    return std::any_of(rows.begin(), rows.end(), [&](std::uint64_t r) { return (long double)r > 1.5L * fairShare; });
}

std::vector<std::vector<WorkPiece>> divideWork(
    const std::vector<std::uint64_t> &rows, std::size_t processes, bool mayShard)
{
    std::vector<std::vector<WorkPiece>> work(processes);
    if (!needsTimeShards(rows, processes, mayShard)) {
        const auto files = divideFiles(rows, processes);
        for (std::size_t p = 0; p < processes; ++p)
            for (const auto f : files[p])
                work[p].push_back({ f, 0, 1, 1 });
        return work;
    }
    long double total = 0;
    for (const auto r : rows)
        total += (long double)r;
    const auto fairShare = total / (long double)processes;
    long double before = 0; // rows of the shards laid before this one
    for (std::size_t f = 0; f < rows.size(); ++f) {
        const auto shards = std::max<std::size_t>(1, std::size_t(std::ceil((long double)rows[f] / fairShare - 1e-9L)));
        const auto shardRows = (long double)rows[f] / (long double)shards;
        for (std::size_t s = 0; s < shards; ++s, before += shardRows) {
            const auto middle = before + shardRows / 2;
            const auto p = std::min(processes - 1, std::size_t(middle / fairShare));
            auto &mine = work[p];
            if (!mine.empty() && mine.back().file == f)
                mine.back().endShard = s + 1; // the next shard of the block
            else
                mine.push_back({ f, s, s + 1, shards });
        }
    }
    return work;
}

} // namespace gaplens::core
