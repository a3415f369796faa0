// SPDX-License-Identifier: MIT
#include "mpi_world.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace gaplens::mpi {
namespace {

// MPI counts are ints: larger messages go in pieces of this size.
constexpr std::size_t kChunk = std::size_t(1) << 30;
constexpr int kTagSize = 1, kTagBytes = 2;

void sendBytes(const std::string &bytes, int to)
{
    std::uint64_t size = bytes.size();
    MPI_Send(&size, 1, MPI_UINT64_T, to, kTagSize, MPI_COMM_WORLD);
    for (std::size_t at = 0; at < bytes.size(); at += kChunk)
        MPI_Send(bytes.data() + at, int(std::min(kChunk, bytes.size() - at)), MPI_BYTE, to, kTagBytes, MPI_COMM_WORLD);
}

std::string receiveBytes(int from)
{
    std::uint64_t size = 0;
    MPI_Recv(&size, 1, MPI_UINT64_T, from, kTagSize, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::string bytes(size, '\0');
    for (std::size_t at = 0; at < bytes.size(); at += kChunk)
        MPI_Recv(bytes.data() + at, int(std::min(kChunk, bytes.size() - at)), MPI_BYTE, from, kTagBytes, MPI_COMM_WORLD,
            MPI_STATUS_IGNORE);
    return bytes;
}

// Element-wise reductions of long arrays, in pieces below MPI's int count limit.
template <typename T> void allReduceInPlace(std::vector<T> &values, MPI_Datatype type, MPI_Op op)
{
    constexpr std::size_t kPiece = std::size_t(1) << 26;
    for (std::size_t at = 0; at < values.size(); at += kPiece)
        MPI_Allreduce(
            MPI_IN_PLACE, values.data() + at, int(std::min(kPiece, values.size() - at)), type, op, MPI_COMM_WORLD);
}

// MPI has no 128-bit integer: a pair of 64-bit words, summed by an operation of our own.
// (memcpy: MPI's buffers need not be aligned for 128-bit loads).
void sumUInt128(void *in, void *inout, int *count, MPI_Datatype *)
{
    const auto *a = static_cast<const char *>(in);
    auto *b = static_cast<char *>(inout);
    for (std::size_t at = 0; at < std::size_t(*count) * sizeof(UInt128); at += sizeof(UInt128)) {
        UInt128 x = 0, y = 0;
        std::memcpy(&x, a + at, sizeof x);
        std::memcpy(&y, b + at, sizeof y);
        y += x;
        std::memcpy(b + at, &y, sizeof y);
    }
}

} // namespace

World::World(int &argc, char **&argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
}

World::~World()
{
    MPI_Finalize();
}

std::vector<std::string> World::gatherToRoot(const std::string &bytes) const
{
    if (!isRoot()) {
        sendBytes(bytes, 0);
        return {};
    }
    std::vector<std::string> all(static_cast<std::size_t>(m_size));
    all[0] = bytes;
    for (int p = 1; p < m_size; ++p)
        all[std::size_t(p)] = receiveBytes(p);
    return all;
}

std::string World::broadcastFromRoot(const std::string &bytes) const
{
    std::uint64_t size = bytes.size();
    MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    std::string out = isRoot() ? bytes : std::string(size, '\0');
    for (std::size_t at = 0; at < out.size(); at += kChunk)
        MPI_Bcast(out.data() + at, int(std::min(kChunk, out.size() - at)), MPI_BYTE, 0, MPI_COMM_WORLD);
    return out;
}

std::vector<std::string> World::allGather(const std::string &bytes) const
{
    // Through the root: the pieces are small (rank candidates, row counts, error messages).
    auto all = gatherToRoot(bytes);
    std::string packed;
    if (isRoot())
        for (const auto &piece : all) {
            const std::uint64_t size = piece.size();
            packed.append(reinterpret_cast<const char *>(&size), sizeof size);
            packed += piece;
        }
    packed = broadcastFromRoot(packed);
    all.clear();
    for (std::size_t at = 0; at < packed.size();) {
        std::uint64_t size = 0;
        std::copy_n(packed.data() + at, sizeof size, reinterpret_cast<char *>(&size));
        at += sizeof size;
        all.push_back(packed.substr(at, size));
        at += size;
    }
    return all;
}

std::int64_t World::allReduceMin(std::int64_t value) const
{
    std::int64_t out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    return out;
}

std::int64_t World::allReduceMax(std::int64_t value) const
{
    std::int64_t out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

void World::allReduceSum(std::vector<std::uint64_t> &values) const
{
    allReduceInPlace(values, MPI_UINT64_T, MPI_SUM);
}

void World::allReduceSum(std::vector<UInt128> &values) const
{
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(2, MPI_UINT64_T, &pair);
    MPI_Type_commit(&pair);
    MPI_Op sum = MPI_OP_NULL;
    MPI_Op_create(&sumUInt128, 1, &sum);
    allReduceInPlace(values, pair, sum);
    MPI_Op_free(&sum);
    MPI_Type_free(&pair);
}

void World::allReduceMin(std::vector<std::int64_t> &values) const
{
    allReduceInPlace(values, MPI_INT64_T, MPI_MIN);
}

void World::allReduceMax(std::vector<std::int64_t> &values) const
{
    allReduceInPlace(values, MPI_INT64_T, MPI_MAX);
}

void World::abort(int code) const
{
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code); // MPI_Abort does not return; this keeps [[noreturn]] honest
}

} // namespace gaplens::mpi
