// SPDX-License-Identifier: MIT
// The Intervals panel in the main window on a synthetic 4-rank capture: the heat map's cells are
// core's interval statistics (computed again here, independently of the panel), anomalous
// cells are core's anomalies, a click on a cell, an anomaly row or the transfers chart selects
// that interval on the timeline's ruler (which narrows the other panels), a ruler selection
// narrows the panel, and the report carries the section.
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/util/units.h"
#include "gaplens/core/write/synth.h"
#include "ui/mainwindow.h"
#include "ui/panels/intervalheatmap.h"
#include "ui/panels/intervalspanel.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/paneltable.h"
#include "ui/report/reportbuilder.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeruler.h"

#include <QAbstractItemModelTester>
#include <QAreaSeries>
#include <QChart>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>

using namespace gaplens;
using namespace gaplens::ui;

class TestIntervalsPanel : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    IntervalsPanel *m_panel = nullptr;

    // Waits for the panel's next result after `change`.
    bool changeAndWait(const std::function<void()> &change)
    {
        const int before = m_panel->generation();
        change();
        return QTest::qWaitFor([&] { return m_panel->generation() > before && !m_panel->isComputing(); }, 30000);
    }
    // The panel's intervals computed again by core, with every anomaly of `metric`.
    core::IntervalReport independent(core::IntervalMetric metric) const
    {
        core::IntervalOptions options;
        options.intervalNs = m_panel->result().report->intervalNs;
        options.metric = metric;
        options.top = std::numeric_limits<std::size_t>::max();
        return core::computeIntervals(*m_window->panelContext()->derived(), options);
    }
    core::TimeNs offset(std::uint32_t rank) const
    {
        return m_window->timelineView()->model()->rankOffset(core::RankIndex(rank));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        core::SynthOptions o;
        o.ranks = 4;
        o.steps = 10;
        o.layers = 8;
        o.inputGapNs = 500'000;
        o.stragglerRank = 2;
        o.warmupSteps = 2; // slower first steps: anomalous intervals at the start
        core::writeSyntheticCapture(m_dir.path().toStdString(), o);
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1400, 900);
        m_window->show();
        m_panel = m_window->findChild<IntervalsPanel *>();
        QVERIFY(m_panel);
        QVERIFY(changeAndWait([&] { m_window->openPaths({ m_dir.path() }); }));
        QVERIFY(QTest::qWaitFor([&] { return m_panel->result().report != nullptr; }, 30000));
    }

    void thePanelIsADockOfTheMainWindow()
    {
        QDockWidget *dock = nullptr;
        for (auto *d : m_window->findChildren<QDockWidget *>())
            if (d->widget() == m_panel)
                dock = d;
        QVERIFY(dock);
        QCOMPARE(dock->windowTitle(), QStringLiteral("Intervals"));
        QCOMPARE(m_panel->tabs()->count(), 2);
    }

    void theAutomaticLengthGivesAtLeastTwentyIntervals()
    {
        const auto &trace = *m_window->panelContext()->trace();
        const auto &r = m_panel->result();
        QVERIFY(r.automaticLength);
        QCOMPARE(r.report->intervalNs, core::defaultIntervalLength(trace));
        QVERIFY(r.report->intervalNs < 1'000'000'000); // the capture is far shorter than 20 s
        QCOMPARE(r.entries.size(), std::size_t(4));
        QVERIFY(r.last - r.first + 1 >= core::kMinDefaultIntervals);
        QVERIFY(m_panel->lengthText().contains(QStringLiteral("automatic")));
    }

    void heatMapCellsAreCoresStatisticsForEveryMetric()
    {
        for (const auto metric : { core::IntervalMetric::Stddev, core::IntervalMetric::Busy,
                 core::IntervalMetric::Kernels, core::IntervalMetric::KernelNs, core::IntervalMetric::Stall,
                 core::IntervalMetric::Bytes, core::IntervalMetric::HtoD, core::IntervalMetric::DtoH }) {
            if (m_panel->result().metric != metric)
                QVERIFY(changeAndWait([&] { m_panel->setMetric(metric); }));
            const auto expected = independent(metric);
            const auto &d = m_panel->heatMap()->data();
            QCOMPARE(d.metric, metric);
            QCOMPARE(d.rowLabels.size(), qsizetype(expected.ranks.size()));
            int outlined = 0, anomalies = 0, values = 0;
            for (int row = 0; row < d.rowLabels.size(); ++row) {
                const auto &ri = expected.ranks[std::size_t(row)];
                for (int c = 0; c < d.columns; ++c) {
                    const std::int64_t k = d.firstIndex + c - ri.firstIndex;
                    const bool inside = k >= 0 && k < std::int64_t(ri.intervals.size());
                    const auto v
                        = inside ? core::intervalMetricValue(ri.intervals[std::size_t(k)], metric) : std::nullopt;
                    QCOMPARE(std::isnan(d.value(row, c)), !v.has_value());
                    if (v) {
                        QCOMPARE(d.value(row, c), *v);
                        ++values;
                    }
                    outlined += d.isOutlined(row, c);
                }
                for (const auto &a : expected.anomalies[std::size_t(row)].top) {
                    QVERIFY(d.isOutlined(row, int(a.index - d.firstIndex)));
                    ++anomalies;
                }
            }
            QVERIFY(values > 0);
            QCOMPARE(outlined, anomalies);
            // The tooltip of rank 0's first interval gives its kernel count and busy time.
            const auto &stats = expected.ranks.front().intervals.front();
            const int column = int(expected.ranks.front().firstIndex - d.firstIndex);
            const QString tip = m_panel->cellToolTip(0, column);
            QVERIFY2(tip.contains(QStringLiteral("kernels %1,").arg(stats.kernels.count)), qPrintable(tip));
            QVERIFY2(
                tip.contains(
                    QStringLiteral("busy %1;").arg(QString::fromStdString(core::formatDuration(double(stats.busyNs))))),
                qPrintable(tip));
            QCOMPARE(m_panel->anomalyTable()->tableModel()->rowCount(), anomalies);
        }
        // The warm-up steps make the first intervals' kernel time stand out.
        QVERIFY(changeAndWait([&] { m_panel->setMetric(core::IntervalMetric::KernelNs); }));
        QVERIFY(m_panel->anomalyTable()->tableModel()->rowCount() > 0);
    }

    void theAnomalyTablePassesTheModelTester()
    {
        QAbstractItemModelTester tester(
            m_panel->anomalyTable()->tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(changeAndWait([&] { m_panel->setMetric(core::IntervalMetric::Stddev); }));
        QVERIFY(changeAndWait([&] { m_panel->setMetric(core::IntervalMetric::KernelNs); }));
        QCOMPARE(m_panel->anomalyTable()->tableModel()->columnCount(), int(IntervalsPanel::AnomalyColumnCount));
    }

    void clickingACellSelectsItsIntervalOnTheTimeline()
    {
        auto *heat = m_panel->heatMap();
        const auto &r = m_panel->result();
        const std::int64_t first = r.first, last = r.last;
        const int column = 5, row = 2;
        const std::int64_t k = heat->data().firstIndex + column;
        const auto rank = r.report->ranks[heat->data().entries[row]].rank;
        const core::TimeNs start = r.report->originNs + k * r.report->intervalNs;
        QVERIFY(changeAndWait(
            [&] { QTest::mouseClick(heat, Qt::LeftButton, {}, heat->cellRect(row, column).center().toPoint()); }));
        auto *ruler = m_window->timelineView()->ruler();
        QVERIFY(ruler->hasTimeSelection());
        QCOMPARE(ruler->timeSelection(),
            (core::TimeRange { start + offset(rank), start + r.report->intervalNs + offset(rank) }));
        // The other panels narrow to the interval; this one keeps showing what it showed.
        QCOMPARE(m_window->panelContext()->window(),
            (core::TimeWindow { core::TimeRange { start, start + r.report->intervalNs } }));
        QCOMPARE(m_panel->result().first, first);
        QCOMPARE(m_panel->result().last, last);
        QCOMPARE(m_panel->selectedInterval(), std::optional<std::int64_t>(k));
        QCOMPARE(heat->selectedColumn(), column);
        QVERIFY(m_panel->findChild<QLabel *>()->text().endsWith(
            QStringLiteral("whole capture · interval %1 selected on the timeline").arg(k)));
    }

    void anAnomalyRowSelectsItsInterval()
    {
        auto *table = m_panel->anomalyTable();
        QVERIFY(table->tableModel()->rowCount() > 0);
        const int sourceRow = table->sourceRow(table->model()->index(0, 0));
        const auto interval = table->tableModel()->cell(sourceRow, IntervalsPanel::IntervalColumn).raw.toLongLong();
        emit table->rowClicked(sourceRow, 0);
        QCOMPARE(m_panel->selectedInterval(), std::optional<std::int64_t>(interval));
        const auto &r = m_panel->result();
        const core::TimeNs start = r.report->originNs + interval * r.report->intervalNs;
        QCOMPARE(m_window->panelContext()->window(),
            (core::TimeWindow { core::TimeRange { start, start + r.report->intervalNs } }));
    }

    void aRulerSelectionNarrowsThePanel()
    {
        const auto &r0 = m_panel->result();
        const core::TimeNs L = r0.report->intervalNs, origin = r0.report->originNs;
        // From the middle of interval 3 to the start of interval 8: intervals 3-7 overlap it.
        const core::TimeRange range { origin + 3 * L + L / 2, origin + 8 * L };
        QVERIFY(changeAndWait([&] {
            m_window->timelineView()->ruler()->setTimeSelection(
                core::TimeRange { range.start + offset(0), range.end + offset(0) });
        }));
        const auto &r = m_panel->result();
        QCOMPARE(r.first, std::int64_t(3));
        QCOMPARE(r.last, std::int64_t(7));
        QCOMPARE(m_panel->heatMap()->data().columns, 5);
        QVERIFY(!m_panel->selectedInterval());
        // Anomalies listed are those of the shown intervals.
        auto *model = m_panel->anomalyTable()->tableModel();
        for (int row = 0; row < model->rowCount(); ++row) {
            const auto k = model->cell(row, IntervalsPanel::IntervalColumn).raw.toLongLong();
            QVERIFY(k >= 3 && k <= 7);
        }
        QVERIFY(changeAndWait([&] { m_window->timelineView()->ruler()->clearTimeSelection(); }));
        QVERIFY(m_panel->result().last - m_panel->result().first + 1 >= core::kMinDefaultIntervals);
    }

    void theTransfersChartStacksEachDirectionAndItsClickSelects()
    {
        m_panel->tabs()->setCurrentIndex(1);
        QCOMPARE(m_panel->rankChooser()->count(), 4);
        QStringList names;
        QAreaSeries *area = nullptr;
        for (auto *s : m_panel->transfersChart()->series()) {
            names << s->name();
            if (s->name() == QStringLiteral("HtoD"))
                area = qobject_cast<QAreaSeries *>(s);
        }
        QVERIFY2(area, qPrintable(names.join(QLatin1Char(','))));
        // Each HtoD band is rank 0's HtoD bytes of its interval, in one binary unit (B, KiB, MiB).
        const auto &r = m_panel->result();
        const auto &ri = r.report->ranks[r.entries.front()];
        const auto upper = area->upperSeries()->points(), lower = area->lowerSeries()->points();
        QCOMPARE(upper.size(), qsizetype(2 * (r.last - r.first + 1)));
        double unit = 0;
        int withCopies = 0;
        for (std::int64_t k = r.first; k <= r.last; ++k) {
            const auto i = k - ri.firstIndex;
            const double htod = i >= 0 && i < std::int64_t(ri.intervals.size())
                ? double(ri.intervals[std::size_t(i)].copies[core::copySlot(core::CopyKind::HostToDevice)].bytes)
                : 0;
            const auto p = qsizetype(2 * (k - r.first));
            const double band = upper[p].y() - lower[p].y();
            if (htod == 0) {
                QCOMPARE(band, 0.0);
                continue;
            }
            if (unit == 0)
                unit = htod / band;
            QCOMPARE(band * unit, htod);
            ++withCopies;
        }
        QVERIFY(withCopies > 0);
        QCOMPARE(std::log2(unit), std::round(std::log2(unit)));
        // A click on the chart selects the interval under it.
        const std::int64_t k = r.first + 4; // the 5th interval: its bar's corners are points 8 and 9
        emit area->clicked(QPointF((upper[8].x() + upper[9].x()) / 2, upper[8].y()));
        QCOMPARE(m_panel->selectedInterval(), std::optional<std::int64_t>(k));
        // Duration stacks copy time.
        m_panel->setQuantity(TransferQuantity::Duration);
        QVERIFY(
            m_panel->transfersChart()->axes(Qt::Vertical).front()->titleText().contains(QStringLiteral("copy time")));
    }

    void theRankScopeNarrowsTheRows()
    {
        QVERIFY(changeAndWait([&] { m_window->panelContext()->setRanks({ 1, 3 }); }));
        QCOMPARE(
            m_panel->heatMap()->data().rowLabels, (QStringList { QStringLiteral("rank 1"), QStringLiteral("rank 3") }));
        QCOMPARE(m_panel->rankChooser()->count(), 2);
        QVERIFY(changeAndWait([&] { m_window->panelContext()->setRanks({}); }));
        QCOMPARE(m_panel->heatMap()->data().rowLabels.size(), 4);
    }

    void withMoreRanksThanLinesEveryKthRankIsNamed()
    {
        QCOMPARE(heatMapRowLabelStep(20.0, 15), 1); // every row has room for its label
        QCOMPARE(heatMapRowLabelStep(15.0, 15), 1);
        QCOMPARE(heatMapRowLabelStep(14.9, 15), 2);
        QCOMPARE(heatMapRowLabelStep(0.5, 15), 30); // 1,024 ranks in 512 px: one label per 30 ranks
    }

    void anIntervalLengthIsReadAndABadOneIsSaid()
    {
        QVERIFY(changeAndWait([&] { m_panel->setIntervalText(QStringLiteral("1ms")); }));
        QCOMPARE(m_panel->result().report->intervalNs, core::TimeNs(1'000'000));
        QVERIFY(!m_panel->result().automaticLength);
        QCOMPARE(m_panel->lengthText(), QStringLiteral("1.000 ms"));
        m_panel->setIntervalText(QStringLiteral("soon"));
        QVERIFY(QTest::qWaitFor([&] { return !m_panel->result().error.isEmpty(); }, 5000));
        QVERIFY(m_panel->lengthText().contains(QStringLiteral("soon")));
        QVERIFY(!m_panel->result().report);
        QVERIFY(changeAndWait([&] { m_panel->setIntervalText(QString()); }));
        QVERIFY(m_panel->result().automaticLength);
    }

    void theReportHasTheIntervalsSection()
    {
        ReportBuilder::Request request;
        request.capture = m_window->panelContext()->data();
        ReportBuilder builder(request);
        builder.build();
        QVERIFY(builder.images().contains(QStringLiteral("intervals-heatmap")));
        QVERIFY(builder.images().contains(QStringLiteral("intervals-transfers")));
        const QString html = builder.html();
        QVERIFY(html.contains(QStringLiteral("<h2>Intervals</h2>")));
        QVERIFY(html.contains(QStringLiteral("<h3>Transfers</h3>")));
        QVERIFY(html.contains(QStringLiteral("<h3>Anomalous intervals (kernel duration spread)</h3>")));
        // The table lists core's top anomalies of the default length.
        core::IntervalOptions options;
        options.intervalNs = core::defaultIntervalLength(*request.capture->trace);
        const auto expected = core::computeIntervals(*m_window->panelContext()->derived(), options);
        std::size_t rows = 0;
        for (const auto &g : expected.anomalies)
            rows += g.top.size();
        QVERIFY(rows > 0);
        const QString tableStart = QStringLiteral("<h3>Anomalous intervals (kernel duration spread)</h3>");
        const auto from = html.indexOf(tableStart);
        const QString table = html.mid(from, html.indexOf(QStringLiteral("<h2>"), from) - from);
        QCOMPARE(std::size_t(table.count(QStringLiteral("<tr>")) - 1), rows); // minus the header row
    }
};

QTEST_MAIN(TestIntervalsPanel)
#include "tst_intervals_panel.moc"
