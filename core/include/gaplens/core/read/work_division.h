// SPDX-License-Identifier: MIT
#pragma once
// Which process reads which files, when a capture is analysed by several processes
// (gaplens-mpi): files over processes, balanced by their row counts (estimateLoad).
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

} // namespace gaplens::core
