// SPDX-License-Identifier: MIT
#include "ui/timeline/timelinemodel.h"

#include "ui/timeline/colors.h"

#include "gaplens/core/analysis/gap_blame.h"

#include <QRegularExpression>
#include <QThread>

#include <algorithm>
#include <limits>

namespace gaplens::ui {

using core::TimeNs;

TimelineModel::TimelineModel(QObject *parent)
    : QObject(parent)
    , m_worker(new TimelineWorker(this))
{
    connect(m_worker, &TimelineWorker::derived, this, &TimelineModel::applyDerived);
}

TimelineModel::~TimelineModel() = default;

void TimelineModel::setData(std::shared_ptr<const TimelineData> data)
{
    m_data = std::move(data);
    m_collapsedRanks.clear();
    m_expandedStreams.clear();
    m_kernelColors.clear();
    m_nvtxColors.clear();
    m_apiColors.clear();
    m_findMatch.clear();
    m_gapHighlightKind = GapHighlight::None;
    m_gapHighlightKey.clear();
    m_gapHighlight.clear();
    m_derived.reset();
    m_offsets.assign(trace() ? trace()->ranks.size() : 0, 0);
    recomputeSpan();
    rebuildRows();
    // Last: the rows are drawable now, the gaps follow from the worker.
    requestGaps();
    emit dataChanged();
}

QString TimelineModel::str(core::StringId id) const
{
    const auto *t = trace();
    if (!t || id >= t->strings.size())
        return {};
    return QString::fromStdString(t->str(id));
}

QColor TimelineModel::cachedColor(std::vector<QRgb> &cache, core::StringId name,
                                  QColor (*colorOf)(std::string_view)) const
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

QColor TimelineModel::kernelColor(core::StringId name) const { return cachedColor(m_kernelColors, name, ui::kernelColor); }
QColor TimelineModel::apiColor(core::StringId name) const { return cachedColor(m_apiColors, name, ui::apiColor); }
QColor TimelineModel::nvtxColor(core::StringId name) const { return cachedColor(m_nvtxColors, name, ui::nvtxColor); }

void TimelineModel::rebuildRows()
{
    m_rows.clear();
    int y = 0;
    auto add = [&](TimelineRow row, int height) {
        row.y = y;
        row.height = height;
        y += height;
        m_rows.push_back(std::move(row));
    };
    // One row per nesting level of a copy, NVTX or API track; the label on the first.
    auto addLevels = [&](TimelineRow row, std::size_t levelCount, const QString &label) {
        row.indent = 1;
        for (std::uint32_t d = 0; d < levelCount; ++d) {
            row.level = d;
            row.label = d == 0 ? label : QString();
            add(row, kLevelHeight);
        }
    };
    const auto *t = trace();
    if (t) {
        for (std::uint32_t r = 0; r < t->ranks.size(); ++r) {
            const auto &rank = t->ranks[r];
            TimelineRow header;
            header.kind = RowKind::RankHeader;
            header.rank = r;
            header.expandable = true;
            header.expanded = !isRankCollapsed(r);
            QString label = QStringLiteral("Rank %1").arg(rank.rank);
            if (!rank.host.empty())
                label += QStringLiteral(" · ") + QString::fromStdString(rank.host);
            label += QStringLiteral(" · pid %1").arg(rank.pid);
            header.label = label;
            add(header, kHeaderHeight);
            if (isRankCollapsed(r))
                continue;
            for (auto g : rank.gpus) {
                const auto &gpu = t->gpus[g];
                const bool expanded = m_expandedStreams.count({r, g}) != 0;
                TimelineRow merged;
                merged.kind = RowKind::MergedKernels;
                merged.rank = r;
                merged.gpu = g;
                merged.indent = 1;
                std::uint32_t streamsOfRank = 0;
                for (const auto &s : gpu.streams)
                    if (s.rank == r || gpu.ranks.size() <= 1)
                        ++streamsOfRank;
                merged.expandable = streamsOfRank > 0;
                merged.expanded = expanded;
                merged.label = QStringLiteral("GPU %1").arg(gpu.deviceId);
                if (!gpu.name.empty())
                    merged.label += QStringLiteral(" · ") + QString::fromStdString(gpu.name);
                merged.label += QStringLiteral(" · kernels");
                add(merged, kLaneHeight);
                if (expanded) {
                    for (std::uint32_t s = 0; s < gpu.streams.size(); ++s) {
                        const auto &stream = gpu.streams[s];
                        if (!(stream.rank == r || gpu.ranks.size() <= 1))
                            continue;
                        TimelineRow row;
                        row.kind = RowKind::StreamKernels;
                        row.rank = r;
                        row.gpu = g;
                        row.stream = s;
                        row.indent = 2;
                        row.label = QStringLiteral("stream %1").arg(stream.streamId);
                        add(row, kLaneHeight);
                    }
                }
                TimelineRow copies;
                copies.kind = RowKind::Copies;
                copies.rank = r;
                copies.gpu = g;
                addLevels(copies, gpu.copies.nesting.levelCount(), QStringLiteral("GPU %1 · copies & memsets").arg(gpu.deviceId));
            }
            for (auto th : rank.threads) {
                const auto &thread = t->threads[th];
                QString name = thread.name != core::kEmptyString ? QString::fromStdString(t->str(thread.name))
                                                                 : QStringLiteral("thread");
                name += QStringLiteral(" (%1)").arg(thread.tid);
                TimelineRow levels;
                levels.rank = r;
                levels.thread = th;
                levels.kind = RowKind::Nvtx;
                addLevels(levels, thread.nvtx.nesting.levelCount(), name + QStringLiteral(" · NVTX"));
                levels.kind = RowKind::Api;
                addLevels(levels, thread.api.nesting.levelCount(), name + QStringLiteral(" · CUDA API"));
            }
        }
    }
    m_totalHeight = y;
    emit rowsChanged();
}

int TimelineModel::rowAt(int y) const
{
    if (y < 0 || y >= m_totalHeight)
        return -1;
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y, [](int v, const TimelineRow &r) { return v < r.y; });
    return int(it - m_rows.begin()) - 1;
}

int TimelineModel::findRow(RowKind kind, std::uint32_t a, std::uint32_t level, std::uint32_t rank) const
{
    for (int i = 0; i < int(m_rows.size()); ++i) {
        const auto &r = m_rows[i];
        if (r.kind != kind || (rank != core::kNoIndex && r.rank != rank))
            continue;
        switch (kind) {
        case RowKind::RankHeader:
            if (r.rank == a)
                return i;
            break;
        case RowKind::MergedKernels:
            if (r.gpu == a)
                return i;
            break;
        case RowKind::StreamKernels:
            if (r.stream == a && r.gpu == level)
                return i;
            break;
        case RowKind::Copies:
            if (r.gpu == a && r.level == level)
                return i;
            break;
        case RowKind::Nvtx:
        case RowKind::Api:
            if (r.thread == a && r.level == level)
                return i;
            break;
        }
    }
    return -1;
}

void TimelineModel::toggleRow(int row)
{
    if (row < 0 || row >= int(m_rows.size()))
        return;
    const auto r = m_rows[row];
    if (r.kind == RowKind::RankHeader)
        setRankCollapsed(r.rank, !isRankCollapsed(r.rank));
    else if (r.kind == RowKind::MergedKernels && r.expandable)
        setStreamsExpanded(r.rank, r.gpu, !r.expanded);
}

void TimelineModel::setRankCollapsed(std::uint32_t rank, bool collapsed)
{
    if (collapsed)
        m_collapsedRanks.insert(rank);
    else
        m_collapsedRanks.erase(rank);
    rebuildRows();
}

void TimelineModel::setStreamsExpanded(std::uint32_t rank, std::uint32_t gpu, bool expanded)
{
    if (expanded)
        m_expandedStreams.insert({rank, gpu});
    else
        m_expandedStreams.erase({rank, gpu});
    rebuildRows();
}

void TimelineModel::setGapThreshold(TimeNs ns)
{
    ns = std::max<TimeNs>(1, ns);
    if (ns == m_gapThreshold)
        return;
    m_gapThreshold = ns;
    emit gapThresholdChanged(ns);
    requestGaps();
}

const TimelineModel::GpuGapList &TimelineModel::gaps(std::uint32_t gpu) const
{
    static const GpuGapList kNone;
    return m_derived && gpu < m_derived->gaps.size() ? m_derived->gaps[gpu] : kNone;
}

bool TimelineModel::gapsReady() const
{
    return m_derived && m_derived->data == m_data && m_derived->threshold == m_gapThreshold;
}

int TimelineModel::gapIndexOf(std::uint32_t gpu, core::TimeRange range) const
{
    const auto &list = gaps(gpu);
    const auto it = std::lower_bound(list.start.begin(), list.start.end(), range.start);
    if (it == list.start.end() || *it != range.start)
        return -1;
    const auto i = int(it - list.start.begin());
    return list.end[i] == range.end ? i : -1;
}

void TimelineModel::requestGaps()
{
    // Blaming every gap of a big capture takes a second: never on the GUI thread.
    if (!trace() || gapsReady())
        m_worker->cancel(); // nothing to compute, or back at the threshold shown
    else
        m_worker->start(m_data, m_gapThreshold);
}

void TimelineModel::applyDerived(std::shared_ptr<const TimelineDerived> derived)
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (!derived || derived == m_derived || derived->data != m_data || derived->threshold != m_gapThreshold)
        return; // already shown (waitForGaps applied it), or for an earlier request
    m_derived = std::move(derived);
    recomputeGapHighlight();
    emit gapsChanged();
}

bool TimelineModel::waitForGaps()
{
    if (!gapsReady() && trace())
        applyDerived(m_worker->wait());
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
        const TimeNs off = rankOffset(r);
        for (auto g : t->ranks[r].gpus) {
            for (const auto &s : t->gpus[g].streams)
                if (!s.kernels.start.empty()) {
                    lo = std::min(lo, s.kernels.start.front() + off);
                    hi = std::max(hi, s.kernels.end.back() + off);
                }
            addCols(t->gpus[g].copies, off);
        }
        for (auto th : t->ranks[r].threads) {
            addCols(t->threads[th].api, off);
            addCols(t->threads[th].nvtx, off);
        }
    }
    m_displaySpan = lo <= hi ? core::TimeRange{lo, std::max(hi, lo + 1)} : t->span;
    if (m_displaySpan.end <= m_displaySpan.start)
        m_displaySpan.end = m_displaySpan.start + 1000;
}

void TimelineModel::alignAbsolute()
{
    std::fill(m_offsets.begin(), m_offsets.end(), 0);
    recomputeSpan();
    emit alignmentChanged();
}

bool TimelineModel::alignOnNvtx(const QString &name, int occurrence)
{
    const auto *t = trace();
    if (!t || occurrence < 1)
        return false;
    const core::StringId id = t->strings.find(name.toStdString());
    if (id == core::kEmptyString)
        return false;
    std::vector<TimeNs> anchor(t->ranks.size(), std::numeric_limits<TimeNs>::min());
    bool any = false;
    for (std::uint32_t r = 0; r < t->ranks.size(); ++r) {
        // Occurrences over all threads of the rank, in start order.
        std::vector<TimeNs> starts;
        for (auto th : t->ranks[r].threads) {
            const auto &n = t->threads[th].nvtx;
            for (std::size_t i = 0; i < n.size(); ++i)
                if (n.name[i] == id)
                    starts.push_back(n.start[i]);
        }
        if (int(starts.size()) < occurrence)
            continue;
        std::nth_element(starts.begin(), starts.begin() + (occurrence - 1), starts.end());
        anchor[r] = starts[occurrence - 1];
        any = true;
    }
    if (!any)
        return false;
    TimeNs reference = 0;
    for (auto a : anchor)
        if (a != std::numeric_limits<TimeNs>::min()) {
            reference = a;
            break;
        }
    for (std::uint32_t r = 0; r < anchor.size(); ++r)
        m_offsets[r] = anchor[r] == std::numeric_limits<TimeNs>::min() ? 0 : reference - anchor[r];
    recomputeSpan();
    emit alignmentChanged();
    return true;
}

core::RowView TimelineModel::streamView(std::uint32_t gpu, std::uint32_t stream) const
{
    const auto &k = trace()->gpus[gpu].streams[stream].kernels;
    return core::RowView{k.start, k.end, {}};
}

core::RowView TimelineModel::gapView(std::uint32_t gpu) const
{
    const auto &list = gaps(gpu);
    return core::RowView{list.start, list.end, {}};
}

const core::FoldIndex *TimelineModel::foldIndex(const TimelineRow &row) const
{
    if (!m_derived || !m_derived->folds)
        return nullptr;
    const auto &folds = *m_derived->folds;
    auto at = [](const std::vector<std::vector<core::FoldIndex>> &rows, std::uint32_t a, std::uint32_t b) -> const core::FoldIndex * {
        return a < rows.size() && b < rows[a].size() ? &rows[a][b] : nullptr;
    };
    switch (row.kind) {
    case RowKind::StreamKernels:
        return at(folds.streams, row.gpu, row.stream);
    case RowKind::Copies:
        return at(folds.copies, row.gpu, row.level);
    case RowKind::Nvtx:
        return at(folds.nvtx, row.thread, row.level);
    case RowKind::Api:
        return at(folds.api, row.thread, row.level);
    case RowKind::RankHeader:
    case RowKind::MergedKernels:
        break;
    }
    return nullptr;
}

void TimelineModel::rowDrawList(const TimelineRow &row, const core::ViewWindow &window, std::vector<core::DrawItem> &out) const
{
    core::buildDrawList(rowView(row), window, out, core::kMinVisiblePx, foldIndex(row));
}

void TimelineModel::streamDrawList(std::uint32_t gpu, std::uint32_t stream, const core::ViewWindow &window,
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
    const auto *t = trace();
    switch (row.kind) {
    case RowKind::RankHeader:
        return {};
    case RowKind::MergedKernels: {
        // The busy lanes come with the gaps; until then the row has no intervals of its own.
        if (!m_derived || !m_derived->busy || row.gpu >= m_derived->busy->gpus.size())
            return {};
        const auto &lane = m_derived->busy->gpus[row.gpu];
        return core::RowView{lane.start, lane.end, {}};
    }
    case RowKind::StreamKernels:
        return streamView(row.gpu, row.stream);
    case RowKind::Copies: {
        const auto &c = t->gpus[row.gpu].copies;
        return core::RowView{c.start, c.end, c.nesting.level(row.level)};
    }
    case RowKind::Nvtx: {
        const auto &n = t->threads[row.thread].nvtx;
        return core::RowView{n.start, n.end, n.nesting.level(row.level)};
    }
    case RowKind::Api: {
        const auto &a = t->threads[row.thread].api;
        return core::RowView{a.start, a.end, a.nesting.level(row.level)};
    }
    }
    return {};
}

void TimelineModel::setFindPattern(const QString &pattern, bool regex)
{
    m_findMatch.clear();
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
    m_findMatch.clear();
    if (const auto *t = trace()) {
        m_findMatch.assign(t->strings.size(), false);
        if (name < m_findMatch.size() && name != core::kEmptyString)
            m_findMatch[name] = true;
        else
            m_findMatch.assign(1, false); // active, matching nothing
    }
    emit findPatternChanged();
}

QString TimelineModel::gapCauseKey(const core::GapBlame &blame) const
{
    if (blame.cause == core::GapCause::ApiCall && blame.apiName != core::kEmptyString)
        return str(blame.apiName);
    return QString::fromLatin1(core::gapCauseLabel(blame.cause));
}

QString TimelineModel::gapPhaseKey(const core::GapBlame &blame) const
{
    const auto *t = trace();
    if (!t || blame.phaseStack.empty())
        return QString::fromLatin1(core::kNoPhaseLabel);
    return str(t->nvtxGroup(blame.phase()));
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
    if (m_gapHighlightKind == GapHighlight::None)
        return;
    if (!m_derived)
        return;
    m_gapHighlight.resize(m_derived->gaps.size());
    for (std::size_t g = 0; g < m_derived->gaps.size(); ++g) {
        const auto &blame = m_derived->gaps[g].blame;
        m_gapHighlight[g].resize(blame.size());
        for (std::size_t i = 0; i < blame.size(); ++i) {
            const QString k = m_gapHighlightKind == GapHighlight::Cause ? gapCauseKey(blame[i]) : gapPhaseKey(blame[i]);
            m_gapHighlight[g][i] = k == m_gapHighlightKey;
        }
    }
}

void TimelineModel::copyViewStateFrom(const TimelineModel &other)
{
    if (other.m_data != m_data || !m_data)
        return;
    m_offsets = other.m_offsets;
    m_collapsedRanks = other.m_collapsedRanks;
    m_expandedStreams = other.m_expandedStreams;
    m_findMatch = other.m_findMatch;
    recomputeSpan();
    const bool thresholdChanged = m_gapThreshold != other.m_gapThreshold;
    m_gapThreshold = other.m_gapThreshold;
    // Share the other model's gaps (an export's hidden view must show what the screen shows)
    // rather than computing them again; wait for them if they are still being computed.
    const auto shared = other.gapsReady() ? other.m_derived : other.m_worker->wait();
    if (shared && shared->data == m_data && shared->threshold == m_gapThreshold) {
        m_worker->cancel();
        m_derived = shared;
    } else {
        requestGaps();
    }
    m_gapHighlightKind = other.m_gapHighlightKind;
    m_gapHighlightKey = other.m_gapHighlightKey;
    recomputeGapHighlight();
    rebuildRows();
    if (thresholdChanged)
        emit gapThresholdChanged(m_gapThreshold);
    emit gapsChanged();
    emit alignmentChanged();
    emit findPatternChanged();
}

} // namespace gaplens::ui
