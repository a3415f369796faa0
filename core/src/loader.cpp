// SPDX-License-Identifier: MIT
#include "gaplens/core/loader.h"

#include "gaplens/core/rank_identity.h"
#include "gaplens/core/trace_builder.h"
#include "gaplens/core/units.h"
#include "report_reader.h"
#include "sqlite_db.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

namespace gaplens::core {
namespace {

namespace fs = std::filesystem;
using detail::ReportData;

// Reads every report, several at once: each worker opens its own read-only connection.
// With fewer files than a few per core, each file is read as two parts (GPU + CUDA API
// tables, NVTX table) on two connections, so one or two big files also keep every core
// busy; the parts are joined afterwards.
std::vector<ReportData> readReports(const std::vector<std::string> &files, unsigned threads, bool directTableScan,
                                    StringPool &strings, const ProgressFn &progress, const CancelToken *cancel)
{
    const bool split = threads > 1 && files.size() < 4 * std::size_t(threads);
    struct Item
    {
        std::size_t file;
        detail::ReportPart part;
    };
    std::vector<Item> items;
    for (std::size_t f = 0; f < files.size(); ++f) {
        if (split) {
            items.push_back({f, detail::ReportPart::GpuAndApi});
            items.push_back({f, detail::ReportPart::Nvtx});
        } else {
            items.push_back({f, detail::ReportPart::Everything});
        }
    }
    std::vector<ReportData> results(items.size());
    std::atomic<std::size_t> next{0};
    std::atomic<bool> cancelled{false};
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
        progress({file, files.size(), files[file], stage, int(sum / long(items.size()))});
    };

    auto worker = [&] {
        for (std::size_t i = next++; i < items.size() && !cancelled; i = next++) {
            try {
                results[i] = detail::readReport(
                    files[items[i].file], strings, [&](const char *stage, int permille) { report(i, stage, permille); },
                    cancel, items[i].part, directTableScan);
                report(i, "done", 1000);
            } catch (const detail::CancelledError &) {
                cancelled = true;
            }
        }
    };

    const unsigned count = std::max(1u, std::min<unsigned>(threads, unsigned(items.size())));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < count; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto &t : pool)
        t.join();
    if (cancelled)
        throw detail::CancelledError();
    if (!split)
        return results;
    std::vector<ReportData> joined(files.size());
    for (std::size_t f = 0; f < files.size(); ++f) {
        joined[f] = std::move(results[2 * f]);
        detail::joinParts(joined[f], std::move(results[2 * f + 1]));
    }
    return joined;
}

// A report is one rank, unless several of its processes ran GPU work: then one rank each.
std::vector<RankCandidate> rankCandidates(const std::vector<ReportData> &reports,
                                          const std::vector<std::uint32_t> &reportIndex)
{
    std::vector<RankCandidate> candidates;
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const auto &data = reports[i];
        if (data.error)
            continue;
        RankCandidate base{reportIndex[i], data.report.path, 0, false, data.environmentRank};
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
            base.pid = std::max_element(data.activityByPid.begin(), data.activityByPid.end(),
                                        [](const auto &a, const auto &b) { return a.second < b.second; })
                           ->first;
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
    const auto assignments = assignRanks(candidates, options.rankOverrides, trace.warnings);

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
        const auto &data = reports[std::size_t(std::find(reportIndex.begin(), reportIndex.end(), cand.report) -
                                               reportIndex.begin())];
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
        rankByProcess[{cand.report, cand.pid}] = index;
        firstRankOfReport.try_emplace(cand.report, index);
        trace.ranks.push_back(std::move(rank));
    }

    // Work of a process that is not a rank of its own belongs to its report's rank.
    auto rankFor = [&](std::uint32_t report, std::uint32_t pid) {
        if (auto it = rankByProcess.find({report, pid}); it != rankByProcess.end())
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
        reports[i] = ReportData{}; // free the columns now that they moved
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
struct TableCost
{
    const char *table;
    std::uint64_t bytesPerRow;
};
constexpr TableCost kTableCosts[] = {
    {"CUPTI_ACTIVITY_KIND_KERNEL", 64}, {"CUPTI_ACTIVITY_KIND_MEMCPY", 56}, {"CUPTI_ACTIVITY_KIND_MEMSET", 56},
    {"CUPTI_ACTIVITY_KIND_RUNTIME", 40}, {"NVTX_EVENTS", 40},          {"StringIds", 96},
};

// MemAvailable in bytes, or nullopt where /proc/meminfo does not say (not Linux).
std::optional<std::uint64_t> memAvailableBytes()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib) {
        std::getline(in, unit);
        if (key == "MemAvailable:")
            return kib * 1024;
    }
    return std::nullopt;
}

// Refuses a capture that would not fit, before reading rows: swapping a machine for minutes
// and then failing is the worst outcome, and the row counts are known up front.
std::optional<LoadError> checkMemory(const std::vector<std::string> &files, const LoadOptions &options)
{
    const auto limit = options.memoryLimitBytes ? std::optional(options.memoryLimitBytes) : memAvailableBytes();
    if (!limit || files.empty())
        return std::nullopt;
    const auto estimate = estimateLoad(files);
    if (estimate.bytes <= *limit)
        return std::nullopt;
    std::string names;
    for (std::size_t i = 0; i < files.size() && i < 4; ++i)
        names += fmt::format("{}{}", i ? ", " : "", files[i]);
    if (files.size() > 4)
        names += fmt::format(" and {} more", files.size() - 4);
    const std::string available = options.memoryLimitBytes
        ? fmt::format("the limit is {}", formatBytes(*limit))
        : fmt::format("only {} is available (MemAvailable)", formatBytes(*limit));
    return LoadError{files.size() == 1 ? files.front() : names,
                     fmt::format("{}: too large to load: {} rows need an estimated {} of memory, but {}; "
                                 "open fewer ranks or free memory",
                                 names, estimate.rows, formatBytes(estimate.bytes), available)};
}

} // namespace

LoadEstimate estimateLoad(const std::vector<std::string> &files)
{
    LoadEstimate estimate;
    for (const auto &file : files) {
        try {
            std::error_code ec;
            if (!fs::is_regular_file(file, ec))
                continue;
            detail::Database db(file);
            for (const auto &[table, bytesPerRow] : kTableCosts) {
                if (!db.hasTable(table))
                    continue;
                // nsys tables are rowid tables that are only appended to: max(rowid) is the row
                // count (an upper bound otherwise) without scanning, unlike count(*).
                detail::Statement stmt(db.handle(), fmt::format("SELECT max(rowid) FROM \"{}\"", table));
                if (stmt.step() && !stmt.isNull(0) && stmt.int64(0) > 0) {
                    const auto rows = std::uint64_t(stmt.int64(0));
                    estimate.rows += rows;
                    estimate.bytes += rows * bytesPerRow;
                }
            }
        } catch (const std::exception &) {
            // Unreadable here means unreadable when loading: readReport names the problem.
        }
    }
    return estimate;
}

std::vector<std::string> expandInputs(const std::vector<std::string> &inputs, std::vector<LoadError> &errors)
{
    std::vector<std::string> files;
    for (const auto &input : inputs) {
        std::error_code ec;
        if (!fs::is_directory(input, ec)) {
            files.push_back(input);
            continue;
        }
        std::vector<std::string> found;
        for (const auto &entry : fs::directory_iterator(input, ec))
            if (entry.is_regular_file(ec) && entry.path().extension() == ".sqlite")
                found.push_back(entry.path().string());
        if (found.empty()) {
            errors.push_back({input, fmt::format("{}: is a folder without any .sqlite export", input)});
            continue;
        }
        std::sort(found.begin(), found.end(), naturalLess);
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

std::shared_ptr<TraceSet> loadTraceSet(const LoadOptions &options, const ProgressFn &progress,
                                       const CancelToken *cancel)
{
    auto trace = std::make_shared<TraceSet>();
    const auto files = expandInputs(options.files, trace->errors);
    const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    if (auto tooLarge = checkMemory(files, options)) {
        trace->errors.push_back(std::move(*tooLarge));
        return trace;
    }
    try {
        auto reports = readReports(files, threads, options.directTableScan, trace->strings, progress, cancel);
        mergeIntoTrace(*trace, reports, options);
    } catch (const detail::CancelledError &) {
        auto cancelled = std::make_shared<TraceSet>();
        cancelled->cancelled = true;
        return cancelled;
    }
    finalizeTraceSet(*trace, threads);
    return trace;
}

std::optional<RankOverride> parseRankOverride(const std::string &spec)
{
    const auto eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 >= spec.size())
        return std::nullopt;
    RankOverride result;
    try {
        std::size_t used = 0;
        const auto rankText = spec.substr(eq + 1);
        const long rank = std::stol(rankText, &used);
        if (used != rankText.size() || rank < 0)
            return std::nullopt;
        result.rank = std::int32_t(rank);
        result.file = spec.substr(0, eq);
        // FILE:PID=RANK — a trailing ":digits" names one process of the file.
        if (const auto colon = result.file.rfind(':'); colon != std::string::npos && colon + 1 < result.file.size()) {
            const auto pidText = result.file.substr(colon + 1);
            if (pidText.find_first_not_of("0123456789") == std::string::npos) {
                result.pid = std::uint32_t(std::stoul(pidText));
                result.file = result.file.substr(0, colon);
            }
        }
    } catch (const std::exception &) {
        return std::nullopt;
    }
    return result;
}

} // namespace gaplens::core
