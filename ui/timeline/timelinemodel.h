// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/view/lod.h"
#include "ui/loading/derivedsource.h"
#include "ui/timeline/rowkinds.h"
#include "ui/timeline/statelanes.h"
#include "ui/timeline/timelinedata.h"

#include <QColor>
#include <QObject>
#include <QString>

#include <algorithm>
#include <memory>
#include <set>
#include <vector>

namespace gaplens::ui {

// The rows of the timeline for one loaded capture, their layout, the per-rank time offsets
// (alignment) and the idle gaps at the current threshold. Owned by the GUI thread.
// Display time of an event = its absolute time + rankOffset(rank).
// Rows are ready as soon as setData returns; the GPUs' busy lanes, the blamed gaps and the
// rows' fold indexes are read from the core::DerivedCapture that a DerivedCaptureController
// builds off the GUI thread and arrive later (gapsChanged), so the kernels are drawn first.
// The controller is the model's own unless a window shares one (setDerivedSource) with its
// panels.
class TimelineModel : public QObject
{
    Q_OBJECT
public:
    static constexpr int kHeaderHeight = 20;
    static constexpr int kLaneHeight = 22;
    static constexpr int kLevelHeight = 16;

    explicit TimelineModel(QObject *parent = nullptr);
    ~TimelineModel() override;

    void setData(std::shared_ptr<const TimelineData> data);
    // Reads the derived capture from `source` (a window's, shared with its panels) instead
    // of the model's own; call before setData. The model does not own it.
    void setDerivedSource(DerivedCaptureController *source);
    DerivedCaptureController *derivedSource() const { return m_source.current(); }
    // The derived capture shown (gaps, busy lanes, fold indexes, step tables); null until the
    // first one for the data arrives.
    const std::shared_ptr<const core::DerivedCapture> &derived() const;
    const TimelineData *data() const { return m_data.get(); }
    const std::shared_ptr<const TimelineData> &sharedData() const { return m_data; }
    const core::TraceSet *trace() const { return m_data ? m_data->trace.get() : nullptr; }
    bool isEmpty() const { return !trace(); }

    const std::vector<TimelineRow> &rows() const { return m_rows; }
    int totalHeight() const { return m_totalHeight; }
    // Row index at content y (0 = top of the first row), or -1.
    int rowAt(int y) const;
    // First row of `kind` that `key` names, or -1.
    int findRow(RowKind kind, const RowKey &key) const;

    // Collapsing a rank leaves its header and merged GPU lanes (RowDetail::Essential);
    // expanding a merged lane shows its streams.
    void toggleRow(int row);
    void setRankCollapsed(core::RankIndex rank, bool collapsed);
    bool isRankCollapsed(core::RankIndex rank) const { return m_collapsedRanks.count(rank) != 0; }
    void setStreamsExpanded(core::RankIndex rank, core::GpuIndex gpu, bool expanded);
    // Collapses every rank and its streams / expands every rank (streams stay as they are).
    void collapseAll();
    void expandAll();

    // The most detailed rows shown (default All): rows of a kind above it are left out, for
    // every rank. GpuLanes shows only the merged GPU lanes, their labels naming the rank.
    void setDetail(RowDetail detail);
    RowDetail detail() const { return m_detail; }
    // Row heights scaled by `scale` (0 < scale <= 1), never below kMinRowHeight: a picture
    // that cannot hold every rank's lane at full height.
    static constexpr int kMinRowHeight = 11;
    void setRowScale(double scale);
    double rowScale() const { return m_rowScale; }

    // What fitToHeight chose: the detail and row scale set, and how many ranks show their
    // merged lanes within the height (all of them unless even the smallest rows do not fit).
    struct RowFit
    {
        RowDetail detail = RowDetail::All;
        double scale = 1;
        int ranksShown = 0, rankCount = 0;
        bool reduced() const { return scale < 1 || ranksShown < rankCount; }
    };
    // Lowers the detail from the current one until every row fits in `height` px; below
    // GpuLanes the rows are shrunk, down to kMinRowHeight.
    RowFit fitToHeight(int height);

    // Idle gaps >= threshold on each GPU's merged lane, blamed (cause, API call, NVTX phase).
    // Setting a threshold builds a new derived capture (the newest request wins); the gaps
    // shown so far stay until the new ones arrive with gapsChanged.
    void setGapThreshold(core::TimeNs ns);
    core::TimeNs gapThreshold() const;
    using GpuGapList = core::GpuGapTable;
    // The gaps shown: an empty list until the first result arrives (or for a bad gpu index).
    const GpuGapList &gaps(core::GpuIndex gpu) const;
    std::size_t gapCount() const { return derived() ? derived()->gapCount() : 0; }
    // The gaps shown are those of the current data at the current threshold.
    bool gapsReady() const;
    // Blocks until the current gaps are built and applies them (offscreen renders and
    // exports, tests). Returns gapsReady(); false without data.
    bool waitForGaps();
    // Index of the gap [range) of `gpu` among the gaps shown, or -1.
    int gapIndexOf(core::GpuIndex gpu, core::TimeRange range) const;
    // The id of the gap at `index` of gaps(gpu) in the derived capture shown.
    core::GapId gapId(core::GpuIndex gpu, std::uint32_t index) const { return { gpu, index }; }

    // Alignment: absolute time (all offsets 0), or the k-th (1-based) NVTX range named `name`
    // of each rank starts at the same display time as rank 0's (first rank having it).
    // Returns false (and keeps absolute) when no rank has that range.
    void alignAbsolute();
    bool alignOnNvtx(const QString &name, int occurrence);
    // The occurrences of the NVTX range `name` per rank (core's step table; the derived
    // capture's memo once it has arrived); null without data.
    std::shared_ptr<const core::StepTable> stepTable(const QString &name) const;
    core::TimeNs rankOffset(core::RankIndex rank) const { return inRange(m_offsets, rank) ? at(m_offsets, rank) : 0; }
    // Display-time span of everything shown.
    core::TimeRange displaySpan() const { return m_displaySpan; }
    // The ruler shows times relative to this origin (start of the capture in display time).
    core::TimeNs origin() const { return m_displaySpan.start; }

    // The row's events as a draw-list row (MergedKernels: the busy intervals, once computed).
    core::RowView rowView(const TimelineRow &row) const;
    core::RowView streamView(core::GpuIndex gpu, core::StreamIndex stream) const;
    core::RowView gapView(core::GpuIndex gpu) const;
    // A GPU's memory-in-use counter; null until the derived capture arrives.
    const core::GpuMemoryCounter *memoryCounter(core::GpuIndex gpu) const;
    // A GPU's merged busy intervals; empty until the derived capture arrives.
    core::RowView busyView(core::GpuIndex gpu) const;
    // The same with their prefix sums, and one stream's merged kernels: what the lanes'
    // utilisation per pixel column is read from. Null (hasCover false) until derived.
    bool hasCover() const { return derived() != nullptr; }
    core::CoverColumns busyCover(core::GpuIndex gpu) const;
    core::CoverColumns streamCover(core::GpuIndex gpu, core::StreamIndex stream) const;
    // The draw list of rowView(row) / streamView(gpu, stream) in a window: through the row's
    // fold index once the derived capture has arrived, else core::buildDrawList (the same items).
    void rowDrawList(const TimelineRow &row, const core::ViewWindow &window, std::vector<core::DrawItem> &out) const;
    void streamDrawList(core::GpuIndex gpu, core::StreamIndex stream, const core::ViewWindow &window,
        std::vector<core::DrawItem> &out) const;

    // Run-accounting state lanes (the Run accounting panel computes them for the current
    // data): one "run states" row per rank that has spans, under its header. Null clears them;
    // lanes of other data are ignored. Emits rowsChanged.
    void setStateLanes(std::shared_ptr<const StateLanes> lanes);
    const std::shared_ptr<const StateLanes> &stateLanes() const { return m_stateLanes; }

    // Cached per StringId; kernel colours are stable across runs.
    QColor kernelColor(core::StringId name) const;
    QColor nvtxColor(core::StringId name) const;
    QColor apiColor(core::StringId name) const;
    QColor osrtColor(core::StringId name) const; // by the call's OsCategory
    QString str(core::StringId id) const;

    // Find: marks which names match; matchesName is O(1) per event while painting.
    void setFindPattern(const QString &pattern, bool regex);
    // Marks exactly one name (e.g. the kernel chosen in the Top kernels panel).
    void setFindName(core::StringId name);
    // Marks these names (an NVTX group's per-call names, a CUDA API call's name).
    void setFindNames(const std::vector<core::StringId> &names);
    bool hasFindPattern() const { return !m_findMatch.empty(); }
    bool matchesName(core::StringId id) const { return id < m_findMatch.size() && m_findMatch[id]; }
    // Narrows the find highlight of kernels to these launches (a histogram bin, the slowest);
    // cleared by the next find. Kernel (gpu, stream, index) triples.
    struct KernelRef
    {
        std::uint32_t gpu, stream, index;
        auto operator<=>(const KernelRef &) const = default;
    };
    void setKernelInstances(std::vector<KernelRef> kernels);
    // Whether a kernel matching the find is highlighted: every one, unless narrowed.
    bool isKernelHighlighted(core::GpuIndex gpu, core::StreamIndex stream, std::uint32_t index) const
    {
        return m_kernelInstances.empty()
            || std::binary_search(
                m_kernelInstances.begin(), m_kernelInstances.end(), KernelRef { gpu.value(), stream.value(), index });
    }

    // Gap highlight (the compare panel's clicked cause or phase): gaps whose blame key equals
    // `key` are outlined. Keys are core's totals keys: the cause label or the API name
    // (GapHighlight::Cause), the innermost NVTX group name or "(none)" (GapHighlight::Phase).
    // Survives threshold changes; cleared by setData. Returns the number of highlighted gaps.
    enum class GapHighlight { None, Cause, Phase };
    int setGapHighlight(GapHighlight kind, const QString &key);
    GapHighlight gapHighlightKind() const { return m_gapHighlightKind; }
    QString gapHighlightKey() const { return m_gapHighlightKey; }
    bool isGapHighlighted(core::GpuIndex gpu, std::uint32_t gap) const
    {
        return inRange(m_gapHighlight, gpu) && gap < at(m_gapHighlight, gpu).size() && at(m_gapHighlight, gpu)[gap];
    }
    // The blame keys of a gap shown, as core's totals name them.
    QString gapCauseKey(core::GpuIndex gpu, std::uint32_t gap) const;
    QString gapPhaseKey(core::GpuIndex gpu, std::uint32_t gap) const;

    // Per-rank display offsets (alignment), e.g. to save them or give an export the same view.
    const std::vector<core::TimeNs> &rankOffsets() const { return m_offsets; }
    // Copies what is shown (alignment offsets, collapsed ranks, expanded streams, threshold,
    // find and gap highlights) from a model over the same data; no-op for different data.
    // The other model's derived capture is shared, not rebuilt; when it is still being built
    // this waits for it (an export shows the gaps the screen is about to show).
    void copyViewStateFrom(const TimelineModel &other);

signals:
    void dataChanged();
    void rowsChanged();
    // The gaps shown changed: the derived capture for the current threshold was applied.
    void gapsChanged();
    // Emitted at once by setGapThreshold (the gaps follow with gapsChanged).
    void gapThresholdChanged(gaplens::core::TimeNs ns);
    void alignmentChanged();
    void findPatternChanged();

private:
    void rebuildRows();
    // The GPU's memory counter row and its projected NVTX rows, once the derived capture has them.
    template <class AddLevels> void addGpuDetailRows(core::RankIndex rank, core::GpuIndex gpu, AddLevels addLevels);
    void onDerivedChanged();
    const core::FoldIndex *foldIndex(const TimelineRow &row) const;
    void recomputeSpan();
    void recomputeGapHighlight();

    std::shared_ptr<const TimelineData> m_data;
    std::vector<TimelineRow> m_rows;
    // What the rows were built from: a derived capture with other projected rows or memory
    // counters rebuilds them.
    const core::ProjectedNvtx *m_rowsProjection = nullptr;
    const core::GpuMemoryUsage *m_rowsMemory = nullptr;
    int m_totalHeight = 0;
    std::set<core::RankIndex> m_collapsedRanks;
    std::set<std::pair<core::RankIndex, core::GpuIndex>> m_expandedStreams;
    RowDetail m_detail = RowDetail::All;
    double m_rowScale = 1;
    DerivedSource m_source;
    std::vector<core::TimeNs> m_offsets;
    core::TimeRange m_displaySpan;
    QColor cachedColor(std::vector<QRgb> &cache, core::StringId name, QColor (*colorOf)(std::string_view)) const;
    mutable std::vector<QRgb> m_kernelColors, m_nvtxColors, m_apiColors, m_osrtColors; // 0 = not computed yet
    std::vector<bool> m_findMatch;
    std::vector<KernelRef> m_kernelInstances; // sorted; empty: not narrowed
    GapHighlight m_gapHighlightKind = GapHighlight::None;
    QString m_gapHighlightKey;
    std::vector<std::vector<bool>> m_gapHighlight; // per GPU, per gap
    std::shared_ptr<const StateLanes> m_stateLanes;
};

} // namespace gaplens::ui
