// SPDX-License-Identifier: MIT
#pragma once
// The kinds of timeline row, each described once: its height, label, events (RowView) and
// fold index, how it is painted and what a hit on it is. The model, painter and labels ask
// the descriptor instead of switching on the kind, so adding a kind touches this file only.
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/model/trace.h"
#include "gaplens/core/view/capture_fold_index.h"
#include "gaplens/core/view/row_view.h"
#include "ui/timeline/strongindex.h"

#include <QColor>
#include <QString>

#include <cstdint>

namespace gaplens::ui {

class TimelineModel;
struct HitResult;
enum class HitKind;

enum class RowKind {
    RankHeader, // "Rank 0 · host · pid": click collapses the rank
    MergedKernels, // union of a GPU's streams; idle-gap bands; click expands the streams
    StreamKernels, // one stream's kernels
    Copies, // copies + memsets of one stream of a GPU, one row per row of its lane (CopyLanes)
    Nvtx, // NVTX ranges of a thread, one row per depth
    Api, // CUDA API calls of a thread, one row per depth
    Marks, // NVTX marks (instants) of a thread, one row
    Osrt, // OS runtime calls (nsys -t osrt) of a thread, one row per depth
    States, // run-accounting states of a rank (TimelineModel::stateLanes), one row
    ProjectedNvtx, // NVTX ranges projected onto a GPU (core::ProjectedNvtx), one row per depth
    GpuMemory, // a GPU's memory in use over time (core::GpuMemoryCounter), one counter row
};
inline constexpr int kRowKindCount = 11;

struct TimelineRow
{
    RowKind kind = RowKind::RankHeader;
    core::RankIndex rank;
    core::GpuIndex gpu;
    core::StreamIndex stream; // StreamKernels only
    core::ThreadIndex thread;
    // nesting depth for Nvtx / Api / Osrt / ProjectedNvtx; Copies: the row in CopyColumns::lanes
    std::uint32_t level = 0;
    int y = 0;
    int height = 0;
    int indent = 0;
    bool expandable = false;
    bool expanded = false;
    QString label;
};

// Names a row for TimelineModel::findRow by the indices its kind has: RankHeader the rank,
// MergedKernels the GPU, StreamKernels the GPU and stream, Copies the GPU and lane row, Nvtx,
// Api and Osrt the thread and level, States the rank, ProjectedNvtx the GPU and level, GpuMemory the GPU. A
// valid rank restricts every kind to that rank's rows.
struct RowKey
{
    core::RankIndex rank;
    core::GpuIndex gpu;
    core::StreamIndex stream;
    core::ThreadIndex thread;
    std::uint32_t level = 0;
};

// How much a row is detail, least first: a view shows the rows up to its level, so lowering it
// folds detail away before a rank's label and merged GPU lane (collapsed ranks, "GPU lanes
// only", pictures fitted to a height).
enum class RowDetail {
    GpuLanes, // the merged GPU lanes only, each labelled with its rank
    Essential, // + the rank headers: what a collapsed rank shows
    Streams, // + the lanes of expanded streams
    Copies, // + copies and memsets
    Nvtx, // + NVTX ranges
    All, // + CUDA API calls and OS runtime calls
};

// How a row's events are painted (TrackPainter has one routine per style).
enum class RowPaint {
    Header, // a band, no events
    MergedLane, // every stream's kernels in one lane, idle-gap bands over them
    StreamLane, // one stream's kernels
    Intervals, // ranges of one nesting level, coloured per event (copies, NVTX, API)
    Instants, // events without duration, each a diamond (NVTX marks)
    States, // spans tiling the row: each pixel column in the colour of its dominant state
    Counter, // a value over time as a step line, the per-pixel-column maximum (GPU memory)
};

// The look of one event of an Intervals row.
struct EventLook
{
    QColor color;
    core::StringId name = core::kEmptyString; // shown and matched by find; kEmptyString: `text`
    QString text; // shown when there is no name (copies)
};

struct RowKindDescriptor
{
    RowKind kind;
    int height; // px
    int indent; // label indentation steps
    RowPaint paint;
    RowDetail detail; // the lowest level that shows rows of this kind
    HitKind hitKind; // what a hit on one of its events is
    int hitPreference; // among rows showing one hit, the lowest wins (a stream lane over the merged one)
    bool separatorAbove; // labels draw a line above it
    // The row's events as a draw-list row (MergedKernels: the busy intervals, once derived).
    core::RowView (*events)(const TimelineModel &model, const TimelineRow &row);
    // Its fold index among the derived capture's, or null (no index, or none for this kind).
    const core::FoldIndex *(*foldIndex)(const core::DerivedCapture &derived, const TimelineRow &row);
    // Whether `row` (of this kind) is the one `key` names (findRow).
    bool (*isRow)(const TimelineRow &row, const RowKey &key);
    // Whether `row` (of this kind) shows `hit` (TrackPainter::rowOf).
    bool (*showsHit)(const TimelineRow &row, const HitResult &hit);
    // Clicking an expandable row of this kind (its label's triangle).
    void (*toggle)(TimelineModel &model, const TimelineRow &row);
    // Intervals and Instants rows: colour and name of event `index` of the row's columns.
    EventLook (*look)(const TimelineModel &model, const TimelineRow &row, std::uint32_t index);
};

const RowKindDescriptor &describe(RowKind kind);
inline const RowKindDescriptor &describe(const TimelineRow &row)
{
    return describe(row.kind);
}

} // namespace gaplens::ui
