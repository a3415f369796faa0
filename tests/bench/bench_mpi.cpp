// SPDX-License-Identifier: MIT
#include "bench_mpi.h"

#include "bench_process.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <thread>

namespace gaplens::bench {

namespace {

void measureCommand(const std::string &mpiexec, const std::string &mpiProgram, const std::string &command,
    const std::vector<std::string> &files, int runs, const char *division)
{
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::vector<int> counts { 1, 2, 4 };
    std::map<int, std::vector<double>> wall, rss;
    fmt::print(
        stderr, "measuring: gaplens-mpi {} on {} files at P = 1, 2, 4, {} runs each...\n", command, files.size(), runs);
    // One untimed run first, so that the first measured one (P = 1) does not alone read the
    // files from disk (a single cold run once made P = 1 look 4x slower than P = 2).
    for (int run = -1; run < runs; ++run)
        for (const int processes : counts) {
            // Each process loads with its share of the cores, so P = 1 uses them all too.
            const auto threads = std::max(1u, cores / unsigned(processes));
            // --bind-to none: Open MPI binds each of up to two processes to one core, where the
            // loader's threads would share it (P = 1 then took twice gaplens-cli's time).
            std::vector<std::string> argv { mpiexec, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none" };
            // ob1 over shared memory, as the MPI tests and the README's single-machine advice
            // have it: the default, UCX, probes for networks first (0.2 s of each job's start).
            if (!std::getenv("OMPI_MCA_pml"))
                argv.insert(argv.end(), { "--mca", "pml", "ob1" });
            argv.insert(argv.end(),
                { "-np", std::to_string(processes), mpiProgram, command, "--format=json", "--threads",
                    std::to_string(threads) });
            argv.insert(argv.end(), files.begin(), files.end());
            // wait4's peak of mpirun is the largest of it and the processes it started.
            const auto result = runProcess(argv);
            if (run < 0)
                break; // the warm-up: P = 1 reads every file
            wall[processes].push_back(result.wallSeconds);
            rss[processes].push_back(result.maxRssBytes);
        }
    const double wall1 = median(wall[1]), rss1 = median(rss[1]);
    fmt::print(
        "gaplens-mpi {}, {} ({} files, {} cores, medians of {}):\n", command, division, files.size(), cores, runs);
    fmt::print("  {:<24} {:>9} {:>8} {:>16} {:>8}\n", "processes", "wall s", "x P=1", "peak/process MiB", "x P=1");
    for (const int processes : counts) {
        const auto label
            = processes > int(cores) ? fmt::format("{} (oversubscribed)", processes) : fmt::format("{}", processes);
        fmt::print("  {:<24} {:>9.2f} {:>8.2f} {:>16.0f} {:>8.2f}\n", label, median(wall[processes]),
            median(wall[processes]) / wall1, median(rss[processes]) / (1 << 20), median(rss[processes]) / rss1);
    }
}

} // namespace

int measureMpi(
    const std::string &mpiexec, const std::string &mpiProgram, const std::vector<std::string> &files, int runs)
{
    // intervals: per-rank statistics gathered to the root; kernels: the summary's exact
    // reduction (names matched, moments and median histograms allreduced).
    for (const char *command : { "intervals", "kernels" })
        measureCommand(mpiexec, mpiProgram, command, files, runs, "files over processes");
    // One file: at P > 1 each process reads a block of its time shards (docs/mpi.md); gaps
    // reads its window twice (kernels and copies, then every table with its halo), intervals
    // exchanges its shards' busy ends.
    if (!files.empty())
        for (const char *command : { "kernels", "nvtx", "gaps", "intervals" })
            measureCommand(mpiexec, mpiProgram, command, { files.front() }, runs, "time shards of one file");
    return 0;
}

} // namespace gaplens::bench
