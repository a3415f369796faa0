// SPDX-License-Identifier: MIT
#pragma once
// The few MPI operations gaplens-mpi needs, over Open MPI's C API (its C++ bindings are
// deprecated): start and stop, and moving byte strings and numbers between processes.
// Messages of any size travel in chunks below MPI's int count limit.
#include <cstdint>
#include <string>
#include <vector>

namespace gaplens::mpi {

__extension__ using UInt128 = unsigned __int128;

class World
{
public:
    // MPI_Init_thread with MPI_THREAD_FUNNELED: the loader and the analyses use threads of
    // their own, and only the main thread calls MPI.
    World(int &argc, char **&argv);
    ~World(); // MPI_Finalize
    World(const World &) = delete;
    World &operator=(const World &) = delete;

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    bool isRoot() const { return m_rank == 0; }

    // Every process's bytes, in process order, on the root; empty elsewhere.
    std::vector<std::string> gatherToRoot(const std::string &bytes) const;
    // The root's bytes, on every process.
    std::string broadcastFromRoot(const std::string &bytes) const;
    // Every process's bytes, in process order, on every process.
    std::vector<std::string> allGather(const std::string &bytes) const;
    std::int64_t allReduceMin(std::int64_t value) const;
    std::int64_t allReduceMax(std::int64_t value) const;
    // Element-wise over every process's array (the same length on each), in place; the
    // 128-bit sum wraps modulo 2^128, so two's-complement signed sums come out right too.
    void allReduceSum(std::vector<std::uint64_t> &values) const;
    void allReduceSum(std::vector<UInt128> &values) const;
    void allReduceMin(std::vector<std::int64_t> &values) const;
    void allReduceMax(std::vector<std::int64_t> &values) const;
    // Ends every process of the job with `code` (MPI_Abort): for a failure that the others
    // cannot learn of in a collective call, so that none of them waits forever.
    [[noreturn]] void abort(int code) const;

private:
    int m_rank = 0, m_size = 1;
};

} // namespace gaplens::mpi
