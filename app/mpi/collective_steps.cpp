// SPDX-License-Identifier: MIT
#include "collective_steps.h"

#include "distributed_commands.h"

#include "command_tables.h"

#include <fmt/format.h>

#include <cstdlib>
#include <sys/resource.h>
#include <tuple>

namespace gaplens::mpi {

int agreedStatus(const World &world, int rootStatus)
{
    return std::stoi(world.broadcastFromRoot(std::to_string(rootStatus)));
}

bool anyFileLoaded(const World &world, const DistributedCapture &capture, const cli::Options &options)
{
    int status = 0;
    if (world.isRoot() && capture.skeleton->ranks.empty()) {
        std::fprintf(
            stderr, "gaplens-mpi: error: none of the %zu input file(s) could be loaded\n", options.files.size());
        status = 1;
    }
    return agreedStatus(world, status) == 0;
}

namespace {

// With GAPLENS_MPI_STATS set, which time shards this process reads (the tests check the division).
void printShardsIfAsked(const World &world, const DistributedCapture &capture)
{
    if (!std::getenv("GAPLENS_MPI_STATS"))
        return;
    for (const auto &piece : capture.pieces)
        if (!piece.isWholeFile())
            std::fprintf(stderr, "gaplens-mpi: process %d of %d: time shards %zu to %zu of %zu of input file %zu\n",
                world.rank(), world.size(), piece.firstShard + 1, piece.endShard, piece.shards, piece.file + 1);
}

} // namespace

std::optional<DistributedCapture> loadCommandCapture(const World &world, const cli::Options &options)
{
    auto capture = loadDistributed(world, options, options.files, cli::commandTables(options), timeShardUse(options));
    dieIfAsked(world);
    printShardsIfAsked(world, capture);
    if (!anyFileLoaded(world, capture, options))
        return std::nullopt;
    return capture;
}

std::optional<BeforeAfterInParts> loadBeforeAfterInParts(const World &world, const cli::Options &options)
{
    const auto tables = cli::commandTables(options);
    const auto shards = timeShardUse(options);
    BeforeAfterInParts captures { loadDistributed(world, options, options.beforeFiles, tables, shards, "before: "),
        loadDistributed(world, options, options.afterFiles, tables, shards, "after: ") };
    dieIfAsked(world);
    printShardsIfAsked(world, captures.before);
    printShardsIfAsked(world, captures.after);
    int status = 0;
    if (world.isRoot())
        for (const auto &[capture, which, count] :
            { std::tuple { &captures.before, "before", options.beforeFiles.size() },
                std::tuple { &captures.after, "after", options.afterFiles.size() } })
            if (status == 0 && capture->skeleton->ranks.empty()) {
                std::fprintf(stderr, "gaplens-cli: error: none of the %zu %s file(s) could be loaded\n", count, which);
                status = 1;
            }
    if (agreedStatus(world, status) != 0)
        return std::nullopt;
    return captures;
}

int finalStatus(const World &world, const DistributedCapture &capture, int printed)
{
    std::fflush(stdout);
    int status = printed;
    if (world.isRoot() && status == 0 && !capture.skeleton->errors.empty())
        status = 1;
    return agreedStatus(world, status);
}

void dieIfAsked(const World &world)
{
    if (const char *process = std::getenv("GAPLENS_MPI_TEST_ABORT"); process && std::atoi(process) == world.rank())
        std::abort();
}

void printStatsIfAsked(const World &world, const DistributedCapture &capture, std::optional<std::size_t> bytesSent)
{
    if (!std::getenv("GAPLENS_MPI_STATS"))
        return;
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const auto sent = bytesSent ? fmt::format(", {} bytes to the root", *bytesSent) : std::string();
    std::fprintf(stderr, "gaplens-mpi: process %d of %d: %zu files, %llu rows%s, peak RSS %.1f MiB\n", world.rank(),
        world.size(), capture.files, static_cast<unsigned long long>(capture.rows), sent.c_str(),
        double(usage.ru_maxrss) / 1024.0);
}

} // namespace gaplens::mpi
