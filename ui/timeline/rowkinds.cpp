// SPDX-License-Identifier: MIT
#include "ui/timeline/rowkinds.h"

#include "ui/timeline/colors.h"
#include "ui/timeline/hitresult.h"
#include "ui/timeline/timelinemodel.h"

namespace gaplens::ui {

namespace {

template <class Tag>
const core::FoldIndex *foldAt(
    const std::vector<std::vector<core::FoldIndex>> &rows, core::Index<Tag> a, std::uint32_t b)
{
    return inRange(rows, a) && b < at(rows, a).size() ? &at(rows, a)[b] : nullptr;
}
const core::FoldIndex *noFoldIndex(const core::DerivedCapture &, const TimelineRow &)
{
    return nullptr;
}
// A fold index of the capture's CaptureFoldIndex, when the derived capture has one.
template <class Pick> const core::FoldIndex *captureFolds(const core::DerivedCapture &derived, Pick pick)
{
    return derived.foldIndex() ? pick(*derived.foldIndex()) : nullptr;
}
// The GPU's projected NVTX lane, when the derived capture has the projection.
const core::ProjectedNvtxLane *projectedLane(const core::DerivedCapture *derived, core::GpuIndex gpu)
{
    if (!derived || !derived->projectedNvtx() || !inRange(derived->projectedNvtx()->gpus, gpu))
        return nullptr;
    return &at(derived->projectedNvtx()->gpus, gpu);
}
core::RowView noEvents(const TimelineModel &, const TimelineRow &)
{
    return {};
}
EventLook noLook(const TimelineModel &, const TimelineRow &, std::uint32_t)
{
    return {};
}
void noToggle(TimelineModel &, const TimelineRow &) { }
// What a hit is of: a fold's events, else the hit itself.
HitKind shownKind(const HitResult &hit)
{
    return hit.kind == HitKind::Fold ? hit.foldOf : hit.kind;
}
bool sameRank(const TimelineRow &row, const HitResult &hit)
{
    return !hit.rank.isValid() || row.rank == hit.rank;
}

template <class Columns> core::RowView levelView(const Columns &c, std::uint32_t level)
{
    return core::RowView { c.start, c.end, c.nesting.level(level) };
}

const RowKindDescriptor kRankHeader { RowKind::RankHeader, TimelineModel::kHeaderHeight, 0, RowPaint::Header,
    RowDetail::Essential, HitKind::None, 0, true, noEvents, noFoldIndex,
    [](const TimelineRow &row, const RowKey &key) { return row.rank == key.rank; },
    [](const TimelineRow &, const HitResult &) { return false; },
    [](TimelineModel &model, const TimelineRow &row) {
        model.setRankCollapsed(row.rank, !model.isRankCollapsed(row.rank));
    },
    noLook };

const RowKindDescriptor kMergedKernels { RowKind::MergedKernels, TimelineModel::kLaneHeight, 1, RowPaint::MergedLane,
    RowDetail::GpuLanes, HitKind::Kernel, 1, true,
    [](const TimelineModel &model, const TimelineRow &row) { return model.busyView(row.gpu); }, noFoldIndex,
    [](const TimelineRow &row, const RowKey &key) { return row.gpu == key.gpu; },
    [](const TimelineRow &row, const HitResult &hit) {
        const HitKind kind = shownKind(hit);
        return (kind == HitKind::Kernel || kind == HitKind::Gap) && row.gpu == hit.gpu && sameRank(row, hit);
    },
    [](TimelineModel &model, const TimelineRow &row) { model.setStreamsExpanded(row.rank, row.gpu, !row.expanded); },
    noLook };

const RowKindDescriptor kStreamKernels { RowKind::StreamKernels, TimelineModel::kLaneHeight, 2, RowPaint::StreamLane,
    RowDetail::Streams, HitKind::Kernel, 0, false,
    [](const TimelineModel &model, const TimelineRow &row) { return model.streamView(row.gpu, row.stream); },
    [](const core::DerivedCapture &derived, const TimelineRow &row) {
        return captureFolds(derived,
            [&](const core::CaptureFoldIndex &folds) { return foldAt(folds.streams, row.gpu, row.stream.value()); });
    },
    [](const TimelineRow &row, const RowKey &key) { return row.gpu == key.gpu && row.stream == key.stream; },
    [](const TimelineRow &row, const HitResult &hit) {
        const HitKind kind = shownKind(hit);
        return kind == HitKind::Kernel && row.gpu == hit.gpu && row.stream == hit.stream && sameRank(row, hit);
    },
    noToggle, noLook };

const RowKindDescriptor kCopies { RowKind::Copies, TimelineModel::kLevelHeight, 1, RowPaint::Intervals,
    RowDetail::Copies, HitKind::Copy, 0, false,
    [](const TimelineModel &model, const TimelineRow &row) {
        const auto &copies = at(model.trace()->gpus, row.gpu).copies;
        return core::RowView { copies.start, copies.end, copies.lanes.rows.at(row.level) };
    },
    [](const core::DerivedCapture &derived, const TimelineRow &row) {
        return captureFolds(
            derived, [&](const core::CaptureFoldIndex &folds) { return foldAt(folds.copies, row.gpu, row.level); });
    },
    [](const TimelineRow &row, const RowKey &key) { return row.gpu == key.gpu && row.level == key.level; },
    [](const TimelineRow &row, const HitResult &hit) {
        const HitKind kind = shownKind(hit);
        return kind == HitKind::Copy && row.gpu == hit.gpu && row.level == hit.level && sameRank(row, hit);
    },
    noToggle,
    [](const TimelineModel &model, const TimelineRow &row, std::uint32_t ev) {
        const auto kind = at(model.trace()->gpus, row.gpu).copies.kind[ev];
        return EventLook { copyColor(kind), core::kEmptyString, QString::fromLatin1(core::copyKindName(kind)) };
    } };

// An Nvtx, Api or Osrt row: one nesting level of a thread's `columns`, folded through the capture's
// `folds`, events coloured by name with `color`.
template <auto columns, auto folds, RowKind kind, RowDetail detail, HitKind hitKind,
    QColor (TimelineModel::*color)(core::StringId) const>
constexpr RowKindDescriptor threadLevelKind()
{
    return { kind, TimelineModel::kLevelHeight, 1, RowPaint::Intervals, detail, hitKind, 0, false,
        [](const TimelineModel &model, const TimelineRow &row) {
            return levelView(at(model.trace()->threads, row.thread).*columns, row.level);
        },
        [](const core::DerivedCapture &derived, const TimelineRow &row) {
            return captureFolds(derived,
                [&](const core::CaptureFoldIndex &index) { return foldAt(index.*folds, row.thread, row.level); });
        },
        [](const TimelineRow &row, const RowKey &key) { return row.thread == key.thread && row.level == key.level; },
        [](const TimelineRow &row, const HitResult &hit) {
            return shownKind(hit) == hitKind && row.thread == hit.thread && row.level == hit.level;
        },
        noToggle,
        [](const TimelineModel &model, const TimelineRow &row, std::uint32_t ev) {
            const core::StringId name = (at(model.trace()->threads, row.thread).*columns).name[ev];
            return EventLook { (model.*color)(name), name, {} };
        } };
}

const RowKindDescriptor kNvtx = threadLevelKind<&core::Thread::nvtx, &core::CaptureFoldIndex::nvtx, RowKind::Nvtx,
    RowDetail::Nvtx, HitKind::Nvtx, &TimelineModel::nvtxColor>();
const RowKindDescriptor kApi = threadLevelKind<&core::Thread::api, &core::CaptureFoldIndex::api, RowKind::Api,
    RowDetail::All, HitKind::Api, &TimelineModel::apiColor>();
// OS runtime calls: detail like the CUDA calls (a collapsed rank hides them), coloured by
// category; folds are neutral like every Intervals row's.
const RowKindDescriptor kOsrt = threadLevelKind<&core::Thread::osrt, &core::CaptureFoldIndex::osrt, RowKind::Osrt,
    RowDetail::All, HitKind::Osrt, &TimelineModel::osrtColor>();

// Marks are instants: a row whose events start and end at the mark's time, so the draw list
// folds marks closer than kMinVisiblePx like any other sub-pixel events.
const RowKindDescriptor kMarks { RowKind::Marks, TimelineModel::kLevelHeight, 1, RowPaint::Instants, RowDetail::Nvtx,
    HitKind::Mark, 0, false,
    [](const TimelineModel &model, const TimelineRow &row) {
        const auto &time = at(model.trace()->threads, row.thread).marks.time;
        return core::RowView { time, time, {} };
    },
    [](const core::DerivedCapture &derived, const TimelineRow &row) {
        return captureFolds(derived, [&](const core::CaptureFoldIndex &folds) {
            return inRange(folds.marks, row.thread) ? &at(folds.marks, row.thread) : nullptr;
        });
    },
    [](const TimelineRow &row, const RowKey &key) { return row.thread == key.thread; },
    [](const TimelineRow &row, const HitResult &hit) {
        return shownKind(hit) == HitKind::Mark && row.thread == hit.thread;
    },
    noToggle,
    [](const TimelineModel &model, const TimelineRow &row, std::uint32_t ev) {
        const core::StringId name = at(model.trace()->threads, row.thread).marks.name[ev];
        return EventLook { model.nvtxColor(name), name, {} };
    } };

// A rank's run-accounting states: core's partition spans, which tile the window; a rank's
// overview, so a collapsed rank keeps it beside its merged GPU lanes.
const RowKindDescriptor kStates { RowKind::States, TimelineModel::kLevelHeight, 1, RowPaint::States,
    RowDetail::Essential, HitKind::State, 0, false,
    [](const TimelineModel &model, const TimelineRow &row) {
        return model.stateLanes() ? model.stateLanes()->rowView(row.rank.value()) : core::RowView {};
    },
    noFoldIndex, [](const TimelineRow &row, const RowKey &key) { return row.rank == key.rank; },
    [](const TimelineRow &row, const HitResult &hit) {
        return shownKind(hit) == HitKind::State && row.rank == hit.rank;
    },
    noToggle,
    [](const TimelineModel &model, const TimelineRow &row, std::uint32_t ev) {
        const auto state = model.stateLanes()->spans(row.rank.value())->state[ev];
        const auto name = core::runStateName(state);
        return EventLook { runStateColor(state), core::kEmptyString,
            QString::fromLatin1(name.data(), qsizetype(name.size())) };
    } };

// NVTX ranges projected onto a GPU: shown with the NVTX rows, coloured like the ranges they
// project, folded through the projection's own fold indexes.
const RowKindDescriptor kProjectedNvtx { RowKind::ProjectedNvtx, TimelineModel::kLevelHeight, 1, RowPaint::Intervals,
    RowDetail::Nvtx, HitKind::ProjectedNvtx, 0, false,
    [](const TimelineModel &model, const TimelineRow &row) {
        const auto *lane = projectedLane(model.derived().get(), row.gpu);
        return lane && row.level < lane->nesting.levelCount() ? lane->level(row.level) : core::RowView {};
    },
    [](const core::DerivedCapture &derived, const TimelineRow &row) -> const core::FoldIndex * {
        const auto *lane = projectedLane(&derived, row.gpu);
        return lane && row.level < lane->folds.size() ? &lane->folds[row.level] : nullptr;
    },
    [](const TimelineRow &row, const RowKey &key) { return row.gpu == key.gpu && row.level == key.level; },
    [](const TimelineRow &row, const HitResult &hit) {
        return shownKind(hit) == HitKind::ProjectedNvtx && row.gpu == hit.gpu && row.level == hit.level
            && sameRank(row, hit);
    },
    noToggle,
    [](const TimelineModel &model, const TimelineRow &row, std::uint32_t ev) {
        const auto *lane = projectedLane(model.derived().get(), row.gpu);
        const auto source = lane->source(ev);
        const core::StringId name
            = at(model.trace()->threads, core::ThreadIndex(source.thread)).nvtx.name[source.range];
        return EventLook { model.nvtxColor(name), name, {} };
    } };

// A GPU's memory in use: a counter row, drawn and hit by TrackPainter from core's counter.
const RowKindDescriptor kGpuMemory { RowKind::GpuMemory, TimelineModel::kLaneHeight, 1, RowPaint::Counter,
    RowDetail::Copies, HitKind::Memory, 0, false, noEvents, noFoldIndex,
    [](const TimelineRow &row, const RowKey &key) { return row.gpu == key.gpu; },
    [](const TimelineRow &row, const HitResult &hit) {
        return hit.kind == HitKind::Memory && row.gpu == hit.gpu && sameRank(row, hit);
    },
    noToggle, noLook };

// Indexed by RowKind.
const RowKindDescriptor *const kDescriptors[kRowKindCount] = { &kRankHeader, &kMergedKernels, &kStreamKernels, &kCopies,
    &kNvtx, &kApi, &kMarks, &kOsrt, &kStates, &kProjectedNvtx, &kGpuMemory };

} // namespace

const RowKindDescriptor &describe(RowKind kind)
{
    return *kDescriptors[int(kind)];
}

} // namespace gaplens::ui
