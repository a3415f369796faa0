// SPDX-License-Identifier: MIT
#pragma once
// GPU busy time (union of activity over all streams and processes of one GPU) and the
// idle gaps between the busy intervals.
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <vector>

namespace gaplens::core {

// The tables busy time and idle gaps read: kernels, and copies and memsets when they count.
constexpr TableSet gpuBusyTables(bool includeCopies)
{
    return includeCopies ? ExportTable::Kernels | ExportTable::Copies : TableSet(ExportTable::Kernels);
}

struct GpuBusyOptions
{
    bool includeCopies = false; // also union the GPU's copies and memsets (CopyColumns)
    // Clip every interval to [start, end). Kernels of one stream are assumed not to overlap
    // (as the model states); a kernel hidden under an earlier one may be missed at the window start.
    TimeWindow window;
};

struct StreamBusy
{
    std::uint32_t stream = kNoIndex; // index into Gpu::streams
    std::uint32_t pid = 0;
    std::int64_t streamId = 0;
    std::uint64_t kernelCount = 0; // kernels with a (clipped) non-empty part in the window
    TimeNs busyNs = 0; // union of this stream's kernels (never copies)
};

struct GpuBusy
{
    std::uint32_t gpu = kNoIndex; // index into TraceSet::gpus
    // Merged busy intervals: sorted, disjoint, never touching ([0,10)+[10,20) -> [0,20)).
    std::vector<TimeRange> intervals;
    TimeNs busyNs = 0;
    TimeRange window; // first merged start .. last merged end; {0,0} when no work
    double busyPercent = 0; // busyNs / window.duration() * 100; 0 when the window is empty
    std::vector<StreamBusy> streams; // one per Gpu::streams entry, same order
};

// busyNs / window.duration() * 100; 0 when the window is empty. The one formula of busy %, so
// that a figure added up from parts (busy_shards.h) is the whole one to the last bit.
inline double busyPercentOf(TimeNs busyNs, TimeRange window)
{
    return window.duration() > 0 ? 100.0 * double(busyNs) / double(window.duration()) : 0.0;
}

// The idle time busy % leaves out: inside `span` (a capture's, Rank::span), before the first
// and after the last of the GPU's work (`busyWindow`, GpuBusy::window). Without work the
// whole span is `beforeNs`.
struct IdleOutsideWindow
{
    TimeNs beforeNs = 0;
    TimeNs afterNs = 0;
    TimeNs totalNs() const { return beforeNs + afterNs; }
};
IdleOutsideWindow idleOutsideWindow(TimeRange span, TimeRange busyWindow);

// O(n log k) k-way merge of the sorted streams (and the copy lane).
GpuBusy computeGpuBusy(const TraceSet &trace, std::uint32_t gpu, const GpuBusyOptions &options = {});
// One entry per TraceSet::gpus, same order.
std::vector<GpuBusy> computeAllGpuBusy(const TraceSet &trace, const GpuBusyOptions &options = {});

struct GpuGaps
{
    std::uint32_t gpu = kNoIndex;
    std::vector<TimeRange> gaps; // holes between merged intervals with duration >= threshold
    TimeNs totalNs = 0;
    std::size_t count() const { return gaps.size(); }
};

// Holes of length >= minGapNs between consecutive merged intervals; never before the first
// interval or after the last one (the capture edges are not idleness we can explain).
GpuGaps findIdleGaps(const GpuBusy &busy, TimeNs minGapNs = kDefaultMinGapNs);

} // namespace gaplens::core
