// SPDX-License-Identifier: MIT
#pragma once
// The floor every load figure is compared with: a plain single-threaded sqlite3_step loop
// reading exactly the columns the reader needs from the same files, nothing kept.
#include <cstdint>
#include <string>
#include <vector>

namespace gaplens::bench {

struct FloorResult
{
    std::uint64_t rows = 0;
    std::uint64_t checksum = 0; // of every value read, so the compiler cannot drop the reads
};

// Throws std::runtime_error when a file cannot be read.
FloorResult readFloor(const std::vector<std::string> &files);

} // namespace gaplens::bench
