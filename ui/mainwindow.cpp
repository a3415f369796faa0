// SPDX-License-Identifier: MIT
#include "ui/mainwindow.h"

#include "ui/bookmarks/bookmarkmodel.h"
#include "ui/compare/compareview.h"
#include "ui/compare/comparewindow.h"
#include "ui/detailspanel.h"
#include "ui/digest/digestopener.h"
#include "ui/digest/digestwindow.h" // isDigestPath
#include "ui/export/viewexporter.h"
#include "ui/loading/loadcontroller.h"
#include "ui/panels/communicationpanel.h"
#include "ui/panels/gapblamepanel.h"
#include "ui/panels/intervalspanel.h"
#include "ui/panels/namesummarypanel.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/rankpacepanel.h"
#include "ui/panels/rankselector.h"
#include "ui/panels/runaccountingpanel.h"
#include "ui/panels/summarypanel.h"
#include "ui/panels/topkernelspanel.h"
#include "ui/problemspanel.h"
#include "ui/ranks/ranksdialog.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeruler.h"
#include "ui/timeline/zoomcontrol.h"
#include "ui/workspace/gapthresholdbox.h"
#include "ui/workspace/helpmenu.h"
#include "ui/workspace/loadprogressbar.h"
#include "ui/workspace/reviewactions.h"
#include "ui/workspace/windowgeometry.h"
#include "ui/workspace/windowrouter.h"
#include "ui/workspace/workspace.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>

#include <algorithm>
#include <utility>

namespace gaplens::ui {

namespace {
const QString kRecentKey = QStringLiteral("recentCaptures");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kGeometryKey = QStringLiteral("mainWindow/geometry");

// What the window title calls the capture: its file, two files, or the folder its reports
// share ("ring_6ranks (6 reports)").
QString captureTitle(const core::TraceSet &trace)
{
    QStringList names, folders;
    for (const auto &r : trace.reports) {
        const QFileInfo info(QString::fromStdString(r.path));
        names << info.fileName();
        if (!folders.contains(info.absolutePath()))
            folders << info.absolutePath();
    }
    if (names.size() <= 2)
        return names.join(QStringLiteral(", "));
    if (folders.size() == 1)
        return QStringLiteral("%1 (%2 reports)").arg(QFileInfo(folders.front()).fileName()).arg(names.size());
    return QStringLiteral("%1 reports").arg(names.size());
}
constexpr int kStateVersion = 1; // bump when the docks change so an old layout is not restored
constexpr int kMaxRecent = 10;
} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_view(new TimelineView(this))
    , m_loader(new LoadController(this))
{
    setWindowTitle(QStringLiteral("gaplens"));
    setCentralWidget(m_view);
    setAcceptDrops(true);
    resize(1400, 850);

    m_details = new DetailsPanel(*m_view->model(), this);
    auto *detailsDock = new QDockWidget(QStringLiteral("Details"), this);
    detailsDock->setObjectName(QStringLiteral("details"));
    detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);
    m_detailsDock = detailsDock;

    m_problems = new ProblemsPanel(this);
    m_problemsDock = new QDockWidget(QStringLiteral("Problems"), this);
    m_problemsDock->setObjectName(QStringLiteral("problems"));
    m_problemsDock->setWidget(m_problems);
    addDockWidget(Qt::BottomDockWidgetArea, m_problemsDock);
    m_problemsDock->hide();

    // A child of this window that registers itself: workspace() returns it from here on.
    new Workspace(*this, *this, { kStateVersion, QStringLiteral("bookmarks") });
    addDockWidget(Qt::RightDockWidgetArea, workspace()->bookmarkDock());
    workspace()->bookmarks()->setCaptureNames(QStringLiteral("this capture"), QStringLiteral("after"));

    createPanels();
    createActions();
    createToolBar();
    createAnalysisToolBar();
    createStatusBar();
    connect(workspace(), &Workspace::statusMessage, m_status, &QLabel::setText);
    resetPanelLayout();
    {
        // The dock and toolbar layout of the last session (objectNames identify them).
        QSettings settings;
        restoreGeometry(settings.value(kGeometryKey).toByteArray());
        restoreState(settings.value(kStateKey).toByteArray(), kStateVersion);
    }

    connect(m_view, &TimelineView::selectionChanged, m_details, &DetailsPanel::showHit);
    connect(m_view, &TimelineView::timeSelectionChanged, this, [this](core::TimeRange r) {
        m_selectionLabel->setText(QStringLiteral("Selection: %1").arg(formatDuration(r.duration())));
        applyTimeSelection(r);
    });
    connect(m_view, &TimelineView::timeSelectionCleared, this, [this] {
        m_selectionLabel->clear();
        m_panelContext->setWindow(std::nullopt);
    });
    // One threshold for the timeline and the panels: the toolbar sets the timeline's, the panels follow.
    connect(m_view->model(), &TimelineModel::gapThresholdChanged, m_panelContext, &PanelContext::setGapThreshold);
    connect(m_view->model(), &TimelineModel::gapsChanged, this, [this] {
        if (!m_loader->isLoading())
            showCaptureStatus();
    });
    connect(m_view, &TimelineView::findPositionChanged, this, [this](int current, int total) {
        m_findStatus->setText(m_find->text().isEmpty() ? QString()
                : current > 0                          ? QStringLiteral("%1 / %2").arg(current).arg(total)
                                                       : QStringLiteral("%1 matches").arg(total));
    });
    connect(m_loader, &LoadController::progressChanged, this, [this](int permille, const QString &message) {
        m_progress->setValue(permille);
        m_status->setText(message);
    });
    connect(m_loader, &LoadController::loadingChanged, this, [this](bool loading) {
        m_progress->setVisible(loading);
        m_cancel->setVisible(loading);
        if (!loading)
            m_progress->setValue(0);
    });
    m_loader->showProgressIn(m_view);
    m_loader->setStaged(true);
    connect(m_loader, &LoadController::firstStageLoaded, this, &MainWindow::onFirstStageLoaded);
    connect(m_loader, &LoadController::loadFinished, this, &MainWindow::onLoadFinished);
    connect(m_loader, &LoadController::loadCancelled, this, &MainWindow::onLoadCancelled);
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(QStringLiteral("&File"));
    QAction *open = file->addAction(QStringLiteral("&Open…"), this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, QStringLiteral("Open Nsight Systems exports"),
            QString(), QStringLiteral("Nsight Systems SQLite (*.sqlite);;gaplens digest (*.gldigest);;All files (*)"));
        if (!files.isEmpty())
            openPaths(files);
    });
    open->setShortcut(QKeySequence::Open);
    file->addAction(QStringLiteral("Open &Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, QStringLiteral("Open a folder of exports"));
        if (!dir.isEmpty())
            openPaths({ dir });
    });
    m_recentMenu = file->addMenu(QStringLiteral("Open &Recent"));
    updateRecentMenu();
    file->addAction(QStringLiteral("&Compare with…"), this, [this] { openCompareWith(); });
    file->addSeparator();
    ReviewActions::addSessionActions(file, *workspace());
    file->addSeparator();
    file->addAction(QStringLiteral("Export &Timeline as Picture…"), this, [this] {
        ReviewActions::exportTimelinePicture(this, QStringLiteral("Export timeline"), QStringLiteral("timeline.png"),
            [this](const QString &path, QSize size, bool growHeight, QString *error) {
                ViewExporter::TimelineOptions options;
                options.fit = growHeight ? ViewExporter::Fit::Grow : ViewExporter::Fit::Shrink;
                return ViewExporter::exportTimeline(*m_view, path, size, options, error);
            });
    });
    file->addAction(
        QStringLiteral("Export Focused &Chart or Table as Picture…"), this, &MainWindow::exportFocusedChartOrTable);
    ReviewActions::addReportAction(file, *workspace());
    file->addSeparator();
    QAction *quit = file->addAction(QStringLiteral("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *view = menuBar()->addMenu(QStringLiteral("&View"));
    ReviewActions::addThemeActions(view);
    ReviewActions::addBookmarkActions(view, *workspace());
    view->addSeparator();
    ReviewActions::addNavigationActions(view, [this] { return m_view; });
    QAction *frameTime = view->addAction(QStringLiteral("Show Frame Time"));
    frameTime->setCheckable(true);
    connect(frameTime, &QAction::toggled, m_view, &TimelineView::setShowFrameTime);
    view->addSeparator();
    ReviewActions::addRowActions(view, this, [this] { return QList<TimelineView *> { m_view }; });
    view->addSeparator();
    for (auto *dock : std::as_const(m_panelDocks))
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(m_problemsDock->toggleViewAction());
    for (auto *dock : findChildren<QDockWidget *>())
        if (dock != m_problemsDock && !m_panelDocks.contains(dock))
            view->addAction(dock->toggleViewAction());
    view->addAction(QStringLiteral("&Ranks…"), this, &MainWindow::showRanksDialog);
    view->addSeparator();
    view->addAction(QStringLiteral("Reset Panel Layout"), this, &MainWindow::resetPanelLayout);
    addHelpMenu(*this);
}

void MainWindow::createPanels()
{
    m_panelContext = new PanelContext(this);
    m_summary = new SummaryPanel(*m_panelContext, m_view, this);
    m_topKernels = new TopKernelsPanel(*m_panelContext, m_view, this);
    m_gapBlame = new GapBlamePanel(*m_panelContext, m_view, this);
    m_rankPace = new RankPacePanel(*m_panelContext, m_view, this);
    m_communication = new CommunicationPanel(*m_panelContext, m_view, this);
    m_nvtxSummary = new NameSummaryPanel(NameSummaryPanel::Kind::Nvtx, *m_panelContext, m_view, this);
    m_apiSummary = new NameSummaryPanel(NameSummaryPanel::Kind::Api, *m_panelContext, m_view, this);
    m_runAccounting = new RunAccountingPanel(*m_panelContext, m_view, this);
    const std::pair<QWidget *, QString> panels[] = {
        { m_summary, QStringLiteral("Summary") },
        { m_topKernels, QStringLiteral("Top Kernels") },
        { m_gapBlame, QStringLiteral("Gap Blame") },
        { m_rankPace, QStringLiteral("Rank Pace") },
        { m_communication, QStringLiteral("Communication") },
        { m_nvtxSummary, QStringLiteral("NVTX Summary") },
        { m_apiSummary, QStringLiteral("CUDA API Summary") },
        { new IntervalsPanel(*m_panelContext, m_view, this), QStringLiteral("Intervals") },
        { m_runAccounting, QStringLiteral("Run Accounting") },
    };
    for (const auto &[widget, title] : panels) {
        auto *dock = new QDockWidget(title, this);
        dock->setObjectName(title.toLower().remove(QLatin1Char(' ')) + QStringLiteral("Dock"));
        dock->setWidget(widget);
        dock->setFeatures(
            QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
        m_panelDocks << dock;
    }
}

void MainWindow::resetPanelLayout()
{
    // Default: the panels tabbed under the timeline, Summary in front; details on the right.
    for (auto *dock : std::as_const(m_panelDocks)) {
        dock->setFloating(false);
        addDockWidget(Qt::BottomDockWidgetArea, dock);
        dock->show();
    }
    for (int i = 1; i < m_panelDocks.size(); ++i)
        tabifyDockWidget(m_panelDocks.front(), m_panelDocks[i]);
    m_panelDocks.front()->raise();
    if (m_detailsDock) {
        m_detailsDock->setFloating(false);
        addDockWidget(Qt::RightDockWidgetArea, m_detailsDock);
        m_detailsDock->show();
    }
    resizeDocks({ m_panelDocks.front() }, { height() * 2 / 5 }, Qt::Vertical);
}

void MainWindow::createAnalysisToolBar()
{
    QToolBar *bar = addToolBar(QStringLiteral("Analysis scope"));
    bar->setObjectName(QStringLiteral("analysisToolBar"));
    bar->addWidget(new QLabel(QStringLiteral(" Panels: "), bar));
    bar->addWidget(new RankSelector(*m_panelContext, bar));
    m_scopeLabel = new QLabel(bar);
    m_scopeLabel->setToolTip(QStringLiteral(
        "Drag on the timeline's ruler to analyse a time range; click the ruler to go back to the whole capture"));
    bar->addWidget(m_scopeLabel);
    QAction *whole = bar->addAction(QStringLiteral("Whole capture"), this, [this] {
        m_view->ruler()->clearTimeSelection();
        m_panelContext->setWindow(std::nullopt);
    });
    whole->setToolTip(QStringLiteral("Analyse the whole capture (clears the ruler selection)"));
    auto updateScope = [this, whole] {
        const auto &w = m_panelContext->window();
        m_scopeLabel->setText(w ? QStringLiteral(" window: %1 selection ").arg(formatDuration(w->duration()))
                                : QStringLiteral(" window: whole capture "));
        whole->setEnabled(w.has_value());
    };
    connect(m_panelContext, &PanelContext::scopeChanged, this, updateScope);
    connect(m_panelContext, &PanelContext::dataChanged, this, updateScope);
    updateScope();
}

void MainWindow::applyTimeSelection(core::TimeRange displayRange)
{
    // Panels analyse absolute time. With ranks aligned on an NVTX range, display time differs
    // per rank; the window follows the first chosen rank's clock.
    const auto &ranks = m_panelContext->ranks();
    const core::RankIndex rank(ranks.isAll() ? 0 : ranks.ranks.front());
    const core::TimeNs offset = m_view->model()->rankOffset(rank);
    m_panelContext->setWindow(core::TimeRange { displayRange.start - offset, displayRange.end - offset });
}

void MainWindow::closeEvent(QCloseEvent *e)
{
    QSettings settings;
    saveWindowGeometry(*this, kGeometryKey);
    settings.setValue(kStateKey, saveState(kStateVersion));
    QMainWindow::closeEvent(e);
}

void MainWindow::createToolBar()
{
    QToolBar *bar = addToolBar(QStringLiteral("Timeline"));
    bar->setObjectName(QStringLiteral("timelineToolBar"));
    bar->addWidget(new QLabel(QStringLiteral(" Idle gaps ≥ "), bar));
    bar->addWidget(workspace()->thresholdBox());
    bar->addSeparator();

    m_find = new QLineEdit(bar);
    m_find->setPlaceholderText(QStringLiteral("Find kernel / NVTX name"));
    m_find->setClearButtonEnabled(true);
    m_find->setMaximumWidth(260);
    connect(m_find, &QLineEdit::returnPressed, this, [this] {
        if (m_view->findMatchCount() == 0)
            runFind();
        m_view->findNext();
    });
    connect(m_find, &QLineEdit::textChanged, this, &MainWindow::runFind);
    bar->addWidget(m_find);
    m_findRegex = new QCheckBox(QStringLiteral("Regex"), bar);
    connect(m_findRegex, &QCheckBox::toggled, this, &MainWindow::runFind);
    bar->addWidget(m_findRegex);
    QAction *prev = bar->addAction(QStringLiteral("◀"), m_view, &TimelineView::findPrevious);
    prev->setToolTip(QStringLiteral("Previous match (Shift+F3)"));
    prev->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));
    QAction *next = bar->addAction(QStringLiteral("▶"), m_view, &TimelineView::findNext);
    next->setToolTip(QStringLiteral("Next match (F3)"));
    next->setShortcut(QKeySequence(Qt::Key_F3));
    m_findStatus = new QLabel(bar);
    m_findStatus->setMinimumWidth(90);
    bar->addWidget(m_findStatus);
    QAction *findFocus = new QAction(QStringLiteral("Go to the Find Box"), this);
    findFocus->setShortcut(QKeySequence::Find);
    connect(findFocus, &QAction::triggered, m_find, [this] {
        m_find->setFocus();
        m_find->selectAll();
    });
    addAction(findFocus);
    bar->addSeparator();

    bar->addWidget(new QLabel(QStringLiteral(" Align ranks: "), bar));
    m_alignMode = new QComboBox(bar);
    m_alignMode->addItems({ QStringLiteral("absolute time"), QStringLiteral("k-th NVTX range") });
    bar->addWidget(m_alignMode);
    m_alignName = new QLineEdit(bar);
    m_alignName->setPlaceholderText(QStringLiteral("NVTX range name"));
    m_alignName->setMaximumWidth(160);
    bar->addWidget(m_alignName);
    m_alignOccurrence = new QSpinBox(bar);
    m_alignOccurrence->setRange(1, 1'000'000);
    m_alignOccurrence->setPrefix(QStringLiteral("#"));
    bar->addWidget(m_alignOccurrence);
    connect(m_alignMode, &QComboBox::currentIndexChanged, this, &MainWindow::applyAlignment);
    connect(m_alignName, &QLineEdit::returnPressed, this, &MainWindow::applyAlignment);
    connect(m_alignOccurrence, &QSpinBox::valueChanged, this, &MainWindow::applyAlignment);
}

void MainWindow::createStatusBar()
{
    m_status = new QLabel(QStringLiteral("Ready"), this);
    m_status->setObjectName(QStringLiteral("captureStatus"));
    statusBar()->addWidget(m_status, 1);
    m_selectionLabel = new QLabel(this);
    statusBar()->addPermanentWidget(m_selectionLabel);
    m_problemsButton = new QToolButton(this);
    m_problemsButton->setAutoRaise(true);
    m_problemsButton->hide();
    connect(m_problemsButton, &QToolButton::clicked, this,
        [this] { m_problemsDock->setVisible(!m_problemsDock->isVisible()); });
    statusBar()->addPermanentWidget(m_problemsButton);
    m_progress = addLoadProgressBar(*this);
    m_cancel = new QPushButton(QStringLiteral("Cancel"), this);
    m_cancel->hide();
    connect(m_cancel, &QPushButton::clicked, m_loader, &LoadController::cancel);
    statusBar()->addPermanentWidget(m_cancel);
}

void MainWindow::showRestored()
{
    showAtSavedGeometry(*this, kGeometryKey);
}

void MainWindow::openPaths(const QStringList &paths, const std::vector<core::RankOverride> &rankOverrides)
{
    if (paths.isEmpty())
        return;
    if (paths.size() == 1 && isDigestPath(paths.front())) {
        auto *opener = DigestOpener::open(paths.front(), this); // off the GUI thread, with Cancel
        connect(opener, &DigestOpener::opened, this, [this, paths] { addRecent(paths); }); // Open Recent reopens it
        connect(opener, &DigestOpener::failed, this, [this](const QString &error) {
            auto *box = new QMessageBox(
                QMessageBox::Warning, QStringLiteral("Cannot open the digest"), error, QMessageBox::Ok, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        });
        return;
    }
    addRecent(paths);
    m_keepView.reset();
    m_loader->load(paths, rankOverrides);
}

void MainWindow::onFirstStageLoaded(std::shared_ptr<const TimelineData> data)
{
    if (data->trace->ranks.empty())
        return; // nothing to draw yet; the full capture says why
    m_view->setData(data);
    if (m_keepView)
        m_view->zoom()->setWindow(m_keepView->start, m_keepView->end, false);
}

void MainWindow::onLoadCancelled()
{
    if (const auto *shown = m_view->model()->data(); shown && shown->firstStage)
        m_view->setData(m_panelContext->data());
    m_status->setText(QStringLiteral("Loading cancelled."));
}

void MainWindow::onLoadFinished(std::shared_ptr<const TimelineData> data)
{
    // Where the user went while the first stage was shown stays in view.
    if (const auto *shown = m_view->model()->data();
        shown && shown->firstStage && !m_keepView && !m_view->zoom()->isFitted())
        m_keepView = core::TimeRange { m_view->zoom()->windowStart(), m_view->zoom()->windowEnd() };
    m_view->setData(data);
    if (const auto threshold = workspace()->thresholdBox()->threshold())
        applyGapThreshold(*threshold);
    m_panelContext->setGapThreshold(m_view->model()->gapThreshold());
    m_panelContext->setData(data);
    const auto &trace = *data->trace;
    const int problems = m_problems->showProblems(trace);
    m_problemsButton->setVisible(problems > 0);
    m_problemsButton->setText(QStringLiteral("⚠ %1 problem(s)").arg(problems));
    if (!trace.errors.empty())
        m_problemsDock->show();
    showCaptureStatus();
    setWindowTitle(QStringLiteral("gaplens — ") + captureTitle(trace));
    if (!m_find->text().isEmpty())
        runFind();
    if (m_alignMode->currentIndex() == 1)
        applyAlignment();
    if (const auto view = std::exchange(m_keepView, std::nullopt))
        m_view->zoom()->setWindow(view->start, view->end, false);
    if (m_ranksDialog)
        m_ranksDialog->setCapture(data->trace, m_loader->currentRankOverrides());
    workspace()->capturesLoaded();
}

RanksDialog *MainWindow::showRanksDialog()
{
    if (!m_ranksDialog) {
        m_ranksDialog = new RanksDialog(this);
        connect(m_ranksDialog, &RanksDialog::applyRequested, this, &MainWindow::reassignRanks);
    }
    m_ranksDialog->setCapture(m_panelContext->trace(), m_loader->currentRankOverrides());
    m_ranksDialog->show();
    m_ranksDialog->raise();
    return m_ranksDialog;
}

void MainWindow::reassignRanks(const std::vector<core::RankOverride> &overrides)
{
    if (m_loader->currentPaths().isEmpty())
        return;
    // The ranks are sorted by number in the model, so every view is rebuilt: a reload, off this
    // thread with its progress like any load, at the same place in time.
    if (m_view->model()->trace())
        m_keepView = core::TimeRange { m_view->zoom()->windowStart(), m_view->zoom()->windowEnd() };
    m_loader->load(m_loader->currentPaths(), overrides);
}

void MainWindow::showCaptureStatus()
{
    const auto *model = m_view->model();
    const auto *trace = model->trace();
    if (!trace)
        return;
    std::size_t kernels = 0;
    for (const auto &g : trace->gpus)
        kernels += g.kernelCount();
    const QString threshold = formatDuration(model->gapThreshold(), 0);
    const QString gaps = model->gapsReady() ? QStringLiteral("%1 idle gaps ≥ %2").arg(model->gapCount()).arg(threshold)
                                            : QStringLiteral("idle gaps ≥ %1: computing…").arg(threshold);
    // Said, so that a fast reopen is not a mystery and the user knows where the data came from.
    const auto fromCache = std::count_if(
        trace->reports.begin(), trace->reports.end(), [](const core::Report &report) { return report.readFromCache; });
    const QString reports = fromCache == 0
        ? QStringLiteral("%1 report(s)").arg(trace->reports.size())
        : QStringLiteral("%1 report(s) (%2 from the cache)").arg(trace->reports.size()).arg(fromCache);
    // A cache that cannot be written makes every open slow: said briefly, with why on hover.
    const QString cacheNote
        = trace->cacheProblem.empty() ? QString() : QStringLiteral("; report cache not written (hover for why)");
    // Rows left out for lack of memory are said, so that their absence is not read as "no NVTX".
    const std::string noProjection = model->derived() ? model->derived()->projectionSkipped() : std::string();
    const QString projectionNote
        = noProjection.empty() ? QString() : QStringLiteral("; projected NVTX rows left out (hover for why)");
    m_status->setText(QStringLiteral("%1, %2 rank(s), %3 GPU(s), %4 kernels, %5%6%7")
                          .arg(reports)
                          .arg(trace->ranks.size())
                          .arg(trace->gpus.size())
                          .arg(QLocale::system().toString(qulonglong(kernels)))
                          .arg(gaps, cacheNote, projectionNote));
    QStringList why;
    for (const auto &problem : { trace->cacheProblem, noProjection })
        if (!problem.empty())
            why << QString::fromStdString(problem);
    m_status->setToolTip(why.join(QLatin1Char('\n')));
}

void MainWindow::applyAlignment()
{
    auto *model = m_view->model();
    if (m_alignMode->currentIndex() == 0 || m_alignName->text().isEmpty()) {
        model->alignAbsolute();
        return;
    }
    if (!model->alignOnNvtx(m_alignName->text(), m_alignOccurrence->value()))
        m_status->setText(QStringLiteral("No rank has NVTX range \"%1\" #%2; ranks stay on absolute time.")
                              .arg(m_alignName->text())
                              .arg(m_alignOccurrence->value()));
}

void MainWindow::runFind()
{
    m_view->find(m_find->text(), m_findRegex->isChecked());
}

void MainWindow::addRecent(const QStringList &paths)
{
    QStringList absolute;
    for (const auto &p : paths)
        absolute << QFileInfo(p).absoluteFilePath();
    const QString entry = absolute.join(QLatin1Char('\n'));
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(entry);
    recent.prepend(entry);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString &entry : recent) {
        const QStringList paths = entry.split(QLatin1Char('\n'));
        const QString title = paths.size() == 1
            ? paths.front()
            : QStringLiteral("%1 + %2 more").arg(QFileInfo(paths.front()).fileName()).arg(paths.size() - 1);
        m_recentMenu->addAction(title, this, [this, paths] { openPaths(paths); });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent *e)
{
    if (e->mimeData()->hasUrls())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *e)
{
    QStringList paths;
    for (const QUrl &url : e->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (!paths.isEmpty()) {
        e->acceptProposedAction();
        openPaths(paths);
    }
}

void MainWindow::exportFocusedChartOrTable()
{
    // The chart or table that has (or last had) the focus, else the first visible panel chart.
    QChartView *chart = nullptr;
    QAbstractItemView *table = nullptr; // a panel's table or tree (the NVTX and CUDA API summaries)
    for (QWidget *p = QApplication::focusWidget(); p && !chart && !table; p = p->parentWidget()) {
        chart = qobject_cast<QChartView *>(p);
        table = qobject_cast<QAbstractItemView *>(p);
    }
    if (!chart && !table)
        for (auto *c : findChildren<QChartView *>())
            if (c->isVisible()) {
                chart = c;
                break;
            }
    if (!chart && !table) {
        QMessageBox::information(
            this, QStringLiteral("Export"), QStringLiteral("Click a chart or table in a panel first."));
        return;
    }
    ReviewActions::exportPicture(this, QStringLiteral("Export picture"),
        chart ? QStringLiteral("chart.png") : QStringLiteral("table.png"),
        [chart, table](const QString &path, QSize size, QString *error) {
            return chart ? ViewExporter::exportChart(chart->chart(), path, size, error)
                         : ViewExporter::exportTable(*table->model(), path, size, QString(), error);
        });
}

CompareWindow *MainWindow::compareWindow() const
{
    Workspace *partner = workspace()->partner();
    return partner ? qobject_cast<CompareWindow *>(partner->window()) : nullptr;
}

CompareWindow *MainWindow::openCompareWith(const QStringList &after)
{
    QStringList files = after;
    if (files.isEmpty()) {
        files = QFileDialog::getOpenFileNames(this, QStringLiteral("Compare with (after)"), QString(),
            QStringLiteral("Nsight Systems SQLite (*.sqlite);;All files (*)"));
        if (files.isEmpty())
            return nullptr;
    }
    CompareWindow *compare = WindowRouter::compareWindowFor(*this);
    // This capture is "before" as loaded (no second read); only the after files are loaded.
    compare->setCaptures(m_view->model()->sharedData(), nullptr, m_loader->currentPaths());
    compare->compareView()->setGapThreshold(m_view->model()->gapThreshold());
    compare->openCaptures({}, files, m_loader->currentRankOverrides());
    compare->showRestored();
    compare->raise();
    return compare;
}

TimelineView *MainWindow::timeline(int capture) const
{
    return capture == 0 ? m_view : nullptr;
}

void MainWindow::captureOwnSession(Session &s) const
{
    s.before = m_loader->currentPaths();
    s.rankOverrides = m_loader->currentRankOverrides();
    s.alignMode = m_alignMode->currentIndex() == 1 ? QStringLiteral("nvtx") : QStringLiteral("absolute");
    s.alignName = m_alignName->text();
    s.alignOccurrence = m_alignOccurrence->value();
    SessionView::capture(*m_view, s, 0);
    s.findText = m_find->text();
    s.runStateRange = m_runAccounting->rangeName();
    const auto patterns = m_runAccounting->patterns();
    for (std::size_t i = 0; i < patterns.size(); ++i)
        if (!patterns[i].isEmpty())
            s.runStatePatterns.insert(QLatin1String(core::runStateName(core::kPatternStates[i]).data()), patterns[i]);
}

bool MainWindow::loadSessionCaptures(const Session &s)
{
    if (s.before.isEmpty())
        return false;
    addRecent(s.before);
    m_keepView.reset(); // the session says where to look
    m_loader->load(s.before, s.rankOverrides);
    return true;
}

void MainWindow::applyOwnSession(const Session &s)
{
    {
        const QSignalBlocker b1(m_alignMode), b2(m_alignOccurrence);
        m_alignMode->setCurrentIndex(s.alignMode == QLatin1String("nvtx") ? 1 : 0);
        m_alignName->setText(s.alignName);
        m_alignOccurrence->setValue(s.alignOccurrence);
    }
    applyAlignment();
    m_find->setText(s.findText);
    SessionView::apply(*m_view, s, 0);
    RunAccountingPanel::Patterns patterns;
    for (std::size_t i = 0; i < patterns.size(); ++i)
        patterns[i] = s.runStatePatterns.value(QLatin1String(core::runStateName(core::kPatternStates[i]).data()));
    m_runAccounting->setPatterns(patterns);
    m_runAccounting->setRangeName(s.runStateRange);
}

void MainWindow::applyGapThreshold(core::TimeNs ns)
{
    m_view->model()->setGapThreshold(ns);
}

std::optional<ReportBuilder::Request> MainWindow::reportRequest() const
{
    const auto *model = m_view->model();
    if (!model->sharedData())
        return std::nullopt;
    ReportBuilder::Request request;
    request.capture = model->sharedData();
    request.minGapNs = model->gapThreshold();
    if (const auto &w = m_panelContext->window())
        request.timelineRange = core::TimeRange { w->start - model->origin(), w->end - model->origin() };
    return request;
}

bool MainWindow::isBusy() const
{
    const auto *model = m_view->model();
    return m_loader->isLoading() || (model->trace() && !model->gapsReady());
}

} // namespace gaplens::ui
