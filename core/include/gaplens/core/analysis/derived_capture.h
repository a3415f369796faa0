// SPDX-License-Identifier: MIT
#pragma once
// Everything derived from a loaded capture at one (threshold, options), computed once and
// immutable: each GPU's merged busy intervals with its busy figures, the idle gaps at the
// threshold with their blame, a stable id and their blame keys, the blame totals, the NVTX
// step tables and the timeline's fold indexes. The timeline, the panels, the compare view,
// exports, reports and the CLI all read one of these; none of them merges intervals or finds
// gaps itself.
//
// What does not depend on the threshold (busy lanes, fold indexes, step tables) is shared
// with the previous DerivedCapture of the same trace, so a threshold change only re-runs the
// gap search and the blame.
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/gpu_memory.h"
#include "gaplens/core/analysis/nvtx_projection.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/trace.h"
#include "gaplens/core/util/cancel.h"
#include "gaplens/core/util/index.h"
#include "gaplens/core/view/capture_fold_index.h"
#include "gaplens/core/view/cover_columns.h"
#include "gaplens/core/view/row_view.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

struct DerivedOptions
{
    TimeNs minGapNs = kDefaultMinGapNs; // idle gaps of at least this length
    bool includeCopies = false; // copies and memsets count as busy and may end a gap
    // build the timeline's fold indexes and its projected NVTX rows (the CLI draws nothing)
    bool foldIndexes = true;
    // The projected NVTX rows are left out, with a reason (projectionSkipped), when their
    // projectedNvtxPeakBytes exceed this many bytes; 0: the memory this process may still take
    // (tightestMemoryHeadroom). A capture opened larger than memory keeps the rest of the
    // timeline instead of being killed while it builds them.
    std::uint64_t projectionMemoryLimit = 0;
    // A time shard's carry from the shards before it (gaplens-mpi); empty for a whole capture.
    EarlierShards earlierShards;
};

// One GPU's merged busy intervals in columns, and its figures, exactly as computeGpuBusy
// (whole capture, DerivedOptions::includeCopies) gives them.
struct GpuBusyLane
{
    GpuIndex gpu;
    // Merged busy intervals: sorted, disjoint, never touching (GpuBusy::intervals as columns).
    std::vector<TimeNs> start, end;
    // busyBefore[i] = busy ns of intervals [0, i); size() + 1 entries, so a window's busy time
    // is two binary searches.
    std::vector<TimeNs> busyBefore;
    std::vector<TimeNs> coarseStart; // core::coarseStarts(start), for the utilisation bars
    TimeNs busyNs = 0;
    TimeRange window; // first merged start .. last merged end; {0,0} when no work
    double busyPercent = 0; // busyNs / window.duration() * 100; 0 when the window is empty
    std::vector<StreamBusy> streams; // one per Gpu::streams entry, same order
    // Each stream's kernels merged, for the stream lanes' utilisation (one per Gpu::streams
    // entry). A GPU whose one stream is all its busy time (no copies counted) keeps none:
    // its stream lane reads the GPU's own intervals.
    struct StreamLane
    {
        std::vector<TimeNs> start, end, busyBefore, coarseStart;
    };
    std::vector<StreamLane> streamLanes;

    std::size_t size() const { return start.size(); }
    TimeRange interval(std::size_t i) const { return { start[i], end[i] }; }
    RowView row() const { return { start, end, {} }; }
    CoverColumns cover() const { return { start, end, busyBefore, coarseStart }; }
    // The stream lane's merged kernels; empty for an unknown stream.
    CoverColumns streamCover(std::size_t stream) const;
};

// Every GPU's lane, one per TraceSet::gpus, same order. Threshold-independent.
struct BusyLanes
{
    std::vector<GpuBusyLane> gpus;
};

// A GPU's busy figures in a window, equal to computeGpuBusy(trace, gpu, {includeCopies, window}).
struct BusyFigures
{
    TimeNs busyNs = 0;
    TimeRange window; // first to last busy time inside the window; {0,0} when none
    double busyPercent = 0;
};

// Index into DerivedCapture::causeKeys() or phaseKeys().
using BlameKeyIndex = Index<struct BlameKeyIndexTag>;

// One GPU's idle gaps at the threshold, in start order (ordinal = position = GapId::ordinal),
// each blamed by GapBlamer as blameGaps does. Gaps never overlap, so start and end are both
// sorted.
struct GpuGapTable
{
    GpuIndex gpu;
    std::vector<TimeNs> start, end;
    std::vector<GapBlame> blame;
    std::vector<BlameKeyIndex> causeKey, phaseKey; // gapCauseKey / gapPhaseKey, as table indices
    // idleBefore[i] = summed duration of gaps [0, i); size() + 1 entries.
    std::vector<TimeNs> idleBefore;
    // The same per cause: idleBeforeByCause[i][cause]. What the timeline colours a run of
    // sub-pixel gaps by (its cause with the most idle time) in O(causes).
    std::vector<std::array<TimeNs, kGapCauseCount>> idleBeforeByCause;
    TimeNs totalNs = 0;

    // The cause with the most idle time among gaps [first, last] (ties: the lower cause).
    GapCause dominantCause(std::uint32_t first, std::uint32_t last) const;

    std::size_t size() const { return start.size(); }
    TimeRange range(std::size_t ordinal) const { return { start[ordinal], end[ordinal] }; }
    RowView row() const { return { start, end, {} }; }
};

// Ordinals [begin, end) of one GPU's gaps.
struct GapRange
{
    GpuIndex gpu;
    std::uint32_t begin = 0, end = 0;
    std::size_t size() const { return end - begin; }
    bool empty() const { return begin == end; }
};

// Gap count and idle time, as findIdleGaps gives them.
struct GapFigures
{
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
};

// The occurrences of one NVTX name (its ranges, or those it is the group name of, as pace
// matches them) per rank: the sorted start
// times of its ranges over all the rank's threads. What aligning timelines on "the k-th step"
// reads.
struct StepTable
{
    StringId name = kEmptyString;
    std::vector<std::vector<TimeNs>> startsByRank; // [rank], one per TraceSet::ranks

    struct Anchor
    {
        RankIndex rank;
        TimeNs start = 0;
    };
    // Start of the occurrence-th (1-based) occurrence on `rank`; nullopt when it has fewer
    // (or occurrence is 0).
    std::optional<TimeNs> occurrenceStart(RankIndex rank, std::size_t occurrence) const;
    // The first rank (lowest index) with at least `occurrence` occurrences, and that
    // occurrence's start (the compare view's anchor); nullopt when no rank has that many.
    std::optional<Anchor> firstRankOccurrence(std::size_t occurrence) const;
};

// Pure: one pass over the NVTX ranges of every thread of every rank. Threads without a rank
// are not counted.
StepTable computeStepTable(const TraceSet &trace, StringId name);

// The GPUs used by the selected ranks (Gpu::ranks), ascending; every GPU for RankSelection::all().
std::vector<GpuIndex> gpusOfRanks(const TraceSet &trace, const RankSelection &ranks);

class DerivedCapture
{
public:
    // Derives everything for (trace, options). Parts that do not depend on the threshold are
    // taken from `previous` (may be null) when it is over the same trace (pointer identity):
    // busy lanes when includeCopies is the same too, the fold index and the step-table memo
    // always. Polls `cancel` (may be null) every few thousand intervals and returns null once
    // it is cancelled; a null trace gives a DerivedCapture with no GPUs.
    static std::shared_ptr<const DerivedCapture> build(std::shared_ptr<const TraceSet> trace,
        const DerivedOptions &options, const CancelToken *cancel = nullptr, const DerivedCapture *previous = nullptr);

    DerivedCapture(const DerivedCapture &) = delete;
    DerivedCapture &operator=(const DerivedCapture &) = delete;
    ~DerivedCapture();

    const TraceSet &trace() const { return *m_trace; }
    const std::shared_ptr<const TraceSet> &sharedTrace() const { return m_trace; }
    const DerivedOptions &options() const { return m_options; }
    TimeNs minGapNs() const { return m_options.minGapNs; }
    std::size_t gpuCount() const { return m_gaps.size(); }

    // --- busy time (threshold-independent, shared across thresholds) ---
    const std::shared_ptr<const BusyLanes> &busyLanes() const { return m_busy; }
    const GpuBusyLane &busy(GpuIndex gpu) const { return m_busy->gpus[gpu.value()]; }
    // Busy figures of a GPU in a window (whole capture for nullopt): two binary searches.
    BusyFigures busyIn(GpuIndex gpu, const TimeWindow &window) const;

    // --- idle gaps at the threshold ---
    const GpuGapTable &gaps(GpuIndex gpu) const { return m_gaps[gpu.value()]; }
    std::size_t gapCount() const; // over all GPUs
    const GapBlame &gap(GapId id) const { return m_gaps[id.gpu.value()].blame[id.ordinal]; }
    TimeRange gapRange(GapId id) const { return m_gaps[id.gpu.value()].range(id.ordinal); }
    // The gap of `gpu` exactly equal to `range`; nullopt when there is none (another
    // threshold's gap, or a GPU index out of range).
    std::optional<GapId> findGap(GpuIndex gpu, TimeRange range) const;
    // The gap of `gpu` containing t ([start, end)); nullopt when t is not in a gap.
    std::optional<GapId> gapAt(GpuIndex gpu, TimeNs t) const;
    // The gaps blameGaps finds with this window: intervals are clipped to the window first, so
    // those are the gaps lying strictly inside it (start > window.start, end < window.end).
    GapRange gapsIn(GpuIndex gpu, const TimeWindow &window) const;
    // Per GPU of gpusOfRanks(ranks), ascending, one entry each (empty ranges included).
    std::vector<GapRange> gapsIn(const RankSelection &ranks, const TimeWindow &window) const;
    // findIdleGaps(computeGpuBusy(trace, gpu, {includeCopies, window}), minGapNs) figures.
    GapFigures gapFiguresIn(GpuIndex gpu, const TimeWindow &window) const;

    // --- blame keys: each distinct gapCauseKey / gapPhaseKey once, in order first seen ---
    const std::vector<std::string> &causeKeys() const { return m_causeKeys; }
    const std::vector<std::string> &phaseKeys() const { return m_phaseKeys; }
    BlameKeyIndex causeKeyOf(GapId id) const { return m_gaps[id.gpu.value()].causeKey[id.ordinal]; }
    BlameKeyIndex phaseKeyOf(GapId id) const { return m_gaps[id.gpu.value()].phaseKey[id.ordinal]; }
    // Invalid index when no gap has that key.
    BlameKeyIndex findCauseKey(std::string_view key) const;
    BlameKeyIndex findPhaseKey(std::string_view key) const;

    // --- blame totals of the whole capture, as blameGaps(trace, {minGapNs, includeCopies}) ---
    const BlameTotals &overallTotals() const { return m_overall; }
    const std::vector<GpuBlameTotals> &gpuTotals() const { return m_perGpu; } // one per GPU, ascending
    const std::vector<RankBlameTotals> &rankTotals() const { return m_perRank; } // ranks with a gap, ascending
    const BlameTotals &totalsOfGpu(GpuIndex gpu) const { return m_perGpu[gpu.value()].totals; }
    // Null when the rank has no gap.
    const BlameTotals *totalsOfRank(RankIndex rank) const;

    // --- scoped answers, without merging again ---
    // Exactly blameGaps(trace, {minGapNs, includeCopies, window, gpus}); an empty `gpus` means
    // every GPU, as in GapBlameOptions.
    GapBlameReport blameReportOfGpus(std::span<const GpuIndex> gpus, const TimeWindow &window = std::nullopt) const;
    // The same over the GPUs of the selected ranks (gpusOfRanks); a selection whose ranks use
    // no GPU gives an empty report.
    GapBlameReport blameReport(
        const RankSelection &ranks = RankSelection::all(), const TimeWindow &window = std::nullopt) const;
    // blameReport(ranks, window).overall without copying the gaps.
    BlameTotals totalsIn(const RankSelection &ranks, const TimeWindow &window = std::nullopt) const;
    // Totals of any list of this capture's gaps (a filtered one), as totalBlame gives them.
    BlameTotals totalsOf(std::span<const GapId> gaps) const;

    // --- NVTX step tables, memoized: each name is computed at most once, thread-safely, and
    // the memo is shared across thresholds ---
    std::shared_ptr<const StepTable> stepTable(StringId name) const;
    // By text; a name the capture never interned (or "") gives a table without occurrences.
    std::shared_ptr<const StepTable> stepTable(std::string_view name) const;

    // --- the timeline's fold indexes (threshold-independent, shared); null when built with
    // DerivedOptions::foldIndexes = false ---
    const std::shared_ptr<const CaptureFoldIndex> &foldIndex() const { return m_folds; }

    // --- NVTX ranges projected onto each GPU with their fold indexes (threshold-independent,
    // shared); null when built with DerivedOptions::foldIndexes = false ---
    const std::shared_ptr<const ProjectedNvtx> &projectedNvtx() const { return m_projectedNvtx; }
    // Why the projection was not built for lack of memory, for the user; empty when it was
    // built or not asked for.
    const std::string &projectionSkipped() const { return m_projectionSkipped; }

    // --- GPU memory in use per GPU (threshold-independent, shared) ---
    const GpuMemoryUsage &gpuMemory() const { return *m_memory; }

private:
    struct StepMemo; // src/analysis/step_memo.h
    DerivedCapture();
    // The build steps; false when cancelled.
    bool deriveGaps(const CancelToken *cancel);

    std::shared_ptr<const TraceSet> m_trace;
    DerivedOptions m_options;
    std::shared_ptr<const BusyLanes> m_busy;
    std::shared_ptr<const CaptureFoldIndex> m_folds;
    std::shared_ptr<const ProjectedNvtx> m_projectedNvtx;
    std::string m_projectionSkipped;
    std::shared_ptr<const GpuMemoryUsage> m_memory;
    std::shared_ptr<StepMemo> m_steps;
    std::vector<GpuGapTable> m_gaps; // one per TraceSet::gpus
    std::vector<std::string> m_causeKeys, m_phaseKeys;
    BlameTotals m_overall;
    std::vector<GpuBlameTotals> m_perGpu;
    std::vector<RankBlameTotals> m_perRank;
};

} // namespace gaplens::core
