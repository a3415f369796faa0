// SPDX-License-Identifier: MIT
#pragma once
// Fixed-interval statistics per rank, the anomalous intervals by the IQR rule, and the
// transfer mix of the most variable intervals against the rest. docs/intervals.md defines
// every figure; `gaplens-cli intervals` and `transfers` show them.
//
// Every per-interval figure is a mergeable summary (counts, exact integer sums, min, max), so
// the statistics of one interval computed in parts (shards of time here, ranks on other
// hosts later) merge to exactly the figures computed at once.
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/transfers.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

class PartsReduction;

// The tables interval statistics read: kernels, and copies and memsets (the transfer mix).
inline constexpr TableSet kIntervalTables = kTransferTables | gpuBusyTables(false);

// One interval of one rank.
struct IntervalStats
{
    DurationMoments kernels; // kernels starting in the interval
    TimeNs busyNs = 0; // the rank's GPUs' merged busy intervals clipped to the interval
    CopyMix copies {}; // copies and memsets starting in the interval, by copySlot
    void merge(const IntervalStats &other);
    CopyFigures transfers() const { return transferTotal(copies); }
    TimeNs stallNs() const { return transfers().ns; } // total copy duration (memsets excluded)
    bool operator==(const IntervalStats &) const = default;
};

// One rank's intervals, first to last (empty ones in between included).
struct RankIntervals
{
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    std::int64_t firstIndex = 0; // interval index of intervals[0]
    std::vector<IntervalStats> intervals;
    std::uint64_t eventsBeforeOrigin = 0; // kernels and copies starting before the origin: left out
};

// One rank's statistics from two time shards of its file (gaplens-mpi): the intervals of
// both (those they share merged, empty ones between them added), the events before the
// origin summed. Shards merged so, in any order, give the whole file's statistics when each
// shard's busy time starts after the earlier shards' (IntervalOptions::earlierShards).
void mergeRankIntervals(RankIntervals &into, const RankIntervals &part);

enum class IntervalMetric : std::uint8_t { Stddev, Busy, Kernels, KernelNs, Stall, Bytes, HtoD, DtoH };
std::optional<IntervalMetric> parseIntervalMetric(std::string_view name);
std::string_view intervalMetricName(IntervalMetric metric);
// The metric's value for one interval; nullopt when it has none (stddev with fewer than two
// kernels). bytes, htod and dtoh are bytes moved (memsets excluded), stall and busy in ns.
std::optional<double> intervalMetricValue(const IntervalStats &stats, IntervalMetric metric);

// Quartiles by linear interpolation (numpy's default: position (n - 1) * p in sorted order).
struct Fences
{
    std::size_t n = 0; // intervals with a value
    double q1 = 0, q3 = 0, iqr = 0, lower = 0, upper = 0; // lower = q1 - 1.5 iqr, upper = q3 + 1.5 iqr
};
// Quantile p in [0, 1] of sorted values, linear interpolation; 0 when empty.
double linearQuantile(const std::vector<double> &sorted, double p);
Fences iqrFences(std::vector<double> values);

struct Anomaly
{
    std::uint32_t rank = kNoIndex;
    std::int64_t index = 0;
    TimeNs startNs = 0;
    double value = 0;
    // Distance beyond the fence crossed, divided by the IQR; the distance itself when the IQR is 0.
    double score = 0;
};

// The anomalies of one pool of intervals (one rank, or every rank with `pool`).
struct AnomalyGroup
{
    std::uint32_t rank = kNoIndex; // kNoIndex for the pool of all ranks
    Fences fences;
    std::uint64_t anomalous = 0; // intervals beyond a fence
    std::vector<Anomaly> top; // highest score first; ties: earlier interval, then lower rank
};

// The transfers of one group of intervals (the top P% by the metric, or the rest).
struct TransferGroup
{
    std::uint64_t intervals = 0;
    CopyMix copies {};
    std::uint64_t pingPongCopies = 0; // copies of ping-pong runs (findPingPong) starting in these intervals
};

enum class VariabilityPattern : std::uint8_t { NoIntervals, NoTransfers, PingPong, Direction };
std::string_view variabilityPatternName(VariabilityPattern pattern);

struct Variability
{
    double topPercent = 5;
    TransferGroup top, rest;
    VariabilityPattern pattern = VariabilityPattern::NoIntervals;
    std::size_t dominantSlot = 0; // Direction: the slot with the most copy time in the top group
    double pingPongMedianBytes = 0; // PingPong: median size of the ping-pong copies in the top group
    std::string finding; // one plain sentence
};

struct IntervalOptions
{
    TimeNs intervalNs = 1'000'000'000;
    std::optional<TimeNs> originNs; // absolute; default: earliest kernel, copy or memset start
    IntervalMetric metric = IntervalMetric::Stddev;
    std::size_t top = 5;
    double topPercent = 5; // (0, 100]
    bool pool = false;
    unsigned threads = 0; // 0: every core
    // Blocks of intervals computed independently per rank; 0 chooses (about four per thread),
    // 1 computes each rank at once. The answer is the same for any value.
    std::size_t shards = 0;
    // A time shard of a file (gaplens-mpi): the busy time up to each GPU's busyUntil is
    // counted by the earlier shards of its file (EarlierShards::busyUntil), not again here.
    EarlierShards earlierShards;
};

struct IntervalReport
{
    TimeNs originNs = 0;
    TimeNs intervalNs = 0;
    IntervalMetric metric = IntervalMetric::Stddev;
    bool pooled = false;
    std::vector<RankIntervals> ranks; // ranks with a kernel or copy at or after the origin, ascending
    std::vector<AnomalyGroup> anomalies; // one per rank of `ranks`, or one pool
    Variability variability;
    std::vector<PingPong> pingPong; // one per entry of `ranks`
};

// The capture's earliest kernel, copy or memset start; nullopt when it has none.
std::optional<TimeNs> intervalOrigin(const TraceSet &trace);

// The interval length the GUI and the findings use unless told: 1 s when the GPU work (the
// origin to the last kernel, copy or memset end) spans at least kMinDefaultIntervals of them,
// else the longest 1-2-5 length (1, 2, 5, 10, 20, ... ns) that gives that many. 1 s without GPU work.
inline constexpr std::int64_t kMinDefaultIntervals = 20;
TimeNs defaultIntervalLength(const TraceSet &trace);
// The same two for a capture computed in parts (gaplens-mpi): the earliest start and the
// latest end over every part. Collective.
std::optional<TimeNs> intervalOrigin(const TraceSet &part, const PartsReduction &parts);
TimeNs defaultIntervalLength(const TraceSet &part, const PartsReduction &parts);

// The unit interval offsets from the origin are told in: the largest of s, ms, us, ns that
// divides the length, so "41-46 s" and "600-750 ms" need no decimals.
struct IntervalOffsetUnit
{
    double ns = 1;
    const char *name = "ns";
};
IntervalOffsetUnit intervalOffsetUnit(TimeNs intervalNs);
// Interval k's start from the origin in that unit, without it: "41", "600".
std::string intervalOffsetNumber(TimeNs intervalNs, std::int64_t k);

// The anomalies of `metric` over the report's statistics, found as computeIntervals finds
// those of options.metric (one group per entry of report.ranks, or one pool): another metric
// without computing the statistics again.
std::vector<AnomalyGroup> findAnomalies(
    const IntervalReport &report, IntervalMetric metric, bool pool, std::size_t top);

// Copy stalls of one rank (report.ranks[entry]): intervals whose stall_ns is above the rank's
// upper IQR fence of the stall metric and at least kMinStallPercent of the interval (a
// few microseconds of copies in an idle second are no stall). Interval indices, ascending.
inline constexpr double kMinStallPercent = 5;
std::vector<std::int64_t> copyStallIntervals(const IntervalReport &report, std::size_t entry);
// The intervals in which every rank of `entries` (indices into report.ranks) has a copy stall;
// empty for fewer than two entries.
std::vector<std::int64_t> simultaneousCopyStalls(const IntervalReport &report, const std::vector<std::size_t> &entries);

// At most this many intervals per rank (about 0.4 GiB of statistics): a longer interval is asked for.
inline constexpr std::int64_t kMaxIntervalsPerRank = 1'000'000;

// Busy time comes from `derived`'s busy lanes (kernels only unless it was built with copies).
// Throws std::invalid_argument, with a message naming the option, when intervalNs is not
// positive, originNs lies outside +-2^62 ns (the range of loaded times) or a rank would need
// more than kMaxIntervalsPerRank intervals.
IntervalReport computeIntervals(const DerivedCapture &derived, const IntervalOptions &options);

// computeIntervals in its two parts, for a capture analysed in pieces (gaplens-mpi: ranks on
// several processes). The statistics and ping-pong runs of each rank, from the events (the
// anomalies and variability left empty); then, from those alone, the anomalies and the
// variability. Ranks computed apart and put side by side in rank order finish to exactly
// computeIntervals' report, when every part was given the whole capture's origin.
IntervalReport computeIntervalStatistics(const DerivedCapture &derived, const IntervalOptions &options);
void finishIntervalReport(IntervalReport &report, const IntervalOptions &options);

} // namespace gaplens::core
