// SPDX-License-Identifier: MIT
#include "gaplens/core/read/time_shards.h"

#include "sqlite_db.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

namespace gaplens::core {
namespace {

// The tables whose rows a time shard splits, by the table of the model they fill.
struct ShardedTable
{
    const char *table;
    ExportTable kept;
};
constexpr ShardedTable kShardedTables[] = {
    { "CUPTI_ACTIVITY_KIND_KERNEL", ExportTable::Kernels },
    { "CUPTI_ACTIVITY_KIND_MEMCPY", ExportTable::Copies },
    { "CUPTI_ACTIVITY_KIND_MEMSET", ExportTable::Copies },
    { "CUPTI_ACTIVITY_KIND_RUNTIME", ExportTable::CudaApi },
    { "NVTX_EVENTS", ExportTable::Nvtx },
};

struct RowidRange
{
    std::int64_t first = 0, last = 0;
    std::uint64_t span() const { return std::uint64_t(last) - std::uint64_t(first) + 1; } // mod 2^64: exact
};

std::optional<RowidRange> rowids(const detail::Database &db, const char *table)
{
    detail::Statement range(db.handle(), fmt::format("SELECT min(rowid), max(rowid) FROM \"{}\"", table));
    if (!range.step() || range.isNull(0) || range.isNull(1))
        return std::nullopt;
    return RowidRange { range.int64(0), range.int64(1) };
}

} // namespace

TimeShards sampleTimeShards(const std::string &file, TableSet tables, std::size_t shards, std::size_t samples)
{
    if (shards == 0)
        throw std::invalid_argument("sampleTimeShards needs at least one shard");
    std::vector<std::int64_t> starts;
    try {
        const detail::Database db(file);
        std::vector<std::pair<const char *, RowidRange>> present;
        std::uint64_t totalSpan = 0;
        for (const auto &[table, kept] : kShardedTables)
            if (tables.contains(kept) && db.hasTable(table))
                if (const auto range = rowids(db, table)) {
                    present.emplace_back(table, *range);
                    totalSpan += std::min<std::uint64_t>(range->span(), std::uint64_t(1) << 62);
                }
        for (const auto &[table, range] : present) {
            // Each table's samples in proportion to its rows (nsys rowids count from 1).
            const auto span = std::min<std::uint64_t>(range.span(), std::uint64_t(1) << 62);
            const auto count = std::max<std::uint64_t>(
                1, std::min<std::uint64_t>(span, std::uint64_t(double(samples) * double(span) / double(totalSpan))));
            detail::Statement at(
                db.handle(), fmt::format("SELECT start FROM \"{}\" WHERE rowid >= ?1 ORDER BY rowid LIMIT 1", table));
            for (std::uint64_t i = 0; i < count; ++i) {
                const auto rowid = std::int64_t(
                    std::uint64_t(range.first) + std::uint64_t(double(span) * double(i) / double(count)));
                at.reset();
                at.bindInt64(1, rowid);
                if (at.step())
                    if (const auto start = at.exactInt64(0); start.kind == detail::IntegerKind::Integer)
                        starts.push_back(start.value);
            }
        }
    } catch (const std::exception &) {
        starts.clear(); // unreadable here means unreadable when loading, which names the problem
    }
    std::sort(starts.begin(), starts.end());
    TimeShards out;
    for (std::size_t i = 1; i < shards; ++i)
        out.edges.push_back(starts.empty() ? 0 : starts[i * starts.size() / shards]);
    out.sampled.assign(shards, 0);
    std::size_t shard = 0;
    for (const auto start : starts) {
        while (shard < out.edges.size() && start >= out.edges[shard])
            ++shard;
        ++out.sampled[shard];
    }
    return out;
}

StoredStartWindow shardBlockWindow(const TimeShards &shards, std::size_t first, std::size_t end)
{
    const auto count = shards.edges.size() + 1;
    if (first >= end || end > count)
        throw std::invalid_argument("shardBlockWindow: not a block of the file's shards");
    StoredStartWindow window;
    if (first > 0)
        window.from = shards.edges[first - 1];
    window.toEnd = end == count;
    if (!window.toEnd)
        window.to = shards.edges[end - 1];
    std::uint64_t inBlock = 0, all = 0;
    for (std::size_t s = 0; s < shards.sampled.size(); ++s) {
        all += shards.sampled[s];
        if (s >= first && s < end)
            inBlock += shards.sampled[s];
    }
    window.share = all ? double(inBlock) / double(all) : double(end - first) / double(count);
    return window;
}

} // namespace gaplens::core
