// SPDX-License-Identifier: MIT
#include "bench_top_kernels.h"

#include "bench_process.h"

#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/read/loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace gaplens::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kTop = 15;

// The top-kernels SQL a user types into the sqlite3 shell: names from StringIds, grouped by
// short name, the longest total first.
constexpr const char *kTopKernelsSql
    = "SELECT s.value AS name, COUNT(*) AS calls, SUM(k.\"end\" - k.start) AS total, AVG(k.\"end\" - k.start) AS avg "
      "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.shortName "
      "GROUP BY k.shortName ORDER BY total DESC LIMIT 15;";

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double peakResidentBytes()
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) * 1024.0;
    return 0;
}

// The shell's rows ("name|calls|total|avg"): the top kernels' calls and total time, summed.
std::map<std::string, double> sqliteAnswer(const std::string &out)
{
    double calls = 0, total = 0, rows = 0;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
        const auto avg = line.rfind('|');
        const auto tot = line.rfind('|', avg - 1);
        const auto cnt = line.rfind('|', tot - 1);
        if (avg == std::string::npos || tot == std::string::npos || cnt == std::string::npos)
            continue;
        calls += std::stod(line.substr(cnt + 1, tot - cnt - 1));
        total += std::stod(line.substr(tot + 1, avg - tot - 1));
        ++rows;
    }
    return { { "top_calls", calls }, { "top_total_ns", total }, { "rows", rows } };
}

} // namespace

int childTopKernels(unsigned threads, const std::string &file)
{
    const auto t0 = Clock::now();
    core::LoadOptions options;
    options.files = { file };
    options.threads = threads;
    options.tables = core::kKernelSummaryTables; // what `gaplens-cli kernels` reads
    const auto trace = core::loadTraceSet(options);
    const double load = secondsSince(t0);
    const auto t1 = Clock::now();
    const auto summary = core::summarizeKernels(*trace);
    double calls = 0, total = 0;
    const auto rows = std::min(kTop, summary.rows.size());
    for (std::size_t i = 0; i < rows; ++i) {
        calls += double(summary.rows[i].stats.count);
        total += double(summary.rows[i].stats.totalNs);
    }
    const double summarize = secondsSince(t1);
    fmt::print("load {:.9g}\nsummarize {:.9g}\nseconds {:.9g}\nhwm {:.9g}\nerrors {}\nkernels {}\n", load, summarize,
        secondsSince(t0), peakResidentBytes(), trace->errors.size(), summary.instances);
    fmt::print("top_calls {:.9g}\ntop_total_ns {:.9g}\nrows {}\n", calls, total, rows);
    return 0;
}

std::map<std::string, double> measureTopKernels(const std::string &file, int runs)
{
    // Alternating, so a slow period of the shared machine slows both alike; the first pair
    // warms the page cache and is not counted.
    std::map<std::string, std::vector<double>> values;
    std::map<std::string, double> gaplensAnswer, shellAnswer;
    for (int i = 0; i <= runs; ++i) {
        const auto own = runProcess({ "/proc/self/exe", "--child-top-kernels", "0", file });
        const auto shell = runProcess({ "sqlite3", "-readonly", file, kTopKernelsSql });
        gaplensAnswer = parseFigures(own.out);
        shellAnswer = sqliteAnswer(shell.out);
        if (i == 0)
            continue;
        values["gaplens_wall"].push_back(own.wallSeconds);
        values["gaplens_rss"].push_back(own.maxRssBytes);
        values["sqlite3_wall"].push_back(shell.wallSeconds);
        values["sqlite3_rss"].push_back(shell.maxRssBytes);
        for (const char *key : { "load", "summarize", "seconds" })
            values[std::string("gaplens_") + key].push_back(gaplensAnswer.at(key));
    }
    std::map<std::string, double> f;
    for (const auto &[key, v] : values)
        f[key] = median(v);
    f["ratio"] = f["sqlite3_wall"] > 0 ? f["gaplens_wall"] / f["sqlite3_wall"] : 0;
    f["kernels"] = gaplensAnswer.at("kernels");
    f["same_answer"] = gaplensAnswer.at("top_calls") == shellAnswer.at("top_calls")
            && gaplensAnswer.at("top_total_ns") == shellAnswer.at("top_total_ns")
            && gaplensAnswer.at("rows") == shellAnswer.at("rows")
        ? 1
        : 0;

    fmt::print("\ntop kernels (issue #19, target 1): `gaplens-cli kernels --top 15` vs the sqlite3 shell's SQL, one "
               "file, {:.0f} kernels, medians of {} alternating runs, {} hardware threads\n",
        f["kernels"], runs, std::thread::hardware_concurrency());
    fmt::print("  {:<50} {:>9} {:>10}\n", "", "wall s", "peak MiB");
    fmt::print("  {:<50} {:>9.3f} {:>10.1f}\n", "gaplens (process: load kernel table set + top 15)", f["gaplens_wall"],
        f["gaplens_rss"] / 1048576.0);
    fmt::print("  {:<50} {:>9.3f}\n", "  of which the load", f["gaplens_load"]);
    fmt::print("  {:<50} {:>9.3f}\n", "  of which summarizeKernels", f["gaplens_summarize"]);
    fmt::print("  {:<50} {:>9.3f} {:>10.1f}\n", "sqlite3 shell, top-kernels SQL", f["sqlite3_wall"],
        f["sqlite3_rss"] / 1048576.0);
    fmt::print("  {:<50} {:>9.2f}x (target <= 0.5x: {}); same top 15 (calls, total): {}\n", "gaplens / sqlite3",
        f["ratio"], f["ratio"] <= 0.5 ? "met" : "not met", f["same_answer"] != 0 ? "yes" : "NO");
    return f;
}

} // namespace gaplens::bench
