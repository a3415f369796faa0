// SPDX-License-Identifier: MIT
#pragma once
// Issue #15's benchmark: `mpirun -np P gaplens-mpi intervals` and `kernels` on the bench
// capture, files over processes, and `kernels` and `nvtx` on its first file alone, in time
// shards, at P = 1, 2 and 4 (4 oversubscribes this 2-core machine, and says so): wall time and
// the largest process's peak memory, as ratios to P = 1 in the same run.
#include <string>
#include <vector>

namespace gaplens::bench {

// Prints a table per command and division; `mpiexec` is the MPI launcher CMake found,
// `mpiProgram` the built gaplens-mpi. Returns the exit status.
int measureMpi(
    const std::string &mpiexec, const std::string &mpiProgram, const std::vector<std::string> &files, int runs);

} // namespace gaplens::bench
