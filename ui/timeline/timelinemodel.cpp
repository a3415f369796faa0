// SPDX-License-Identifier: MIT
#include "ui/timeline/timelinemodel.h"

#include "ui/loading/derivedcapturecontroller.h"
#include "ui/timeline/colors.h"

#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/util/units.h"

#include <QRegularExpression>
#include <QSignalBlocker>
#include <QThread>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gaplens::ui {

using core::TimeNs;

TimelineModel::TimelineModel(QObject *parent)
    : QObject(parent)
    , m_source(this)
{
    setDerivedSource(nullptr);
}

TimelineModel::~TimelineModel() = default;

void TimelineModel::setDerivedSource(DerivedCaptureController *source)
{
    if (!m_source.use(source))
        return;
    connect(m_source.current(), &DerivedCaptureController::derivedChanged, this, &TimelineModel::onDerivedChanged);
    connect(
        m_source.current(), &DerivedCaptureController::gapThresholdChanged, this, &TimelineModel::gapThresholdChanged);
}

const std::shared_ptr<const core::DerivedCapture> &TimelineModel::derived() const
{
    // What the source shows belongs to this model's data only if it is over the same trace.
    static const std::shared_ptr<const core::DerivedCapture> kNone;
    const auto &d = m_source->derived();
    return d && m_data && d->sharedTrace() == m_data->trace ? d : kNone;
}

void TimelineModel::setData(std::shared_ptr<const TimelineData> data)
{
    m_data = std::move(data);
    m_collapsedRanks.clear();
    m_expandedStreams.clear();
    m_kernelColors.clear();
    m_nvtxColors.clear();
    m_apiColors.clear();
    m_osrtColors.clear();
    m_findMatch.clear();
    m_kernelInstances.clear();
    m_gapHighlightKind = GapHighlight::None;
    m_gapHighlightKey.clear();
    m_gapHighlight.clear();
    m_stateLanes.reset();
    m_offsets.assign(trace() ? trace()->ranks.size() : 0, 0);
    recomputeSpan();
    rebuildRows();
    // Last: the rows are drawable now, the gaps follow from the controller's build.
    // A shared source may have this capture already (set by the panels' context). A first
    // stage has no gaps: the source (and the panels that share it) keeps what it has until
    // the full capture comes; derived() shows nothing of it meanwhile, being of another trace.
    if (const auto captured = m_data ? m_data->trace : nullptr;
        m_source->trace() != captured && !(m_data && m_data->firstStage))
        m_source->setTrace(captured, m_data ? m_data->derived : nullptr);
    emit dataChanged();
}

QString TimelineModel::str(core::StringId id) const
{
    const auto *t = trace();
    if (!t || id >= t->strings.size())
        return {};
    return QString::fromStdString(t->str(id));
}

QColor TimelineModel::cachedColor(
    std::vector<QRgb> &cache, core::StringId name, QColor (*colorOf)(std::string_view)) const
{
    // The colour functions hash or search the name: far too slow per drawn item, so each
    // name's colour is computed once per capture.
    if (cache.size() <= name)
        cache.resize(trace() ? std::max<std::size_t>(trace()->strings.size(), name + 1) : name + 1, 0);
    QRgb &c = cache[name];
    if (c == 0)
        c = colorOf(trace() ? std::string_view(trace()->str(name)) : std::string_view()).rgb();
    return QColor::fromRgb(c);
}

QColor TimelineModel::kernelColor(core::StringId name) const
{
    return cachedColor(m_kernelColors, name, ui::kernelColor);
}
QColor TimelineModel::apiColor(core::StringId name) const
{
    return cachedColor(m_apiColors, name, ui::apiColor);
}
QColor TimelineModel::osrtColor(core::StringId name) const
{
    return cachedColor(m_osrtColors, name, [](std::string_view n) { return osCategoryColor(core::osCategoryOf(n)); });
}
QColor TimelineModel::nvtxColor(core::StringId name) const
{
    return cachedColor(m_nvtxColors, name, ui::nvtxColor);
}

void TimelineModel::rebuildRows()
{
    m_rows.clear();
    m_rowsProjection = derived() ? derived()->projectedNvtx().get() : nullptr;
    m_rowsMemory = derived() ? &derived()->gpuMemory() : nullptr;
    int y = 0;
    auto add = [&](TimelineRow row) {
        const RowKindDescriptor &kind = describe(row);
        row.y = y;
        row.height = m_rowScale < 1 ? std::max(kMinRowHeight, int(std::floor(kind.height * m_rowScale))) : kind.height;
        row.indent = kind.indent;
        y += row.height;
        m_rows.push_back(std::move(row));
    };
    // One row per nesting level of a copy, NVTX or API track; the label on the first.
    auto addLevels = [&](TimelineRow row, std::size_t levelCount, const QString &label) {
        for (std::uint32_t d = 0; d < levelCount; ++d) {
            row.level = d;
            row.label = d == 0 ? label : QString();
            add(row);
        }
    };
    const auto *t = trace();
    if (t) {
        for (std::uint32_t ri = 0; ri < t->ranks.size(); ++ri) {
            const core::RankIndex r(ri);
            const auto &rank = at(t->ranks, r);
            const RowDetail rankDetail = isRankCollapsed(r) ? std::min(m_detail, RowDetail::Essential) : m_detail;
            auto shows = [rankDetail](RowKind kind) { return describe(kind).detail <= rankDetail; };
            const QString rankName = QStringLiteral("Rank %1").arg(rank.rank);
            TimelineRow header;
            header.kind = RowKind::RankHeader;
            header.rank = r;
            header.expandable = true;
            header.expanded = !isRankCollapsed(r);
            QString label = rankName;
            if (!rank.host.empty())
                label += QStringLiteral(" · ") + QString::fromStdString(rank.host);
            label += QStringLiteral(" · pid %1").arg(rank.pid);
            header.label = label;
            if (shows(RowKind::RankHeader))
                add(header);
            if (m_stateLanes && m_stateLanes->spans(ri) && shows(RowKind::States)) {
                TimelineRow states;
                states.kind = RowKind::States;
                states.rank = r;
                states.label = shows(RowKind::RankHeader) ? QStringLiteral("run states")
                                                          : rankName + QStringLiteral(" · run states");
                add(states);
            }
            for (const auto gi : rank.gpus) {
                const core::GpuIndex g(gi);
                const auto &gpu = at(t->gpus, g);
                const bool expanded = m_expandedStreams.count({ r, g }) != 0;
                TimelineRow merged;
                merged.kind = RowKind::MergedKernels;
                merged.rank = r;
                merged.gpu = g;
                std::uint32_t streamsOfRank = 0;
                for (const auto &s : gpu.streams)
                    if (s.rank == ri || gpu.ranks.size() <= 1)
                        ++streamsOfRank;
                merged.expandable = streamsOfRank > 0 && shows(RowKind::StreamKernels);
                merged.expanded = expanded && merged.expandable;
                // Without the header the lane says whose it is.
                merged.label = shows(RowKind::RankHeader) ? QString() : rankName + QStringLiteral(" · ");
                merged.label += QStringLiteral("GPU %1").arg(gpu.deviceId);
                if (!gpu.name.empty())
                    merged.label += QStringLiteral(" · ") + QString::fromStdString(gpu.name);
                if (shows(RowKind::RankHeader)) // among the rank's other rows; alone it needs no kind
                    merged.label += QStringLiteral(" · kernels");
                add(merged);
                if (merged.expanded) {
                    for (std::uint32_t s = 0; s < gpu.streams.size(); ++s) {
                        const auto &stream = gpu.streams[s];
                        if (!(stream.rank == ri || gpu.ranks.size() <= 1))
                            continue;
                        TimelineRow row;
                        row.kind = RowKind::StreamKernels;
                        row.rank = r;
                        row.gpu = g;
                        row.stream = core::StreamIndex(s);
                        row.label = QStringLiteral("stream %1").arg(stream.streamId);
                        add(row);
                    }
                }
                addGpuDetailRows(r, g, addLevels);
                if (!shows(RowKind::Copies))
                    continue;
                // A lane per stream, as Nsight draws them; on a GPU two processes share, the
                // rank's own.
                for (const auto &lane : gpu.copies.lanes.lanes) {
                    if (gpu.ranks.size() > 1 && lane.pid != rank.pid)
                        continue;
                    TimelineRow copies;
                    copies.kind = RowKind::Copies;
                    copies.rank = r;
                    copies.gpu = g;
                    for (std::uint32_t k = 0; k < lane.rowCount; ++k) {
                        copies.level = lane.firstRow + k;
                        copies.label = k == 0 ? QStringLiteral("GPU %1 · stream %2 · copies & memsets")
                                                    .arg(gpu.deviceId)
                                                    .arg(lane.streamId)
                                              : QString();
                        add(copies);
                    }
                }
            }
            for (const auto ti : rank.threads) {
                const core::ThreadIndex th(ti);
                const auto &thread = at(t->threads, th);
                QString name = thread.name != core::kEmptyString ? QString::fromStdString(t->str(thread.name))
                                                                 : QStringLiteral("thread");
                name += QStringLiteral(" (%1)").arg(thread.tid);
                TimelineRow levels;
                levels.rank = r;
                levels.thread = th;
                levels.kind = RowKind::Nvtx;
                if (shows(RowKind::Nvtx))
                    addLevels(levels, thread.nvtx.nesting.levelCount(), name + QStringLiteral(" · NVTX"));
                levels.kind = RowKind::Marks;
                if (shows(RowKind::Marks))
                    addLevels(levels, thread.marks.size() > 0 ? 1 : 0, name + QStringLiteral(" · NVTX marks"));
                levels.kind = RowKind::Api;
                if (shows(RowKind::Api))
                    addLevels(levels, thread.api.nesting.levelCount(), name + QStringLiteral(" · CUDA API"));
                levels.kind = RowKind::Osrt;
                if (shows(RowKind::Osrt))
                    addLevels(levels, thread.osrt.nesting.levelCount(), name + QStringLiteral(" · OS runtime"));
            }
        }
    }
    m_totalHeight = y;
    emit rowsChanged();
}

template <class AddLevels>
void TimelineModel::addGpuDetailRows(core::RankIndex rank, core::GpuIndex gpu, AddLevels addLevels)
{
    // Both come with the derived capture: onDerivedChanged rebuilds the rows when they arrive.
    const RowDetail rankDetail = isRankCollapsed(rank) ? std::min(m_detail, RowDetail::Essential) : m_detail;
    const auto &d = derived();
    const auto deviceId = at(trace()->gpus, gpu).deviceId;
    TimelineRow row;
    row.rank = rank;
    row.gpu = gpu;
    if (d && describe(RowKind::GpuMemory).detail <= rankDetail && d->gpuMemory().recorded()
        && inRange(d->gpuMemory().gpus, gpu) && at(d->gpuMemory().gpus, gpu).size() > 0) {
        row.kind = RowKind::GpuMemory;
        addLevels(row, 1,
            QStringLiteral("GPU %1 · memory in use (peak %2)")
                .arg(deviceId)
                .arg(QString::fromStdString(core::formatBytes(at(d->gpuMemory().gpus, gpu).peakBytes))));
    }
    if (d && d->projectedNvtx() && describe(RowKind::ProjectedNvtx).detail <= rankDetail) {
        row.kind = RowKind::ProjectedNvtx;
        addLevels(row, at(d->projectedNvtx()->gpus, gpu).nesting.levelCount(),
            QStringLiteral("GPU %1 · NVTX (projected)").arg(deviceId));
    }
}

int TimelineModel::rowAt(int y) const
{
    if (y < 0 || y >= m_totalHeight)
        return -1;
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y, [](int v, const TimelineRow &r) { return v < r.y; });
    return int(it - m_rows.begin()) - 1;
}

int TimelineModel::findRow(RowKind kind, const RowKey &key) const
{
    const RowKindDescriptor &descriptor = describe(kind);
    for (int i = 0; i < int(m_rows.size()); ++i) {
        const auto &r = m_rows[i];
        if (r.kind == kind && (!key.rank.isValid() || r.rank == key.rank) && descriptor.isRow(r, key))
            return i;
    }
    return -1;
}

void TimelineModel::toggleRow(int row)
{
    if (row < 0 || row >= int(m_rows.size()) || !m_rows[row].expandable)
        return;
    const auto r = m_rows[row];
    describe(r).toggle(*this, r);
}

void TimelineModel::setRankCollapsed(core::RankIndex rank, bool collapsed)
{
    if (collapsed)
        m_collapsedRanks.insert(rank);
    else
        m_collapsedRanks.erase(rank);
    rebuildRows();
}

void TimelineModel::setStreamsExpanded(core::RankIndex rank, core::GpuIndex gpu, bool expanded)
{
    if (expanded)
        m_expandedStreams.insert({ rank, gpu });
    else
        m_expandedStreams.erase({ rank, gpu });
    rebuildRows();
}

void TimelineModel::collapseAll()
{
    m_collapsedRanks.clear();
    if (const auto *t = trace())
        for (std::uint32_t r = 0; r < t->ranks.size(); ++r)
            m_collapsedRanks.insert(core::RankIndex(r));
    m_expandedStreams.clear();
    rebuildRows();
}

void TimelineModel::expandAll()
{
    m_collapsedRanks.clear();
    rebuildRows();
}

void TimelineModel::setDetail(RowDetail detail)
{
    if (detail == m_detail)
        return;
    m_detail = detail;
    rebuildRows();
}

void TimelineModel::setRowScale(double scale)
{
    scale = std::clamp(scale, 0.01, 1.0);
    if (scale == m_rowScale)
        return;
    m_rowScale = scale;
    rebuildRows();
}

TimelineModel::RowFit TimelineModel::fitToHeight(int height)
{
    // Rows are few (hundreds), so trying each level is cheaper than predicting heights.
    QSignalBlocker blocker(this);
    RowFit fit;
    fit.rankCount = trace() ? int(trace()->ranks.size()) : 0;
    m_rowScale = 1;
    int level = int(m_detail);
    for (; level > int(RowDetail::GpuLanes); --level) {
        m_detail = RowDetail(level);
        rebuildRows();
        if (m_totalHeight <= height)
            break;
    }
    m_detail = RowDetail(level);
    rebuildRows();
    if (m_totalHeight > height && m_totalHeight > 0) {
        // Only merged lanes left: shrink them (a lane's label stays at least 9 px high).
        m_rowScale = std::max(double(height) / m_totalHeight, double(kMinRowHeight) / kLaneHeight);
        rebuildRows();
    }
    std::set<core::RankIndex> shown;
    for (const auto &row : m_rows)
        if (row.kind == RowKind::MergedKernels && row.y + row.height <= height)
            shown.insert(row.rank);
    fit.detail = m_detail;
    fit.scale = m_rowScale;
    fit.ranksShown = int(shown.size());
    blocker.unblock();
    emit rowsChanged();
    return fit;
}

void TimelineModel::setGapThreshold(TimeNs ns)
{
    m_source->setGapThreshold(ns); // emits gapThresholdChanged through us, then builds
}

TimeNs TimelineModel::gapThreshold() const
{
    return m_source->gapThreshold();
}

const TimelineModel::GpuGapList &TimelineModel::gaps(core::GpuIndex gpu) const
{
    static const GpuGapList kNone;
    const auto &d = derived();
    return d && gpu.value() < d->gpuCount() ? d->gaps(gpu) : kNone;
}

bool TimelineModel::gapsReady() const
{
    return derived() && m_source->isReady();
}

int TimelineModel::gapIndexOf(core::GpuIndex gpu, core::TimeRange range) const
{
    const auto &d = derived();
    if (!d)
        return -1;
    const auto id = d->findGap(gpu, range);
    return id ? int(id->ordinal) : -1;
}

void TimelineModel::onDerivedChanged()
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (!derived())
        return; // another capture's (a shared source moved on)
    recomputeGapHighlight();
    // The projected NVTX and memory rows are the derived capture's: new ones, new rows.
    const auto &d = derived();
    if (d->projectedNvtx().get() != m_rowsProjection || &d->gpuMemory() != m_rowsMemory)
        rebuildRows();
    emit gapsChanged();
}

bool TimelineModel::waitForGaps()
{
    if (!trace())
        return false;
    m_source->waitUntilReady();
    return gapsReady();
}

void TimelineModel::recomputeSpan()
{
    const auto *t = trace();
    if (!t) {
        m_displaySpan = {};
        return;
    }
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    auto addCols = [&](const auto &columns, TimeNs off) {
        const auto &s = columns.start;
        const auto &e = columns.end;
        if (s.empty())
            return;
        lo = std::min(lo, s.front() + off);
        // setData runs before the first paint: no scan of every end. Ends are sorted on each
        // nesting level, so the latest end is the last one of some level, unless the
        // deepest level is the clamped one that may overlap (then scan).
        const auto &nesting = columns.nesting;
        if (nesting.levelCount() == 0 || nesting.levelCount() > core::NestingIndex::kMaxDepth) {
            hi = std::max(hi, *std::max_element(e.begin(), e.end()) + off);
            return;
        }
        for (std::size_t d = 0; d < nesting.levelCount(); ++d)
            if (!nesting.level(d).empty())
                hi = std::max(hi, e[nesting.level(d).back()] + off);
    };
    for (std::uint32_t r = 0; r < t->ranks.size(); ++r) {
        const TimeNs off = rankOffset(core::RankIndex(r));
        for (auto g : t->ranks[r].gpus) {
            for (const auto &s : t->gpus[g].streams)
                if (!s.kernels.start.empty()) {
                    lo = std::min(lo, s.kernels.start.front() + off);
                    hi = std::max(hi, s.kernels.end.back() + off);
                }
            addCols(t->gpus[g].copies, off);
            // The memory lane starts at the first allocation, often before the first kernel.
            if (const auto &memory = t->gpus[g].memory.time; !memory.empty()) {
                lo = std::min(lo, memory.front() + off);
                hi = std::max(hi, memory.back() + 1 + off);
            }
        }
        for (auto th : t->ranks[r].threads) {
            addCols(t->threads[th].api, off);
            addCols(t->threads[th].nvtx, off);
            if (const auto &marks = t->threads[th].marks.time; !marks.empty()) {
                lo = std::min(lo, marks.front() + off);
                hi = std::max(hi, marks.back() + 1 + off); // a view [lo, hi) holds the last mark
            }
        }
    }
    m_displaySpan = lo <= hi ? core::TimeRange { lo, std::max(hi, lo + 1) } : t->span;
    if (m_displaySpan.end <= m_displaySpan.start)
        m_displaySpan.end = m_displaySpan.start + 1000;
}

void TimelineModel::alignAbsolute()
{
    std::fill(m_offsets.begin(), m_offsets.end(), 0);
    recomputeSpan();
    emit alignmentChanged();
}

std::shared_ptr<const core::StepTable> TimelineModel::stepTable(const QString &name) const
{
    const auto *t = trace();
    if (!t)
        return nullptr;
    if (const auto &d = derived())
        return d->stepTable(name.toStdString()); // memoized, shared across thresholds
    // Before the derived capture arrives: the same table, computed once here.
    return std::make_shared<const core::StepTable>(core::computeStepTable(*t, t->strings.find(name.toStdString())));
}

bool TimelineModel::alignOnNvtx(const QString &name, int occurrence)
{
    const auto *t = trace();
    if (!t || occurrence < 1 || t->strings.find(name.toStdString()) == core::kEmptyString)
        return false;
    const auto steps = stepTable(name);
    const auto first = steps->firstRankOccurrence(std::size_t(occurrence));
    if (!first)
        return false;
    // The first rank having it is the reference; ranks with fewer occurrences keep offset 0.
    for (std::uint32_t r = 0; r < t->ranks.size(); ++r) {
        const auto start = steps->occurrenceStart(core::RankIndex(r), std::size_t(occurrence));
        m_offsets[r] = start ? first->start - *start : 0;
    }
    recomputeSpan();
    emit alignmentChanged();
    return true;
}

core::RowView TimelineModel::streamView(core::GpuIndex gpu, core::StreamIndex stream) const
{
    const auto &k = at(at(trace()->gpus, gpu).streams, stream).kernels;
    return core::RowView { k.start, k.end, {} };
}

core::RowView TimelineModel::gapView(core::GpuIndex gpu) const
{
    return gaps(gpu).row();
}

core::RowView TimelineModel::busyView(core::GpuIndex gpu) const
{
    // The busy lanes come with the gaps; until then the row has no intervals of its own.
    const auto &d = derived();
    return d && gpu.value() < d->gpuCount() ? d->busy(gpu).row() : core::RowView {};
}

const core::GpuMemoryCounter *TimelineModel::memoryCounter(core::GpuIndex gpu) const
{
    const auto &d = derived();
    return d && inRange(d->gpuMemory().gpus, gpu) ? &at(d->gpuMemory().gpus, gpu) : nullptr;
}

core::CoverColumns TimelineModel::busyCover(core::GpuIndex gpu) const
{
    const auto &d = derived();
    return d && gpu.value() < d->gpuCount() ? d->busy(gpu).cover() : core::CoverColumns {};
}

core::CoverColumns TimelineModel::streamCover(core::GpuIndex gpu, core::StreamIndex stream) const
{
    const auto &d = derived();
    return d && gpu.value() < d->gpuCount() ? d->busy(gpu).streamCover(stream.value()) : core::CoverColumns {};
}

const core::FoldIndex *TimelineModel::foldIndex(const TimelineRow &row) const
{
    const auto &d = derived();
    return d ? describe(row).foldIndex(*d, row) : nullptr;
}

void TimelineModel::rowDrawList(
    const TimelineRow &row, const core::ViewWindow &window, std::vector<core::DrawItem> &out) const
{
    core::buildDrawList(rowView(row), window, out, core::kMinVisiblePx, foldIndex(row));
}

void TimelineModel::streamDrawList(core::GpuIndex gpu, core::StreamIndex stream, const core::ViewWindow &window,
    std::vector<core::DrawItem> &out) const
{
    TimelineRow row;
    row.kind = RowKind::StreamKernels;
    row.gpu = gpu;
    row.stream = stream;
    rowDrawList(row, window, out);
}

core::RowView TimelineModel::rowView(const TimelineRow &row) const
{
    return describe(row).events(*this, row);
}

void TimelineModel::setKernelInstances(std::vector<KernelRef> kernels)
{
    std::sort(kernels.begin(), kernels.end());
    m_kernelInstances = std::move(kernels);
    emit findPatternChanged();
}

void TimelineModel::setFindPattern(const QString &pattern, bool regex)
{
    m_findMatch.clear();
    m_kernelInstances.clear();
    const auto *t = trace();
    if (t && !pattern.isEmpty()) {
        QRegularExpression re;
        if (regex) {
            re.setPattern(pattern);
            re.setPatternOptions(QRegularExpression::CaseInsensitiveOption);
        }
        m_findMatch.assign(t->strings.size(), false);
        bool any = false;
        // Strings are interned once, so matching per string (not per event) keeps find cheap.
        for (core::StringId id = 1; id < t->strings.size(); ++id) {
            const QString s = QString::fromStdString(t->str(id));
            const bool m = regex ? (re.isValid() && re.match(s).hasMatch()) : s.contains(pattern, Qt::CaseInsensitive);
            m_findMatch[id] = m;
            any = any || m;
        }
        if (!any)
            m_findMatch.assign(1, false); // a pattern with no match still counts as active
    }
    emit findPatternChanged();
}

void TimelineModel::setFindName(core::StringId name)
{
    setFindNames({ name });
}

void TimelineModel::setFindNames(const std::vector<core::StringId> &names)
{
    m_findMatch.clear();
    m_kernelInstances.clear();
    if (const auto *t = trace()) {
        m_findMatch.assign(t->strings.size(), false);
        bool any = false;
        for (const auto name : names)
            if (name < m_findMatch.size() && name != core::kEmptyString)
                any = m_findMatch[name] = true;
        if (!any)
            m_findMatch.assign(1, false); // active, matching nothing
    }
    emit findPatternChanged();
}

QString TimelineModel::gapCauseKey(core::GpuIndex gpu, std::uint32_t gap) const
{
    const auto &d = derived();
    return d ? QString::fromStdString(d->causeKeys()[d->causeKeyOf(gapId(gpu, gap)).value()]) : QString();
}

QString TimelineModel::gapPhaseKey(core::GpuIndex gpu, std::uint32_t gap) const
{
    const auto &d = derived();
    return d ? QString::fromStdString(d->phaseKeys()[d->phaseKeyOf(gapId(gpu, gap)).value()]) : QString();
}

int TimelineModel::setGapHighlight(GapHighlight kind, const QString &key)
{
    m_gapHighlightKind = key.isEmpty() ? GapHighlight::None : kind;
    m_gapHighlightKey = m_gapHighlightKind == GapHighlight::None ? QString() : key;
    recomputeGapHighlight();
    emit findPatternChanged(); // the same repaint as a find highlight
    int n = 0;
    for (const auto &g : m_gapHighlight)
        n += int(std::count(g.begin(), g.end(), true));
    return n;
}

void TimelineModel::recomputeGapHighlight()
{
    m_gapHighlight.clear();
    const auto &d = derived();
    if (m_gapHighlightKind == GapHighlight::None || !d)
        return;
    // Compared as core's key indices: one string lookup, then integers per gap.
    const bool byCause = m_gapHighlightKind == GapHighlight::Cause;
    const std::string key = m_gapHighlightKey.toStdString();
    const core::BlameKeyIndex wanted = byCause ? d->findCauseKey(key) : d->findPhaseKey(key);
    m_gapHighlight.resize(d->gpuCount());
    for (std::uint32_t g = 0; g < d->gpuCount(); ++g) {
        const auto &table = d->gaps(core::GpuIndex(g));
        const auto &keys = byCause ? table.causeKey : table.phaseKey;
        m_gapHighlight[g].resize(table.size());
        for (std::size_t i = 0; i < table.size(); ++i)
            m_gapHighlight[g][i] = wanted.isValid() && keys[i] == wanted;
    }
}

void TimelineModel::setStateLanes(std::shared_ptr<const StateLanes> lanes)
{
    m_stateLanes = std::move(lanes);
    rebuildRows();
}

void TimelineModel::copyViewStateFrom(const TimelineModel &other)
{
    if (other.m_data != m_data || !m_data)
        return;
    m_stateLanes = other.m_stateLanes;
    m_offsets = other.m_offsets;
    m_collapsedRanks = other.m_collapsedRanks;
    m_expandedStreams = other.m_expandedStreams;
    m_detail = other.m_detail;
    m_rowScale = other.m_rowScale;
    m_findMatch = other.m_findMatch;
    m_kernelInstances = other.m_kernelInstances;
    recomputeSpan();
    m_gapHighlightKind = other.m_gapHighlightKind;
    m_gapHighlightKey = other.m_gapHighlightKey;
    // Share the other model's derived capture (an export's hidden view must show what the
    // screen shows) rather than building it again; wait for it if it is still being built.
    const bool thresholdChanged = gapThreshold() != other.gapThreshold();
    QSignalBlocker blocker(this); // one round of signals below, as before
    other.m_source->waitUntilReady();
    if (m_source.current() != other.m_source.current()) {
        if (other.m_source->isReady())
            m_source->adopt(other.m_source->derived());
        else
            m_source->setGapThreshold(other.gapThreshold());
    }
    recomputeGapHighlight();
    rebuildRows();
    blocker.unblock();
    emit rowsChanged();
    if (thresholdChanged)
        emit gapThresholdChanged(gapThreshold());
    emit gapsChanged();
    emit alignmentChanged();
    emit findPatternChanged();
}

} // namespace gaplens::ui
