// SPDX-License-Identifier: MIT
#pragma once
// Time shard windows for tests of analyses in time shards (core/read/time_shards.h).
#include "gaplens/core/read/loader.h"
#include "gaplens/core/read/time_shards.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gaplens::test {

// Shards [i, i + 1) of `edges` as windows.
inline std::vector<core::StoredStartWindow> windowsOf(const std::vector<std::int64_t> &edges)
{
    const core::TimeShards shards { edges, std::vector<std::uint64_t>(edges.size() + 1, 0) };
    std::vector<core::StoredStartWindow> windows;
    for (std::size_t s = 0; s <= edges.size(); ++s)
        windows.push_back(core::shardBlockWindow(shards, s, s + 1));
    return windows;
}

// The file sampled into `count` shards by the rows of `sampledTables`, one window each.
inline std::vector<core::StoredStartWindow> sampledWindows(
    const std::string &file, core::TableSet sampledTables, std::size_t count)
{
    const auto sampled = core::sampleTimeShards(file, sampledTables, count);
    std::vector<core::StoredStartWindow> windows;
    for (std::size_t s = 0; s < count; ++s)
        windows.push_back(core::shardBlockWindow(sampled, s, s + 1));
    return windows;
}

// `file` loaded once per window, on one thread, with the tables time shards split: one part
// per shard, as gaplens-mpi's processes load theirs.
inline std::vector<std::shared_ptr<core::TraceSet>> loadInWindows(
    const std::string &file, const std::vector<core::StoredStartWindow> &windows)
{
    std::vector<std::shared_ptr<core::TraceSet>> parts;
    for (const auto &window : windows) {
        core::LoadOptions options;
        options.files = { file };
        options.windows = { window };
        options.tables = core::kTimeShardTables;
        options.threads = 1;
        parts.push_back(core::loadTraceSet(options));
    }
    return parts;
}

} // namespace gaplens::test
