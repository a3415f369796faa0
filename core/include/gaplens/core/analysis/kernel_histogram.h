// SPDX-License-Identifier: MIT
#pragma once
// A kernel's duration distribution (like nsys cuda_gpu_kern_hist, Tracy's find zone): every
// instance of one kernel name sorted by duration, bins on a linear or logarithmic axis whose
// instances are a contiguous run of that order, the median, p95 and the slowest instances.
#include "gaplens/core/analysis/parts_reduction.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gaplens::core {

// The tables a kernel histogram reads.
inline constexpr TableSet kKernelHistogramTables = ExportTable::Kernels;

struct KernelHistogramOptions
{
    RankSelection ranks;
    TimeWindow window; // an instance counts when its start lies in it (as the summaries)
    bool useDemangledName = false; // match `name` against demangledName instead of shortName
    std::size_t bins = 20; // at least 1
    bool logarithmic = false; // bin edges evenly spaced in log10(duration)
    // Edges over [lo, hi] instead of the instances' min and max: two histograms (before and
    // after) on one axis. Instances outside are counted in below / above.
    std::optional<std::pair<TimeNs, TimeNs>> axis;
};

// One launch of the kernel: where it is (TraceSet::gpus[gpu].streams[stream].kernels[index]).
struct KernelInstance
{
    std::uint32_t gpu = kNoIndex;
    std::uint32_t stream = kNoIndex;
    std::uint32_t index = kNoIndex;
    TimeNs start = 0;
    TimeNs duration = 0;
};

struct HistogramBin
{
    double lo = 0, hi = 0; // [lo, hi) in ns; the last bin includes hi
    std::uint32_t first = 0, last = 0; // its instances: instances[first, last)
    std::uint64_t count() const { return last - first; }
};

struct KernelHistogram
{
    StringId name = kEmptyString;
    bool logarithmic = false;
    std::vector<KernelInstance> instances; // ascending duration (ties: start, gpu, stream, index)
    std::vector<HistogramBin> bins; // ascending; empty when there is no instance
    std::uint64_t below = 0, above = 0; // outside a fixed axis
    TimeNs minNs = 0, maxNs = 0;
    double medianNs = 0; // mean of the two middle durations for an even count
    TimeNs p95Ns = 0; // nearest rank: the ceil(0.95 n)-th shortest
    std::size_t count() const { return instances.size(); }
    // The `n` slowest instances, slowest first.
    std::vector<KernelInstance> slowest(std::size_t n) const;
};

// Bin edges (bins + 1 values) over [lo, hi]: linear, or even in log10 (lo taken as at least
// 1 ns). lo == hi gives one bin [lo, lo + 1).
std::vector<double> histogramEdges(TimeNs lo, TimeNs hi, std::size_t bins, bool logarithmic);

// Every instance of `name` in the selection; a name no kernel has gives an empty histogram.
KernelHistogram computeKernelHistogram(
    const TraceSet &trace, StringId name, const KernelHistogramOptions &options = {});

// One of the slowest launches as gaplens-cli prints it: its GPU and rank (indices into the
// trace's gpus and ranks) and its stream's id.
struct SlowKernel
{
    std::uint32_t gpu = kNoIndex;
    std::uint32_t rank = kNoIndex;
    std::int64_t streamId = 0;
    TimeNs start = 0;
    TimeNs duration = 0;
};

// A kernel histogram's printed figures, without its instances.
struct KernelHistogramFigures
{
    struct Bin
    {
        double lo = 0, hi = 0;
        std::uint64_t count = 0;
    };
    bool logarithmic = false;
    std::uint64_t count = 0;
    std::vector<Bin> bins; // empty when there is no instance
    std::uint64_t below = 0, above = 0;
    TimeNs minNs = 0, maxNs = 0;
    double medianNs = 0;
    TimeNs p95Ns = 0;
    std::vector<SlowKernel> slowest; // slowest first
};

// The figures of a whole capture's histogram, with its `slowest` slowest launches.
KernelHistogramFigures histogramFigures(const TraceSet &trace, const KernelHistogram &histogram, std::size_t slowest);

// The histogram computed in parts (gaplens-mpi: one part of the capture per process, each
// instance in exactly one part), with a PartsReduction: every figure is the whole capture's
// (min and max reduced, the same edges everywhere, bin counts summed, median and p95 by
// distributed selection) but `slowest`, which holds this part's candidates: its `slowest`
// slowest and those tied with the last of them in (duration, start), with the part's GPU and
// rank indices. Map those to the whole capture's and merge every part's with mergeSlowest.
// `name` is the part's string id of the name (a part without it takes part with nothing).
KernelHistogramFigures computeKernelHistogram(const TraceSet &trace, StringId name,
    const KernelHistogramOptions &options, std::size_t slowest, const PartsReduction &parts);

// The `n` slowest of the parts' candidates, GPUs as the whole capture's indices, given part
// after part each slowest first: in the whole capture's order (duration, start, GPU, then a
// part's own order, since launches alike in those three lie in one part).
std::vector<SlowKernel> mergeSlowest(std::vector<SlowKernel> candidates, std::size_t n);

} // namespace gaplens::core
