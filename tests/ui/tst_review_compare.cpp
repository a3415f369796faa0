// SPDX-License-Identifier: MIT
// The compare view and panel: the models show exactly core::compareTraces (a built pair where
// relu_kernel is 2x slower after, synthetic captures with steps, the real before/after pair),
// the comparison runs off the GUI thread, the two timelines zoom and pan together and align on
// the k-th step, and clicking a kernel or cause highlights it on both timelines.
#include "testsupport.h"
#include "ui_fixture.h"

#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/util/units.h"
#include "gaplens/core/write/synth.h"
#include "ui/compare/comparepanel.h"
#include "ui/compare/compareview.h"
#include "ui/compare/comparewindow.h"
#include "ui/compare/comparisoncontroller.h"
#include "ui/compare/comparisonmodel.h"
#include "ui/compare/timelinesync.h"
#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace gaplens;
using namespace gaplens::ui;
using Table = ComparisonModel::Table;

namespace {

// The panel is reviewed on a 1920x1080 screen; offscreen's default screen is 800x600, where
// the panel's width is capped. Before the application exists: a screen of that size.
void useFullHdOffscreenScreen()
{
    if (qgetenv("QT_QPA_PLATFORM") != "offscreen")
        return;
    const auto path = std::filesystem::temp_directory_path() / "gaplens_tst_review_compare_screen.json";
    std::ofstream(path) << R"({"screens": [{"name": "fullhd", "x": 0, "y": 0, "width": 1920, "height": 1080, )"
                           R"("logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})";
    qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + QByteArray::fromStdString(path.string()));
}
Q_CONSTRUCTOR_FUNCTION(useFullHdOffscreenScreen)

// The fixture capture with relu_kernel taking `reluUs` instead of 500 us (on every rank).
std::shared_ptr<const TimelineData> fixtureData(double reluUs)
{
    auto t = fixture::buildTrace(2, 0);
    for (auto &gpu : t->gpus) {
        auto &k = gpu.streams[0].kernels;
        for (std::size_t i = 0; i < k.size(); ++i)
            if (t->str(k.shortName[i]) == "relu_kernel")
                k.end[i] = k.start[i] + fixture::us(reluUs);
    }
    core::finalizeTraceSet(*t);
    return prepareTimelineData(t);
}

double sortValue(const ComparisonModel &m, int row, int column)
{
    return m.index(row, column).data(ComparisonModel::SortRole).toDouble();
}

QString text(const ComparisonModel &m, int row, int column)
{
    return m.index(row, column).data().toString();
}

int rowOf(const ComparisonModel &m, const QString &key)
{
    for (int r = 0; r < m.rowCount(); ++r)
        if (m.key(r) == key)
            return r;
    return -1;
}

// A model tester on each of the panel's tables, for as long as the test keeps them.
std::vector<std::unique_ptr<QAbstractItemModelTester>> modelTesters(const ComparePanel &panel)
{
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    for (Table t :
        { Table::Headline, Table::Kernels, Table::IdleByCause, Table::IdleByPhase, Table::Nvtx, Table::Sustained })
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            panel.model(t), QAbstractItemModelTester::FailureReportingMode::QtTest));
    return testers;
}

// Every column of `view` is inside its viewport at its contents' width: nothing is cut off
// and there is nothing to scroll to sideways.
void verifyNoColumnIsCutOff(QTableView *view)
{
    const auto *header = view->horizontalHeader();
    const int viewport = view->viewport()->width();
    const auto *itemView = static_cast<const QAbstractItemView *>(view);
    for (int column = 0; column < header->count(); ++column) {
        QVERIFY2(header->sectionViewportPosition(column) + header->sectionSize(column) <= viewport,
            qPrintable(QStringLiteral("column %1 ends past the viewport (%2 px)").arg(column).arg(viewport)));
        if (column > 0) // the name column elides; numbers never do
            QVERIFY2(header->sectionSize(column)
                    >= std::max(itemView->sizeHintForColumn(column), header->sectionSizeHint(column)),
                qPrintable(QStringLiteral("column %1 is narrower than its contents").arg(column)));
    }
    QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
}

// The per-call lines: each regression in the worse colour, each improvement in the better.
void verifyPerCallLines(const ComparePanel &panel, const core::Comparison &c)
{
    const QString html = panel.perCallLabel()->text();
    QVERIFY(html.contains(QString::fromStdString(c.work.text).toHtmlEscaped()));
    for (const auto &[changes, colour] : { std::pair { &c.regressions, ComparisonModel::worseColor() },
             std::pair { &c.improvements, ComparisonModel::betterColor() } })
        for (const auto &p : *changes)
            QVERIFY(html.contains(QStringLiteral("<span style=\"color: %1;\">%2</span>")
                                      .arg(colour.name(), QString::fromStdString(p.text).toHtmlEscaped())));
}

// Every number of every table equals the comparison's own fields, row by row in core's order.
void verifyModelsShow(const ComparePanel &panel, const core::Comparison &c)
{
    const auto &h = *panel.model(Table::Headline);
    QCOMPARE(h.rowCount(), int(c.headline.size()));
    for (int r = 0; r < h.rowCount(); ++r) {
        const auto &m = c.headline[r];
        QCOMPARE(h.key(r), QString::fromStdString(m.key));
        QCOMPARE(text(h, r, ComparisonModel::MetricColumn), QString::fromStdString(m.label));
        QCOMPARE(text(h, r, ComparisonModel::BeforeColumn), ComparisonModel::formatMetric(m.unit, m.before));
        QCOMPARE(text(h, r, ComparisonModel::AfterColumn), ComparisonModel::formatMetric(m.unit, m.after));
        if (m.before)
            QCOMPARE(sortValue(h, r, ComparisonModel::BeforeColumn), *m.before);
        if (m.after)
            QCOMPARE(sortValue(h, r, ComparisonModel::AfterColumn), *m.after);
        if (m.changePercent)
            QCOMPARE(sortValue(h, r, ComparisonModel::ChangeColumn), *m.changePercent);
        if (m.noisePercent)
            QCOMPARE(sortValue(h, r, ComparisonModel::NoiseColumn), *m.noisePercent);
        QCOMPARE(text(h, r, ComparisonModel::JudgementColumn), ComparisonModel::judgementText(m));
    }
    const auto &k = *panel.model(Table::Kernels);
    QCOMPARE(k.rowCount(), int(c.kernels.size()));
    for (int r = 0; r < k.rowCount(); ++r) {
        const auto &x = c.kernels[r];
        QCOMPARE(k.key(r), QString::fromStdString(x.name));
        QCOMPARE(sortValue(k, r, ComparisonModel::CallsBeforeColumn), double(x.callsBefore));
        QCOMPARE(sortValue(k, r, ComparisonModel::CallsAfterColumn), double(x.callsAfter));
        QCOMPARE(sortValue(k, r, ComparisonModel::TotalBeforeColumn), double(x.totalBefore));
        QCOMPARE(sortValue(k, r, ComparisonModel::TotalAfterColumn), double(x.totalAfter));
        if (x.callsBefore)
            QCOMPARE(sortValue(k, r, ComparisonModel::AvgBeforeColumn), x.avgBefore);
        if (x.callsAfter)
            QCOMPARE(sortValue(k, r, ComparisonModel::AvgAfterColumn), x.avgAfter);
        QCOMPARE(sortValue(k, r, ComparisonModel::KernelDeltaColumn), double(x.deltaNs));
        QCOMPARE(text(k, r, ComparisonModel::TotalBeforeColumn),
            QString::fromStdString(core::formatDuration(double(x.totalBefore))));
        QCOMPARE(text(k, r, ComparisonModel::KernelNoteColumn),
            x.presence == core::Presence::Both ? QString() : QString::fromLatin1(core::presenceName(x.presence)));
        QCOMPARE(k.index(r, 0).data(ComparisonModel::PresenceRole).toInt(), int(x.presence));
    }
    for (auto [table, rows] :
        { std::pair { Table::IdleByCause, &c.idleByCause }, std::pair { Table::IdleByPhase, &c.idleByPhase } }) {
        const auto &m = *panel.model(table);
        QCOMPARE(m.rowCount(), int(rows->size()));
        for (int r = 0; r < m.rowCount(); ++r) {
            const auto &x = (*rows)[r];
            QCOMPARE(m.key(r), QString::fromStdString(x.key));
            QCOMPARE(sortValue(m, r, ComparisonModel::GapsBeforeColumn), double(x.countBefore));
            QCOMPARE(sortValue(m, r, ComparisonModel::GapsAfterColumn), double(x.countAfter));
            QCOMPARE(sortValue(m, r, ComparisonModel::IdleBeforeColumn), double(x.totalBefore));
            QCOMPARE(sortValue(m, r, ComparisonModel::IdleAfterColumn), double(x.totalAfter));
            QCOMPARE(sortValue(m, r, ComparisonModel::IdleDeltaColumn), double(x.deltaNs));
        }
    }
    const auto &n = *panel.model(Table::Nvtx);
    QCOMPARE(n.rowCount(), int(c.nvtx.size()));
    for (int r = 0; r < n.rowCount(); ++r) {
        QCOMPARE(n.key(r), QString::fromStdString(c.nvtx[r].name));
        QCOMPARE(sortValue(n, r, ComparisonModel::InstancesBeforeColumn), double(c.nvtx[r].instancesBefore));
        QCOMPARE(sortValue(n, r, ComparisonModel::NvtxTotalAfterColumn), double(c.nvtx[r].totalAfter));
        QCOMPARE(sortValue(n, r, ComparisonModel::NvtxDeltaColumn), double(c.nvtx[r].deltaNs));
    }
    QCOMPARE(panel.verdictText(), QString::fromStdString(c.verdictText));
    QCOMPARE(panel.verdictLabel()->text(), QString::fromStdString(c.verdictText));
    QVERIFY(panel.noiseText().contains(QString::fromStdString(c.noiseMethod)));
    CHECK(verifyPerCallLines(panel, c));
}

} // namespace

class TestReviewCompare : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const TimelineData> m_synthBefore, m_synthAfter;

    // Shows the pair in a window and waits for the comparison computed off the GUI thread.
    std::shared_ptr<const core::Comparison> showPair(
        CompareWindow &w, std::shared_ptr<const TimelineData> before, std::shared_ptr<const TimelineData> after)
    {
        QSignalSpy ready(w.compareView()->controller(), &ComparisonController::comparisonReady);
        w.setCaptures(std::move(before), std::move(after));
        // compute() hands the work to the pool and returns: nothing is delivered synchronously.
        if (!w.compareView()->controller()->isBusy())
            return nullptr;
        if (!ready.wait(60000))
            return nullptr;
        return w.compareView()->controller()->comparison();
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        // Synthetic training jobs with steps: after, rank 1's compute kernels take 1.5x longer.
        std::tie(m_synthBefore, m_synthAfter) = fixture::loadSynthPair(m_dir.path(), 12, 1.5, 2);
        QCOMPARE(m_synthBefore->trace->ranks.size(), std::size_t(2));
    }

    void builtPairWithOneKernelTwiceAsSlowShowsCoreNumbers()
    {
        CompareWindow w;
        const auto before = fixtureData(500), after = fixtureData(1000);
        const auto c = showPair(w, before, after);
        QVERIFY(c);
        const auto expected
            = core::compareTraces(*before->trace, *after->trace, w.compareView()->controller()->options());
        QCOMPARE(c->verdictText, expected.verdictText);
        QCOMPARE(c->kernels.size(), expected.kernels.size());
        const auto testers = modelTesters(*w.comparePanel());
        verifyModelsShow(*w.comparePanel(), expected);

        // The known difference: relu_kernel 500 us -> 1 ms on each of the 2 ranks, first by |delta|.
        const auto &k = *w.comparePanel()->model(Table::Kernels);
        QCOMPARE(k.key(0), QStringLiteral("relu_kernel"));
        QCOMPARE(sortValue(k, 0, ComparisonModel::AvgBeforeColumn), 500'000.0);
        QCOMPARE(sortValue(k, 0, ComparisonModel::AvgAfterColumn), 1'000'000.0);
        QCOMPARE(sortValue(k, 0, ComparisonModel::AvgRatioColumn), 2.0);
        QCOMPARE(sortValue(k, 0, ComparisonModel::KernelDeltaColumn), 1'000'000.0);
        QCOMPARE(text(k, 0, ComparisonModel::KernelDeltaColumn), QStringLiteral("+1.000 ms"));
        QCOMPARE(text(k, 0, ComparisonModel::AvgRatioColumn), QStringLiteral("2.00x"));
        for (int r = 1; r < k.rowCount(); ++r)
            QCOMPARE(sortValue(k, r, ComparisonModel::KernelDeltaColumn), 0.0);
        const auto &h = *w.comparePanel()->model(Table::Headline);
        const int kernelTotal = rowOf(h, QStringLiteral("kernel_total"));
        QVERIFY(kernelTotal >= 0);
        QCOMPARE(sortValue(h, kernelTotal, ComparisonModel::AfterColumn)
                - sortValue(h, kernelTotal, ComparisonModel::BeforeColumn),
            1'000'000.0);
    }

    void synthCapturesWithStepsShowTheVerdictAndNoiseMethod()
    {
        CompareWindow w;
        const auto c = showPair(w, m_synthBefore, m_synthAfter);
        QVERIFY(c);
        QVERIFY(c->hasSteps);
        QCOMPARE(c->stepRange, std::string("train_step"));
        QCOMPARE(c->verdict, core::Verdict::Slower);
        const auto expected = core::compareTraces(
            *m_synthBefore->trace, *m_synthAfter->trace, w.compareView()->controller()->options());
        verifyModelsShow(*w.comparePanel(), expected);
        QVERIFY(w.comparePanel()->verdictLabel()->text().startsWith(QStringLiteral("after is ")));
        QVERIFY(w.comparePanel()->verdictLabel()->text().contains(QStringLiteral("slower per step")));
        QVERIFY(w.comparePanel()->noiseText().contains(QStringLiteral("Mann-Whitney")));
        // The default alignment is the comparison's step range.
        QCOMPARE(w.compareView()->effectiveRangeName(), QStringLiteral("train_step"));
    }

    void capturesDifferingOnlyByNoiseSayNoSignificantChange()
    {
        core::SynthOptions o;
        o.ranks = 2;
        o.steps = 12;
        o.stragglerRank = -1;
        o.jitter = 0.05;
        o.seed = 11;
        core::writeSyntheticCapture(m_dir.filePath(QStringLiteral("noise_a")).toStdString(), o);
        o.seed = 12; // same job, other run: only the jitter differs
        core::writeSyntheticCapture(m_dir.filePath(QStringLiteral("noise_b")).toStdString(), o);
        CompareWindow w;
        const auto c = showPair(w, LoadController::loadNow({ m_dir.filePath(QStringLiteral("noise_a")) }),
            LoadController::loadNow({ m_dir.filePath(QStringLiteral("noise_b")) }));
        QVERIFY(c);
        QVERIFY(c->hasSteps);
        QCOMPARE(c->verdict, core::Verdict::NoSignificantChange);
        QCOMPARE(w.comparePanel()->verdictLabel()->text(), QStringLiteral("no significant change"));
        const auto &h = *w.comparePanel()->model(Table::Headline);
        QCOMPARE(text(h, rowOf(h, QStringLiteral("median_step")), ComparisonModel::JudgementColumn),
            QStringLiteral("within noise"));
    }

    void mainWindowComparesItsCaptureWithAnotherWithoutReloadingIt()
    {
        const QString before = m_dir.filePath(QStringLiteral("before"));
        const QString after = m_dir.filePath(QStringLiteral("after"));
        MainWindow main;
        QSignalSpy loaded(main.loadController(), &LoadController::loadFinished);
        main.openPaths({ before });
        QVERIFY(loaded.wait(30000));
        const auto mainData = main.timelineView()->model()->sharedData();
        CompareWindow *w = main.openCompareWith({ after });
        QVERIFY(w);
        QSignalSpy ready(w->compareView()->controller(), &ComparisonController::comparisonReady);
        QVERIFY(ready.wait(30000) || w->compareView()->controller()->comparison());
        QCOMPARE(w->compareView()->beforeData(), mainData); // the same loaded capture, not a second read
        QVERIFY(w->compareView()->afterData());
        QCOMPARE(w->compareView()->afterData()->trace->ranks.size(), std::size_t(2));
        QCOMPARE(w->compareView()->controller()->comparison()->verdict, core::Verdict::Slower);
        QCOMPARE(main.compareWindow(), w);
        w->close();
    }

    void realBeforeAfterPairShowsCoreNumbers()
    {
        const auto b = test::realFile("nsysai_mfu_2gpu_before.sqlite");
        const auto a = test::realFile("nsysai_mfu_2gpu_after.sqlite");
        QVERIFY2(!b.empty() && !a.empty(), "real exports missing (../shared/nsys-real)");
        const auto before = LoadController::loadNow({ QString::fromStdString(b) });
        const auto after = LoadController::loadNow({ QString::fromStdString(a) });
        CompareWindow w;
        const auto c = showPair(w, before, after);
        QVERIFY(c);
        const auto expected
            = core::compareTraces(*before->trace, *after->trace, w.compareView()->controller()->options());
        const auto testers = modelTesters(*w.comparePanel());
        verifyModelsShow(*w.comparePanel(), expected);
        // What this pair is known to hold: 4,010 -> 3,587 kernels, flash_fwd_kernel moved most.
        const auto &h = *w.comparePanel()->model(Table::Headline);
        const int count = rowOf(h, QStringLiteral("kernel_count"));
        QVERIFY(count >= 0);
        QCOMPARE(text(h, count, ComparisonModel::BeforeColumn), QStringLiteral("4,010"));
        QCOMPARE(text(h, count, ComparisonModel::AfterColumn), QStringLiteral("3,587"));
        QCOMPARE(w.comparePanel()->model(Table::Kernels)->key(0), QStringLiteral("flash_fwd_kernel"));
        // Fewer iterations after: the headline is per kernel call and names the collective.
        QCOMPARE(h.key(0), QStringLiteral("kernel_per_call"));
        QCOMPARE(c->regressions.size(), std::size_t(1));
        QVERIFY(w.comparePanel()->perCallLabel()->text().contains(
            QStringLiteral("ncclDevKernel_SendRecv 1.41x slower per call (+9.880 ms)")));
        // At the window's own size on a 1920x1080 screen, no number column is cut off.
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        for (Table t : { Table::Headline, Table::Kernels, Table::IdleByCause, Table::IdleByPhase, Table::Nvtx }) {
            w.comparePanel()->tabs()->setCurrentWidget(w.comparePanel()->tableView(t));
            QCoreApplication::processEvents();
            CHECK(verifyNoColumnIsCutOff(w.comparePanel()->tableView(t)));
        }
        if (qEnvironmentVariableIsSet("GAPLENS_SCREENSHOT_DIR")) {
            w.resize(1700, 1000);
            w.show();
            QTest::qWait(200);
            w.grab().save(qEnvironmentVariable("GAPLENS_SCREENSHOT_DIR") + QStringLiteral("/compare_real.png"));
        }
    }

    void longKernelNamesElideAndEveryNumberColumnFitsThePanel()
    {
        auto c = std::make_shared<core::Comparison>();
        for (int i = 0; i < 30; ++i) {
            core::KernelChange k;
            k.name = "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
                     "float, at::native::binary_internal::MulFunctor<float>>>_variant_"
                + std::to_string(i);
            k.callsBefore = 1'234'567;
            k.callsAfter = 1'234'000;
            k.totalBefore = 123'456'789'000;
            k.totalAfter = 123'000'000'000;
            k.avgBefore = 100'123.0;
            k.avgAfter = 99'632.0;
            k.deltaNs = k.totalAfter - k.totalBefore;
            k.avgRatio = k.avgAfter / k.avgBefore;
            c->kernels.push_back(k);
        }
        c->work.text = "the same work";
        core::PerCallChange slower, faster;
        slower.text = "comm 1.41x slower per call (+9.880 ms)";
        faster.text = "gemm <float> 1.25x faster per call (-2.000 ms)";
        c->regressions = { slower };
        c->improvements = { faster };
        ComparePanel panel;
        panel.setComparison(c);
        panel.resize(panel.minimumWidth(), 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(panel.width(), panel.minimumWidth());
        auto *kernels = panel.tableView(Table::Kernels);
        panel.tabs()->setCurrentWidget(kernels);
        QCoreApplication::processEvents();
        CHECK(verifyNoColumnIsCutOff(kernels));
        CHECK(verifyNoColumnIsCutOff(panel.tableView(Table::Headline)));
        QCOMPARE(kernels->textElideMode(), Qt::ElideMiddle);
        // Two-line titles in the panel; the model's stay on one line for exports and copies.
        QCOMPARE(kernels->model()->headerData(ComparisonModel::CallsBeforeColumn, Qt::Horizontal).toString(),
            QStringLiteral("Calls\nbefore"));
        QCOMPARE(kernels->model()->headerData(ComparisonModel::KernelDeltaColumn, Qt::Horizontal).toString(),
            QStringLiteral("Change"));
        QCOMPARE(panel.model(Table::Kernels)->headerData(ComparisonModel::CallsBeforeColumn, Qt::Horizontal).toString(),
            QStringLiteral("Calls before"));
        // The name column keeps at least kMinimumNameChars characters of the name.
        QVERIFY(kernels->horizontalHeader()->sectionSize(ComparisonModel::KernelNameColumn)
            >= kernels->fontMetrics().horizontalAdvance(QLatin1Char('x')) * ComparePanel::kMinimumNameChars);
        CHECK(verifyPerCallLines(panel, *c));
        // "<float>" is text, not markup.
        QVERIFY(panel.perCallLabel()->text().contains(QStringLiteral("gemm &lt;float&gt; 1.25x faster")));
    }

    void aVerdictOnCapturesThatMayNotBeComparableIsNotColoured()
    {
        auto c = std::make_shared<core::Comparison>();
        c->verdict = core::Verdict::Faster;
        c->verdictText = "after is 10.0% faster per step (noise +-1.0%)";
        ComparePanel panel;
        panel.setComparison(c);
        QCOMPARE(panel.verdictLabel()->styleSheet(),
            QStringLiteral("color: %1;").arg(ComparisonModel::betterColor().name()));
        auto notComparable = std::make_shared<core::Comparison>(*c);
        notComparable->notComparable = { "ranks: 2 before, 8 after" };
        notComparable->verdictText = "captures may not be comparable (ranks: 2 before, 8 after): " + c->verdictText;
        panel.setComparison(notComparable);
        QCOMPARE(panel.verdictLabel()->styleSheet(), QString());
        QCOMPARE(panel.verdictLabel()->text(), QString::fromStdString(notComparable->verdictText));
    }

    void zoomingOneTimelineMovesTheOther()
    {
        CompareView view;
        view.resize(1200, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAlignment(CompareView::AlignMode::AbsoluteTime);
        view.setCaptures(
            prepareTimelineData(fixture::buildTrace(2, 0)), prepareTimelineData(fixture::buildTrace(2, 700)));
        auto *b = view.beforeView(), *a = view.afterView();
        QCOMPARE(a->viewport()->width(), b->viewport()->width());
        const auto anchorB = view.sync()->anchor(0), anchorA = view.sync()->anchor(1);
        QCOMPARE(anchorB, b->model()->origin());
        QCOMPARE(anchorA, a->model()->origin());

        auto inStep = [&] {
            QCOMPARE(a->zoom()->windowStart() - anchorA, b->zoom()->windowStart() - anchorB);
            QVERIFY(std::abs(a->zoom()->nsPerPx() - b->zoom()->nsPerPx()) < 1e-9 * b->zoom()->nsPerPx());
        };
        const double before = a->zoom()->nsPerPx();
        b->zoom()->zoomAt(300, 4.0);
        QVERIFY(a->zoom()->nsPerPx() < before / 3.9);
        inStep();
        b->zoom()->panPixels(120);
        inStep();
        // And the other way round: the after timeline leads too (a wheel notch on it).
        QWheelEvent wheel(QPointF(200, 10), a->viewport()->mapToGlobal(QPointF(200, 10)), QPoint(), QPoint(0, 120),
            Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        const double beforeWheel = b->zoom()->nsPerPx();
        QApplication::sendEvent(a->viewport(), &wheel);
        QVERIFY(b->zoom()->nsPerPx() < beforeWheel);
        inStep();
    }

    void kthStepStartsAtTheSameXInBothTimelines()
    {
        CompareView view;
        view.resize(1200, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAlignment(CompareView::AlignMode::NvtxOccurrence, QStringLiteral("train_step"), 5);
        view.setCaptures(m_synthBefore, m_synthAfter);
        const auto sb = CompareView::nvtxOccurrenceStart(*m_synthBefore->trace, QStringLiteral("train_step"), 5);
        const auto sa = CompareView::nvtxOccurrenceStart(*m_synthAfter->trace, QStringLiteral("train_step"), 5);
        QVERIFY(sb && sa);
        // The after capture's steps are longer, so step 5 starts later in its capture.
        QVERIFY(*sa - m_synthAfter->trace->span.start > *sb - m_synthBefore->trace->span.start);
        auto *b = view.beforeView(), *a = view.afterView();
        b->zoom()->setWindow(*sb - 5'000'000, *sb + 20'000'000);
        QVERIFY(std::abs(b->zoom()->timeToX(*sb) - a->zoom()->timeToX(*sa)) < 1.0);
        QVERIFY(b->zoom()->timeToX(*sb) > 100); // on screen, not clamped away
        // Step 6 does not line up (after steps are longer): the alignment is on step 5 only.
        const auto sb6 = CompareView::nvtxOccurrenceStart(*m_synthBefore->trace, QStringLiteral("train_step"), 6);
        const auto sa6 = CompareView::nvtxOccurrenceStart(*m_synthAfter->trace, QStringLiteral("train_step"), 6);
        QVERIFY(a->zoom()->timeToX(*sa6) - b->zoom()->timeToX(*sb6) > 5);

        view.setAlignment(CompareView::AlignMode::AbsoluteTime);
        QCOMPARE(view.sync()->anchor(0), b->model()->origin());
        view.setAlignment(CompareView::AlignMode::NvtxOccurrence, QStringLiteral("no_such_range"), 1);
        QVERIFY(!view.applyAlignment());
        QCOMPARE(view.sync()->anchor(1), a->model()->origin()); // fell back to absolute
    }

    void clickingAKernelOrCauseHighlightsItOnBothTimelines()
    {
        CompareWindow w;
        QVERIFY(showPair(w, fixtureData(500), fixtureData(1000)));
        auto *panel = w.comparePanel();
        auto *b = w.compareView()->beforeView(), *a = w.compareView()->afterView();
        const int relu = rowOf(*panel->model(Table::Kernels), QStringLiteral("relu_kernel"));
        QVERIFY(relu >= 0);
        QSignalSpy activated(panel, &ComparePanel::kernelActivated);
        panel->activateRow(Table::Kernels, relu);
        QCOMPARE(activated.count(), 1);
        for (auto *v : { b, a }) {
            const auto id = v->model()->trace()->strings.find("relu_kernel");
            QVERIFY(v->model()->matchesName(id));
            QVERIFY(!v->model()->matchesName(v->model()->trace()->strings.find("sgemm_kernel")));
            QCOMPARE(v->findMatchCount(), 2); // one relu_kernel per rank
        }
        QCOMPARE(w.compareView()->highlightKind(), QStringLiteral("kernel"));

        // The fixture's only gap per GPU: cudaStreamSynchronize in progress (cause key = API name).
        const int cause = rowOf(*panel->model(Table::IdleByCause), QStringLiteral("cudaStreamSynchronize"));
        QVERIFY(cause >= 0);
        panel->activateRow(Table::IdleByCause, cause);
        for (auto *v : { b, a }) {
            QTRY_VERIFY_WITH_TIMEOUT(v->model()->gapsReady(), 10000); // highlights follow the worker's gaps
            QCOMPARE(v->model()->gapHighlightKind(), TimelineModel::GapHighlight::Cause);
            QCOMPARE(v->model()->gapCount(), std::size_t(2));
            QVERIFY(v->model()->isGapHighlighted(core::GpuIndex(0), 0));
            QVERIFY(v->model()->isGapHighlighted(core::GpuIndex(1), 0));
            QVERIFY(!v->model()->hasFindPattern()); // the kernel highlight made way
        }
        const int phase = rowOf(*panel->model(Table::IdleByPhase), QStringLiteral("backward"));
        QVERIFY(phase >= 0);
        panel->activateRow(Table::IdleByPhase, phase);
        QCOMPARE(b->model()->gapHighlightKind(), TimelineModel::GapHighlight::Phase);
        QVERIFY(a->model()->isGapHighlighted(core::GpuIndex(0), 0));
        w.compareView()->highlightGaps(TimelineModel::GapHighlight::Phase, QStringLiteral("forward"));
        QVERIFY(!a->model()->isGapHighlighted(core::GpuIndex(0), 0));
    }
};

QTEST_MAIN(TestReviewCompare)
#include "tst_review_compare.moc"
