// SPDX-License-Identifier: MIT
#pragma once
// The report cache (issue #19, target 5): what the reader made of an export, kept in the
// user's cache folder so that the next open of the same report skips SQLite. One file per
// (report, table set); LoadOptions::cache turns it on. docs/ARCHITECTURE.md has the format.
//
// An entry is used only when everything about it checks out: its format version, the table
// set, the report's identity (path, size, modification and change times, inode, and a hash of
// its first and last 64 KiB, which hold SQLite's header and schema) and a checksum of its
// contents. Anything else (stale, truncated, corrupt, another version) is a miss: the report
// is read from SQLite and the entry rewritten. A report that fails to load, or a time shard,
// is never cached.
#include <cstdint>
#include <filesystem>
#include <string>

namespace gaplens::core {

// Bumped whenever the model or the entry layout changes: older entries are then misses.
inline constexpr std::uint32_t kReportCacheVersion = 2;

struct ReportCacheOptions
{
    // Where the entries live; empty: no cache (the default: only the app and gaplens-cli turn it on).
    std::filesystem::path directory;
    // After an entry is written, the least recently used entries are removed until the folder's
    // entries take at most this many bytes.
    std::uint64_t maxBytes = std::uint64_t(16) << 30;
};

// $XDG_CACHE_HOME/gaplens, else $HOME/.cache/gaplens (the XDG base directory rules); empty when
// neither variable is set.
std::filesystem::path defaultReportCacheDirectory();

// The options gaplens-cli and the app use: defaultReportCacheDirectory(), and the size limit
// from GAPLENS_CACHE_MAX_GIB when it is a positive number.
ReportCacheOptions defaultReportCacheOptions();

} // namespace gaplens::core
