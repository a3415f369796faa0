// SPDX-License-Identifier: MIT
#pragma once
// The capture's findings (core's summarizeCapture, findings.h) computed in parts, for summary
// and digest: each process's summarizeCapturePart, and the capture-wide facts each as its own
// command computes them in parts (pace compared on the root, overlap's collectives matched on
// the root, intervals over the whole capture's origin and default length), told on the root by
// finishCaptureSummary.
#include "distributed_capture.h"
#include "mpi_world.h"

#include "cli_options.h"

#include "gaplens/core/analysis/findings.h"

#include <optional>
#include <string>
#include <vector>

namespace gaplens::mpi {

// Collective. `stepRange`: the findings' step range, the same on every process (nullopt or
// empty: none). The options' --ranks, --min-gap-us apply. false (the root has said why) when
// a step failed on some process; else, on the root, `findings` holds the whole capture's (rank
// and GPU indices the skeleton's).
bool findingsInParts(const World &world, const DistributedCapture &capture, const cli::Options &options,
    const std::optional<std::string> &stepRange, std::vector<core::Finding> &findings);

} // namespace gaplens::mpi
