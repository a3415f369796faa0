// SPDX-License-Identifier: MIT
#pragma once
// Which process reads which files, when a capture is analysed by several processes
// (gaplens-mpi): files over processes, balanced by their row counts (estimateLoad), and time
// shards of the files that are too big for one process's share (time_shards.h).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gaplens::core {

// The files of each of `processes` processes (indices into `rows`, ascending). The longest
// processing time rule: files from the most rows to the fewest, each to the process with the
// fewest rows so far (ties: the file listed first, the lowest process). Its busiest process
// holds at most 4/3 of the optimum. Processes beyond the files get none; the result is the
// same on every process that computes it from the same rows.
std::vector<std::vector<std::size_t>> divideFiles(const std::vector<std::uint64_t> &rows, std::size_t processes);

// A process's share of one file: shards [firstShard, endShard) of the file's `shards`.
struct WorkPiece
{
    std::size_t file = 0;
    std::size_t firstShard = 0, endShard = 1, shards = 1;

    bool isWholeFile() const { return shards == 1; }
    bool operator==(const WorkPiece &) const = default;
};

// Whether the capture is divided in time shards: when the work may be split within files
// (`mayShard`: the analysis adds its events up wherever they are) and there are fewer files
// with rows than processes, or a file holds more than one and a half processes' fair share.
bool needsTimeShards(const std::vector<std::uint64_t> &rows, std::size_t processes, bool mayShard);

// The work of each process. Without time shards (needsTimeShards), divideFiles' whole files.
// With them, as the framework of issue #15 does: file f becomes ceil(rows_f * P / rows)
// shards of about one fair share each, the shards of all files are laid end to end in file
// order, and each process takes a contiguous block of them (the shard whose middle falls in
// its share of the rows). So a process holds a contiguous block of each file it reads, and a
// file's shards lie on consecutive processes. Pieces in file order; processes beyond the
// shards get none.
std::vector<std::vector<WorkPiece>> divideWork(
    const std::vector<std::uint64_t> &rows, std::size_t processes, bool mayShard);

} // namespace gaplens::core
