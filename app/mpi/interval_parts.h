// SPDX-License-Identifier: MIT
#pragma once
// The per-rank interval statistics and ping-pong runs of one process, as bytes for the root
// (CBOR through nlohmann/json). Every figure is an exact integer; the 128-bit sums travel as
// two 64-bit halves, so the root's merged report equals the one computed at once.
#include "gaplens/core/analysis/intervals.h"

#include <string>

namespace gaplens::mpi {

// report.ranks and report.pingPong (the statistics' part of computeIntervalStatistics).
std::string packIntervalParts(const core::IntervalReport &report);
// Appends a process's packed parts to `report`, its local rank indices mapped through `globalRank`.
void unpackIntervalParts(
    const std::string &bytes, const std::vector<std::uint32_t> &globalRank, core::IntervalReport &report);

} // namespace gaplens::mpi
