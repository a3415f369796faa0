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

// report.ranks and report.pingPong (the statistics' part of computeIntervalStatistics); with
// `copiesOf` (a capture in time shards: a rank's ping-pong runs may cross a shard edge) also
// each of its ranks' copy sequence (core::copySequence).
std::string packIntervalParts(const core::IntervalReport &report, const core::TraceSet *copiesOf = nullptr);
// On the root: every process's packed parts (in process order, each process's local rank
// indices mapped through globalRank[process]) as the finished report of the whole capture:
// its ranks in rank order (a rank in time shards merged over them, in process order, which is
// shard order, and its ping-pong runs found in its shards' copy sequences joined), the
// anomalies and the variability found from them alone, as computeIntervals does.
// `options.originNs` is the whole capture's origin.
core::IntervalReport finishIntervalParts(const std::vector<std::string> &parts,
    const std::vector<std::vector<std::uint32_t>> &globalRank, const core::IntervalOptions &options);

} // namespace gaplens::mpi
