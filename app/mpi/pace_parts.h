// SPDX-License-Identifier: MIT
#pragma once
// One rank's pace and step accounting as a message for the root (CBOR through nlohmann/json):
// every time an integer, the medians and busy percentages doubles bit for bit. An
// iteration's thread and range index name this process's columns, which the root does not
// have, so they stay behind (no output prints them).
#include "gaplens/core/analysis/pace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace gaplens::mpi {

nlohmann::json packRankPace(const core::RankPace &pace, const core::RankSteps &steps);

struct RankPaceResult
{
    core::RankPace pace;
    core::RankSteps steps;
};
// `globalRank`: the rank's index in the whole capture (packed[0] is the sender's).
RankPaceResult unpackRankPace(const nlohmann::json &packed, std::uint32_t globalRank);

// Every process's ranks, as the root gathered them, in the whole capture's rank order: what
// comparePaces and the printing take. A rank sent by several processes (its file's time
// shards, each with the whole pace) has its steps added up.
struct CapturePaces
{
    std::vector<core::RankPace> paces;
    std::vector<core::RankSteps> steps;
};
CapturePaces inRankOrder(std::vector<RankPaceResult> ranks);

} // namespace gaplens::mpi
