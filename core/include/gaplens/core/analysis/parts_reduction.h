// SPDX-License-Identifier: MIT
#pragma once
// How an analysis computed in parts (gaplens-mpi: one part of the capture per process) combines
// its parts' figures into the figures of the whole capture. Every part calls the same functions
// in the same order with arrays of the same length (they are collective), and each call gives
// every part the same result. The summaries use it for exact statistics in parts: the union of
// their group keys, then sums, minima and maxima of per-group arrays (docs/mpi.md).
#include "gaplens/core/analysis/duration_stats.h"

#include <string>
#include <vector>

namespace gaplens::core {

class PartsReduction
{
public:
    virtual ~PartsReduction() = default;
    // Every part's keys together, sorted and without duplicates.
    virtual std::vector<std::string> unionOfKeys(const std::vector<std::string> &keys) const = 0;
    // Element-wise over the parts, in place.
    virtual void sum(std::vector<std::uint64_t> &values) const = 0;
    virtual void sum(std::vector<UInt128> &values) const = 0; // modulo 2^128, so signed sums work too
    virtual void min(std::vector<TimeNs> &values) const = 0;
    virtual void max(std::vector<TimeNs> &values) const = 0;
};

} // namespace gaplens::core
