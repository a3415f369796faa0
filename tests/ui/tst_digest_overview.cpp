// SPDX-License-Identifier: MIT
// The digest overview (DigestWindow) on the digest gaplens-cli writes of a synthetic 4-rank
// job with a straggler: the rank table, pace matrix and heat map hold the figures core computes
// on the loaded capture (computed here independently of the digest), the findings are core's,
// selected ranks open on the timeline with their own rank numbers, a missing report is named.
// Opening a digest (off the GUI thread, bad files, Cancel) is tst_digest_open's.
#include "digest_fixture.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/util/units.h"
#include "synth_sample.h"
#include "ui/digest/digesttables.h"
#include "ui/digest/digestwindow.h"
#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/panels/intervalheatmap.h"
#include "ui/panels/paneltable.h"
#include "ui/timeline/timelinedata.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QItemSelectionModel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include <cmath>

using namespace gaplens;
using namespace gaplens::ui;

class TestDigestOverview : public QObject
{
    Q_OBJECT
private:
    test::SynthSample m_sample;
    QString m_digestPath;
    std::shared_ptr<core::TraceSet> m_trace; // loaded independently of the digest
    std::shared_ptr<const core::DerivedCapture> m_derived;

    std::unique_ptr<DigestWindow> openWindow()
    {
        auto result = core::readDigest(m_digestPath.toStdString());
        if (!result.digest)
            return nullptr;
        return std::make_unique<DigestWindow>(std::move(*result.digest), m_digestPath);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        auto synth = test::synthOptions(4, 8, 2);
        synth.warmupSteps = 2; // slower first steps: anomalous intervals at the start
        QVERIFY(m_sample.write(synth));
        m_digestPath = m_sample.dir.filePath(QStringLiteral("run.gldigest"));
        QCOMPARE(test::writeDigest(m_digestPath, m_sample.path), 0);
        core::LoadOptions load;
        load.files = { m_sample.path.toStdString() };
        m_trace = core::loadTraceSet(load);
        QCOMPARE(m_trace->ranks.size(), std::size_t(4));
        core::DerivedOptions options;
        options.foldIndexes = false;
        m_derived = core::DerivedCapture::build(m_trace, options);
    }

    void rankTableHoldsCoresFigures()
    {
        const auto window = openWindow();
        QVERIFY(window);
        auto *model = window->rankTable()->tableModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 4);
        QCOMPARE(model->columnCount(), 11);
        core::PaceOptions paceOptions;
        paceOptions.rangeName = "train_step";
        const auto pace = core::computePace(*m_trace, paceOptions);
        QVERIFY(pace.straggler);
        QCOMPARE(pace.straggler->rank, 2u);
        for (int row = 0; row < 4; ++row) {
            const auto &rank = m_trace->ranks[std::size_t(row)];
            core::TimeNs busy = 0, gpuWindow = 0;
            std::uint64_t gaps = 0;
            for (auto g : rank.gpus) {
                busy += m_derived->busy(core::GpuIndex(g)).busyNs;
                gpuWindow += m_derived->busy(core::GpuIndex(g)).window.duration();
                gaps += m_derived->gaps(core::GpuIndex(g)).size();
            }
            QCOMPARE(model->cell(row, 0).raw.toInt(), rank.rank);
            QCOMPARE(model->cell(row, 2).raw.toDouble(), double(busy));
            QCOMPARE(model->cell(row, 3).raw.toDouble(), double(rank.span.duration()));
            QCOMPARE(model->cell(row, 4).raw.toDouble(), 100.0 * double(gpuWindow - busy) / double(gpuWindow));
            // Each GPU's capture is the rank's span, as the idle findings count it.
            const double gpuCapture = double(rank.span.duration()) * double(rank.gpus.size());
            QCOMPARE(model->cell(row, 5).raw.toDouble(), 100.0 * (gpuCapture - double(busy)) / gpuCapture);
            QVERIFY(model->cell(row, 5).raw.toDouble() > model->cell(row, 4).raw.toDouble());
            QCOMPARE(model->cell(row, 6).raw.toULongLong(), gaps);
            QCOMPARE(model->cell(row, 8).raw.toDouble(), pace.ranks[std::size_t(row)].medianNs);
            QCOMPARE(model->cell(row, 9).raw.toULongLong(), std::uint64_t(pace.ranks[std::size_t(row)].timesSlowest));
        }
        QVERIFY(model->cell(2, 9).background.isValid()); // the straggler is marked
        QVERIFY(!model->cell(0, 9).background.isValid());
    }

    // A rank whose report holds no kernels: its GPU cells are empty and say why, not "0 ns"
    // and "0 gaps" as if a GPU had been there.
    void aRankWithoutGpuSaysSo()
    {
        auto result = core::readDigest(m_digestPath.toStdString());
        QVERIFY(result.digest);
        auto &rank = result.digest->ranks[1];
        rank.gpuCount = 0;
        rank.busyNs = rank.windowNs = rank.idleNs = rank.idleOutsideNs = 0;
        rank.gapCount = 0;
        rank.blameByCause.clear();
        DigestWindow window(std::move(*result.digest), m_digestPath);
        auto *model = window.rankTable()->tableModel();
        for (const int column : { 2, 4, 5, 6 }) {
            QCOMPARE(model->cell(1, column).display.toString(), QString());
            QVERIFY(model->cell(1, column).toolTip.startsWith(QStringLiteral("no GPU")));
            QVERIFY(!model->cell(0, column).display.toString().isEmpty()); // the other ranks keep theirs
        }
        QCOMPARE(model->cell(1, 7).display.toString(), QStringLiteral("no GPU"));
        QCOMPARE(model->cell(1, 3).raw.toDouble(), double(m_trace->ranks[1].span.duration())); // its capture stays
    }

    // The header's capture span: seconds for one run, days when the reports of unrelated runs
    // are opened together (not "33401425.327 s").
    void headerSpanReadsAtAnyLength()
    {
        const auto window = openWindow();
        QVERIFY(window);
        const auto seconds = QString::fromStdString(core::formatDuration(double(m_trace->span.duration())));
        QVERIFY2(window->headerText().contains(QStringLiteral("capture ") + seconds), qPrintable(window->headerText()));
        auto result = core::readDigest(m_digestPath.toStdString());
        QVERIFY(result.digest);
        result.digest->span = { 0, core::TimeNs(400) * 24 * 3600 * 1'000'000'000 };
        DigestWindow months(std::move(*result.digest), m_digestPath);
        QVERIFY2(months.headerText().contains(QStringLiteral("capture 400.0 days")), qPrintable(months.headerText()));
        result = core::readDigest(m_digestPath.toStdString());
        result.digest->span = { 0, core::TimeNs(5) * 3600 * 1'000'000'000 };
        DigestWindow hours(std::move(*result.digest), m_digestPath);
        QVERIFY2(hours.headerText().contains(QStringLiteral("capture 5.0 h")), qPrintable(hours.headerText()));
    }

    void paceMatrixIsIterationsByRanks()
    {
        const auto window = openWindow();
        auto *model = window->paceMatrix()->tableModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        core::PaceOptions paceOptions;
        paceOptions.rangeName = "train_step";
        const auto pace = core::computePace(*m_trace, paceOptions);
        QCOMPARE(model->rowCount(), int(pace.ranks.front().iterations.size()));
        QCOMPARE(model->columnCount(), 2 + 4);
        // Shown in iteration order.
        auto *view = window->paceMatrix();
        for (int i = 0; i < model->rowCount(); ++i)
            QCOMPARE(view->sourceRow(view->model()->index(i, 0)), i);
        for (int i = 0; i < model->rowCount(); ++i) {
            QCOMPARE(model->cell(i, 1).raw.toDouble(), pace.iterations[std::size_t(i)].medianNs);
            for (int r = 0; r < 4; ++r)
                QCOMPARE(model->cell(i, 2 + r).raw.toDouble(),
                    double(pace.ranks[std::size_t(r)].iterations[std::size_t(i)].durationNs));
        }
    }

    // Each metric of the chooser shows core's value of that metric per rank and interval; the
    // digest's anomalies (of the spread) are outlined under the spread only.
    void heatMapHoldsCoresIntervalFigures()
    {
        const auto window = openWindow();
        core::IntervalOptions options;
        options.intervalNs = 10'000'000;
        options.top = std::numeric_limits<std::size_t>::max();
        const auto report = core::computeIntervals(*m_derived, options);
        std::size_t expectedAnomalous = 0;
        for (const auto &group : report.anomalies)
            expectedAnomalous += group.top.size();
        QVERIFY(expectedAnomalous > 0);
        QCOMPARE(window->metricChooser()->count(), int(std::size(kDigestHeatMapMetrics)));
        for (int m = 0; m < window->metricChooser()->count(); ++m) {
            window->metricChooser()->setCurrentIndex(m);
            const auto metric = kDigestHeatMapMetrics[m];
            const auto &data = window->heatMap()->data();
            QCOMPARE(data.metric, metric);
            QCOMPARE(data.rowLabels.size(), 4);
            QCOMPARE(data.originNs, report.originNs);
            std::size_t anomalous = 0, cells = 0;
            for (std::size_t e = 0; e < report.ranks.size(); ++e) {
                const auto &ri = report.ranks[e];
                for (std::size_t i = 0; i < ri.intervals.size(); ++i) {
                    const int column = int(ri.firstIndex + std::int64_t(i) - data.firstIndex);
                    const auto expected = core::intervalMetricValue(ri.intervals[i], metric);
                    const double value = data.value(int(e), column);
                    if (expected)
                        QCOMPARE(value, *expected);
                    else
                        QVERIFY(std::isnan(value));
                    anomalous += data.isOutlined(int(e), column) ? 1 : 0;
                    ++cells;
                }
            }
            QVERIFY(cells > 0);
            QCOMPARE(anomalous, metric == core::IntervalMetric::Stddev ? expectedAnomalous : std::size_t(0));
        }
    }

    // A damaged digest whose ranks lie far apart on the grid is cut, never allocated whole.
    void farApartIntervalsAreCut()
    {
        core::Digest digest;
        digest.metric = "stddev";
        for (const std::int64_t index : { std::int64_t(0), std::numeric_limits<std::int64_t>::max() }) {
            core::DigestRank rank;
            core::DigestInterval iv;
            iv.index = index;
            iv.busyNs = 5;
            rank.intervals.push_back(iv);
            digest.ranks.push_back(rank);
        }
        const auto data = digestHeatMapData(digest, core::IntervalMetric::Busy);
        QCOMPARE(std::uint64_t(data.columns), kMaxHeatMapColumns);
        QCOMPARE(data.value(0, 0), 5.0);
        for (int c = 0; c < data.columns; ++c)
            QVERIFY(std::isnan(data.value(1, c)));
    }

    void findingsAreCores()
    {
        const auto window = openWindow();
        core::CaptureSummaryOptions options;
        options.stepRange = "train_step";
        const auto findings = core::summarizeCapture(*m_derived, options).findings;
        QCOMPARE(window->findings()->count(), int(findings.size()));
        for (std::size_t i = 0; i < findings.size(); ++i)
            QCOMPARE(window->findings()->item(int(i))->text(), QString::fromStdString(findings[i].text));
    }

    void selectedRanksOpenOnTheTimelineWithTheirNumbers()
    {
        const auto window = openWindow();
        QVERIFY(!window->openButton()->isEnabled());
        auto *table = window->rankTable();
        table->selectionModel()->select(table->viewIndex(1), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        table->selectionModel()->select(table->viewIndex(3), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QVERIFY(window->openButton()->isEnabled());
        QCOMPARE(window->selectedRanks(), (std::vector<std::size_t> { 1, 3 }));
        std::unique_ptr<MainWindow> main(window->openOnTimeline(window->selectedRanks()));
        QVERIFY(main);
        main->setAttribute(Qt::WA_DeleteOnClose, false);
        QSignalSpy finished(main->loadController(), &LoadController::loadFinished);
        QVERIFY(finished.wait(30000));
        const auto data = finished.takeFirst().at(0).value<std::shared_ptr<const TimelineData>>();
        const auto &trace = *data->trace;
        QCOMPARE(trace.reports.size(), std::size_t(2));
        QCOMPARE(trace.ranks.size(), std::size_t(2));
        QCOMPARE(trace.ranks[0].rank, 1);
        QCOMPARE(trace.ranks[1].rank, 3);
        QVERIFY(trace.errors.empty());
    }

    void aMissingReportIsNamed()
    {
        auto result = core::readDigest(m_digestPath.toStdString());
        QVERIFY(result.digest);
        result.digest->ranks[2].report = "/nonexistent/train_2.sqlite";
        DigestWindow window(std::move(*result.digest), m_digestPath);
        QCOMPARE(window.missingReports({ 1, 2 }), QStringList { QStringLiteral("/nonexistent/train_2.sqlite") });
        QVERIFY(!window.openOnTimeline({ 1, 2 }));
        auto *box = window.findChild<QMessageBox *>();
        QVERIFY(box);
        QVERIFY2(box->text().contains(QStringLiteral("/nonexistent/train_2.sqlite")), qPrintable(box->text()));
        box->close();
    }
};

QTEST_MAIN(TestDigestOverview)
#include "tst_digest_overview.moc"
