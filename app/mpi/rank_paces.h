// SPDX-License-Identifier: MIT
#pragma once
// Each rank's pace and step accounting where its events are, packed for the root
// (pace_parts.h): pace's per-rank part, which diff takes too.
#include "distributed_capture.h"
#include "mpi_world.h"

#include "gaplens/core/analysis/pace.h"

#include <nlohmann/json.hpp>

namespace gaplens::mpi {

// Collective. Appends this process's ranks to `ranks` (packRankPace). Whole files: each rank's
// iterations and steps from its report. In time shards (CPU time): a rank's pace from every
// shard's candidates, exchanged among the processes, and each shard's step accounting after
// its file's earlier shards' busy end; the root adds a rank's shards up (inRankOrder). false
// when the analysis failed on any process (the root has said why).
bool rankPacesOfProcess(const World &world, const DistributedCapture &capture, const core::PaceOptions &paceOptions,
    const core::StepAccountingOptions &stepOptions, nlohmann::json &ranks);

} // namespace gaplens::mpi
