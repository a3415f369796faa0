// SPDX-License-Identifier: MIT
#pragma once
// GPU busy % of a file read in time shards (gaplens-mpi's check). Each shard holds the work
// that starts in it; its part of a GPU's busy union is what it covers after the busy end of its
// file's earlier shards (EarlierShards::busyUntil), so each busy instant is counted by exactly
// one shard: the first whose work covers it. The parts added in any order give the whole
// file's busy time, window and busy % (GpuBusy) exactly.
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <optional>

namespace gaplens::core {

class DerivedCapture;

struct GpuBusyPart
{
    TimeNs busyNs = 0;
    // The shard's first merged start .. last merged end; none without busy work.
    std::optional<TimeRange> window;

    void add(const GpuBusyPart &other);
    // GpuBusy::busyPercent of the parts added so far.
    double busyPercent() const;
};

// The part of GPU `gpu` (an index into the derived capture's trace) that a shard counts, its
// busy union (kernels, and copies when the capture counts them) after `earlier`'s busy end.
GpuBusyPart gpuBusyPart(const DerivedCapture &derived, std::uint32_t gpu, const EarlierShards &earlier);

} // namespace gaplens::core
