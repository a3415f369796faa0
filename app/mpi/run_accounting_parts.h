// SPDX-License-Identifier: MIT
#pragma once
// Run accounting in parts (core's computeRunAccountingPart on each process, with a
// WorldParts), put together on the root (finishRunAccounting): what throughput prints, and
// each window of check --min-sustained-gain.
#include "distributed_capture.h"
#include "mpi_world.h"

#include "gaplens/core/analysis/run_accounting.h"

#include <cstddef>

namespace gaplens::mpi {

struct AccountingInParts
{
    // On the root, the whole capture's accounting: the ranks in the whole capture's order,
    // the first failed one's error, the overall figures. Empty on the other processes.
    core::RunAccounting whole;
    std::size_t bytesSent = 0; // this process's message to the root
};

// Collective. `options.ranks` selects among this process's ranks (capture.local's indices).
// A process whose accounting throws cannot tell the others, so that ends the job.
AccountingInParts accountInParts(
    const World &world, const DistributedCapture &capture, const core::RunAccountingOptions &options);

} // namespace gaplens::mpi
