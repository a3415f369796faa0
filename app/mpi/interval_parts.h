// SPDX-License-Identifier: MIT
#pragma once
// The per-rank interval statistics and ping-pong runs of one process, as bytes for the root
// (CBOR through nlohmann/json). Every figure is an exact integer; the 128-bit sums travel as
// two 64-bit halves, so the root's merged report equals the one computed at once.
#include "gaplens/core/analysis/intervals.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gaplens::mpi {

// report.ranks and report.pingPong (the statistics' part of computeIntervalStatistics).
std::string packIntervalParts(const core::IntervalReport &report);
// Appends a process's packed parts to `report`, its local rank indices mapped through `globalRank`.
void unpackIntervalParts(
    const std::string &bytes, const std::vector<std::uint32_t> &globalRank, core::IntervalReport &report);
// On the root: every process's packed parts (in process order, each process's local rank
// indices mapped through globalRank[process]) as the finished report of the whole capture:
// its ranks in rank order, the anomalies and the variability found from them alone, as
// computeIntervals does. `options.originNs` is the whole capture's origin.
core::IntervalReport finishIntervalParts(const std::vector<std::string> &parts,
    const std::vector<std::vector<std::uint32_t>> &globalRank, const core::IntervalOptions &options);

} // namespace gaplens::mpi
