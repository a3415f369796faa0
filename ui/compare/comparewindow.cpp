// SPDX-License-Identifier: MIT
#include "ui/compare/comparewindow.h"

#include "gaplens/core/analysis/step_range.h"
#include "ui/bookmarks/bookmarkmodel.h"
#include "ui/compare/comparepanel.h"
#include "ui/compare/compareview.h"
#include "ui/compare/comparisoncontroller.h"
#include "ui/export/viewexporter.h"
#include "ui/loading/loadcontroller.h"
#include "ui/panels/kernelhistogramdialog.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/workspace/gapthresholdbox.h"
#include "ui/workspace/helpmenu.h"
#include "ui/workspace/loadprogressbar.h"
#include "ui/workspace/reviewactions.h"
#include "ui/workspace/windowgeometry.h"
#include "ui/workspace/workspace.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
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
    , m_panelDock(new QDockWidget(QStringLiteral("Compare"), this))
    , m_beforeLoader(new LoadController(this))
    , m_afterLoader(new LoadController(this))
{
    setObjectName(QStringLiteral("compareWindow"));
    setWindowTitle(QStringLiteral("gaplens — compare"));
    setAttribute(Qt::WA_DeleteOnClose, false);
    resize(1500, 950);
    setCentralWidget(m_view);
    // A child of this window that registers itself: workspace() returns it from here on.
    new Workspace(*this, *this, { kStateVersion, QStringLiteral("bookmarksDock") });
    m_panelDock->setObjectName(QStringLiteral("compareDock"));
    m_panelDock->setWidget(m_panel);
    addDockWidget(Qt::RightDockWidgetArea, m_panelDock);
    addDockWidget(Qt::RightDockWidgetArea, workspace()->bookmarkDock());

    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);
    m_progress = addLoadProgressBar(*this);
    createActions();

    connect(m_view, &CompareView::statusMessage, m_status, &QLabel::setText);
    connect(workspace(), &Workspace::statusMessage, m_status, &QLabel::setText);
    connect(m_view->controller(), &ComparisonController::busyChanged, m_panel, &ComparePanel::setBusy);
    connect(m_view->controller(), &ComparisonController::comparisonReady, m_panel, &ComparePanel::setComparison);
    connect(m_panel, &ComparePanel::kernelActivated, m_view, &CompareView::highlightKernel);
    connect(m_panel, &ComparePanel::kernelHistogramRequested, this, &CompareWindow::showKernelHistogram);
    connect(m_panel, &ComparePanel::nvtxActivated, m_view, &CompareView::highlightNvtx);
    connect(m_panel, &ComparePanel::causeActivated, m_view,
        [this](const QString &key) { m_view->highlightGaps(TimelineModel::GapHighlight::Cause, key); });
    connect(m_panel, &ComparePanel::phaseActivated, m_view,
        [this](const QString &key) { m_view->highlightGaps(TimelineModel::GapHighlight::Phase, key); });
    connect(m_panel, &ComparePanel::stepRangeRequested, m_view, &CompareView::setStepRange);
    for (auto *loader : { m_beforeLoader, m_afterLoader }) {
        connect(loader, &LoadController::progressChanged, this, [this](int permille, const QString &message) {
            m_progress->setValue(permille);
            m_status->setText(message);
        });
        connect(loader, &LoadController::loadCancelled, this, [this] {
            if (--m_pendingLoads <= 0)
                onLoaded();
        });
    }
    m_beforeLoader->showProgressIn(m_view->beforeView());
    m_afterLoader->showProgressIn(m_view->afterView());
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
        const QStringList files = QFileDialog::getOpenFileNames(this, QStringLiteral("Before: Nsight Systems exports"),
            QString(), QStringLiteral("Nsight Systems SQLite (*.sqlite);;All files (*)"));
        if (!files.isEmpty())
            openCaptures(files, {});
    });
    file->addAction(QStringLiteral("Open &After…"), this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, QStringLiteral("After: Nsight Systems exports"),
            QString(), QStringLiteral("Nsight Systems SQLite (*.sqlite);;All files (*)"));
        if (!files.isEmpty())
            openCaptures({}, files);
    });
    file->addSeparator();
    ReviewActions::addSessionActions(file, *workspace());
    file->addSeparator();
    file->addAction(QStringLiteral("Export &Timelines as Picture…"), this, [this] {
        ReviewActions::exportPicture(this, QStringLiteral("Export timelines"), QStringLiteral("compare.png"),
            [this](const QString &path, QSize size, QString *error) { return exportTimelines(path, size, error); });
    });
    file->addAction(QStringLiteral("Export Compare T&able as Picture…"), this, [this] {
        QTableView *table = m_panel->currentTableView();
        if (!table)
            return;
        const QString title = m_panel->tabs()->tabText(m_panel->tabs()->currentIndex());
        ReviewActions::exportPicture(this, QStringLiteral("Export table"), QStringLiteral("table.png"),
            [table, title](const QString &path, QSize size, QString *error) {
                return ViewExporter::exportTable(*table->model(), path, size, title, error);
            });
    });
    ReviewActions::addReportAction(file, *workspace());
    file->addSeparator();
    file->addAction(QStringLiteral("&Close"), this, &QWidget::close)->setShortcut(QKeySequence::Close);

    QMenu *view = menuBar()->addMenu(QStringLiteral("&View"));
    view->addAction(m_panelDock->toggleViewAction());
    view->addAction(workspace()->bookmarkDock()->toggleViewAction());
    ReviewActions::addBookmarkActions(view, *workspace());
    view->addSeparator();
    ReviewActions::addThemeActions(view);
    view->addSeparator();
    // The timelines are linked: the keys act on the one under the mouse, so W zooms at the cursor.
    ReviewActions::addNavigationActions(
        view, [this] { return m_view->afterView()->underMouse() ? m_view->afterView() : m_view->beforeView(); });
    view->addSeparator();
    ReviewActions::addRowActions(view, this, [this] {
        return QList<TimelineView *> { m_view->beforeView(), m_view->afterView() };
    });
    addHelpMenu(*this);

    QToolBar *bar = addToolBar(QStringLiteral("Compare"));
    bar->setObjectName(QStringLiteral("compareToolBar"));
    bar->addWidget(new QLabel(QStringLiteral(" Idle gaps ≥ "), bar));
    bar->addWidget(workspace()->thresholdBox());
    bar->addSeparator();
    bar->addWidget(new QLabel(QStringLiteral(" Theme: "), bar));
    m_theme = new QComboBox(bar);
    for (auto k :
        { Theme::Kind::Light, Theme::Kind::Dark, Theme::Kind::PresentationLight, Theme::Kind::PresentationDark })
        m_theme->addItem(Theme::name(k), int(k));
    m_theme->setCurrentIndex(int(Theme::current().kind));
    m_theme->setToolTip(QStringLiteral("Presentation themes: larger text, thicker lines, high-contrast colours"));
    connect(m_theme, &QComboBox::currentIndexChanged, this,
        [this](int i) { Theme::apply(Theme::Kind(m_theme->itemData(i).toInt())); });
    // Another window (or a session) may switch the theme: keep the chooser truthful.
    connect(ThemeNotifier::instance(), &ThemeNotifier::themeChanged, m_theme, [this] {
        const QSignalBlocker block(m_theme);
        m_theme->setCurrentIndex(int(Theme::current().kind));
    });
    bar->addWidget(m_theme);
}

namespace {
const QString kCompareGeometryKey = QStringLiteral("compareWindow/geometry");
}

void CompareWindow::showRestored()
{
    if (isVisible()) {
        raise();
        activateWindow();
        return;
    }
    showAtSavedGeometry(*this, kCompareGeometryKey);
}

void CompareWindow::closeEvent(QCloseEvent *e)
{
    saveWindowGeometry(*this, kCompareGeometryKey);
    QMainWindow::closeEvent(e);
}

void CompareWindow::showEvent(QShowEvent *e)
{
    QMainWindow::showEvent(e);
    if (m_shownOnce)
        return;
    m_shownOnce = true;
    // Dock sizes only take once the window has its real size: timelines get three fifths.
    resizeDocks({ m_panelDock }, { width() * 2 / 5 }, Qt::Horizontal);
    resizeDocks({ m_panelDock, workspace()->bookmarkDock() }, { height() * 3 / 4, height() / 4 }, Qt::Vertical);
}

bool CompareWindow::isLoading() const
{
    return m_pendingLoads > 0;
}

void CompareWindow::openCaptures(
    const QStringList &before, const QStringList &after, const std::vector<core::RankOverride> &overrides)
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
    if (const auto threshold = workspace()->thresholdBox()->threshold())
        applyGapThreshold(*threshold);
    QStringList names;
    if (m_beforeData && m_beforeData->trace)
        for (const auto &n : core::chooseStepRange(*m_beforeData->trace, 40).candidates)
            names << QString::fromStdString(n.name);
    m_panel->setRangeNames(names);
    QStringList problems;
    for (const auto *d : { m_beforeData.get(), m_afterData.get() })
        if (d && d->trace)
            for (const auto &e : d->trace->errors)
                problems << QString::fromStdString(e.message);
    if (!problems.isEmpty())
        m_status->setText(QStringLiteral("⚠ ") + problems.join(QStringLiteral("; ")));
    updateTitle();
    workspace()->capturesLoaded();
    emit capturesLoaded();
}

void CompareWindow::updateTitle()
{
    auto name = [](const QStringList &paths) {
        return paths.isEmpty()
            ? QStringLiteral("(none)")
            : (paths.size() == 1 ? QFileInfo(paths.front()).fileName() : QStringLiteral("%1 files").arg(paths.size()));
    };
    setWindowTitle(QStringLiteral("gaplens — compare %1 → %2").arg(name(m_beforePaths), name(m_afterPaths)));
}

TimelineView *CompareWindow::timeline(int capture) const
{
    return capture == 1 ? m_view->afterView() : m_view->beforeView();
}

void CompareWindow::captureOwnSession(Session &s) const
{
    s.before = m_beforePaths;
    s.after = m_afterPaths;
    s.beforeAfter = true;
    s.rankOverrides = m_overrides;
    s.alignMode = m_view->alignMode() == CompareView::AlignMode::AbsoluteTime ? QStringLiteral("absolute")
                                                                              : QStringLiteral("nvtx");
    // The range actually used, so reopening aligns at once (not after the comparison).
    s.alignName = m_view->effectiveRangeName();
    s.alignOccurrence = m_view->alignOccurrence();
    s.stepRange = m_view->stepRange();
    if (m_view->afterView()->model()->trace())
        SessionView::capture(*m_view->afterView(), s, 1);
    SessionView::capture(*m_view->beforeView(), s, 0);
    s.highlightKind = m_view->highlightKind();
    s.highlightKey = m_view->highlightKey();
}

bool CompareWindow::loadSessionCaptures(const Session &s)
{
    if (s.before.isEmpty() && s.after.isEmpty())
        return false;
    m_beforeData.reset();
    m_afterData.reset();
    m_beforePaths.clear();
    m_afterPaths.clear();
    openCaptures(s.before, s.after, s.rankOverrides);
    return true;
}

void CompareWindow::applyOwnSession(const Session &s)
{
    m_view->setStepRange(s.stepRange);
    m_view->setAlignment(s.alignMode == QLatin1String("nvtx") ? CompareView::AlignMode::NvtxOccurrence
                                                              : CompareView::AlignMode::AbsoluteTime,
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
}

void CompareWindow::applyGapThreshold(core::TimeNs ns)
{
    m_view->setGapThreshold(ns);
}

std::optional<ReportBuilder::Request> CompareWindow::reportRequest() const
{
    if (!m_beforeData)
        return std::nullopt;
    ReportBuilder::Request request;
    request.capture = m_beforeData;
    request.after = m_afterData;
    request.comparison = m_view->controller()->comparison();
    request.minGapNs = m_view->gapThreshold();
    request.stepRange = m_view->stepRange();
    return request;
}

bool CompareWindow::isBusy() const
{
    if (isLoading() || m_view->controller()->isBusy())
        return true;
    for (const TimelineView *v : { m_view->beforeView(), m_view->afterView() })
        if (v->model()->trace() && !v->model()->gapsReady())
            return true;
    return false;
}

bool CompareWindow::exportTimelines(const QString &path, QSize size, QString *error) const
{
    // Before above after, each with its title band and legend, in the synchronised window.
    const bool hasAfter = m_view->afterView()->model()->trace() != nullptr;
    return ViewExporter::writeFile(
        path, size, windowTitle(),
        [&](QPainter &p, QSize s) {
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
        },
        error);
}

KernelHistogramDialog *CompareWindow::showKernelHistogram(const QString &name)
{
    std::vector<KernelHistogramDialog::Source> sources;
    for (const auto &[label, view] : { std::pair(QStringLiteral("before"), m_view->beforeView()),
             std::pair(QStringLiteral("after"), m_view->afterView()) }) {
        const auto &data = view->model()->sharedData();
        if (!data || !data->trace)
            return nullptr;
        KernelHistogramDialog::Source source;
        source.label = label;
        source.trace = data->trace;
        sources.push_back(std::move(source));
    }
    auto *dialog = new KernelHistogramDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setKernel(name, std::move(sources), nullptr);
    dialog->show();
    return dialog;
}

} // namespace gaplens::ui
