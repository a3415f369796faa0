// SPDX-License-Identifier: MIT
#include "ui/timeline/timelineview.h"

#include "ui/timeline/gaplegend.h"
#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timeruler.h"
#include "ui/timeline/tracklabels.h"
#include "ui/timeline/zoomcontrol.h"

#include "gaplens/core/analysis/ncu_command.h"

#include <QClipboard>

#include <QElapsedTimer>
#include <QGuiApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace gaplens::ui {

using core::TimeNs;

TimelineView::TimelineView(QWidget *parent)
    : QAbstractScrollArea(parent)
    , m_model(new TimelineModel(this))
    , m_zoom(new ZoomControl(this))
    , m_ruler(new TimeRuler(*m_model, *m_zoom, this))
    , m_labels(new TrackLabels(*m_model, this))
    , m_legend(new GapLegend(*m_model, this))
    , m_painter(*m_model, *m_zoom)
{
    setFrameShape(QFrame::NoFrame);
    setViewportMargins(kLabelWidth, kRulerHeight, 0, 0);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setFocusPolicy(Qt::StrongFocus);
    // The painter fills every pixel, so Qt need not clear the background first.
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    viewport()->setMouseTracking(true);
    verticalScrollBar()->setSingleStep(TimelineModel::kLaneHeight);
    m_showFrameTime = qEnvironmentVariableIsSet("GAPLENS_SHOW_FRAME_TIME");

    auto repaintAll = [this] {
        viewport()->update();
        m_ruler->update();
    };
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, &TimelineView::onHorizontalScroll);
    connect(m_zoom, &ZoomControl::windowChanged, this, [this, repaintAll] {
        syncHorizontalScrollBar();
        repaintAll();
        emit viewChanged();
    });
    connect(m_model, &TimelineModel::rowsChanged, this, [this] {
        updateScrollRange();
        viewport()->update();
    });
    connect(m_model, &TimelineModel::gapsChanged, this, [this] {
        if (m_overlay.hovered.kind == HitKind::Gap)
            m_overlay.hovered = {};
        if (m_overlay.selected.kind == HitKind::Gap) {
            // Gap indices refer to the previous list: keep a selected gap that is still one at
            // the new threshold (or was selected before the gaps arrived) under its new index.
            HitResult kept = m_overlay.selected;
            const int index = m_model->gapIndexOf(kept.gpu, core::TimeRange { kept.start, kept.end });
            kept.index = std::uint32_t(index);
            setSelection(index >= 0 ? kept : HitResult {});
        }
        viewport()->update();
    });
    connect(m_model, &TimelineModel::alignmentChanged, this, [this] {
        m_zoom->setTraceRange(m_model->displaySpan());
        viewport()->update();
    });
    connect(m_model, &TimelineModel::findPatternChanged, viewport(), qOverload<>(&QWidget::update));
    connect(m_ruler, &TimeRuler::timeSelectionChanged, this, [this](core::TimeRange r) {
        m_overlay.hasTimeSelection = true;
        m_overlay.timeSelection = r;
        viewport()->update();
        emit timeSelectionChanged(r);
    });
    connect(m_ruler, &TimeRuler::timeSelectionCleared, this, [this] {
        m_overlay.hasTimeSelection = false;
        viewport()->update();
        emit timeSelectionCleared();
    });
    layoutChildren();
}

TimelineView::~TimelineView() = default;

void TimelineView::setData(std::shared_ptr<const TimelineData> data)
{
    m_overlay = {};
    m_matches.clear();
    m_matchIndex = -1;
    m_ruler->clearTimeSelection();
    m_model->setData(std::move(data));
    m_zoom->setWidth(viewport()->width());
    m_zoom->setTraceRange(m_model->displaySpan());
    verticalScrollBar()->setValue(0);
    updateScrollRange();
    viewport()->update();
    m_ruler->update();
    emit selectionChanged(m_overlay.selected);
}

void TimelineView::layoutChildren()
{
    const QRect vp = viewport()->geometry();
    m_ruler->setGeometry(vp.left(), vp.top() - kRulerHeight, vp.width(), kRulerHeight);
    m_labels->setGeometry(vp.left() - kLabelWidth, vp.top(), kLabelWidth, vp.height());
    m_legend->setGeometry(vp.left() - kLabelWidth, vp.top() - kRulerHeight, kLabelWidth, kRulerHeight);
    m_zoom->setWidth(vp.width());
    updateScrollRange();
}

void TimelineView::resizeEvent(QResizeEvent *e)
{
    QAbstractScrollArea::resizeEvent(e);
    layoutChildren();
}

void TimelineView::updateScrollRange()
{
    const int h = viewport()->height();
    verticalScrollBar()->setPageStep(h);
    verticalScrollBar()->setRange(0, std::max(0, m_model->totalHeight() - h));
    m_labels->setScrollY(verticalScrollBar()->value());
}

void TimelineView::syncHorizontalScrollBar()
{
    QScrollBar *bar = horizontalScrollBar();
    const core::TimeRange trace = m_zoom->traceRange();
    const double span = double(std::max<core::TimeNs>(1, trace.duration()));
    const double shown = std::min(1.0, double(m_zoom->windowEnd() - m_zoom->windowStart()) / span);
    const int page = int(std::lround(kScrollSteps * shown));
    // Set from the window, not by the user: no scroll back into the zoom. Its signals still
    // go out, as the scroll area shows the bar (as needed) on rangeChanged.
    const QScopedValueRollback syncing(m_syncingScrollBar, true);
    bar->setPageStep(page);
    bar->setSingleStep(std::max(1, page / 10));
    bar->setRange(0, kScrollSteps - page);
    bar->setValue(int(std::lround(kScrollSteps * double(m_zoom->windowStart() - trace.start) / span)));
}

void TimelineView::onHorizontalScroll(int value)
{
    if (m_syncingScrollBar)
        return;
    const core::TimeRange trace = m_zoom->traceRange();
    const double span = double(std::max<core::TimeNs>(1, trace.duration()));
    m_zoom->rememberGesture();
    m_zoom->follow(trace.start + core::TimeNs(std::llround(span * value / kScrollSteps)), m_zoom->nsPerPx());
}

void TimelineView::scrollContentsBy(int, int)
{
    m_labels->setScrollY(verticalScrollBar()->value());
    viewport()->update();
}

void TimelineView::scrollToRow(int row)
{
    if (row < 0 || row >= int(m_model->rows().size()))
        return;
    const auto &r = m_model->rows()[row];
    auto *sb = verticalScrollBar();
    if (r.y < sb->value())
        sb->setValue(r.y);
    else if (r.y + r.height > sb->value() + viewport()->height())
        sb->setValue(r.y + r.height - viewport()->height());
}

HitResult TimelineView::hitTest(QPoint viewportPos) const
{
    return m_painter.hitTest(viewportPos, verticalScrollBar()->value());
}

QRectF TimelineView::itemRect(const HitResult &hit) const
{
    return m_painter.itemRect(hit, verticalScrollBar()->value());
}

void TimelineView::setShowFrameTime(bool on)
{
    m_showFrameTime = on;
    viewport()->update();
}

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter p(viewport());
    QElapsedTimer timer;
    timer.start();
    m_painter.paint(p, viewport()->size(), verticalScrollBar()->value(), m_overlay);
    if (m_drag == Drag::RubberBand && m_moved) {
        const int x0 = std::min(m_pressPos.x(), m_lastPos.x()), x1 = std::max(m_pressPos.x(), m_lastPos.x());
        const QRect r(x0, 0, x1 - x0, viewport()->height());
        p.fillRect(r, QColor(255, 200, 0, 50));
        p.setPen(QColor(200, 140, 0));
        p.drawRect(r.adjusted(0, 0, -1, -1));
        p.drawText(r.adjusted(4, 4, 0, 0), Qt::AlignTop | Qt::AlignLeft,
            formatDuration(TimeNs(double(x1 - x0) * m_zoom->nsPerPx())));
    }
    if (m_model->isEmpty()) {
        p.setPen(QColor(120, 120, 120));
        p.drawText(viewport()->rect(), Qt::AlignCenter,
            m_loadingText.isEmpty()
                ? QStringLiteral("Open Nsight Systems SQLite exports (File > Open, or drop them here).")
                : m_loadingText);
    } else if (!m_loadingText.isEmpty()) {
        // A new capture is on its way: say so over the one still shown.
        const QRect banner = p.fontMetrics()
                                 .boundingRect(m_loadingText)
                                 .adjusted(-10, -4, 10, 4)
                                 .translated(viewport()->width() / 2, 0);
        const QRect r = banner.translated(-banner.width() / 2, -banner.top() + 6);
        p.fillRect(r, QColor(255, 250, 220, 235));
        p.setPen(QColor(120, 90, 0));
        p.drawRect(r.adjusted(0, 0, -1, -1));
        p.drawText(r, Qt::AlignCenter, m_loadingText);
    }
    m_lastPaintNs = timer.nsecsElapsed();
    if (m_showFrameTime) {
        const QString text = QStringLiteral("%1 ms · %2 items")
                                 .arg(double(m_lastPaintNs) / 1e6, 0, 'f', 2)
                                 .arg(m_painter.lastItemCount());
        p.setPen(Qt::black);
        p.fillRect(QRect(viewport()->width() - 170, 2, 166, 16), QColor(255, 255, 255, 200));
        p.drawText(QRect(viewport()->width() - 170, 2, 166, 16), Qt::AlignCenter, text);
    }
}

void TimelineView::computeLinked()
{
    m_overlay.linked = {};
    const auto *t = m_model->trace();
    const HitResult &sel = m_overlay.selected;
    if (!t)
        return;
    if (sel.kind == HitKind::Kernel) {
        const auto &gpu = at(t->gpus, sel.gpu);
        const auto &stream = at(gpu.streams, sel.stream);
        const auto launch = t->findLaunch(gpu.report, stream.pid, stream.kernels.correlationId[sel.index]);
        if (!launch)
            return;
        const auto &thread = t->threads[launch->thread];
        HitResult h;
        h.kind = HitKind::Api;
        h.thread = core::ThreadIndex(launch->thread);
        h.rank = core::RankIndex(thread.rank);
        h.index = launch->call;
        h.level = thread.api.depth[launch->call];
        h.count = 1;
        h.start = thread.api.start[launch->call];
        h.end = thread.api.end[launch->call];
        m_overlay.linked = h;
    } else if (sel.kind == HitKind::Api) {
        const auto &thread = at(t->threads, sel.thread);
        const auto corr = thread.api.correlationId[sel.index];
        if (corr == 0)
            return;
        // The reverse direction has no index: scan this process's streams once per click.
        for (std::uint32_t g = 0; g < t->gpus.size(); ++g) {
            const auto &gpu = t->gpus[g];
            if (gpu.report != thread.report)
                continue;
            for (std::uint32_t s = 0; s < gpu.streams.size(); ++s) {
                const auto &stream = gpu.streams[s];
                if (stream.pid != thread.pid)
                    continue;
                const auto &ids = stream.kernels.correlationId;
                const auto it = std::find(ids.begin(), ids.end(), corr);
                if (it == ids.end())
                    continue;
                const auto i = std::uint32_t(it - ids.begin());
                HitResult h;
                h.kind = HitKind::Kernel;
                h.gpu = core::GpuIndex(g);
                h.stream = core::StreamIndex(s);
                h.rank = core::RankIndex(stream.rank != core::kNoIndex ? stream.rank : thread.rank);
                h.index = i;
                h.count = 1;
                h.start = stream.kernels.start[i];
                h.end = stream.kernels.end[i];
                m_overlay.linked = h;
                return;
            }
        }
    }
}

void TimelineView::setSelection(const HitResult &hit)
{
    m_overlay.selected = hit;
    computeLinked();
    viewport()->update();
    emit selectionChanged(hit);
}

double TimelineView::cursorXOrCenter() const
{
    const QPoint pos = viewport()->mapFromGlobal(QCursor::pos());
    if (viewport()->rect().contains(pos))
        return pos.x();
    return viewport()->width() / 2.0;
}

void TimelineView::frameItem(const HitResult &hit)
{
    // The item with its neighbours in view: it takes the middle third.
    const TimeNs off = m_model->rankOffset(hit.rank);
    const TimeNs d = std::max<TimeNs>(hit.end - hit.start, 100);
    m_zoom->setWindow(hit.start + off - d, hit.end + off + d);
}

void TimelineView::zoomToItem(const HitResult &hit)
{
    if (!hit.isValid())
        return;
    const TimeNs off = m_model->rankOffset(hit.rank);
    const TimeNs d = std::max<TimeNs>(hit.end - hit.start, 100);
    m_zoom->setWindow(hit.start + off - d / 10, hit.end + off + d / 10);
}

void TimelineView::mousePressEvent(QMouseEvent *e)
{
    setFocus();
    m_pressPos = m_lastPos = e->position().toPoint();
    m_moved = false;
    if (e->button() == Qt::RightButton || (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier)))
        m_drag = Drag::RubberBand;
    else if (e->button() == Qt::LeftButton)
        m_drag = Drag::Pan;
}

void TimelineView::mouseMoveEvent(QMouseEvent *e)
{
    const QPoint pos = e->position().toPoint();
    if (m_drag == Drag::None) {
        const HitResult hit = hitTest(pos);
        if (!hit.sameItem(m_overlay.hovered) || hit.row != m_overlay.hovered.row) {
            m_overlay.hovered = hit;
            viewport()->update();
        }
        return;
    }
    if (!m_moved && (pos - m_pressPos).manhattanLength() >= 3) {
        m_moved = true;
        if (m_drag == Drag::Pan)
            m_zoom->rememberGesture();
    }
    if (!m_moved)
        return;
    if (m_drag == Drag::Pan) {
        const QPoint d = pos - m_lastPos;
        m_zoom->panPixels(-d.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
    } else {
        viewport()->update();
    }
    m_lastPos = pos;
}

void TimelineView::mouseReleaseEvent(QMouseEvent *e)
{
    const Drag drag = m_drag;
    m_drag = Drag::None;
    const QPoint pos = e->position().toPoint();
    if (drag == Drag::RubberBand && m_moved) {
        const int x0 = std::min(m_pressPos.x(), pos.x()), x1 = std::max(m_pressPos.x(), pos.x());
        if (x1 - x0 >= 3)
            m_zoom->setWindow(m_zoom->xToTime(x0), m_zoom->xToTime(x1));
        viewport()->update();
        return;
    }
    if (!m_moved && e->button() == Qt::LeftButton)
        setSelection(hitTest(pos));
    if (!m_moved && e->button() == Qt::RightButton)
        if (const auto menu = contextMenu(hitTest(pos)))
            menu->exec(viewport()->mapToGlobal(pos));
}

std::unique_ptr<QMenu> TimelineView::contextMenu(const HitResult &hit)
{
    const QString command = ncuCommand(hit);
    if (command.isEmpty())
        return nullptr;
    auto menu = std::make_unique<QMenu>(this);
    menu->addAction(QStringLiteral("Copy Nsight Compute command"), this,
        [command] { QGuiApplication::clipboard()->setText(command); });
    return menu;
}

QString TimelineView::ncuCommand(const HitResult &hit) const
{
    const auto *trace = m_model->trace();
    if (!trace || hit.kind != HitKind::Kernel || !hit.gpu.isValid() || !hit.stream.isValid())
        return {};
    const auto gpu = hit.gpu.value(), stream = hit.stream.value();
    if (gpu >= trace->gpus.size() || stream >= trace->gpus[gpu].streams.size())
        return {};
    const auto &s = trace->gpus[gpu].streams[stream];
    if (hit.index >= s.kernels.size() || s.rank >= trace->ranks.size())
        return {};
    core::NcuRequest request;
    request.kernel = trace->str(s.kernels.shortName[hit.index]);
    request.instance = core::kernelInstance(*trace, gpu, stream, hit.index);
    request.rankNumber = trace->ranks[s.rank].rank;
    const auto ncu = core::buildNcuCommand(*trace, request);
    return ncu.error.empty() ? QString::fromStdString(core::ncuCommandText(ncu)) : QString();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *e)
{
    const HitResult hit = hitTest(e->position().toPoint());
    if (hit.kind == HitKind::Fold || hit.kind == HitKind::Gap)
        zoomToItem(hit);
}

void TimelineView::wheelEvent(QWheelEvent *e)
{
    const QPoint delta = e->angleDelta();
    if (e->modifiers() & Qt::ShiftModifier) {
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y() / 2 - delta.x() / 2);
        return;
    }
    if (delta.x() != 0 && std::abs(delta.x()) > std::abs(delta.y())) {
        m_zoom->rememberGesture();
        m_zoom->panPixels(-delta.x() / 2.0);
        return;
    }
    if (delta.y() != 0) {
        m_zoom->rememberGesture();
        // 120 units (one notch) zoom by 1.25x around the cursor.
        m_zoom->zoomAt(e->position().x(), std::pow(1.25, delta.y() / 120.0));
    }
}

void TimelineView::zoomIn()
{
    m_zoom->rememberGesture();
    m_zoom->zoomAt(cursorXOrCenter(), 1.5);
}

void TimelineView::zoomOut()
{
    m_zoom->rememberGesture();
    m_zoom->zoomAt(cursorXOrCenter(), 1 / 1.5);
}

void TimelineView::panLeft()
{
    m_zoom->rememberGesture();
    m_zoom->panPixels(-viewport()->width() * 0.15);
}

void TimelineView::panRight()
{
    m_zoom->rememberGesture();
    m_zoom->panPixels(viewport()->width() * 0.15);
}

void TimelineView::showAll()
{
    m_zoom->setWindow(m_zoom->windowStart(), m_zoom->windowEnd()); // remember the current window
    m_zoom->fitAll();
}

void TimelineView::setLoadingText(const QString &text)
{
    if (text == m_loadingText)
        return;
    m_loadingText = text;
    viewport()->update();
}

void TimelineView::keyPressEvent(QKeyEvent *e)
{
    switch (e->key()) {
    case Qt::Key_W: zoomIn(); return;
    case Qt::Key_S: zoomOut(); return;
    case Qt::Key_A: panLeft(); return;
    case Qt::Key_D: panRight(); return;
    case Qt::Key_Home: showAll(); return;
    case Qt::Key_Backspace: m_zoom->back(); return;
    case Qt::Key_Left:
        if (e->modifiers() & Qt::AltModifier) {
            m_zoom->back();
            return;
        }
        break;
    case Qt::Key_Escape:
        setSelection({});
        m_ruler->clearTimeSelection();
        return;
    default: break;
    }
    QAbstractScrollArea::keyPressEvent(e);
}

void TimelineView::leaveEvent(QEvent *e)
{
    if (m_overlay.hovered.isValid()) {
        m_overlay.hovered = {};
        viewport()->update();
    }
    QAbstractScrollArea::leaveEvent(e);
}

bool TimelineView::viewportEvent(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *he = static_cast<QHelpEvent *>(e);
        const QString text = tooltipText(*m_model, hitTest(he->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(he->globalPos(), text, viewport());
        return true;
    }
    if (e->type() == QEvent::Leave)
        leaveEvent(e);
    return QAbstractScrollArea::viewportEvent(e);
}

int TimelineView::find(const QString &pattern, bool regex)
{
    m_findTargets = FindKernels | FindNvtx;
    m_model->setFindPattern(pattern, regex);
    collectMatches();
    return int(m_matches.size());
}

int TimelineView::findName(core::StringId name)
{
    m_findTargets = FindKernels | FindNvtx;
    m_model->setFindName(name);
    collectMatches();
    return int(m_matches.size());
}

int TimelineView::findNames(const std::vector<core::StringId> &names, int targets)
{
    m_findTargets = targets;
    m_model->setFindNames(names);
    collectMatches();
    return int(m_matches.size());
}

int TimelineView::findKernelInstances(
    core::StringId name, const std::vector<core::KernelInstance> &instances, bool timeOrder)
{
    // An empty bin highlights nothing (an empty instance list would mean "every launch").
    m_model->setFindName(instances.empty() ? core::kEmptyString : name);
    m_matches.clear();
    m_matchIndex = -1;
    const auto *t = m_model->trace();
    std::vector<TimelineModel::KernelRef> refs;
    for (const auto &k : instances)
        refs.push_back({ k.gpu, k.stream, k.index });
    m_model->setKernelInstances(std::move(refs));
    for (const auto &k : instances) {
        if (!t || k.gpu >= t->gpus.size() || k.stream >= t->gpus[k.gpu].streams.size())
            continue;
        HitResult h;
        h.kind = HitKind::Kernel;
        h.gpu = core::GpuIndex(k.gpu);
        h.stream = core::StreamIndex(k.stream);
        h.rank = core::RankIndex(t->gpus[k.gpu].streams[k.stream].rank);
        h.index = k.index;
        h.count = 1;
        h.start = k.start;
        h.end = k.start + k.duration;
        m_matches.push_back(h);
    }
    if (timeOrder)
        std::stable_sort(m_matches.begin(), m_matches.end(), [this](const HitResult &a, const HitResult &b) {
            return a.start + m_model->rankOffset(a.rank) < b.start + m_model->rankOffset(b.rank);
        });
    emit findPositionChanged(0, int(m_matches.size()));
    return int(m_matches.size());
}

void TimelineView::collectMatches()
{
    m_matches.clear();
    m_matchIndex = -1;
    const auto *t = m_model->trace();
    if (t && m_model->hasFindPattern()) {
        constexpr std::size_t kMaxMatches = 2'000'000;
        for (std::uint32_t g = 0; (m_findTargets & FindKernels) && g < t->gpus.size() && m_matches.size() < kMaxMatches;
             ++g) {
            const auto &gpu = t->gpus[g];
            for (std::uint32_t s = 0; s < gpu.streams.size(); ++s) {
                const auto &k = gpu.streams[s].kernels;
                const core::RankIndex rank(gpu.streams[s].rank);
                for (std::uint32_t i = 0; i < k.size() && m_matches.size() < kMaxMatches; ++i)
                    if (m_model->matchesName(k.shortName[i]) || m_model->matchesName(k.demangledName[i])) {
                        HitResult h;
                        h.kind = HitKind::Kernel;
                        h.gpu = core::GpuIndex(g);
                        h.stream = core::StreamIndex(s);
                        h.rank = rank;
                        h.index = i;
                        h.count = 1;
                        h.start = k.start[i];
                        h.end = k.end[i];
                        m_matches.push_back(h);
                    }
            }
        }
        // The matching events of one kind of thread columns (NVTX ranges, CUDA API calls).
        auto addThreadMatches = [&](auto columns, HitKind kind) {
            for (std::uint32_t th = 0; th < t->threads.size() && m_matches.size() < kMaxMatches; ++th) {
                const auto &c = t->threads[th].*columns;
                for (std::uint32_t i = 0; i < c.size(); ++i)
                    if (m_model->matchesName(c.name[i])) {
                        HitResult h;
                        h.kind = kind;
                        h.thread = core::ThreadIndex(th);
                        h.rank = core::RankIndex(t->threads[th].rank);
                        h.level = c.depth[i];
                        h.index = i;
                        h.count = 1;
                        h.start = c.start[i];
                        h.end = c.end[i];
                        m_matches.push_back(h);
                    }
            }
        };
        if (m_findTargets & FindApi)
            addThreadMatches(&core::Thread::api, HitKind::Api);
        if (m_findTargets & FindNvtx)
            addThreadMatches(&core::Thread::nvtx, HitKind::Nvtx);
        std::stable_sort(m_matches.begin(), m_matches.end(), [this](const HitResult &a, const HitResult &b) {
            return a.start + m_model->rankOffset(a.rank) < b.start + m_model->rankOffset(b.rank);
        });
    }
    emit findPositionChanged(0, int(m_matches.size()));
}

void TimelineView::jumpToMatch(int index)
{
    if (m_matches.empty())
        return;
    m_matchIndex = (index % int(m_matches.size()) + int(m_matches.size())) % int(m_matches.size());
    const HitResult &h = m_matches[m_matchIndex];
    frameItem(h);
    if (h.kind == HitKind::Kernel) {
        // Make sure its GPU's lane is visible.
        if (m_model->isRankCollapsed(h.rank))
            m_model->setRankCollapsed(h.rank, false);
    } else if (m_model->isRankCollapsed(h.rank))
        m_model->setRankCollapsed(h.rank, false);
    scrollToRow(m_painter.rowOf(h));
    setSelection(h);
    emit findPositionChanged(m_matchIndex + 1, int(m_matches.size()));
}

void TimelineView::findNext()
{
    jumpToMatch(m_matchIndex + 1);
}

void TimelineView::findPrevious()
{
    jumpToMatch(m_matchIndex < 0 ? -1 : m_matchIndex - 1);
}

bool TimelineView::showGap(core::GpuIndex gpu, core::TimeRange gap)
{
    const auto *t = m_model->trace();
    const auto &derived = m_model->derived();
    if (!t || !derived || !inRange(t->gpus, gpu))
        return false;
    const auto &gaps = m_model->gaps(gpu);
    // The timeline's gaps are sorted and disjoint: the first one ending after gap.start is the
    // only candidate (a window-clipped gap from a panel still overlaps its full gap).
    const auto it = std::upper_bound(gaps.end.begin(), gaps.end.end(), gap.start);
    if (it == gaps.end.end())
        return false;
    const auto i = std::uint32_t(it - gaps.end.begin());
    if (gaps.start[i] >= gap.end)
        return false;
    return showGap(*derived, m_model->gapId(gpu, i));
}

bool TimelineView::showGap(const core::DerivedCapture &derived, core::GapId id)
{
    const auto *t = m_model->trace();
    if (!t || m_model->derived().get() != &derived || !id.isValid() || id.gpu.value() >= derived.gpuCount()
        || id.ordinal >= derived.gaps(id.gpu).size())
        return false;
    const auto &gpuRanks = at(t->gpus, id.gpu).ranks;
    const core::GapBlame &blame = derived.gap(id);
    HitResult h;
    h.kind = HitKind::Gap;
    h.gpu = id.gpu;
    h.rank = core::RankIndex(
        blame.rank != core::kNoIndex ? blame.rank : (gpuRanks.empty() ? core::kNoIndex : gpuRanks.front()));
    h.index = id.ordinal;
    h.count = 1;
    h.start = derived.gapRange(id).start;
    h.end = derived.gapRange(id).end;
    if (h.rank.isValid() && m_model->isRankCollapsed(h.rank))
        m_model->setRankCollapsed(h.rank, false);
    h.row = m_painter.rowOf(h);
    frameItem(h);
    scrollToRow(h.row);
    setSelection(h);
    return true;
}

bool TimelineView::showStateSpan(core::RankIndex rank, std::uint32_t index)
{
    const auto &lanes = m_model->stateLanes();
    const auto *spans = lanes ? lanes->spans(rank.value()) : nullptr;
    if (!spans || index >= spans->size())
        return false;
    HitResult h;
    h.kind = HitKind::State;
    h.rank = rank;
    h.index = index;
    h.count = 1;
    h.start = spans->start[index];
    h.end = spans->end[index];
    h.row = m_painter.rowOf(h);
    if (h.row < 0)
        return false; // a detail level without state lanes ("GPU lanes only")
    frameItem(h);
    scrollToRow(h.row);
    setSelection(h);
    return true;
}

void TimelineView::showRankRange(
    core::RankIndex rank, core::TimeRange range, core::ThreadIndex thread, std::uint32_t nvtxIndex)
{
    const auto *t = m_model->trace();
    if (!t || !inRange(t->ranks, rank))
        return;
    const TimeNs off = m_model->rankOffset(rank);
    const TimeNs margin = std::max<TimeNs>(range.duration() / 20, 50);
    m_zoom->setWindow(range.start + off - margin, range.end + off + margin);
    scrollToRank(rank);
    if (inRange(t->threads, thread) && nvtxIndex < at(t->threads, thread).nvtx.size()) {
        const auto &n = at(t->threads, thread).nvtx;
        HitResult h;
        h.kind = HitKind::Nvtx;
        h.thread = thread;
        h.rank = rank;
        h.level = n.depth[nvtxIndex];
        h.index = nvtxIndex;
        h.count = 1;
        h.start = n.start[nvtxIndex];
        h.end = n.end[nvtxIndex];
        h.row = m_painter.rowOf(h);
        setSelection(h);
    }
}

void TimelineView::scrollToRank(core::RankIndex rank)
{
    if (m_model->isRankCollapsed(rank))
        m_model->setRankCollapsed(rank, false);
    int row = m_model->findRow(RowKind::RankHeader, { .rank = rank });
    // "GPU lanes only" has no headers: the rank's first lane, then.
    for (int i = 0; row < 0 && i < int(m_model->rows().size()); ++i)
        if (m_model->rows()[i].rank == rank)
            row = i;
    if (row >= 0)
        verticalScrollBar()->setValue(m_model->rows()[row].y);
}

} // namespace gaplens::ui
