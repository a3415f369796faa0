// SPDX-License-Identifier: MIT
// The main window with its side panels on a synthetic 4-rank capture (a straggler on rank 2,
// an input-bound gap at every step start): panels follow the ruler selection, the rank
// choice and the toolbar threshold, and clicks in them move the timeline.
#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/analysis/panel_data.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/write/synth.h"
#include "ui/mainwindow.h"
#include "ui/panels/gapblamepanel.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/paneltable.h"
#include "ui/panels/rankpacepanel.h"
#include "ui/panels/summarypanel.h"
#include "ui/panels/topkernelspanel.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeruler.h"
#include "ui/timeline/zoomcontrol.h"

#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChart>
#include <QDockWidget>
#include <QLineSeries>
#include <QMenuBar>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

class TestPanelLinking : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;

    QList<AnalysisPanel *> panels() const
    {
        return { m_window->topKernelsPanel(), m_window->gapBlamePanel(), m_window->rankPacePanel(),
            m_window->summaryPanel() };
    }
    QList<int> generations() const
    {
        QList<int> g;
        for (auto *p : panels())
            g << p->generation();
        return g;
    }
    bool waitAll(const QList<int> &before) const
    {
        const auto list = panels();
        for (int i = 0; i < list.size(); ++i)
            if (!QTest::qWaitFor([&] { return list[i]->generation() > before[i] && !list[i]->isComputing(); }, 20000))
                return false;
        return true;
    }
    const core::TraceSet &trace() const { return *m_window->panelContext()->trace(); }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // keep QSettings (recent files, layout) out of the user's
        QVERIFY(m_dir.isValid());
        core::SynthOptions o;
        o.ranks = 4;
        o.steps = 10;
        o.layers = 8;
        o.inputGapNs = 500'000; // compute dominates, so 2x warm-up kernels make clearly slower steps
        o.stragglerRank = 2;
        o.warmupSteps = 2;
        core::writeSyntheticCapture(m_dir.path().toStdString(), o);
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        const auto before = generations();
        m_window->openPaths({ m_dir.path() });
        QVERIFY(QTest::qWaitFor([&] { return m_window->panelContext()->trace() != nullptr; }, 30000));
        QVERIFY(waitAll(before));
        QCOMPARE(trace().ranks.size(), std::size_t(4));
    }

    void panelsAreDocksReopenedFromTheViewMenuWithTheirLayoutRemembered()
    {
        QStringList titles;
        QDockWidget *paceDock = nullptr;
        for (auto *dock : m_window->findChildren<QDockWidget *>()) {
            titles << dock->windowTitle();
            if (dock->widget() == m_window->rankPacePanel())
                paceDock = dock;
        }
        for (const auto *t : { "Summary", "Top Kernels", "Gap Blame", "Rank Pace" })
            QVERIFY2(titles.contains(QLatin1String(t)), t);
        QVERIFY(paceDock);
        QVERIFY(paceDock->features() & QDockWidget::DockWidgetClosable);
        QVERIFY(paceDock->features() & QDockWidget::DockWidgetMovable);
        bool inViewMenu = false;
        for (QAction *menu : m_window->menuBar()->actions())
            if (menu->text() == QStringLiteral("&View"))
                inViewMenu = menu->menu()->actions().contains(paceDock->toggleViewAction());
        QVERIFY(inViewMenu);
        // Closed, the layout saved; reopened, restoring brings the closed state back.
        paceDock->close();
        const QByteArray state = m_window->saveState(1);
        paceDock->toggleViewAction()->trigger();
        QVERIFY(!paceDock->isHidden());
        QVERIFY(m_window->restoreState(state, 1));
        QVERIFY(paceDock->isHidden());
        paceDock->show();
    }

    void chartSeriesMatchTheRanksLoaded()
    {
        // Pace: one line per rank plus the per-iteration median.
        auto *pace = m_window->rankPacePanel();
        QCOMPARE(pace->pace().ranks.size(), std::size_t(4));
        QCOMPARE(pace->chart()->series().size(), 4 + 1);
        for (auto *s : pace->chart()->series())
            QVERIFY(qobject_cast<QLineSeries *>(s)->count() <= int(core::kMaxChartPoints));
        // Blame: one stacked bar per rank.
        auto *blame = m_window->gapBlamePanel();
        const auto series = blame->chart()->series();
        QCOMPARE(series.size(), 1);
        const auto sets = qobject_cast<QAbstractBarSeries *>(series.front())->barSets();
        QVERIFY(!sets.isEmpty());
        for (auto *set : sets)
            QCOMPARE(set->count(), 4);
        // Matrix: Iteration, Median, one column per rank.
        QCOMPARE(pace->matrix()->tableModel()->columnCount(), RankPacePanel::kFirstRankColumn + 4);
    }

    void thePaceVerdictNamesTheStraggler()
    {
        auto *pace = m_window->rankPacePanel();
        QCOMPARE(pace->rangeName(), QStringLiteral("train_step"));
        QVERIFY2(
            pace->verdictText().startsWith(QStringLiteral("Rank 2 was slowest in")), qPrintable(pace->verdictText()));
        bool straggler = false, warmUp = false, idle = false;
        QString all;
        for (const auto &f : m_window->summaryPanel()->summary().findings) {
            all += QString::fromStdString(f.text) + QLatin1Char('\n');
            straggler = straggler || f.kind == core::FindingKind::Straggler;
            warmUp = warmUp || f.kind == core::FindingKind::WarmUp;
            idle = idle || f.kind == core::FindingKind::IdleGpu;
        }
        QVERIFY2(straggler, qPrintable(all));
        QVERIFY2(warmUp, qPrintable(all));
        QVERIFY2(idle, qPrintable(all));
    }

    void clickingAPaceCellMovesTheTimelineToThatRanksIteration()
    {
        auto *pace = m_window->rankPacePanel();
        auto *matrix = pace->matrix();
        auto *view = m_window->timelineView();
        // Rank index 1, iteration 4, clicked in the view.
        const int column = RankPacePanel::kFirstRankColumn + 1;
        const QModelIndex cell = matrix->viewIndex(4, column);
        matrix->scrollTo(cell);
        QTest::mouseClick(matrix->viewport(), Qt::LeftButton, {}, matrix->visualRect(cell).center());
        const auto &it = pace->pace().ranks[1].iterations[4];
        const core::TimeNs off = view->model()->rankOffset(core::RankIndex(pace->pace().ranks[1].rank));
        QVERIFY(view->zoom()->windowStart() <= it.time.start + off);
        QVERIFY(view->zoom()->windowEnd() >= it.time.end + off);
        // Framed: the iteration fills most of the visible range.
        QVERIFY(double(it.time.duration()) > 0.8 * double(view->zoom()->windowEnd() - view->zoom()->windowStart()));
        QCOMPARE(int(view->selection().kind), int(HitKind::Nvtx));
        QCOMPARE(view->selection().rank.value(), pace->pace().ranks[1].rank);
        QCOMPARE(view->selection().start, it.cpu.start);
        // The Iteration column is not a rank's cell.
        QVERIFY(!pace->activateCell(0, 0));
    }

    void clickingASeriesSelectsTheRank()
    {
        auto *pace = m_window->rankPacePanel();
        auto *series = qobject_cast<QLineSeries *>(pace->chart()->series().at(3));
        QVERIFY(series);
        emit series->clicked(series->at(0));
        QCOMPARE(pace->selectedRank(), 3);
        QVERIFY(series->pen().widthF() > 3);
        const auto selected = pace->matrix()->selectionModel()->selectedColumns();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(pace->matrix()->proxy()->mapToSource(selected.front()).column(), RankPacePanel::kFirstRankColumn + 3);
    }

    void aRulerSelectionGivesEveryPanelTheNumbersOfThatRange()
    {
        auto *view = m_window->timelineView();
        auto *kernels = m_window->topKernelsPanel();
        const auto fullInstances = kernels->summary().instances;
        const auto fullSteps = m_window->summaryPanel()->summary().rows.front().steps;
        // Ranks are on absolute time here: display = absolute. Rank 0's iterations 5..7.
        const auto &its = m_window->rankPacePanel()->pace().ranks[0].iterations;
        const core::TimeRange range { its[5].time.start, its[7].time.end };
        auto before = generations();
        view->ruler()->setTimeSelection(range);
        QVERIFY(waitAll(before));
        QCOMPARE(m_window->panelContext()->window(), core::TimeWindow(range));

        core::KernelSummaryOptions o;
        o.window = range;
        const auto expected = core::summarizeKernels(trace(), o);
        QCOMPARE(kernels->summary().instances, expected.instances);
        QVERIFY(expected.instances < fullInstances);
        QCOMPARE(kernels->table()->tableModel()->rowCount(), int(expected.rows.size()));
        QCOMPARE(kernels->table()
                     ->tableModel()
                     ->data(kernels->table()->tableModel()->index(0, TopKernelsPanel::TotalColumn),
                         PanelTableModel::SortRole)
                     .toDouble(),
            double(expected.rows.front().stats.totalNs));

        core::GapBlameOptions bo;
        bo.window = range;
        const auto blame = core::blameGaps(trace(), bo);
        QCOMPARE(m_window->gapBlamePanel()->result().overall.gapCount, blame.overall.gapCount);
        QCOMPARE(m_window->gapBlamePanel()->result().overall.totalGapNs, blame.overall.totalGapNs);

        const auto &rows = m_window->summaryPanel()->summary().rows;
        QVERIFY(rows.front().steps < fullSteps);
        QCOMPARE(rows.front().steps, std::uint64_t(3)); // iterations 5, 6, 7 start inside
        QCOMPARE(m_window->rankPacePanel()->pace().ranks[0].iterations.size(), std::size_t(3));

        // Clicking the ruler without dragging clears it: back to the whole capture.
        before = generations();
        view->ruler()->clearTimeSelection();
        QVERIFY(waitAll(before));
        QVERIFY(!m_window->panelContext()->window());
        QCOMPARE(kernels->summary().instances, fullInstances);
    }

    void aGapBlameRowStepsThroughItsGapsOnTheTimeline()
    {
        auto *blame = m_window->gapBlamePanel();
        auto *view = m_window->timelineView();
        QTRY_VERIFY_WITH_TIMEOUT(view->model()->gapsReady(), 30000); // the timeline's own gaps, from its worker
        const int row = blame->table()->sourceRow(blame->table()->proxy()->index(0, 0)); // largest cause
        const auto first = blame->stepRow(row, 0);
        QVERIFY(first);
        QCOMPARE(int(view->selection().kind), int(HitKind::Gap));
        QCOMPARE(view->selection().gpu.value(), first->gpu);
        QVERIFY(view->selection().start <= first->gap.start && view->selection().end >= first->gap.end);
        const core::TimeNs off = view->model()->rankOffset(view->selection().rank);
        QVERIFY(view->zoom()->windowStart() <= first->gap.start + off);
        QVERIFY(view->zoom()->windowEnd() >= first->gap.end + off);
        const auto second = blame->stepRow(row, 1);
        QVERIFY(second);
        // The next gap in time (ranks run in lockstep: possibly the same time on another GPU).
        QVERIFY(second->gap.start > first->gap.start
            || (second->gap.start == first->gap.start && second->gpu != first->gpu));
        QCOMPARE(view->selection().start, second->gap.start);
    }

    void theThresholdIsOneControlForTimelineAndPanels()
    {
        auto *blame = m_window->gapBlamePanel();
        const auto before = generations();
        m_window->timelineView()->model()->setGapThreshold(1'000'000); // what the toolbar does
        QVERIFY(waitAll(before));
        QCOMPARE(m_window->panelContext()->gapThreshold(), core::TimeNs(1'000'000));
        QCOMPARE(blame->result().threshold, core::TimeNs(1'000'000));
        core::GapBlameOptions bo;
        bo.minGapNs = 1'000'000;
        QCOMPARE(blame->result().overall.gapCount, core::blameGaps(trace(), bo).overall.gapCount);
        const auto back = generations();
        m_window->timelineView()->model()->setGapThreshold(core::kDefaultMinGapNs);
        QVERIFY(waitAll(back));
    }

    void choosingAKernelHighlightsItsInstancesAndStepsThroughThem()
    {
        auto *kernels = m_window->topKernelsPanel();
        auto *view = m_window->timelineView();
        const int row = kernels->table()->sourceRow(kernels->table()->proxy()->index(0, 0));
        const auto expectedCalls = kernels->table()->tableModel()->data(
            kernels->table()->tableModel()->index(row, TopKernelsPanel::CallsColumn), PanelTableModel::SortRole);
        QCOMPARE(kernels->selectKernelRow(row), expectedCalls.toInt());
        QCOMPARE(view->findMatchCount(), expectedCalls.toInt());
        kernels->nextInstance();
        QCOMPARE(int(view->selection().kind), int(HitKind::Kernel));
        const auto &k = at(at(trace().gpus, view->selection().gpu).streams, view->selection().stream).kernels;
        QCOMPARE(QString::fromStdString(trace().str(k.shortName[view->selection().index])),
            kernels->table()->tableModel()->cell(row, TopKernelsPanel::NameColumn).display.toString());
        const core::TimeNs off = view->model()->rankOffset(view->selection().rank);
        QVERIFY(view->zoom()->windowStart() <= view->selection().start + off);
        QVERIFY(view->zoom()->windowEnd() >= view->selection().end + off);
    }

    void choosingRanksLimitsEveryPanel()
    {
        const auto before = generations();
        m_window->panelContext()->setRanks({ 1, 2 });
        QVERIFY(waitAll(before));
        QCOMPARE(m_window->rankPacePanel()->pace().ranks.size(), std::size_t(2));
        QCOMPARE(m_window->rankPacePanel()->chart()->series().size(), 2 + 1);
        QCOMPARE(m_window->summaryPanel()->summary().rows.size(), std::size_t(2));
        core::KernelSummaryOptions o;
        o.ranks = core::RankSelection::only({ 1, 2 });
        QCOMPARE(m_window->topKernelsPanel()->summary().instances, core::summarizeKernels(trace(), o).instances);
        const auto back = generations();
        m_window->panelContext()->setRanks({});
        QVERIFY(waitAll(back));
    }

    void cleanupTestCase() { m_window.reset(); }
};

QTEST_MAIN(TestPanelLinking)
#include "tst_panel_linking.moc"
