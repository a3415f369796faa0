// SPDX-License-Identifier: MIT
#pragma once
// The report cache's entries on disk (the public side is read/report_cache.h).
#include "gaplens/core/read/report_cache.h"
#include "report_reader.h"

#include <optional>
#include <string>

namespace gaplens::core::detail {

// What tells that the report at `path` changed: its device, inode, size, modification and change
// times, and a hash of its first and last 64 KiB (SQLite's header, with its change counter, and
// schema). nullopt when it is not a readable plain file (then nothing is cached for it).
std::optional<std::uint64_t> reportIdentity(const std::string &path);

// The report at `path` read for `tables`, from its entry when one is valid for the report's
// `identity` (reportIdentity); nullopt for a miss (none, stale, corrupt, another version or
// table set). A hit marks the entry as used now.
std::optional<ReportData> loadCachedReport(const ReportCacheOptions &options, const std::string &path, TableSet tables,
    std::optional<std::uint64_t> identity, StringPool &strings);

// Whether `path` has an entry for `tables` whose header matches the report's `identity` (the
// payload's checksum is checked only when it is loaded): the memory guard counts such a report
// at what stays in memory beside its mapped columns.
bool hasCachedReport(
    const ReportCacheOptions &options, const std::string &path, TableSet tables, std::optional<std::uint64_t> identity);

// Writes the entry of `data`, read from `path` for `tables` after its identity was taken, unless
// the report has changed since. Does nothing for a report isCacheable refuses. A failure (a full
// disk, a read-only folder) leaves no entry and is no load error, since the cache is an
// optimisation; what failed is returned ("" when the entry was written or rightly skipped), so
// that the user learns why every open is slow. Builds the nesting its tracks keep into `data`
// (writeReportPayload).
std::string storeCachedReport(const ReportCacheOptions &options, const std::string &path, TableSet tables,
    std::optional<std::uint64_t> identity, ReportData &data, const StringPool &strings);

// Removes the least recently used entries (by modification time: a hit touches its entry)
// until the rest take at most options.maxBytes, and temporary files a process that died left
// over a day ago. The loader calls it once after a load's entries are written.
void evictReportCache(const ReportCacheOptions &options);

} // namespace gaplens::core::detail
