// SPDX-License-Identifier: MIT
#pragma once
// The step range of a capture read in time shards: a rank's NVTX ranges are spread over the
// processes of its file's shards, so the processes exchange what core's rankNvtxTallies needs
// (each thread's latest range end, for the later shards' nesting) and then every rank's
// tallies, and each process chooses from the whole capture's (core/analysis/step_range.h).
#include "distributed_capture.h"
#include "mpi_world.h"

#include "gaplens/core/analysis/step_range.h"

#include <optional>
#include <string>

namespace gaplens::mpi {

// Collective. `given`, else the range proposed from every rank's tallies; in whole files
// (capture.timeShards false) through core's parts reduction, as gaplens-cli's proposal.
std::optional<std::string> givenOrProposedStepRange(
    const World &world, const DistributedCapture &capture, std::optional<std::string> given);
// Collective: the chooser's list, for the message when no range is step-like.
core::StepRangeChoice distributedStepRangeChoice(const World &world, const DistributedCapture &capture);

} // namespace gaplens::mpi
