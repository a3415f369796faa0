// SPDX-License-Identifier: MIT
// gaplens-bench: generates (or reuses) a capture, then measures the single-threaded SQLite
// floor, loading with 1 and 2 threads (per phase), peak memory per event and the analyses,
// each measurement in a fresh child process so peaks and caches of one do not leak into the
// next. Prints a table and optionally JSON; every time is also given as a ratio to the floor.
// Usage: see --help and docs/PERFORMANCE.md.
#include "bench_floor.h"
#include "bench_mpi.h"
#include "bench_process.h"
#include "bench_top_kernels.h"

#include "gaplens/core/analysis/analysis.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/replicate.h"
#include "gaplens/core/write/synth.h"

#include <fmt/format.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gaplens::bench {
namespace {

namespace fs = std::filesystem;
using namespace gaplens::core;
using Clock = std::chrono::steady_clock;
using Figures = std::map<std::string, double>;

// The interval lengths the bench times computeIntervals at: figure-name suffix and length.
constexpr std::pair<const char *, std::int64_t> kIntervalLengths[]
    = { { "1s", 1'000'000'000 }, { "100ms", 100'000'000 }, { "10ms", 10'000'000 } };

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time of this process (all threads, user + system): on a shared machine wall time
// includes waiting for a core, CPU time does not.
double cpuSeconds()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    auto s = [](const timeval &t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return s(usage.ru_utime) + s(usage.ru_stime);
}

// CPU time of the calling thread: an analysis task's own time, whatever runs beside it.
double threadCpuSeconds()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

// VmHWM / VmRSS of this process in bytes.
double procStatusBytes(const char *key)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string prefix = std::string(key) + ":";
    while (std::getline(in, line))
        if (line.rfind(prefix, 0) == 0)
            return std::stod(line.substr(prefix.size())) * 1024.0;
    return 0;
}

// ---- child side: one measurement, figures printed as "key value" lines ----

void print(const Figures &figures)
{
    for (const auto &[key, value] : figures)
        fmt::print("{} {:.9g}\n", key, value);
}

int childFloor(const std::vector<std::string> &files)
{
    const auto t0 = Clock::now();
    const double cpu0 = cpuSeconds();
    const auto result = readFloor(files);
    print({ { "seconds", secondsSince(t0) }, { "cpu", cpuSeconds() - cpu0 }, { "rows", double(result.rows) },
        { "checksum", double(result.checksum % 1000) } });
    return 0;
}

// Per-phase wall time of each worker, from the loader's stage callbacks: the time between a
// worker's stage k and stage k+1 belongs to stage k.
class PhaseClock
{
public:
    explicit PhaseClock(Clock::time_point start)
        : m_start(start)
    {
    }
    void onStage(const std::string &stage)
    {
        const auto now = Clock::now();
        auto [it, inserted] = m_workers.try_emplace(std::this_thread::get_id(), Worker { m_start, "open" });
        m_seconds[it->second.stage] += std::chrono::duration<double>(now - it->second.since).count();
        it->second = { now, stage };
        m_lastDone = now;
    }
    const std::map<std::string, double> &seconds() const { return m_seconds; }
    Clock::time_point lastStage() const { return m_lastDone; }

private:
    struct Worker
    {
        Clock::time_point since;
        std::string stage;
    };
    Clock::time_point m_start, m_lastDone;
    std::map<std::thread::id, Worker> m_workers;
    std::map<std::string, double> m_seconds;
};

std::string phaseKey(const std::string &stage)
{
    if (stage == "CUDA API calls")
        return "runtime";
    if (stage == "OS runtime calls")
        return "osrt";
    if (stage == "NVTX")
        return "nvtx";
    if (stage == "threads and processes")
        return "threads";
    return stage;
}

template <typename F> double timed(F &&f)
{
    const auto t0 = Clock::now();
    f();
    return secondsSince(t0);
}

// Streams through a buffer larger than any last-level cache, so the next analysis starts with
// none of the capture cached: at both sizes of the scaling check, as it would after the user
// has done something else, instead of the small capture alone still sitting in the caches
// its load just filled.
volatile std::uint64_t g_evictionSink; // keeps the eviction reads from being optimised away

void evictCaches()
{
    static std::vector<std::uint64_t> buffer(std::size_t(512) << 20 >> 3, 1);
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < buffer.size(); i += 8) // one read per 64-byte line
        sum += buffer[i];
    g_evictionSink = sum;
}

LoadOptions loadOptions(const std::vector<std::string> &files, unsigned threads)
{
    LoadOptions options;
    options.files = files;
    options.threads = threads;
    return options;
}

// `coldCaches`: every analysis starts after evictCaches() (with one thread only, where they
// run one after another).
int childLoad(
    unsigned threads, bool analyses, bool coldCaches, bool directTableScan, const std::vector<std::string> &files)
{
    Figures out;
    out["rss_before"] = procStatusBytes("VmRSS");
    LoadOptions options = loadOptions(files, threads);
    options.directTableScan = directTableScan;
    const double cpu0 = cpuSeconds();
    const auto t0 = Clock::now();
    PhaseClock phases(t0);
    // The loader calls progress under its own lock: no further locking here.
    const auto trace = loadTraceSet(options, [&](const LoadProgress &p) { phases.onStage(p.stage); });
    const double loadSeconds = secondsSince(t0);
    out["load"] = loadSeconds;
    out["cpu_load"] = cpuSeconds() - cpu0;
    out["hwm_load"] = procStatusBytes("VmHWM");
    out["errors"] = double(trace->errors.size());
    for (const auto &[stage, s] : phases.seconds())
        if (stage != "done")
            out["phase_" + phaseKey(stage)] = s;
    out["phase_merge_finalize"]
        = std::chrono::duration<double>(Clock::now() - phases.lastStage()).count() - (secondsSince(t0) - loadSeconds);
    out["estimate_seconds"] = timed([&] { out["estimate_bytes"] = double(estimateLoad(files).bytes); });

    double kernels = 0, copies = 0, calls = 0, ranges = 0, marks = 0, rows = 0;
    for (const auto &gpu : trace->gpus) {
        kernels += double(gpu.kernelCount());
        copies += double(gpu.copies.size());
    }
    for (const auto &t : trace->threads) {
        calls += double(t.api.size());
        ranges += double(t.nvtx.size());
        marks += double(t.marks.size());
    }
    for (const auto &r : trace->reports)
        rows += double(r.notes.rowsRead);
    out["kernels"] = kernels;
    out["copies"] = copies;
    out["api_calls"] = calls;
    out["nvtx_ranges"] = ranges;
    out["nvtx_marks"] = marks;
    out["events"] = kernels + copies + calls + ranges + marks;
    out["rows_read"] = rows;

    if (analyses) {
        const double cpuAnalyses = cpuSeconds();
        // Independent analyses, run as the app's panels run them: concurrently, on as many
        // workers as the load used. Each task writes its own figures (no shared map writes).
        struct Task
        {
            const char *key;
            std::function<void(Figures &)> run;
            Figures figures;
        };
        std::vector<Task> tasks;
        tasks.push_back({ "a_busy_gaps",
            [&](Figures &f) {
                std::size_t gaps = 0;
                for (const auto &b : computeAllGpuBusy(*trace))
                    gaps += findIdleGaps(b).count();
                f["gaps"] = double(gaps);
            },
            {} });
        tasks.push_back(
            { "a_blame", [&](Figures &f) { f["blamed_gaps"] = double(blameGaps(*trace).gaps.size()); }, {} });
        tasks.push_back({ "a_top_kernels",
            [&](Figures &f) { f["kernel_names"] = double(summarizeKernels(*trace).rows.size()); }, {} });
        tasks.push_back({ "a_pace_steps",
            [&](Figures &f) {
                const auto name = proposePaceRangeName(*trace);
                if (!name)
                    return;
                PaceOptions pace;
                pace.rangeName = *name;
                const auto report = computePace(*trace, pace);
                const auto steps = computeStepAccounting(*trace, report);
                f["pace_iterations"] = double(report.iterations.size());
                f["step_rows"] = double(steps.size());
            },
            {} });
        tasks.push_back(
            { "a_nvtx_summary", [&](Figures &f) { f["nvtx_names"] = double(summarizeNvtx(*trace).rows.size()); }, {} });
        tasks.push_back(
            { "a_api_summary", [&](Figures &f) { f["api_names"] = double(summarizeApi(*trace).rows.size()); }, {} });
        // `gaplens-cli intervals --interval 1s`, `100ms` and `10ms` (issue #14 asks for 1 s and
        // 10 ms against the load): the derived capture's busy lanes (kernels only, as the CLI
        // builds them), then the interval statistics on one thread at each length, timed alone.
        tasks.push_back({ "a_intervals",
            [&](Figures &f) {
                DerivedOptions derivedOptions;
                derivedOptions.foldIndexes = false;
                const auto derived = DerivedCapture::build(trace, derivedOptions);
                for (const auto &[suffix, lengthNs] : kIntervalLengths) {
                    IntervalOptions intervalOptions;
                    intervalOptions.intervalNs = lengthNs;
                    intervalOptions.threads = 1;
                    std::size_t intervals = 0;
                    f[std::string("intervals_compute_") + suffix] = timed([&] {
                        const auto report = computeIntervals(*derived, intervalOptions);
                        for (const auto &rank : report.ranks)
                            intervals += rank.intervals.size();
                    });
                    f[std::string("intervals_") + suffix] = double(intervals);
                }
            },
            {} });
        // The first four are what the app computes when a capture opens (timeline worker and
        // panels); the NVTX and CUDA API summaries are the CLI's `nvtx` and `api` commands.
        // Tasks start in this order, so "open" is when the first four have all finished.
        constexpr std::size_t kOpenTasks = 4;
        std::atomic<std::size_t> next { 0 };
        std::vector<Clock::time_point> finished(tasks.size());
        const auto analysesStart = Clock::now();
        auto work = [&] {
            for (std::size_t i = next++; i < tasks.size(); i = next++) {
                if (coldCaches)
                    evictCaches();
                const double taskCpu0 = threadCpuSeconds();
                tasks[i].figures[tasks[i].key] = timed([&] { tasks[i].run(tasks[i].figures); });
                tasks[i].figures[std::string("cpu_") + tasks[i].key] = threadCpuSeconds() - taskCpu0;
                finished[i] = Clock::now();
            }
        };
        out["analyses"] = timed([&] {
            std::vector<std::thread> workers;
            for (unsigned w = 1; w < std::max(1u, threads); ++w)
                workers.emplace_back(work);
            work();
            for (auto &w : workers)
                w.join();
        });
        for (const auto &task : tasks)
            for (const auto &[key, value] : task.figures)
                out[key] = value;
        out["analyses_open"] = std::chrono::duration<double>(
            *std::max_element(finished.begin(), finished.begin() + kOpenTasks) - analysesStart)
                                   .count();
        out["hwm_analyses"] = procStatusBytes("VmHWM");
        out["cpu_analyses"] = cpuSeconds() - cpuAnalyses;
    }
    print(out);
    return 0;
}

// `gaplens-cli gaps --format json` on `files`: the load (the tables gap blame declares, as
// the command loads them) and the derived capture it builds (busy, gaps, blame, phase; no
// fold indexes). `splitTables` false keeps every table's scan on one thread
// (LoadOptions::splitTables).
int childGaps(unsigned threads, bool splitTables, const std::vector<std::string> &files)
{
    LoadOptions options = loadOptions(files, threads);
    options.tables = kGapBlameTables;
    options.splitTables = splitTables;
    const double cpu0 = cpuSeconds();
    const auto t0 = Clock::now();
    std::shared_ptr<const TraceSet> trace = loadTraceSet(options);
    const double loadSeconds = secondsSince(t0);
    const double loadCpu = cpuSeconds() - cpu0;
    DerivedOptions derivedOptions;
    derivedOptions.foldIndexes = false;
    const auto derived = DerivedCapture::build(trace, derivedOptions);
    print({ { "load", loadSeconds }, { "cpu_load", loadCpu }, { "seconds", secondsSince(t0) },
        { "cpu", cpuSeconds() - cpu0 }, { "errors", double(trace->errors.size()) },
        { "gaps", double(derived->overallTotals().gapCount) } });
    return 0;
}

#ifdef GAPLENS_CLI_PATH
// `gaplens-cli gaps --format FORMAT --threads N` on `files` end to end, its output (21 MB of
// JSON on the big file) written to /dev/null as to a user's file: the analysis above plus a
// row per gap. --no-cache: target 2 is about reading the export; a run from the report cache
// would map its columns instead (measured by --cache), and would write into the user's cache.
int childCliGaps(const std::string &threads, const std::string &format, const std::vector<std::string> &files)
{
    std::vector<std::string> argv { GAPLENS_CLI_PATH, "gaps", "--no-cache", "--format", format, "--threads", threads };
    argv.insert(argv.end(), files.begin(), files.end());
    const auto run = runProcess(argv, true);
    print({ { "seconds", run.wallSeconds }, { "cpu", run.cpuSeconds } });
    return 0;
}
#endif

// ---- parent side ----

// Runs this program again with `args` and parses its "key value" lines: a fresh process per
// measurement, so VmHWM is that measurement's peak alone.
// One load with the report cache (issue #19, target 5): `off` without it, `write` into an
// emptied cache folder (every report read from its export, then written), `hit` from the
// entries `write` left (every report must come from them).
int childCacheLoad(
    unsigned threads, const std::string &mode, const fs::path &cacheDir, const std::vector<std::string> &files)
{
    Figures out;
    LoadOptions options = loadOptions(files, threads);
    if (mode == "write")
        fs::remove_all(cacheDir);
    if (mode != "off") {
        options.cache.directory = cacheDir;
        options.cache.maxBytes = ~std::uint64_t(0);
    }
    const double cpu0 = cpuSeconds();
    const auto t0 = Clock::now();
    std::mutex mutex;
    auto lastCacheRead = t0;
    const auto trace = loadTraceSet(options, [&](const LoadProgress &p) {
        if (p.stage == "cache") {
            std::lock_guard lock(mutex);
            lastCacheRead = Clock::now();
        }
    });
    out["seconds"] = secondsSince(t0);
    out["cpu"] = cpuSeconds() - cpu0;
    out["hwm"] = procStatusBytes("VmHWM");
    // After the load: the process's own memory, and the entries' pages its columns view
    // (file-backed: the OS can drop and read them again, so they are not memory it holds).
    out["rss_anon"] = procStatusBytes("RssAnon");
    out["rss_file"] = procStatusBytes("RssFile");
    out["cache_read"] = std::chrono::duration<double>(lastCacheRead - t0).count();
    double fromCache = 0;
    for (const auto &report : trace->reports)
        fromCache += report.readFromCache ? 1 : 0;
    if (!trace->errors.empty() || (mode == "hit" && fromCache != double(files.size())))
        throw std::runtime_error(fmt::format("the {} load took {} of {} reports from the cache, {} errors", mode,
            fromCache, files.size(), trace->errors.size()));
    out["from_cache"] = fromCache;
    double entryBytes = 0;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(cacheDir, ec))
        entryBytes += double(entry.file_size(ec));
    out["entry_bytes"] = entryBytes;
    print(out);
    return 0;
}

Figures runChild(const std::vector<std::string> &args)
{
    std::vector<std::string> argv { "/proc/self/exe" };
    argv.insert(argv.end(), args.begin(), args.end());
    return parseFigures(runProcess(argv).out);
}

// Runs every measurement `runs` times, round-robin (all of them once, then all again), so a
// slow period of a shared machine slows every figure alike instead of all runs of one (the
// floor once came out 44% slower than in the run before while the loads did not move).
// Every figure becomes the median over its runs.
std::vector<Figures> mediansInterleaved(const std::vector<std::vector<std::string>> &measurements, int runs)
{
    std::vector<std::map<std::string, std::vector<double>>> values(measurements.size());
    for (int i = 0; i < runs; ++i)
        for (std::size_t m = 0; m < measurements.size(); ++m)
            for (const auto &[k, v] : runChild(measurements[m]))
                values[m][k].push_back(v);
    std::vector<Figures> result(measurements.size());
    for (std::size_t m = 0; m < measurements.size(); ++m)
        for (auto &[k, v] : values[m])
            result[m][k] = median(v);
    return result;
}

struct Args
{
    int ranks = 8;
    std::size_t kernels = 1'000'000, runtime = 2'000'000, nvtx = 4'000'000;
    std::string dir = "/tmp/gaplens-bench";
    std::string json;
    std::string fromReal;
    int repeat = 10;
    int runs = 3;
    int scale = 10; // the small capture for the n log n check has 1/scale of the events
    bool skipScaling = false;
    bool topKernelsOnly = false; // only the top-kernels figure (one file)
    bool splitOnly = false; // only the page-range split's figures (runSplit)
    bool mpiOnly = false; // only gaplens-mpi at P = 1, 2, 4 (measureMpi)
    bool cacheOnly = false; // only the report cache's figures (runCache)
};

void usage()
{
    fmt::print("usage: gaplens-bench [--ranks N] [--kernels N] [--runtime N] [--nvtx N] [--dir DIR]\n"
               "                     [--from-real FILE --repeat N] [--runs N] [--scale N] [--no-scaling]\n"
               "                     [--top-kernels-only] [--json FILE] [--split] [--mpi] [--cache]\n"
               "  --kernels/--runtime/--nvtx  per-rank kernels, runtime calls and NVTX ranges of the\n"
               "                              synthetic capture (default 1000000 / 2000000 / 4000000)\n"
               "  --from-real FILE --repeat N a capture made of FILE's activity repeated N times instead\n"
               "  --dir DIR                   where captures are written and reused (default /tmp/gaplens-bench)\n"
               "  --runs N                    repetitions of every measurement; medians are reported (3)\n"
               "  --scale N                   the n log n check compares with a capture N times smaller (10)\n"
               "  --top-kernels-only          only `kernels --top 15` against the sqlite3 shell's SQL (needs\n"
               "                              one file: --from-real; measured after the rest otherwise)\n"
               "  --cache                     only the report cache: load, first open writing it, reopen\n"
               "  --split                     only `gaps` on the capture with 1 and 2 threads against the floor\n"
               "                              (the page-range split of one file, docs/PERFORMANCE.md)\n"
               "  --mpi                       only `mpirun -np P gaplens-mpi intervals` and `kernels` on the\n"
               "                              capture, and `kernels`, `nvtx`, `gaps` and `intervals` on its\n"
               "                              first file in time shards, at P = 1, 2, 4 (built with MPI\n"
               "                              only; docs/mpi.md)\n");
}

// Writes the capture unless DIR already holds one made with the same parameters.
std::vector<std::string> ensureCapture(
    const Args &args, const std::string &dir, std::size_t divisor, double &genSeconds)
{
    std::string stamp;
    if (args.fromReal.empty()) {
        // v3: the generator writes NVTX ranges in start order, as nsys does.
        stamp = fmt::format("synth v3 ranks={} kernels={} runtime={} nvtx={}", args.ranks, args.kernels / divisor,
            args.runtime / divisor, args.nvtx / divisor);
    } else {
        const auto size = fs::file_size(args.fromReal);
        stamp = fmt::format("real v1 {} size={} repeat={}", fs::absolute(args.fromReal).string(), size,
            std::max<std::size_t>(1, std::size_t(args.repeat) / divisor));
    }
    const auto stampFile = fs::path(dir) / "gaplens-bench.params";
    std::vector<std::string> files;
    {
        std::ifstream in(stampFile);
        std::string line;
        std::getline(in, line);
        if (line == stamp) {
            while (std::getline(in, line))
                if (!line.empty() && fs::exists(line))
                    files.push_back(line);
                else
                    files.clear();
            if (!files.empty())
                return files;
        }
    }
    fs::remove_all(dir);
    fs::create_directories(dir);
    fmt::print(stderr, "writing capture in {} ({})...\n", dir, stamp);
    const auto t0 = Clock::now();
    if (args.fromReal.empty()) {
        SynthOptions options;
        options.ranks = args.ranks;
        options.scaleKernelsPerRank = args.kernels / divisor;
        options.scaleRuntimePerRank = args.runtime / divisor;
        options.scaleNvtxPerRank = args.nvtx / divisor;
        files = writeSyntheticCapture(dir, options).files;
    } else {
        ReplicateOptions options;
        options.repeat = int(std::max<std::size_t>(1, std::size_t(args.repeat) / divisor));
        const auto target = (fs::path(dir) / (fs::path(args.fromReal).stem().string() + ".sqlite")).string();
        replicateExport(args.fromReal, target, options);
        files = { target };
    }
    genSeconds = secondsSince(t0);
    std::ofstream out(stampFile);
    out << stamp << '\n';
    for (const auto &f : files)
        out << f << '\n';
    return files;
}

std::string jsonObject(const Figures &f)
{
    std::string s = "{";
    for (const auto &[k, v] : f)
        s += fmt::format("{}\"{}\": {:.9g}", s.size() > 1 ? ", " : "", k, v);
    return s + "}";
}

// The top-kernels figure of one file, alone: `--top-kernels-only`.
int runTopKernelsOnly(const Args &args, const std::vector<std::string> &files)
{
    if (files.size() != 1)
        throw std::runtime_error("--top-kernels-only compares with the sqlite3 shell on one file: use --from-real");
    const auto figures = measureTopKernels(files.front(), args.runs);
    if (!args.json.empty()) {
        std::ofstream out(args.json);
        out << fmt::format("{{\n  \"file\": \"{}\", \"file_bytes\": {}, \"runs\": {},\n  \"top_kernels\": {}\n}}\n",
            files.front(), fs::file_size(files.front()), args.runs, jsonObject(figures));
        fmt::print("\nJSON written to {}\n", args.json);
    }
    return 0;
}

// How many cores this process actually gets on the shared machine: the same fixed work on two
// threads at once against one thread, as a speed-up (2.0: two free cores; 1.0: one core's
// worth, the other taken by someone else). A 2-thread figure cannot beat what this allows.
double freeCores()
{
    auto spin = [] {
        volatile std::uint64_t sink = 0;
        for (std::uint64_t i = 0; i < 300'000'000; ++i)
            sink = sink + i;
    };
    const double one = timed(spin);
    const double two = timed([&] {
        std::thread other(spin);
        spin();
        other.join();
    });
    return two > 0 ? 2 * one / two : 0;
}

// Issue #19, target 2: one big file's `gaps` command with 1 and 2 threads, each table's scan
// split over the threads (and, for comparison, 2 threads without that split), as ratios to
// the single-threaded floor over the same file measured in the same run.
int runSplit(const Args &args)
{
    double genSeconds = 0;
    const auto files = ensureCapture(args, args.dir, 1, genSeconds);
    auto withFiles = [&](std::vector<std::string> a) {
        a.insert(a.end(), files.begin(), files.end());
        return a;
    };
    fmt::print(
        stderr, "measuring the page-range split: floor, gaps with 1 and 2 threads, {} runs each...\n", args.runs);
    runChild(withFiles({ "--child-floor" }));
    const double coresBefore = freeCores();
    std::vector<std::vector<std::string>> measurements { withFiles({ "--child-floor" }),
        withFiles({ "--child-gaps", "1", "split" }), withFiles({ "--child-gaps", "2", "split" }),
        withFiles({ "--child-gaps", "2", "nosplit" }) };
#ifdef GAPLENS_CLI_PATH
    measurements.push_back(withFiles({ "--child-cli-gaps", "2", "table" }));
    measurements.push_back(withFiles({ "--child-cli-gaps", "2", "json" }));
#endif
    const auto medians = mediansInterleaved(measurements, args.runs);
    std::uint64_t fileBytes = 0;
    for (const auto &f : files)
        fileBytes += fs::file_size(f);
    const Figures &floor = medians[0];
    const double fl = floor.at("seconds"), flCpu = floor.at("cpu");
    fmt::print("\npage-range split of one file (issue #19, target 2): {} file(s), {:.1f} MiB, medians of {} runs; "
               "{} hardware threads\n\n",
        files.size(), double(fileBytes) / 1048576.0, args.runs, std::thread::hardware_concurrency());
    fmt::print("{:<44} {:>8} {:>8} {:>8} {:>8}\n", "figure", "wall s", "x floor", "CPU s", "x floor");
    auto row = [&](const std::string &name, double wall, double cpu) {
        fmt::print("{:<44} {:>8.3f} {:>8.2f} {:>8.3f} {:>8.2f}\n", name, wall, wall / fl, cpu, cpu / flCpu);
    };
    row("floor: sqlite3_step, 1 thread", fl, flCpu);
    const char *names[] = { "gaps, 1 thread", "gaps, 2 threads, tables split", "gaps, 2 threads, no table split" };
    for (std::size_t i = 1; i < 4; ++i) {
        row(names[i - 1], medians[i].at("seconds"), medians[i].at("cpu"));
        row("  of which the load", medians[i].at("load"), medians[i].at("cpu_load"));
    }
    const bool endToEnd = medians.size() > 4;
    const char *formats[] = { "table", "json" };
    if (endToEnd)
        for (std::size_t f = 0; f < 2; ++f)
            row(fmt::format("cli gaps --no-cache --format {}, 2 threads", formats[f]), medians[4 + f].at("seconds"),
                medians[4 + f].at("cpu"));
    fmt::print("\ncores this process got (two threads' speed-up on fixed work): {:.2f} before, {:.2f} after\n",
        coresBefore, freeCores());
    const double target = 0.45, got = medians[2].at("seconds") / fl;
    fmt::print("\ntarget: gaps with 2 threads <= {:.2f}x the floor: {:.2f}x, {}\n", target, got,
        got <= target ? "met" : "not met");
    if (endToEnd)
        for (std::size_t f = 0; f < 2; ++f) {
            const double command = medians[4 + f].at("seconds") / fl;
            fmt::print("        gaplens-cli gaps --format {} end to end: {:.2f}x, {}\n", formats[f], command,
                command <= target ? "met" : "not met");
        }
    return 0;
}

// The report cache: a plain load, a first load that writes the entries and a reopen from them,
// interleaved, each on 2 threads (issue #19, target 5: the reopen <= 0.1x the first load).
int runCache(const Args &args)
{
    double genSeconds = 0;
    const auto files = ensureCapture(args, args.dir, 1, genSeconds);
    const auto cacheDir = (fs::path(args.dir) / "report-cache").string();
    auto withFiles = [&](std::vector<std::string> a) {
        a.insert(a.end(), files.begin(), files.end());
        return a;
    };
    fmt::print(
        stderr, "measuring the report cache: load, first load with the cache, reopen; {} runs each...\n", args.runs);
    const auto medians = mediansInterleaved({ withFiles({ "--child-cache-load", "2", "off", cacheDir }),
                                                withFiles({ "--child-cache-load", "2", "write", cacheDir }),
                                                withFiles({ "--child-cache-load", "2", "hit", cacheDir }) },
        args.runs);
    std::uint64_t fileBytes = 0;
    for (const auto &f : files)
        fileBytes += fs::file_size(f);
    const double plain = medians[0].at("seconds");
    fmt::print("\nreport cache (issue #19, target 5): {} file(s), {:.1f} MiB of SQLite, entries {:.1f} MiB; "
               "2 threads, medians of {} runs\n\n",
        files.size(), double(fileBytes) / 1048576.0, medians[1].at("entry_bytes") / 1048576.0, args.runs);
    fmt::print("{:<40} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10}\n", "load", "wall s", "x load", "CPU s", "peak MiB",
        "own MiB", "mapped MiB");
    const char *names[]
        = { "from the exports (--no-cache)", "first open: exports, entries written", "reopen: from the entries" };
    for (std::size_t i = 0; i < 3; ++i)
        fmt::print("{:<40} {:>8.3f} {:>8.2f} {:>8.3f} {:>10.0f} {:>10.0f} {:>10.0f}\n", names[i],
            medians[i].at("seconds"), medians[i].at("seconds") / plain, medians[i].at("cpu"),
            medians[i].at("hwm") / 1048576.0, medians[i].at("rss_anon") / 1048576.0,
            medians[i].at("rss_file") / 1048576.0);
    fmt::print("  (own: the process's memory after the load; mapped: entry pages its columns view, which the OS\n"
               "   can drop and read again; peak counts both)\n");
    fmt::print("  of which reading the entries         {:>8.3f}\n", medians[2].at("cache_read"));
    const double got = medians[2].at("seconds") / plain;
    fmt::print("\ntarget: reopen <= 0.10x the load: {:.2f}x, {}\n", got, got <= 0.10 ? "met" : "not met");
    fs::remove_all(cacheDir);
    return 0;
}

int runParent(const Args &args)
{
    if (args.splitOnly)
        return runSplit(args);
    if (args.cacheOnly)
        return runCache(args);
    double genSeconds = 0, smallGenSeconds = 0;
    const auto files = ensureCapture(args, args.dir, 1, genSeconds);
    if (args.topKernelsOnly)
        return runTopKernelsOnly(args, files);
    if (args.mpiOnly) {
#ifdef GAPLENS_MPI_PATH
        return measureMpi(GAPLENS_MPIEXEC, GAPLENS_MPI_PATH, files, args.runs);
#else
        throw std::runtime_error("--mpi needs gaplens-mpi, which was not built (no MPI found)");
#endif
    }
    std::uint64_t fileBytes = 0;
    for (const auto &f : files)
        fileBytes += fs::file_size(f);

    auto withFiles = [&](std::vector<std::string> a, const std::vector<std::string> &fs) {
        a.insert(a.end(), fs.begin(), fs.end());
        return a;
    };
    fmt::print(stderr,
        "measuring: floor, 1-thread and 2-thread loads with analyses, a load through SQLite statements, "
        "the scaling check hot and cold, {} runs each...\n",
        args.runs);
    // Warm the page cache once so the first measured run is not the only one reading the disk.
    runChild(withFiles({ "--child-floor" }, files));
    // The last one loads without the direct page scan (every row through sqlite3_step), to
    // show what the scan buys over the same loader on SQLite statements.
    std::vector<std::vector<std::string>> measurements
        = { withFiles({ "--child-floor" }, files), withFiles({ "--child-load", "1", "1", "direct" }, files),
              withFiles({ "--child-load", "2", "1", "direct" }, files),
              withFiles({ "--child-load", "1", "0", "sqlite" }, files) };
    std::vector<std::string> smallFiles;
    if (!args.skipScaling) {
        smallFiles = ensureCapture(args, args.dir + "-small", std::size_t(args.scale), smallGenSeconds);
        runChild(withFiles({ "--child-floor" }, smallFiles));
        // Compared with the 1-thread run: there each analysis runs alone, so the ratio is the
        // analysis's own growth, not how it shared a core or the memory bus with another.
        measurements.push_back(withFiles({ "--child-load", "1", "1", "direct" }, smallFiles));
        // And both sizes again with every analysis starting from cold caches.
        measurements.push_back(withFiles({ "--child-load", "1", "cold", "direct" }, files));
        measurements.push_back(withFiles({ "--child-load", "1", "cold", "direct" }, smallFiles));
    }
    const auto medians = mediansInterleaved(measurements, args.runs);
    const Figures &floor = medians[0], &load1 = medians[1], &load2 = medians[2], &loadSqlite = medians[3];
    const Figures small = args.skipScaling ? Figures {} : medians[4];
    const Figures largeCold = args.skipScaling ? Figures {} : medians[5];
    const Figures smallCold = args.skipScaling ? Figures {} : medians[6];

    const double fl = floor.at("seconds");
    const double events = load1.at("events");
    auto ratio = [&](double s) { return fl > 0 ? s / fl : 0; };
    auto perEvent = [&](const Figures &f, const char *key) { return (f.at(key) - f.at("rss_before")) / events; };

    fmt::print("\ngaplens-bench: {} file(s), {:.1f} MiB of SQLite, {:.0f} events loaded "
               "({:.0f} kernels, {:.0f} copies, {:.0f} API calls, {:.0f} NVTX ranges, {:.0f} marks)\n",
        files.size(), double(fileBytes) / 1048576.0, events, load1.at("kernels"), load1.at("copies"),
        load1.at("api_calls"), load1.at("nvtx_ranges"), load1.at("nvtx_marks"));
    fmt::print("medians of {} runs; {} hardware threads (shared machine: expect noise)\n\n", args.runs,
        std::thread::hardware_concurrency());
    const double flCpu = floor.at("cpu");
    fmt::print("{:<38} {:>10} {:>9} {:>12} {:>9} {:>9}\n", "figure", "wall s", "x floor", "rows/s", "CPU s", "x floor");
    auto row = [&](const std::string &name, double s, double rows = 0, double cpu = -1) {
        fmt::print("{:<38} {:>10.3f} {:>9.2f} {:>12} {:>9} {:>9}\n", name, s, ratio(s),
            rows > 0 && s > 0 ? fmt::format("{:.2f}M", rows / s / 1e6) : std::string(),
            cpu >= 0 ? fmt::format("{:.3f}", cpu) : std::string(),
            cpu >= 0 ? fmt::format("{:.2f}", cpu / flCpu) : std::string());
    };
    row("floor: sqlite3_step, 1 thread", fl, floor.at("rows"), flCpu);
    for (const auto *f : { &load1, &load2 }) {
        const bool one = f == &load1;
        row(one ? "load, 1 thread" : "load, 2 threads", f->at("load"), f->at("rows_read"), f->at("cpu_load"));
        for (const char *phase : { "open", "strings", "kernels", "copies", "runtime", "osrt", "nvtx", "threads" })
            if (f->count(std::string("phase_") + phase))
                row(fmt::format("  {} (thread-seconds)", phase), f->at(std::string("phase_") + phase));
        row("  merge + finalize", f->at("phase_merge_finalize"));
        row(one ? "load + open analyses, 1 thread" : "load + open analyses, 2 threads",
            f->at("load") + f->at("analyses_open"));
        row(one ? "load + all analyses, 1 thread" : "load + all analyses, 2 threads", f->at("load") + f->at("analyses"),
            0, f->at("cpu_load") + f->at("cpu_analyses"));
    }
    row("load, 1 thread, SQLite statements only", loadSqlite.at("load"), loadSqlite.at("rows_read"),
        loadSqlite.at("cpu_load"));
    row("analyses after the 2-thread load (wall, 2 workers)", load2.at("analyses"));
    for (const char *a :
        { "a_busy_gaps", "a_blame", "a_top_kernels", "a_pace_steps", "a_nvtx_summary", "a_api_summary" })
        row(fmt::format("  {} (thread-seconds)", a + 2), load2.at(a));
    row("  intervals (thread-seconds)", load2.at("a_intervals"));
    for (const auto &[suffix, lengthNs] : kIntervalLengths) {
        const double seconds = load2.at(std::string("intervals_compute_") + suffix);
        row(fmt::format("    of which computeIntervals, {}", suffix), seconds);
        fmt::print("{:<38} {:>10.3f} (x load, 2 threads, same run; {:.0f} intervals)\n",
            fmt::format("    computeIntervals {} / load", suffix),
            load2.at("load") > 0 ? seconds / load2.at("load") : 0.0, load2.at(std::string("intervals_") + suffix));
    }
    row("estimateLoad (memory guard)", load2.at("estimate_seconds"));

    fmt::print("\n{:<38} {:>10} {:>14}\n", "memory", "MiB", "bytes/event");
    auto mem = [&](const std::string &name, double bytes, double per) {
        fmt::print("{:<38} {:>10.1f} {:>14.1f}\n", name, bytes / 1048576.0, per);
    };
    mem("peak RSS after load, 1 thread", load1.at("hwm_load"), load1.at("hwm_load") / events);
    mem("  minus RSS before loading", load1.at("hwm_load") - load1.at("rss_before"), perEvent(load1, "hwm_load"));
    mem("peak RSS after load, 2 threads", load2.at("hwm_load"), load2.at("hwm_load") / events);
    mem("  minus RSS before loading", load2.at("hwm_load") - load2.at("rss_before"), perEvent(load2, "hwm_load"));
    mem("peak RSS incl. analyses, 2 threads", load2.at("hwm_analyses"), load2.at("hwm_analyses") / events);
    mem("memory guard estimate", load2.at("estimate_bytes"), load2.at("estimate_bytes") / events);
    mem("SQLite files", double(fileBytes), double(fileBytes) / events);

    Figures scaling;
    if (!small.empty()) {
        const double n = events, m = small.at("events");
        const double nlogn = (n * std::log2(n)) / (m * std::log2(m));
        scaling = { { "events_large", n }, { "events_small", m }, { "n_ratio", n / m }, { "nlogn_ratio", nlogn } };
        auto table = [&](const char *title, const Figures &smallRun, const Figures &largeRun,
                         const std::string &suffix) {
            fmt::print("\nscaling, 1 thread, {}, {:.0f} vs {:.0f} events (x{:.1f}; n log n predicts x{:.1f}; target <= "
                       "~x{:.0f})\n",
                title, n, m, n / m, nlogn, 1.2 * n / m);
            fmt::print("  {:<20} {:>32}   {:>32}\n", "", "wall", "CPU");
            for (const char *a :
                { "a_blame", "a_pace_steps", "a_busy_gaps", "a_top_kernels", "a_nvtx_summary", "load" }) {
                const double r = smallRun.at(a) > 0 ? largeRun.at(a) / smallRun.at(a) : 0;
                scaling[std::string(a) + suffix + "_ratio"] = r;
                // CPU time leaves out waiting for a core, which can be most of a 20 ms wall time.
                const std::string cpuKey = std::string("cpu_") + a;
                const double cpuSmall = smallRun.at(cpuKey), cpuLarge = largeRun.at(cpuKey);
                const double cpuRatio = cpuSmall > 0 ? cpuLarge / cpuSmall : 0;
                scaling[std::string(a) + suffix + "_cpu_ratio"] = cpuRatio;
                fmt::print("  {:<20} {:>9.4f} s -> {:>9.4f} s {:>7}   {:>9.4f} s -> {:>9.4f} s {:>7}\n", a,
                    smallRun.at(a), largeRun.at(a), fmt::format("x{:.1f}", r), cpuSmall, cpuLarge,
                    fmt::format("x{:.1f}", cpuRatio));
            }
        };
        table("analyses right after the load", small, load1, "");
        table("every analysis from cold caches", smallCold, largeCold, "_cold");
    }

    // Issue #19's target 1, on one file only: the shell's SQL reads one file.
    const Figures topKernels = files.size() == 1 ? measureTopKernels(files.front(), args.runs) : Figures {};

    if (!args.json.empty()) {
        std::ofstream out(args.json);
        out << "{\n";
        out << fmt::format("  \"params\": {{\"ranks\": {}, \"kernels\": {}, \"runtime\": {}, \"nvtx\": {}, "
                           "\"from_real\": \"{}\", \"repeat\": {}, \"runs\": {}, \"hardware_threads\": {}}},\n",
            args.ranks, args.kernels, args.runtime, args.nvtx, args.fromReal, args.repeat, args.runs,
            std::thread::hardware_concurrency());
        out << fmt::format("  \"files\": {}, \"file_bytes\": {}, \"generate_seconds\": {:.3f},\n", files.size(),
            fileBytes, genSeconds);
        out << "  \"floor\": " << jsonObject(floor) << ",\n";
        out << "  \"load_1_thread\": " << jsonObject(load1) << ",\n";
        out << "  \"load_2_threads\": " << jsonObject(load2) << ",\n";
        out << "  \"load_1_thread_sqlite_statements\": " << jsonObject(loadSqlite) << ",\n";
        Figures ratios { { "load_1_thread", ratio(load1.at("load")) },
            { "cpu_load_1_thread", load1.at("cpu_load") / flCpu },
            { "cpu_load_analyses_1_thread", (load1.at("cpu_load") + load1.at("cpu_analyses")) / flCpu },
            { "load_2_threads", ratio(load2.at("load")) },
            { "load_1_thread_sqlite_statements", ratio(loadSqlite.at("load")) },
            { "load_analyses_1_thread", ratio(load1.at("load") + load1.at("analyses")) },
            { "load_analyses_2_threads", ratio(load2.at("load") + load2.at("analyses")) },
            { "load_open_analyses_1_thread", ratio(load1.at("load") + load1.at("analyses_open")) },
            { "load_open_analyses_2_threads", ratio(load2.at("load") + load2.at("analyses_open")) },
            { "bytes_per_event_net", perEvent(load2, "hwm_load") },
            { "bytes_per_event_gross", load2.at("hwm_load") / events },
            { "peak_over_file_bytes", load2.at("hwm_load") / double(fileBytes) } };
        out << "  \"ratios_to_floor\": " << jsonObject(ratios) << ",\n";
        out << "  \"small\": " << jsonObject(small) << ",\n";
        out << "  \"large_cold_caches\": " << jsonObject(largeCold) << ",\n";
        out << "  \"small_cold_caches\": " << jsonObject(smallCold) << ",\n";
        out << "  \"top_kernels\": " << jsonObject(topKernels) << ",\n";
        out << "  \"scaling\": " << jsonObject(scaling) << "\n}\n";
        fmt::print("\nJSON written to {}\n", args.json);
    }
    return 0;
}

} // namespace
} // namespace gaplens::bench

int main(int argc, char **argv)
{
    using namespace gaplens::bench;
    std::vector<std::string> a(argv + 1, argv + argc);
    try {
        if (!a.empty() && a[0] == "--child-top-kernels") // THREADS FILE
            return childTopKernels(unsigned(std::stoul(a.at(1))), a.at(2));
#ifdef GAPLENS_CLI_PATH
        if (!a.empty() && a[0] == "--child-cli-gaps") // --child-cli-gaps THREADS FORMAT FILES...
            return childCliGaps(a.at(1), a.at(2), { a.begin() + 3, a.end() });
#endif
        if (!a.empty() && a[0] == "--child-cache-load") // --child-cache-load THREADS off|write|hit DIR FILES...
            return childCacheLoad(unsigned(std::stoul(a.at(1))), a.at(2), a.at(3), { a.begin() + 4, a.end() });
        if (!a.empty() && a[0] == "--child-gaps") // --child-gaps THREADS split|nosplit FILES...
            return childGaps(unsigned(std::stoul(a.at(1))), a.at(2) == "split", { a.begin() + 3, a.end() });
        if (!a.empty() && (a[0] == "--child-floor" || a[0] == "--child-load")) {
            if (a[0] == "--child-floor")
                return childFloor({ a.begin() + 1, a.end() });
            // --child-load THREADS ANALYSES(1|0|cold) SCAN(direct|sqlite) FILES...
            return childLoad(unsigned(std::stoul(a.at(1))), a.at(2) != "0", a.at(2) == "cold", a.at(3) == "direct",
                { a.begin() + 4, a.end() });
        }
        Args args;
        for (std::size_t i = 0; i < a.size(); ++i) {
            auto next = [&]() -> const std::string & {
                if (i + 1 >= a.size())
                    throw std::runtime_error(a[i] + " needs a value");
                return a[++i];
            };
            if (a[i] == "--ranks")
                args.ranks = std::stoi(next());
            else if (a[i] == "--kernels")
                args.kernels = std::stoull(next());
            else if (a[i] == "--runtime")
                args.runtime = std::stoull(next());
            else if (a[i] == "--nvtx")
                args.nvtx = std::stoull(next());
            else if (a[i] == "--dir")
                args.dir = next();
            else if (a[i] == "--json")
                args.json = next();
            else if (a[i] == "--from-real")
                args.fromReal = next();
            else if (a[i] == "--repeat")
                args.repeat = std::stoi(next());
            else if (a[i] == "--runs")
                args.runs = std::max(1, std::stoi(next()));
            else if (a[i] == "--scale")
                args.scale = std::max(2, std::stoi(next()));
            else if (a[i] == "--no-scaling")
                args.skipScaling = true;
            else if (a[i] == "--top-kernels-only")
                args.topKernelsOnly = true;
            else if (a[i] == "--split")
                args.splitOnly = true;
            else if (a[i] == "--mpi")
                args.mpiOnly = true;
            else if (a[i] == "--cache")
                args.cacheOnly = true;
            else {
                usage();
                return a[i] == "--help" || a[i] == "-h" ? 0 : 2;
            }
        }
        return runParent(args);
    } catch (const std::exception &e) {
        fmt::print(stderr, "gaplens-bench: {}\n", e.what());
        return 1;
    }
}
