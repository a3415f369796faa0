// SPDX-License-Identifier: MIT
#include "gaplens/core/read/loader.h"

#include "gaplens/core/model/trace_builder.h"
#include "gaplens/core/read/rank_identity.h"
#include "gaplens/core/util/parallel.h"
#include "gaplens/core/util/units.h"
#include "report_cache_store.h"
#include "report_reader.h"
#include "sqlite_db.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

namespace gaplens::core {
namespace {

namespace fs = std::filesystem;
using detail::ReportData;

// Reads the reports `which` (indices into `files`) from their exports, several at once: each
// worker opens its own read-only connection. Returns one ReportData per entry of `which`.
// With fewer files than a few per core, each file that is to have its NVTX table read is
// read as two parts (GPU + CUDA API tables, NVTX table) on two connections, so one or two
// big files also keep every core busy; the parts are joined afterwards. With fewer files than
// threads, the readers would still leave cores idle (one file's NVTX table is most of its
// rows), so each big table's scan also gets threads - 1 threads that decode its page ranges
// (table_scan.h); the loaded columns are the same either way.
// A staged load (`firstStage` set) always reads two parts, every file's first part before
// any NVTX part, and hands the first parts to `firstStage` as soon as they are all read.
// With `onRead` (a load through the report cache), every file is read whole and handed to it
// on the thread that read it, before the next file starts there.
std::vector<ReportData> readExports(const std::vector<std::string> &files, const std::vector<std::size_t> &which,
    unsigned threads, const LoadOptions &options, StringPool &strings, const ProgressFn &progress,
    const CancelToken *cancel, const std::function<void(const std::vector<const ReportData *> &)> &firstStage,
    const std::function<void(std::size_t file, ReportData &)> &onRead = {})
{
    // A time shard is read in one part (readReport says why).
    const bool split = !onRead && options.tables.contains(ExportTable::Nvtx) && options.windows.empty()
        && (firstStage || (threads > 1 && which.size() < 4 * std::size_t(threads)));
    const unsigned scanThreads = options.splitTables && threads > 1 && which.size() < threads ? threads - 1 : 0;
    struct Item
    {
        std::size_t file; // index into `files`
        detail::ReportPart part;
    };
    std::vector<Item> items;
    for (const auto f : which) {
        if (firstStage) {
            items.push_back({ f, detail::ReportPart::GpuAndApi });
        } else if (split) {
            items.push_back({ f, detail::ReportPart::GpuAndApi });
            items.push_back({ f, detail::ReportPart::Nvtx });
        } else {
            items.push_back({ f, detail::ReportPart::Everything });
        }
    }
    if (firstStage)
        for (const auto f : which)
            items.push_back({ f, detail::ReportPart::Nvtx });
    // Where the parts of the k-th file of `which` are in `items`.
    auto gpuAndApiItem = [&](std::size_t k) { return firstStage ? k : 2 * k; };
    auto nvtxItem = [&](std::size_t k) { return firstStage ? which.size() + k : 2 * k + 1; };

    std::vector<ReportData> results(items.size());
    std::mutex progressMutex;
    std::vector<int> permilleByItem(items.size(), 0);

    auto report = [&](std::size_t item, const char *stage, int permille) {
        if (!progress)
            return;
        std::lock_guard lock(progressMutex);
        permilleByItem[item] = permille;
        long sum = 0;
        for (int p : permilleByItem)
            sum += p;
        const auto file = items[item].file;
        progress({ file, files.size(), files[file], stage, int(sum / long(items.size())) });
    };

    // The thread that reads the last first part builds the first stage; the acquire-release
    // count makes the other first parts' results visible to it.
    std::atomic<std::size_t> firstPartsLeft { which.size() };
    auto firstPartRead = [&] {
        if (!firstStage || firstPartsLeft.fetch_sub(1, std::memory_order_acq_rel) != 1)
            return;
        std::vector<const ReportData *> parts;
        for (std::size_t k = 0; k < which.size(); ++k)
            parts.push_back(&results[gpuAndApiItem(k)]);
        firstStage(parts);
    };

    // A cancelled read throws CancelledError: no further item starts, and it reaches the caller.
    parallelFor(items.size(), threads, [&](std::size_t i) {
        results[i] = detail::readReport(
            files[items[i].file], strings, [&](const char *stage, int permille) { report(i, stage, permille); }, cancel,
            items[i].part, options.directTableScan, options.tables, scanThreads,
            options.windows.empty() ? StoredStartWindow {} : options.windows[items[i].file]);
        if (onRead)
            onRead(items[i].file, results[i]);
        report(i, "done", 1000);
        if (items[i].part == detail::ReportPart::GpuAndApi)
            firstPartRead();
    });
    if (!split)
        return results;
    std::vector<ReportData> joined(which.size());
    for (std::size_t k = 0; k < which.size(); ++k) {
        joined[k] = std::move(results[gpuAndApiItem(k)]);
        detail::joinParts(joined[k], std::move(results[nvtxItem(k)]));
    }
    return joined;
}

// Every report: from its cache entry when it has a valid one (LoadOptions::cache), else from
// its export, whose result then becomes its entry. A staged load with some reports not cached
// reads them all from their exports, since the first stage is made of first parts; with every
// report cached there is no first stage (the whole capture is as quick). `cacheProblem` gets
// why entries could not be written (TraceSet::cacheProblem).
// `throughCache` (a capture that fits in memory only with its columns mapped): each report
// read from its export is written to its entry at once and replaced by the entry mapped, so
// that only the reports being read are held whole.
std::vector<ReportData> readReports(const std::vector<std::string> &files, unsigned threads, const LoadOptions &options,
    StringPool &strings, const ProgressFn &progress, const CancelToken *cancel,
    const std::function<void(const std::vector<const ReportData *> &)> &firstStage, std::string &cacheProblem,
    bool throughCache)
{
    const bool useCache = !options.cache.directory.empty() && options.windows.empty();
    std::vector<std::optional<ReportData>> cached(files.size());
    // Taken before anything is read, so that a report changed during its read gets no entry.
    std::vector<std::optional<std::uint64_t>> identities(files.size());
    if (useCache) {
        std::mutex progressMutex; // progress is called under the loader's lock (ProgressFn)
        std::size_t hits = 0;
        parallelFor(files.size(), threads, [&](std::size_t f) {
            if (cancel && cancel->isCancelled())
                throw detail::CancelledError();
            identities[f] = detail::reportIdentity(files[f]);
            cached[f] = detail::loadCachedReport(options.cache, files[f], options.tables, identities[f], strings);
            std::lock_guard lock(progressMutex);
            hits += cached[f] ? 1 : 0;
            // A hit is a report done, a miss one still to read (a staged load with a miss reads
            // them all: nothing is done yet).
            if (progress)
                progress({ f, files.size(), files[f], "cache", firstStage ? 0 : int(1000 * hits / files.size()) });
        });
    }
    const bool allCached = std::all_of(cached.begin(), cached.end(), [](const auto &c) { return c.has_value(); });
    std::vector<std::size_t> which;
    for (std::size_t f = 0; f < files.size(); ++f)
        if (!cached[f] || (firstStage && !allCached))
            which.push_back(f);
    // The reads' progress goes on from the hits' instead of starting again at 0.
    const std::size_t done = files.size() - which.size();
    ProgressFn readProgress = progress;
    if (progress && done > 0)
        readProgress = [&](const LoadProgress &p) {
            auto overall = p;
            overall.permille = int((1000 * done + std::size_t(std::max(p.permille, 0)) * which.size()) / files.size());
            progress(overall);
        };
    std::mutex problemMutex;
    auto store = [&](std::size_t f, ReportData &data) {
        const auto failure
            = detail::storeCachedReport(options.cache, files[f], options.tables, identities[f], data, strings);
        std::lock_guard lock(problemMutex);
        if (!failure.empty() && cacheProblem.empty()) // the first says it; the rest are alike
            cacheProblem = fmt::format(
                "the report cache in {} was not written ({}); the reports are read from their exports each time",
                options.cache.directory.string(), failure);
        return failure.empty();
    };
    std::function<void(std::size_t, ReportData &)> onRead;
    if (useCache && throughCache)
        onRead = [&](std::size_t f, ReportData &data) {
            if (!store(f, data))
                return; // kept in memory: the load goes on as without the cache
            if (auto mapped
                = detail::loadCachedReport(options.cache, files[f], options.tables, identities[f], strings)) {
                data = std::move(*mapped);
                data.report.readFromCache = false; // read from its export, only kept in its entry
            }
        };
    std::vector<ReportData> read;
    if (!which.empty())
        read = readExports(files, which, threads, options, strings, readProgress, cancel, firstStage, onRead);
    if (useCache && !which.empty()) {
        if (!onRead)
            parallelFor(which.size(), threads, [&](std::size_t k) {
                if (!cached[which[k]] && !(cancel && cancel->isCancelled()))
                    store(which[k], read[k]);
            });
        detail::evictReportCache(options.cache); // once, over everything this load wrote
    }
    if (which.size() == files.size())
        return read;
    std::vector<ReportData> results(files.size());
    for (std::size_t f = 0; f < files.size(); ++f)
        if (cached[f])
            results[f] = std::move(*cached[f]);
    for (std::size_t k = 0; k < which.size(); ++k)
        results[which[k]] = std::move(read[k]);
    return results;
}

// A report is one rank, unless several of its processes ran GPU work: then one rank each.
std::vector<RankCandidate> rankCandidates(
    const std::vector<ReportData> &reports, const std::vector<std::uint32_t> &reportIndex)
{
    std::vector<RankCandidate> candidates;
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const auto &data = reports[i];
        if (data.error)
            continue;
        RankCandidate base { reportIndex[i], data.report.path, 0, false, data.environmentRank };
        if (data.gpuPids.size() >= 2) {
            for (auto pid : data.gpuPids) {
                base.pid = pid;
                base.oneOfSeveralProcesses = true;
                candidates.push_back(base);
            }
            continue;
        }
        if (!data.gpuPids.empty()) {
            base.pid = data.gpuPids.front();
        } else if (!data.activityByPid.empty()) {
            base.pid = std::max_element(
                data.activityByPid.begin(), data.activityByPid.end(), [](const auto &a, const auto &b) {
                    return a.second < b.second;
                })->first;
        }
        candidates.push_back(base);
    }
    return candidates;
}

void mergeIntoTrace(TraceSet &trace, std::vector<ReportData> &reports, const LoadOptions &options)
{
    std::vector<std::uint32_t> reportIndex(reports.size(), kNoIndex);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        if (reports[i].error) {
            trace.errors.push_back(*reports[i].error);
            continue;
        }
        reportIndex[i] = std::uint32_t(trace.reports.size());
        trace.reports.push_back(reports[i].report);
    }

    const auto candidates = rankCandidates(reports, reportIndex);
    const auto assignments = options.decideRanks ? options.decideRanks(candidates, trace.warnings)
                                                 : assignRanks(candidates, options.rankOverrides, trace.warnings);
    if (assignments.size() != candidates.size())
        throw std::logic_error("decideRanks gave a number of assignments other than the candidates'");

    // Ranks sorted by number; candidate c becomes rank index rankOf[c].
    std::vector<std::size_t> order(candidates.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
        [&](std::size_t a, std::size_t b) { return assignments[a].rank < assignments[b].rank; });
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> rankByProcess; // (report, pid)
    std::map<std::uint32_t, std::uint32_t> firstRankOfReport;
    for (auto c : order) {
        const auto &cand = candidates[c];
        const auto &data = reports[std::size_t(
            std::find(reportIndex.begin(), reportIndex.end(), cand.report) - reportIndex.begin())];
        Rank rank;
        rank.rank = assignments[c].rank;
        rank.report = cand.report;
        rank.pid = cand.pid;
        if (auto it = data.processNames.find(cand.pid); it != data.processNames.end())
            rank.processName = it->second;
        rank.host = data.report.host;
        rank.source = assignments[c].source;
        rank.sourceDetail = assignments[c].detail;
        const auto index = std::uint32_t(trace.ranks.size());
        rankByProcess[{ cand.report, cand.pid }] = index;
        firstRankOfReport.try_emplace(cand.report, index);
        trace.ranks.push_back(std::move(rank));
    }

    // Work of a process that is not a rank of its own belongs to its report's rank.
    auto rankFor = [&](std::uint32_t report, std::uint32_t pid) {
        if (auto it = rankByProcess.find({ report, pid }); it != rankByProcess.end())
            return it->second;
        auto it = firstRankOfReport.find(report);
        return it != firstRankOfReport.end() ? it->second : kNoIndex;
    };

    for (std::size_t i = 0; i < reports.size(); ++i) {
        if (reportIndex[i] == kNoIndex)
            continue;
        const auto report = reportIndex[i];
        for (auto &gpu : reports[i].gpus) {
            gpu.report = report;
            for (auto &stream : gpu.streams)
                stream.rank = rankFor(report, stream.pid);
            trace.gpus.push_back(std::move(gpu));
        }
        for (auto &thread : reports[i].threads) {
            thread.report = report;
            thread.rank = rankFor(report, thread.pid);
            trace.threads.push_back(std::move(thread));
        }
        reports[i] = ReportData {}; // free the columns now that they moved
    }

    // GPUs in rank order, then device id, so listings read naturally.
    auto firstRank = [](const Gpu &g) {
        std::uint32_t r = kNoIndex;
        for (const auto &s : g.streams)
            r = std::min(r, s.rank);
        return r;
    };
    std::stable_sort(trace.gpus.begin(), trace.gpus.end(), [&](const Gpu &a, const Gpu &b) {
        const auto ra = firstRank(a), rb = firstRank(b);
        return ra != rb ? ra < rb : a.deviceId < b.deviceId;
    });
    std::stable_sort(trace.threads.begin(), trace.threads.end(), [](const Thread &a, const Thread &b) {
        if (a.rank != b.rank)
            return a.rank < b.rank;
        if (a.pid != b.pid)
            return a.pid < b.pid;
        // The main thread (tid == pid) first, then by tid.
        if ((a.tid == a.pid) != (b.tid == b.pid))
            return a.tid == a.pid;
        return a.tid < b.tid;
    });
}

// Bytes per row of each table once loaded, measured with gaplens-bench (tests/bench) at
// 8 ranks x 1M kernels, rounded up: columns, nesting indices, vector slack and, for files
// whose rows are not in start order, the sort's temporary order and copies. Strings: pool
// entry + hash node + text.
// Only the tables a load reads count (kept: nullopt for the string table, always read).
// A report taken from the report cache keeps only cachedBytesPerRow in memory: its names
// (renumbered into the pool), depths and nesting indices; its other columns view the mapped
// entry (model/column.h), whose pages the OS can drop and read again.
struct TableCost
{
    const char *table;
    std::uint64_t bytesPerRow;
    std::uint64_t cachedBytesPerRow;
    std::optional<ExportTable> kept;
};
constexpr TableCost kTableCosts[] = {
    { "CUPTI_ACTIVITY_KIND_KERNEL", 40, 8, ExportTable::Kernels }, // 32 since launch shapes are kept once per stream
    { "CUPTI_ACTIVITY_KIND_MEMCPY", 56, 8, ExportTable::Copies },
    { "CUPTI_ACTIVITY_KIND_MEMSET", 56, 8, ExportTable::Copies },
    { "CUPTI_ACTIVITY_KIND_RUNTIME", 40, 12, ExportTable::CudaApi },
    { "NVTX_EVENTS", 36, 12, ExportTable::Nvtx }, // no domain column where every range is in the default domain
    // not measured: the columns (33 bytes) and vector slack, like the API table's
    { "OSRT_API", 48, 12, ExportTable::OsRuntime },
    { "StringIds", 96, 96, std::nullopt },
};

constexpr auto kMaxBytes = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b)
{
    return a > kMaxBytes - b ? kMaxBytes : a + b;
}
std::uint64_t saturatingMultiply(std::uint64_t a, std::uint64_t b)
{
    return b != 0 && a > kMaxBytes / b ? kMaxBytes : a * b;
}

// Exact rows: SQLite answers count(*) from the table b-tree (OP_Count adds up each page's cell
// count) without decoding a record, so a sparse or huge rowid cannot inflate it. It reads every
// page of the table, though: 0.11 s cached and 0.50 s uncached for a 685 MB export of 11.7M rows
// (synth --kernels-per-rank 5000000), which takes 4-5 s to load.
std::uint64_t exactRowCount(const detail::Database &db, const char *table)
{
    detail::Statement count(db.handle(), fmt::format("SELECT count(*) FROM \"{}\"", table));
    return count.step() ? std::uint64_t(count.int64(0)) : 0;
}

// An upper bound of the rows in two b-tree descents (1-5 ms on the file above): rowids are
// distinct integers, so a table holds at most max - min + 1 of them. Exact for nsys exports,
// whose rowids count from 1; saturates instead of wrapping for rowids near +-2^63.
std::uint64_t rowidSpan(const detail::Database &db, const char *table)
{
    try {
        detail::Statement first(db.handle(), fmt::format("SELECT min(rowid) FROM \"{}\"", table));
        detail::Statement last(db.handle(), fmt::format("SELECT max(rowid) FROM \"{}\"", table));
        if (!first.step() || first.isNull(0) || !last.step() || last.isNull(0))
            return 0; // empty
        const auto distance = std::uint64_t(last.int64(0)) - std::uint64_t(first.int64(0)); // mod 2^64: exact
        return saturatingAdd(distance, 1);
    } catch (const detail::SqliteError &) {
        return exactRowCount(db, table); // a WITHOUT ROWID table has no rowid to bound by
    }
}

// The rows and bytes of the tables the reader keeps, each table's rows as `rowsOf` counts them.
// fromCache: which files are taken from the report cache (empty: none).
template <typename RowsOf>
LoadEstimate estimateWith(const std::vector<std::string> &files, TableSet tables, RowsOf rowsOf,
    bool withStrings = true, const std::vector<char> &fromCache = {})
{
    tables = withDependencies(tables);
    LoadEstimate estimate;
    for (std::size_t f = 0; f < files.size(); ++f) {
        const auto &file = files[f];
        const bool cached = f < fromCache.size() && fromCache[f];
        try {
            std::error_code ec;
            if (!fs::is_regular_file(file, ec))
                continue;
            detail::Database db(file);
            for (const auto &[table, bytesPerRow, cachedBytesPerRow, kept] : kTableCosts) {
                if ((kept ? !tables.contains(*kept) : !withStrings) || !db.hasTable(table))
                    continue;
                const auto rows = rowsOf(db, table);
                estimate.rows = saturatingAdd(estimate.rows, rows);
                estimate.bytes
                    = saturatingAdd(estimate.bytes, saturatingMultiply(rows, cached ? cachedBytesPerRow : bytesPerRow));
            }
        } catch (const std::exception &) {
            // Unreadable here means unreadable when loading: readReport names the problem.
        }
    }
    return estimate;
}

// What a load takes: a staged one also holds a copy of its first stage's columns (the two
// captures share their strings) until the caller lets the first stage go.
template <typename RowsOf>
LoadEstimate estimateFor(const std::vector<std::string> &files, const LoadOptions &options, RowsOf rowsOf,
    const std::vector<char> &fromCache)
{
    if (!options.windows.empty()) { // a time shard holds its share of the file's rows
        LoadEstimate estimate;
        for (std::size_t f = 0; f < files.size(); ++f) {
            const auto whole = estimateWith({ files[f] }, options.tables, rowsOf);
            const auto share = std::clamp(options.windows[f].share, 0.0, 1.0);
            estimate.rows = saturatingAdd(estimate.rows, std::uint64_t(std::ceil(double(whole.rows) * share)));
            estimate.bytes = saturatingAdd(estimate.bytes, std::uint64_t(std::ceil(double(whole.bytes) * share)));
        }
        return estimate;
    }
    auto estimate = estimateWith(files, options.tables, rowsOf, true, fromCache);
    const bool allCached = !files.empty() && std::all_of(fromCache.begin(), fromCache.end(), [](char c) { return c; })
        && fromCache.size() == files.size();
    if (options.onFirstStage && options.tables.contains(ExportTable::Nvtx) && !allCached) {
        const auto copy = estimateWith(files, firstStageTables(options.tables), rowsOf, false);
        estimate.bytes = saturatingAdd(estimate.bytes, copy.bytes);
    }
    return estimate;
}

// Which files a load takes from the report cache: those with an entry (by its header), unless
// a staged load reads them all from their exports since some have none (readReports).
std::vector<char> filesFromCache(const std::vector<std::string> &files, const LoadOptions &options)
{
    std::vector<char> cached(files.size(), 0);
    if (options.cache.directory.empty() || !options.windows.empty())
        return cached;
    for (std::size_t f = 0; f < files.size(); ++f)
        cached[f] = detail::hasCachedReport(options.cache, files[f], options.tables, detail::reportIdentity(files[f]));
    const bool staged = options.onFirstStage && options.tables.contains(ExportTable::Nvtx);
    if (staged && std::find(cached.begin(), cached.end(), 0) != cached.end())
        std::fill(cached.begin(), cached.end(), 0);
    return cached;
}

// A load through the report cache (readReports' throughCache): every report ends up mapped,
// keeping what a cached report keeps, and at most `threads` reports not yet cached are held
// whole at once, while they are read and written.
template <typename RowsOf>
LoadEstimate estimateThroughCache(const std::vector<std::string> &files, const LoadOptions &options, RowsOf rowsOf,
    const std::vector<char> &fromCache, unsigned threads)
{
    LoadEstimate estimate;
    std::vector<std::uint64_t> wholeExtra; // what reading a report costs beyond keeping it mapped
    for (std::size_t f = 0; f < files.size(); ++f) {
        const auto kept = estimateWith({ files[f] }, options.tables, rowsOf, true, { 1 });
        estimate.rows = saturatingAdd(estimate.rows, kept.rows);
        estimate.bytes = saturatingAdd(estimate.bytes, kept.bytes);
        if (!fromCache[f])
            wholeExtra.push_back(estimateWith({ files[f] }, options.tables, rowsOf).bytes - kept.bytes);
    }
    const auto held = std::min<std::size_t>(wholeExtra.size(), std::max(threads, 1u));
    std::partial_sort(
        wholeExtra.begin(), wholeExtra.begin() + std::ptrdiff_t(held), wholeExtra.end(), std::greater<>());
    for (std::size_t i = 0; i < held; ++i)
        estimate.bytes = saturatingAdd(estimate.bytes, wholeExtra[i]);
    return estimate;
}

// Whether a capture fits: it may (loaded as usual), it may only through the report cache, or
// it may not (the error says so).
struct MemoryVerdict
{
    std::optional<LoadError> refusal;
    bool throughCache = false;
};

// Refuses a capture that would not fit, before reading rows: swapping a machine for minutes
// and then failing is the worst outcome, and the row counts are known up front. Reports taken
// from the report cache count at what they keep beside their mapped columns; a capture that
// fits only so is loaded through the cache (estimateThroughCache) when the cache is on.
MemoryVerdict checkMemory(const std::vector<std::string> &files, const LoadOptions &options, unsigned threads)
{
    if (files.empty())
        return {};
    const auto processHeadroom = tightestMemoryHeadroom(options.memoryLimitSources);
    const bool userLimitIsTightest
        = options.memoryLimitBytes != 0 && (!processHeadroom || options.memoryLimitBytes <= processHeadroom->bytes);
    if (!userLimitIsTightest && !processHeadroom)
        return {};
    const auto limit = userLimitIsTightest ? options.memoryLimitBytes : processHeadroom->bytes;
    // The rowid bound settles every capture that fits in milliseconds; only one the bound puts
    // over the limit pays for exact counts, which decide (a sparse rowid cannot refuse a file).
    // The cache is looked at only for a capture that does not fit without it.
    if (estimateFor(files, options, rowidSpan, {}).bytes <= limit)
        return {};
    const auto fromCache = filesFromCache(files, options);
    if (estimateFor(files, options, rowidSpan, fromCache).bytes <= limit)
        return {};
    const auto estimate = estimateFor(files, options, exactRowCount, fromCache);
    if (estimate.bytes <= limit)
        return {};
    if (!options.cache.directory.empty() && options.windows.empty()
        && estimateThroughCache(files, options, exactRowCount, fromCache, threads).bytes <= limit)
        return { std::nullopt, true };
    std::string names;
    for (std::size_t i = 0; i < files.size() && i < 4; ++i)
        names += fmt::format("{}{}", i ? ", " : "", files[i]);
    if (files.size() > 4)
        names += fmt::format(" and {} more", files.size() - 4);
    const std::string available = userLimitIsTightest
        ? fmt::format("the limit is {}", formatBytes(limit))
        : fmt::format("only {} is available ({})", formatBytes(limit), processHeadroom->source);
    return { LoadError { files.size() == 1 ? files.front() : names,
        fmt::format("{}: too large to load: {} rows need an estimated {} of memory, but {}; "
                    "open fewer ranks or free memory",
            names, estimate.rows, formatBytes(estimate.bytes), available) } };
}

} // namespace

LoadEstimate estimateLoad(const std::vector<std::string> &files, TableSet tables)
{
    return estimateWith(files, tables, exactRowCount);
}

namespace {

bool isSymbolicLinkLoop(const std::error_code &ec)
{
    return ec == std::errc::too_many_symbolic_link_levels;
}

// For a path the system gave up resolving (ELOOP): the chain when the path's own links lead
// back to one of them ("a.sqlite -> b.sqlite -> a.sqlite"), else the system's reason, as the
// loop is then in a folder of the path or the chain is just longer than the system follows.
LoadError symbolicLinkLoopError(const std::string &input)
{
    std::vector<fs::path> visited;
    std::string chain = input;
    fs::path current = input;
    for (int hop = 0; hop < 64; ++hop) {
        std::error_code ec;
        if (!fs::is_symlink(fs::symlink_status(current, ec)))
            break;
        const auto target = fs::read_symlink(current, ec);
        if (ec)
            break;
        visited.push_back(current.lexically_normal());
        chain += " -> " + target.string();
        current = target.is_absolute() ? target : current.parent_path() / target;
        if (std::find(visited.begin(), visited.end(), current.lexically_normal()) != visited.end())
            return { input, fmt::format("{}: is a symbolic link loop ({})", input, chain) };
    }
    return { input,
        fmt::format("{}: cannot be opened: too many levels of symbolic links (a loop through a folder of "
                    "its path, or a chain of links longer than the system follows)",
            input) };
}

} // namespace

std::vector<std::string> expandInputs(const std::vector<std::string> &inputs, std::vector<LoadError> &errors)
{
    std::vector<std::string> files;
    for (const auto &input : inputs) {
        std::error_code ec;
        const auto status = fs::status(input, ec);
        if (isSymbolicLinkLoop(ec)) {
            errors.push_back(symbolicLinkLoopError(input));
            continue;
        }
        if (!fs::is_directory(status)) {
            files.push_back(input);
            continue;
        }
        std::vector<std::string> found;
        std::vector<std::string> loops;
        for (const auto &entry : fs::directory_iterator(input, ec)) {
            if (entry.path().extension() != ".sqlite")
                continue;
            std::error_code entryError;
            if (entry.is_regular_file(entryError))
                found.push_back(entry.path().string());
            else if (isSymbolicLinkLoop(entryError))
                loops.push_back(entry.path().string());
        }
        std::sort(loops.begin(), loops.end(), naturalLess);
        for (const auto &loop : loops)
            errors.push_back(symbolicLinkLoopError(loop));
        if (found.empty()) {
            if (loops.empty())
                errors.push_back({ input, fmt::format("{}: is a folder without any .sqlite export", input) });
            continue;
        }
        std::sort(found.begin(), found.end(), naturalLess);
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

std::shared_ptr<TraceSet> loadTraceSet(
    const LoadOptions &options, const ProgressFn &progress, const CancelToken *cancel)
{
    if (options.onFirstStage && options.decideRanks)
        throw std::invalid_argument("a staged load (onFirstStage) cannot have decideRanks: it would decide twice");
    auto trace = std::make_shared<TraceSet>();
    const auto files = expandInputs(options.files, trace->errors);
    if (!options.windows.empty()) {
        if (options.windows.size() != files.size())
            throw std::invalid_argument("LoadOptions::windows needs one window per file");
        // With a halo the other tables are read whole (StoredStartWindow::halo).
        const bool halos = std::all_of(
            options.windows.begin(), options.windows.end(), [](const StoredStartWindow &w) { return bool(w.halo); });
        if (!halos && !kTimeShardTables.containsAll(options.tables))
            throw std::invalid_argument("a time shard reads only kernels, copies, CUDA API calls and NVTX");
        if (options.onFirstStage)
            throw std::invalid_argument("a time shard is not loaded in stages");
    }
    const unsigned threads = threadsOrEveryCore(options.threads);
    auto memory = checkMemory(files, options, threads);
    if (memory.refusal) {
        trace->errors.push_back(std::move(*memory.refusal));
        return trace;
    }
    auto isCancelled = [cancel] { return cancel && cancel->isCancelled(); };
    // The first parts stay where they are, to be joined with the NVTX parts: the first stage
    // is built from copies of them.
    std::function<void(const std::vector<const ReportData *> &)> firstStage;
    // A load through the cache has no first stage: its first parts would all be held at once.
    if (options.onFirstStage && options.tables.contains(ExportTable::Nvtx) && !memory.throughCache) {
        firstStage = [&](const std::vector<const ReportData *> &parts) {
            std::vector<ReportData> copies;
            copies.reserve(parts.size());
            for (const auto *part : parts)
                copies.push_back(detail::firstStageOf(*part));
            auto first = std::make_shared<TraceSet>(trace->strings);
            first->errors = trace->errors;
            mergeIntoTrace(*first, copies, options);
            finalizeTraceSet(*first, threads);
            if (!isCancelled())
                options.onFirstStage(std::move(first));
        };
    }
    auto cancelled = [] {
        auto none = std::make_shared<TraceSet>();
        none->cancelled = true;
        return none;
    };
    try {
        auto reports = readReports(files, threads, options, trace->strings, progress, cancel, firstStage,
            trace->cacheProblem, memory.throughCache);
        if (isCancelled()) // also when asked while the first stage was handed over
            return cancelled();
        mergeIntoTrace(*trace, reports, options);
    } catch (const detail::CancelledError &) {
        return cancelled();
    }
    finalizeTraceSet(*trace, threads);
    return trace;
}

} // namespace gaplens::core
