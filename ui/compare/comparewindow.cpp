// SPDX-License-Identifier: MIT
#include "ui/compare/comparewindow.h"

#include "gaplens/core/analysis/panel_data.h"
#include "ui/bookmarks/bookmarkmodel.h"
#include "ui/bookmarks/bookmarkpanel.h"
#include "ui/compare/comparepanel.h"
#include "ui/compare/comparisoncontroller.h"
#include "ui/compare/compareview.h"
#include "ui/export/exportsizedialog.h"
#include "ui/export/viewexporter.h"
#include "ui/loading/loadcontroller.h"
#include "ui/report/reportbuilder.h"
#include "ui/theme/theme.h"
#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeruler.h"
#include "ui/timeline/zoomcontrol.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>

namespace gaplens::ui {

using core::TimeNs;

namespace {
constexpr int kStateVersion = 1;

} // namespace

CompareWindow::CompareWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_view(new CompareView(this))
    , m_panel(new ComparePanel(this))
    , m_bookmarks(new BookmarkModel(this))
    , m_bookmarkPanel(new BookmarkPanel(m_bookmarks, this))
    , m_panelDock(new QDockWidget(QStringLiteral("Compare"), this))
    , m_bookmarkDock(new QDockWidget(QStringLiteral("Bookmarks"), this))
    , m_beforeLoader(new LoadController(this))
    , m_afterLoader(new LoadController(this))
{
    setObjectName(QStringLiteral("compareWindow"));
    setWindowTitle(QStringLiteral("gaplens — compare"));
    setAttribute(Qt::WA_DeleteOnClose, false);
    resize(1500, 950);
    setCentralWidget(m_view);
    m_panelDock->setObjectName(QStringLiteral("compareDock"));
    m_panelDock->setWidget(m_panel);
    addDockWidget(Qt::RightDockWidgetArea, m_panelDock);
    m_bookmarkDock->setObjectName(QStringLiteral("bookmarksDock"));
    m_bookmarkDock->setWidget(m_bookmarkPanel);
    addDockWidget(Qt::RightDockWidgetArea, m_bookmarkDock);

    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->hide();
    statusBar()->addPermanentWidget(m_progress);
    createActions();

    connect(m_view, &CompareView::statusMessage, m_status, &QLabel::setText);
    connect(m_view->controller(), &ComparisonController::busyChanged, m_panel, &ComparePanel::setBusy);
    connect(m_view->controller(), &ComparisonController::comparisonReady, m_panel, &ComparePanel::setComparison);
    connect(m_panel, &ComparePanel::kernelActivated, m_view, &CompareView::highlightKernel);
    connect(m_panel, &ComparePanel::nvtxActivated, m_view, &CompareView::highlightNvtx);
    connect(m_panel, &ComparePanel::causeActivated, m_view,
            [this](const QString &key) { m_view->highlightGaps(TimelineModel::GapHighlight::Cause, key); });
    connect(m_panel, &ComparePanel::phaseActivated, m_view,
            [this](const QString &key) { m_view->highlightGaps(TimelineModel::GapHighlight::Phase, key); });
    connect(m_panel, &ComparePanel::stepRangeRequested, m_view, &CompareView::setStepRange);
    connect(m_bookmarkPanel, &BookmarkPanel::addRequested, this, [this] { addBookmark(); });
    connect(m_bookmarkPanel, &BookmarkPanel::jumpRequested, this, &CompareWindow::jumpToBookmark);
    for (auto *loader : {m_beforeLoader, m_afterLoader}) {
        connect(loader, &LoadController::progressChanged, this, [this](int permille, const QString &message) {
            m_progress->setValue(permille);
            m_status->setText(message);
        });
        connect(loader, &LoadController::loadCancelled, this, [this] {
            if (--m_pendingLoads <= 0)
                onLoaded();
        });
    }
    connect(m_beforeLoader, &LoadController::loadFinished, this, [this](std::shared_ptr<const TimelineData> data) {
        m_beforeData = std::move(data);
        if (--m_pendingLoads <= 0)
            onLoaded();
    });
    connect(m_afterLoader, &LoadController::loadFinished, this, [this](std::shared_ptr<const TimelineData> data) {
        m_afterData = std::move(data);
        if (--m_pendingLoads <= 0)
            onLoaded();
    });
}

CompareWindow::~CompareWindow() = default;

void CompareWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(QStringLiteral("&File"));
    file->addAction(QStringLiteral("Open &Before…"), this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, QStringLiteral("Before: Nsight Systems exports"), QString(),
                                                                QStringLiteral("Nsight Systems SQLite (*.sqlite);;All files (*)"));
        if (!files.isEmpty())
            openCaptures(files, {});
    });
    file->addAction(QStringLiteral("Open &After…"), this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, QStringLiteral("After: Nsight Systems exports"), QString(),
                                                                QStringLiteral("Nsight Systems SQLite (*.sqlite);;All files (*)"));
        if (!files.isEmpty())
            openCaptures({}, files);
    });
    file->addSeparator();
    file->addAction(QStringLiteral("Open &Session…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open session"), QString(),
                                                          QStringLiteral("gaplens session (*.gaplens.json *.json)"));
        if (path.isEmpty())
            return;
        QString error;
        auto resolver = [this](const QString &missing) {
            return QFileDialog::getOpenFileName(this, QStringLiteral("Where is %1 now?").arg(QFileInfo(missing).fileName()),
                                                QString(), QStringLiteral("Nsight Systems SQLite (*.sqlite);;All files (*)"));
        };
        if (!openSession(path, resolver, &error))
            QMessageBox::warning(this, QStringLiteral("Open session"), error);
    });
    QAction *save = file->addAction(QStringLiteral("Save Session &As…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Save session"), QStringLiteral("review.gaplens.json"),
                                                          QStringLiteral("gaplens session (*.gaplens.json)"));
        QString error;
        if (!path.isEmpty() && !saveSession(path, &error))
            QMessageBox::warning(this, QStringLiteral("Save session"), error);
    });
    save->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    file->addAction(QStringLiteral("Export &Timelines as Picture…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export timelines"), QStringLiteral("compare.png"),
                                                          QStringLiteral("PNG (*.png);;SVG (*.svg)"));
        if (path.isEmpty())
            return;
        const auto size = ExportSizeDialog::getSize(this);
        QString error;
        if (size && !exportTimelines(path, *size, &error))
            QMessageBox::warning(this, QStringLiteral("Export"), error);
    });
    file->addAction(QStringLiteral("Export Compare T&able as Picture…"), this, [this] {
        QTableView *table = m_panel->currentTableView();
        if (!table)
            return;
        const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export table"), QStringLiteral("table.png"),
                                                          QStringLiteral("PNG (*.png);;SVG (*.svg)"));
        if (path.isEmpty())
            return;
        const auto size = ExportSizeDialog::getSize(this);
        QString error;
        if (size && !ViewExporter::exportTable(*table->model(), path, *size, m_panel->tabs()->tabText(m_panel->tabs()->currentIndex()), &error))
            QMessageBox::warning(this, QStringLiteral("Export"), error);
    });
    file->addAction(QStringLiteral("Export &Report…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export report"), QStringLiteral("report.html"),
                                                          QStringLiteral("HTML (*.html);;PDF (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !exportReport(path, &error))
            QMessageBox::warning(this, QStringLiteral("Export report"), error);
    });
    file->addSeparator();
    file->addAction(QStringLiteral("&Close"), this, &QWidget::close)->setShortcut(QKeySequence::Close);

    QMenu *view = menuBar()->addMenu(QStringLiteral("&View"));
    view->addAction(m_panelDock->toggleViewAction());
    view->addAction(m_bookmarkDock->toggleViewAction());
    QAction *addMark = view->addAction(QStringLiteral("Add Bookmark"), this, [this] { addBookmark(); });
    addMark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    view->addAction(QStringLiteral("Next Bookmark"), m_bookmarkPanel, &BookmarkPanel::jumpNext)->setShortcut(QKeySequence(Qt::Key_F2));
    view->addAction(QStringLiteral("Previous Bookmark"), m_bookmarkPanel, &BookmarkPanel::jumpPrevious)
        ->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F2));

    QToolBar *bar = addToolBar(QStringLiteral("Compare"));
    bar->setObjectName(QStringLiteral("compareToolBar"));
    bar->addWidget(new QLabel(QStringLiteral(" Idle gaps ≥ "), bar));
    m_threshold = new QComboBox(bar);
    m_threshold->setEditable(true);
    m_threshold->addItems({QStringLiteral("10 us"), QStringLiteral("50 us"), QStringLiteral("100 us"), QStringLiteral("500 us"),
                           QStringLiteral("1 ms"), QStringLiteral("10 ms")});
    m_threshold->setCurrentText(QStringLiteral("100 us"));
    connect(m_threshold, &QComboBox::currentTextChanged, this, &CompareWindow::applyThreshold);
    bar->addWidget(m_threshold);
    bar->addSeparator();
    bar->addWidget(new QLabel(QStringLiteral(" Theme: "), bar));
    m_theme = new QComboBox(bar);
    for (auto k : {Theme::Kind::Light, Theme::Kind::Dark, Theme::Kind::PresentationLight, Theme::Kind::PresentationDark})
        m_theme->addItem(Theme::name(k), int(k));
    m_theme->setCurrentIndex(int(Theme::current().kind));
    m_theme->setToolTip(QStringLiteral("Presentation themes: larger text, thicker lines, high-contrast colours"));
    connect(m_theme, &QComboBox::currentIndexChanged, this, [this](int i) { Theme::apply(Theme::Kind(m_theme->itemData(i).toInt())); });
    // Another window (or a session) may switch the theme: keep the chooser truthful.
    connect(ThemeNotifier::instance(), &ThemeNotifier::themeChanged, m_theme, [this] {
        const QSignalBlocker block(m_theme);
        m_theme->setCurrentIndex(int(Theme::current().kind));
    });
    bar->addWidget(m_theme);
}

void CompareWindow::showEvent(QShowEvent *e)
{
    QMainWindow::showEvent(e);
    if (m_shownOnce)
        return;
    m_shownOnce = true;
    // Dock sizes only take once the window has its real size: timelines get three fifths.
    resizeDocks({m_panelDock}, {width() * 2 / 5}, Qt::Horizontal);
    resizeDocks({m_panelDock, m_bookmarkDock}, {height() * 3 / 4, height() / 4}, Qt::Vertical);
}

bool CompareWindow::isLoading() const
{
    return m_pendingLoads > 0;
}

void CompareWindow::openCaptures(const QStringList &before, const QStringList &after, const std::vector<core::RankOverride> &overrides)
{
    m_overrides = overrides;
    m_pendingLoads = 0;
    if (!before.isEmpty()) {
        m_beforePaths = before;
        ++m_pendingLoads;
        m_beforeLoader->load(before, overrides);
    }
    if (!after.isEmpty()) {
        m_afterPaths = after;
        ++m_pendingLoads;
        m_afterLoader->load(after, overrides);
    }
    if (m_pendingLoads > 0)
        m_progress->show();
    else
        onLoaded();
}

void CompareWindow::setCaptures(std::shared_ptr<const TimelineData> before, std::shared_ptr<const TimelineData> after,
                                const QStringList &beforePaths, const QStringList &afterPaths)
{
    m_beforeData = std::move(before);
    m_afterData = std::move(after);
    auto pathsOf = [](const std::shared_ptr<const TimelineData> &d) {
        QStringList out;
        if (d && d->trace)
            for (const auto &r : d->trace->reports)
                out << QString::fromStdString(r.path);
        return out;
    };
    m_beforePaths = beforePaths.isEmpty() ? pathsOf(m_beforeData) : beforePaths;
    m_afterPaths = afterPaths.isEmpty() ? pathsOf(m_afterData) : afterPaths;
    m_pendingLoads = 0;
    onLoaded();
}

void CompareWindow::onLoaded()
{
    m_progress->hide();
    m_view->setCaptures(m_beforeData, m_afterData);
    applyThreshold();
    QStringList names;
    if (m_beforeData && m_beforeData->trace)
        for (const auto &n : core::repeatingRangeNames(*m_beforeData->trace, 40))
            names << QString::fromStdString(n.name);
    m_panel->setRangeNames(names);
    auto origin = [](const std::shared_ptr<const TimelineData> &d) { return d && d->trace ? d->trace->span.start : TimeNs(0); };
    m_bookmarks->setOrigins(origin(m_beforeData), origin(m_afterData));
    QStringList problems;
    for (const auto *d : {m_beforeData.get(), m_afterData.get()})
        if (d && d->trace)
            for (const auto &e : d->trace->errors)
                problems << QString::fromStdString(e.message);
    if (!problems.isEmpty())
        m_status->setText(QStringLiteral("⚠ ") + problems.join(QStringLiteral("; ")));
    updateTitle();
    if (m_pendingSession) {
        const Session s = *m_pendingSession;
        m_pendingSession.reset();
        applySession(s);
        emit sessionApplied();
    }
    emit capturesLoaded();
}

void CompareWindow::updateTitle()
{
    auto name = [](const QStringList &paths) {
        return paths.isEmpty() ? QStringLiteral("(none)")
                               : (paths.size() == 1 ? QFileInfo(paths.front()).fileName() : QStringLiteral("%1 files").arg(paths.size()));
    };
    setWindowTitle(QStringLiteral("gaplens — compare %1 → %2").arg(name(m_beforePaths), name(m_afterPaths)));
    m_bookmarks->setCaptureNames(QStringLiteral("before"), QStringLiteral("after"));
}

void CompareWindow::applyThreshold()
{
    core::TimeNs ns = 0;
    QString text = m_threshold->currentText();
    text.remove(QLatin1Char(' '));
    bool plain = false;
    text.toDouble(&plain);
    if (plain)
        text += QStringLiteral("us"); // a bare number is microseconds, like the presets
    if (parseDuration(text, ns) && ns > 0)
        m_view->setGapThreshold(ns);
}

Session CompareWindow::captureSession() const
{
    Session s;
    s.before = m_beforePaths;
    s.after = m_afterPaths;
    s.rankOverrides = m_overrides;
    s.alignMode = m_view->alignMode() == CompareView::AlignMode::AbsoluteTime ? QStringLiteral("absolute") : QStringLiteral("nvtx");
    // The range actually used, so reopening aligns at once (not after the comparison).
    s.alignName = m_view->effectiveRangeName();
    s.alignOccurrence = m_view->alignOccurrence();
    s.stepRange = m_view->stepRange();
    if (m_view->afterView()->model()->trace())
        SessionView::capture(*m_view->afterView(), s, 1);
    SessionView::capture(*m_view->beforeView(), s, 0);
    s.highlightKind = m_view->highlightKind();
    s.highlightKey = m_view->highlightKey();
    s.bookmarks = m_bookmarks->bookmarks();
    s.theme = Theme::name(Theme::current().kind);
    s.windowState = saveState(kStateVersion);
    s.windowGeometry = saveGeometry();
    return s;
}

bool CompareWindow::saveSession(const QString &path, QString *error) const
{
    return SessionFile::write(captureSession(), path, error);
}

bool CompareWindow::openSession(const QString &path, const SessionFile::Resolver &resolver, QString *error)
{
    const auto r = SessionFile::read(path, resolver);
    if (!r.ok) {
        if (error)
            *error = r.error;
        return false;
    }
    const QStringList problems = r.problems();
    if (!problems.isEmpty()) {
        m_status->setText(problems.join(QStringLiteral("; ")));
        emit sessionProblems(problems);
    }
    m_pendingSession = r.session;
    m_beforeData.reset();
    m_afterData.reset();
    m_beforePaths.clear();
    m_afterPaths.clear();
    openCaptures(r.session.before, r.session.after, r.session.rankOverrides);
    return true;
}

void CompareWindow::applySession(const Session &s)
{
    Theme::apply(Theme::fromName(s.theme));
    if (m_theme) {
        const QSignalBlocker block(m_theme);
        m_theme->setCurrentIndex(int(Theme::current().kind));
    }
    {
        const QSignalBlocker block(m_threshold);
        m_threshold->setCurrentText(formatDuration(s.gapThreshold, 0));
    }
    m_view->setGapThreshold(s.gapThreshold);
    m_view->setStepRange(s.stepRange);
    m_view->setAlignment(s.alignMode == QLatin1String("nvtx") ? CompareView::AlignMode::NvtxOccurrence : CompareView::AlignMode::AbsoluteTime,
                         s.alignName, s.alignOccurrence);
    SessionView::apply(*m_view->beforeView(), s, 0);
    SessionView::apply(*m_view->afterView(), s, 1);
    if (s.highlightKind == QLatin1String("cause"))
        m_view->highlightGaps(TimelineModel::GapHighlight::Cause, s.highlightKey);
    else if (s.highlightKind == QLatin1String("phase"))
        m_view->highlightGaps(TimelineModel::GapHighlight::Phase, s.highlightKey);
    else if (s.highlightKind == QLatin1String("kernel"))
        m_view->highlightKernel(s.highlightKey);
    else if (s.highlightKind == QLatin1String("nvtx"))
        m_view->highlightNvtx(s.highlightKey);
    std::vector<Bookmark> marks = s.bookmarks;
    // Read relative to each capture's start; absolute again with the loaded captures.
    for (auto &b : marks) {
        const auto &d = b.capture == 1 ? m_afterData : m_beforeData;
        const TimeNs origin = d && d->trace ? d->trace->span.start : 0;
        b.range.start += origin;
        b.range.end += origin;
    }
    m_bookmarks->setBookmarks(std::move(marks));
    if (!s.windowState.isEmpty())
        restoreState(s.windowState, kStateVersion);
}

int CompareWindow::addBookmark(const QString &name, const QString &note)
{
    TimelineView *v = m_view->beforeView();
    const auto *model = v->model();
    if (!model->trace())
        return -1;
    Bookmark b;
    b.note = note;
    b.rank = 0;
    // The ruler selection first, then the selected event, else what is in view.
    if (v->ruler()->hasTimeSelection()) {
        const auto r = v->ruler()->timeSelection();
        const TimeNs off = model->rankOffset(0);
        b.range = {r.start - off, r.end - off};
    } else if (v->selection().isValid()) {
        const auto &h = v->selection();
        b.range = {h.start, h.end};
        b.rank = h.rank == core::kNoIndex ? 0 : h.rank;
        b.event = tooltipText(*model, h).section(QLatin1Char('\n'), 0, 0);
    } else {
        const TimeNs off = model->rankOffset(0);
        b.range = {v->zoom()->windowStart() - off, v->zoom()->windowEnd() - off};
    }
    b.name = name.isEmpty() ? QStringLiteral("Bookmark %1").arg(m_bookmarks->size() + 1) : name;
    return m_bookmarks->add(b);
}

void CompareWindow::jumpToBookmark(int row)
{
    if (row < 0 || row >= m_bookmarks->size())
        return;
    const Bookmark &b = m_bookmarks->at(row);
    TimelineView *v = b.capture == 1 ? m_view->afterView() : m_view->beforeView();
    if (!v->model()->trace())
        return;
    const TimeNs off = v->model()->rankOffset(b.rank);
    const TimeNs margin = std::max<TimeNs>(b.range.duration() / 10, 100);
    v->zoom()->setWindow(b.range.start + off - margin, b.range.end + off + margin);
    v->ruler()->setTimeSelection(core::TimeRange{b.range.start + off, b.range.end + off});
    m_status->setText(QStringLiteral("%1: %2").arg(b.name, b.note));
}

bool CompareWindow::exportTimelines(const QString &path, QSize size, QString *error) const
{
    // Before above after, each with its title band and legend, in the synchronised window.
    const bool hasAfter = m_view->afterView()->model()->trace() != nullptr;
    return ViewExporter::writeFile(path, size, windowTitle(), [&](QPainter &p, QSize s) {
        const int half = hasAfter ? s.height() / 2 : s.height();
        ViewExporter::TimelineOptions before;
        auto names = [](const QStringList &paths) {
            QStringList out;
            for (const auto &file : paths)
                out << QFileInfo(file).fileName();
            return out.size() <= 3 ? out.join(QStringLiteral(", ")) : QStringLiteral("%1 files").arg(out.size());
        };
        before.title = QStringLiteral("Before: %1").arg(names(m_beforePaths));
        ViewExporter::paintTimeline(p, QSize(s.width(), half), *m_view->beforeView(), before);
        if (!hasAfter)
            return;
        ViewExporter::TimelineOptions after;
        after.title = QStringLiteral("After: %1").arg(names(m_afterPaths));
        p.save();
        p.translate(0, half);
        ViewExporter::paintTimeline(p, QSize(s.width(), s.height() - half), *m_view->afterView(), after);
        p.restore();
    }, error);
}

bool CompareWindow::exportReport(const QString &path, QString *error) const
{
    ReportBuilder::Request request;
    request.capture = m_beforeData;
    request.after = m_afterData;
    request.comparison = m_view->controller()->comparison();
    request.minGapNs = m_view->gapThreshold();
    request.stepRange = m_view->stepRange();
    ReportBuilder builder(request);
    QGuiApplication::setOverrideCursor(Qt::WaitCursor);
    builder.build();
    const bool ok = builder.write(path, error);
    QGuiApplication::restoreOverrideCursor();
    return ok;
}

} // namespace gaplens::ui
