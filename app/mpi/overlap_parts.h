// SPDX-License-Identifier: MIT
#pragma once
// A process's part of the overlap analysis (core::computeOverlapPart) as a message for the
// root, and the root's whole report from every process's (core::finishOverlap): the rows in
// the whole capture's (rank, GPU) order, a row's time shards added up, the collectives matched
// across ranks.
#include "distributed_capture.h"

#include "gaplens/core/analysis/overlap.h"

#include <string>
#include <vector>

namespace gaplens::mpi {

// Every figure is an integer but the hidden percentage, a double CBOR keeps bit for bit;
// kernel names travel as text (string ids are this process's).
std::string packOverlapPart(const core::TraceSet &trace, const core::OverlapPart &part);
// On the root: `parts` gathered from every process, in process order.
core::OverlapReport finishOverlapParts(const DistributedCapture &capture, const std::vector<std::string> &parts);
// Collective: in time shards, what this process's rows carry from their files' earlier
// shards (core::overlapCarries, sent as device id and global rank); empty without time shards.
core::OverlapCarries exchangeOverlapCarries(const World &world, const DistributedCapture &capture);

} // namespace gaplens::mpi
