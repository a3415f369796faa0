// SPDX-License-Identifier: MIT
// The Run accounting panel and the timeline's state lanes on the `gaplens-cli synth --phases`
// capture (core::withRunPhases): every figure shown is core::computeRunAccounting's, the lanes
// are core's partition spans and tile each rank's window, the time selection and rank scope
// drive the window, a click on a state selects its spans on the timeline, patterns are
// checked as they are typed and saved in sessions.
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/util/units.h"
#include "gaplens/core/write/synth.h"
#include "session_fixture.h"
#include "testsupport.h"
#include "ui/mainwindow.h"
#include "ui/panels/paneltable.h"
#include "ui/panels/runaccountingpanel.h"
#include "ui/session/session.h"
#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/zoomcontrol.h"
#include "ui/workspace/workspace.h"
#include "ui_fixture.h"

#include <QAbstractItemModelTester>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

#include <cmath>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

// The panel beside a timeline, wired as MainWindow wires them.
struct Harness
{
    TimelineView view;
    PanelContext context;
    RunAccountingPanel panel { context, &view };
    std::shared_ptr<const TimelineData> data;

    bool load(std::shared_ptr<const TimelineData> loaded)
    {
        const int before = panel.generation();
        data = std::move(loaded);
        view.resize(1400, 700);
        view.setData(data);
        context.setGapThreshold(view.model()->gapThreshold());
        context.setData(data);
        return waitFrom(before);
    }
    bool waitFrom(int before)
    {
        return QTest::qWaitFor([&] { return panel.generation() > before && !panel.isComputing(); }, 30000);
    }
    template <class Change> bool change(Change &&c)
    {
        const int before = panel.generation();
        c();
        return waitFrom(before);
    }
};

core::RunAccountingOptions trainStep()
{
    core::RunAccountingOptions o;
    o.stepRange = "train_step";
    return o;
}

std::size_t ix(core::RunState s)
{
    return std::size_t(s);
}

QBarSet *barSet(QChart *chart, core::RunState state)
{
    for (auto *series : chart->series())
        if (auto *bars = qobject_cast<QHorizontalStackedBarSeries *>(series))
            return bars->barSets().value(qsizetype(state));
    return nullptr;
}

} // namespace

class TestRunAccountingPanel : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<const TimelineData> m_data;
    const core::TraceSet &trace() const { return *m_data->trace; }

    void saveScreenshots(Harness &h, const QString &name)
    {
        if (!qEnvironmentVariableIsSet("GAPLENS_SCREENSHOT_DIR"))
            return;
        const QString dir = qEnvironmentVariable("GAPLENS_SCREENSHOT_DIR");
        for (auto kind : { Theme::Kind::Light, Theme::Kind::Dark }) {
            Theme::apply(kind);
            QCoreApplication::processEvents();
            h.panel.resize(1500, 800);
            h.panel.grab().save(dir + QStringLiteral("/%1_panel_%2.png").arg(name, Theme::name(kind)));
            h.view.viewport()->update();
            h.view.grab().save(dir + QStringLiteral("/%1_timeline_%2.png").arg(name, Theme::name(kind)));
        }
        Theme::apply(Theme::Kind::Light);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        core::SynthOptions o;
        o.ranks = 2;
        o.steps = 20;
        core::writeSyntheticCapture(m_dir.path().toStdString(), core::withRunPhases(o));
        m_data = LoadController::loadNow({ m_dir.path() });
        QVERIFY(m_data && m_data->trace);
    }

    void panelFiguresAreCores()
    {
        Harness h;
        QVERIFY(h.load(m_data));
        const auto expected = core::computeRunAccounting(trace(), trainStep());
        QCOMPARE(expected.error, std::string());
        const auto *shown = h.panel.accounting();
        QVERIFY(shown);
        QCOMPARE(shown->stepRange, std::string("train_step")); // proposed, as Rank Pace proposes it
        QCOMPARE(h.panel.rangeChooser()->currentData().toString(), QStringLiteral("train_step"));
        // The candidates were counted once for the capture, for Rank Pace and this panel.
        QCOMPARE(h.panel.result().choice, h.context.stepRangeChoices()->get());
        QCOMPARE(shown->windowRule, core::RunWindowRule::StateSpan);
        QCOMPARE(shown->ranks.size(), expected.ranks.size());

        // The partition table: every state's time, steps, work and both rates per rank.
        auto *model = h.panel.partitionTable()->tableModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), int(expected.ranks.size()) + 1); // + overall
        for (int row = 0; row < int(expected.ranks.size()); ++row) {
            const auto &e = expected.ranks[std::size_t(row)];
            QCOMPARE(model->rowKey(row), qint64(e.rank));
            QCOMPARE(model->cell(row, 1).raw.toDouble(), double(e.windowNs()));
            core::TimeNs sum = 0;
            for (std::size_t s = 0; s < core::kRunStateCount; ++s) {
                QCOMPARE(model->cell(row, RunAccountingPanel::kFirstStateColumn + int(s)).raw.toDouble(),
                    double(e.partitionNs[s]));
                sum += e.partitionNs[s];
            }
            QCOMPARE(sum, e.windowNs());
            const int after = RunAccountingPanel::kFirstStateColumn + int(core::kRunStateCount);
            QCOMPARE(model->cell(row, after).raw.toULongLong(), e.steps);
            QCOMPARE(model->cell(row, after + 1).raw.toDouble(), e.work);
            QCOMPARE(model->cell(row, after + 2).raw.toDouble(), *e.activeRate);
            QCOMPARE(model->cell(row, after + 3).raw.toDouble(), *e.sustainedRate);
            QCOMPARE(model->cell(row, after + 4).raw.toDouble(), *e.sustainedOverActive);
        }
        const int overall = int(expected.ranks.size());
        QCOMPARE(model->rowKey(overall), qint64(-1));
        QCOMPARE(model->cell(overall, 1).raw.toDouble(), double(expected.overall.windowNs()));

        // The synthetic phases are all there: checkpoints, data waits, async staging.
        const auto &o = expected.overall;
        QVERIFY(o.partitionNs[ix(core::RunState::Checkpoint)] > 0);
        QVERIFY(o.partitionNs[ix(core::RunState::DataWait)] > 0);
        QVERIFY(o.checkpoint && o.checkpoint->stagingCount > 0);

        // Both formulas with their numbers, the window and where it came from.
        const QString headline = h.panel.headlineText();
        const QLocale en(QLocale::English, QLocale::UnitedStates);
        const QString work = en.toString(o.work, 'f', 0) + QStringLiteral(" tokens");
        QVERIFY2(headline.contains(QStringLiteral("Active rate = work / active time = %1 / %2 = %3 tokens/s")
                                       .arg(work, QString::fromStdString(core::formatDuration(double(o.activeNs()))),
                                           en.toString(*o.activeRate, 'f', 2))),
            qPrintable(headline));
        QVERIFY2(headline.contains(QStringLiteral("Sustained rate = work / window time = %1 / %2 = %3 tokens/s")
                                       .arg(work, QString::fromStdString(core::formatDuration(double(o.windowNs()))),
                                           en.toString(*o.sustainedRate, 'f', 2))),
            qPrintable(headline));
        QVERIFY(headline.contains(QStringLiteral("Sustained / active = %1 / %2 = %3")
                                      .arg(en.toString(*o.sustainedRate, 'f', 2), en.toString(*o.activeRate, 'f', 2),
                                          en.toString(*o.sustainedOverActive, 'f', 3))));
        QVERIFY(headline.contains(QStringLiteral("state span")));
        QVERIFY(headline.contains(QStringLiteral("Checkpoints: %1 blocking, %2 staging")
                                      .arg(o.checkpoint->count)
                                      .arg(o.checkpoint->stagingCount)));

        // The stacked bar: one set per state in its colour, one bar per rank (first on top).
        for (std::size_t s = 0; s < core::kRunStateCount; ++s) {
            auto *set = barSet(h.panel.partitionChart(), core::RunState(s));
            QVERIFY(set);
            QCOMPARE(set->color(), runStateColor(core::RunState(s)));
            QCOMPARE(set->count(), int(expected.ranks.size()));
            const double ratio = set->at(0) / double(expected.ranks.back().partitionNs[s]);
            if (expected.ranks.back().partitionNs[s] > 0)
                QVERIFY(std::abs(ratio - set->at(1) / double(expected.ranks.front().partitionNs[s])) < 1e-12);
        }

        // Step time inside vs outside each state: the table and the box plot.
        auto *steps = h.panel.stepTable()->tableModel();
        QAbstractItemModelTester stepTester(steps, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(steps->rowCount(), int(o.stepTimeByState.size()));
        int boxes = 0;
        for (int row = 0; row < steps->rowCount(); ++row) {
            const auto &e = o.stepTimeByState[std::size_t(row)];
            QCOMPARE(steps->rowKey(row), qint64(e.state));
            QCOMPARE(steps->cell(row, RunAccountingPanel::InsideCountColumn).raw.toULongLong(), e.inside.count);
            QCOMPARE(steps->cell(row, RunAccountingPanel::OutsideCountColumn).raw.toULongLong(), e.outside.count);
            if (e.inside.count) {
                QCOMPARE(steps->cell(row, RunAccountingPanel::InsideMedianColumn).raw.toDouble(), e.inside.medianNs);
                QCOMPARE(steps->cell(row, RunAccountingPanel::InsideP95Column).raw.toDouble(), double(e.inside.p95Ns));
            }
            if (e.outside.count)
                QCOMPARE(steps->cell(row, RunAccountingPanel::OutsideMedianColumn).raw.toDouble(), e.outside.medianNs);
            if (e.inside.count && e.outside.count) {
                ++boxes; // a box of each group, for the states some steps overlap and others do not
                QCOMPARE(steps->cell(row, RunAccountingPanel::SignificantColumn)
                             .display.toString()
                             .startsWith(e.significant ? QStringLiteral("yes") : QStringLiteral("no")),
                    true);
            }
        }
        // The checkpoint's steps beside the staging are slower, beyond noise (withRunPhases: 1.3x).
        QVERIFY(o.stepTimeByState[0].significant);
        const auto boxSeries = h.panel.stepChart()->series();
        QCOMPARE(boxSeries.size(), 2);
        auto *inside = qobject_cast<QBoxPlotSeries *>(boxSeries[0]);
        QVERIFY(inside);
        QCOMPARE(inside->count(), boxes);
        const auto &ckpt = o.stepTimeByState[0].inside;
        auto *box = inside->boxSets().front();
        const double unit = box->at(QBoxSet::Median) / ckpt.medianNs;
        QCOMPARE(box->at(QBoxSet::LowerExtreme), double(ckpt.minNs) * unit);
        QCOMPARE(box->at(QBoxSet::LowerQuartile), double(ckpt.q1Ns) * unit);
        QCOMPARE(box->at(QBoxSet::UpperQuartile), double(ckpt.q3Ns) * unit);
        QCOMPARE(box->at(QBoxSet::UpperExtreme), double(ckpt.maxNs) * unit);
        saveScreenshots(h, QStringLiteral("synth_phases"));
    }

    void stateLanesAreThePartition()
    {
        Harness h;
        QVERIFY(h.load(m_data));
        const auto expected = core::computeRunAccounting(trace(), trainStep());
        const auto &lanes = h.view.model()->stateLanes();
        QVERIFY(lanes);
        int laneRows = 0;
        for (const auto &row : h.view.model()->rows())
            if (row.kind == RowKind::States) {
                ++laneRows;
                QCOMPARE(row.label, QStringLiteral("run states"));
            }
        QCOMPARE(laneRows, int(trace().ranks.size()));
        for (const auto &e : expected.ranks) {
            const auto *spans = lanes->spans(e.rank);
            QVERIFY(spans);
            QCOMPARE(spans->start, e.spans.start);
            QCOMPARE(spans->end, e.spans.end);
            QCOMPARE(spans->state, e.spans.state);
            // They tile the window, and each state's spans sum to its part.
            std::array<core::TimeNs, core::kRunStateCount> sums {};
            QCOMPARE(spans->start.front(), e.window.start);
            QCOMPARE(spans->end.back(), e.window.end);
            for (std::size_t i = 0; i < spans->size(); ++i) {
                if (i > 0) {
                    QCOMPARE(spans->start[i], spans->end[i - 1]);
                    QVERIFY(spans->state[i] != spans->state[i - 1]);
                }
                sums[ix(spans->state[i])] += spans->end[i] - spans->start[i];
            }
            QCOMPARE(sums, e.partitionNs);
        }

        // A hit on a span is that span, and its tooltip says which state and how long.
        const core::RankIndex rank(0);
        const auto *spans = lanes->spans(0);
        std::uint32_t ckpt = 0;
        while (spans->state[ckpt] != core::RunState::Checkpoint)
            ++ckpt;
        h.view.zoom()->setWindow(spans->start[ckpt], spans->end[ckpt]);
        const int row = h.view.model()->findRow(RowKind::States, { rank, {}, {}, {}, 0 });
        QVERIFY(row >= 0);
        const auto &laneRow = h.view.model()->rows()[std::size_t(row)];
        const int x = int(h.view.zoom()->timeToX((spans->start[ckpt] + spans->end[ckpt]) / 2));
        const HitResult hit
            = h.view.hitTest({ x, laneRow.y + laneRow.height / 2 - h.view.verticalScrollBar()->value() });
        QCOMPARE(hit.kind, HitKind::State);
        QCOMPARE(hit.index, ckpt);
        QCOMPARE(hit.start, spans->start[ckpt]);
        QCOMPARE(hit.end, spans->end[ckpt]);
        const QString tip = tooltipText(*h.view.model(), hit);
        QVERIFY2(tip.startsWith(QStringLiteral("Run state: checkpoint\nDuration: ")
                     + formatDuration(spans->end[ckpt] - spans->start[ckpt])),
            qPrintable(tip));
        // Zoomed out, the lane's columns take their dominant state's colour.
        h.view.zoom()->fitAll();
        const QImage image = h.view.viewport()->grab().toImage();
        const QColor active = image.pixelColor(
            int(h.view.zoom()->timeToX((spans->start[0] + spans->end[0]) / 2)), laneRow.y + laneRow.height / 2);
        QCOMPARE(spans->state[0], core::RunState::Active);
        QVERIFY2(fixture::near(active, runStateColor(core::RunState::Active), 2), qPrintable(active.name()));
    }

    void clickingAStateSelectsItsSpans()
    {
        Harness h;
        QVERIFY(h.load(m_data));
        const auto *spans = h.view.model()->stateLanes()->spans(1);
        std::vector<std::uint32_t> checkpoints;
        for (std::uint32_t i = 0; i < spans->size(); ++i)
            if (spans->state[i] == core::RunState::Checkpoint)
                checkpoints.push_back(i);
        QVERIFY(checkpoints.size() >= 2);
        auto selected = [&] { return h.view.selection(); };
        // The bar of rank 1's checkpoint time (rank 1 is the second bar from the top: index 0).
        emit barSet(h.panel.partitionChart(), core::RunState::Checkpoint)->clicked(0);
        QCOMPARE(selected().kind, HitKind::State);
        QCOMPARE(selected().rank, core::RankIndex(1));
        QCOMPARE(selected().index, checkpoints[0]);
        QCOMPARE(selected().start, spans->start[checkpoints[0]]);
        QCOMPARE(selected().end, spans->end[checkpoints[0]]);
        QVERIFY(h.view.zoom()->windowStart() <= spans->start[checkpoints[0]]);
        QVERIFY(h.view.zoom()->windowEnd() >= spans->end[checkpoints[0]]);
        QVERIFY(h.panel.stepText().startsWith(
            QStringLiteral("checkpoint on rank 1: span 1 of %1 · ").arg(checkpoints.size())));
        // Hovering a bar names the state, the rank and its share of the window.
        emit barSet(h.panel.partitionChart(), core::RunState::Checkpoint)->hovered(true, 0);
        const auto &rank1 = h.panel.accounting()->ranks[1];
        QCOMPARE(QToolTip::text(),
            QStringLiteral("checkpoint on rank 1: %1 (%2% of the window); click to step through its spans")
                .arg(QString::fromStdString(
                         core::formatDuration(double(rank1.partitionNs[ix(core::RunState::Checkpoint)]))),
                    QLocale(QLocale::English)
                        .toString(100.0 * double(rank1.partitionNs[ix(core::RunState::Checkpoint)])
                                / double(rank1.windowNs()),
                            'f', 1)));
        // Again: the next one; back: the first.
        emit barSet(h.panel.partitionChart(), core::RunState::Checkpoint)->clicked(0);
        QCOMPARE(selected().index, checkpoints[1]);
        QVERIFY(h.panel.stepState(1, core::RunState::Checkpoint, -1));
        QCOMPARE(selected().index, checkpoints[0]);
        // The table's state cell: rank 0's data wait.
        auto *model = h.panel.partitionTable()->tableModel();
        emit h.panel.partitionTable()->rowClicked(
            0, RunAccountingPanel::kFirstStateColumn + int(ix(core::RunState::DataWait)));
        QCOMPARE(selected().rank, core::RankIndex(0));
        QCOMPARE(model->rowKey(0), qint64(0));
        const auto *rank0 = h.view.model()->stateLanes()->spans(0);
        QCOMPARE(rank0->state[selected().index], core::RunState::DataWait);
        // A state the rank never is: nothing selected, and the panel says so.
        QVERIFY(!h.panel.stepState(0, core::RunState::Barrier));
        QCOMPARE(h.panel.stepText(), QStringLiteral("barrier on rank 0: no span in this window."));
    }

    void timeSelectionAndRankScopeDriveTheWindow()
    {
        Harness h;
        QVERIFY(h.load(m_data));
        const auto whole = core::computeRunAccounting(trace(), trainStep());
        const auto &w = whole.ranks[0].window;
        const core::TimeRange selection { w.start + w.duration() / 4, w.start + w.duration() * 3 / 4 };
        QVERIFY(h.change([&] { h.context.setWindow(selection); }));
        auto options = trainStep();
        options.window.rule = core::RunWindowRule::Absolute;
        options.window.startNs = selection.start;
        options.window.endNs = selection.end;
        const auto expected = core::computeRunAccounting(trace(), options);
        const auto *shown = h.panel.accounting();
        QCOMPARE(shown->windowRule, core::RunWindowRule::Absolute);
        for (std::size_t r = 0; r < expected.ranks.size(); ++r) {
            QCOMPARE(shown->ranks[r].window, selection);
            QCOMPARE(shown->ranks[r].partitionNs, expected.ranks[r].partitionNs);
            QCOMPARE(shown->ranks[r].work, expected.ranks[r].work);
        }
        QVERIFY(h.panel.headlineText().startsWith(
            QStringLiteral("Window: %1, the time selection (%2 to %3 from the "
                           "capture start).")
                .arg(QString::fromStdString(core::formatDuration(double(selection.duration()))),
                    QString::fromStdString(core::formatDuration(double(selection.start - trace().span.start))),
                    QString::fromStdString(core::formatDuration(double(selection.end - trace().span.start))))));
        // The lanes stay over each rank's state span: computed once, not per selection.
        const auto lanes = h.view.model()->stateLanes();
        QCOMPARE(lanes->accounting().ranks[0].window, w);

        QVERIFY(h.change([&] { h.context.setRanks({ 1 }); }));
        QCOMPARE(h.panel.accounting()->ranks.size(), std::size_t(1));
        QCOMPARE(h.panel.accounting()->ranks[0].rank, 1u);
        QCOMPARE(h.panel.accounting()->ranks[0].partitionNs, expected.ranks[1].partitionNs);
        QCOMPARE(h.panel.partitionTable()->tableModel()->rowCount(), 1); // no overall of one rank
        QCOMPARE(h.view.model()->stateLanes(), lanes);

        // Back to the whole capture: the lanes' accounting is the panel's again.
        QVERIFY(h.change([&] {
            h.context.setRanks({});
            h.context.setWindow(std::nullopt);
        }));
        QCOMPARE(h.panel.accounting(), &lanes->accounting());
    }

    void patternsAreCheckedAndApplied()
    {
        Harness h;
        QVERIFY(h.load(m_data));
        auto *edit = h.panel.patternEdit(core::RunState::Checkpoint);
        QVERIFY(edit);
        QCOMPARE(edit->placeholderText(), QStringLiteral("checkpoint|ckpt|save"));
        const auto before = *h.panel.accounting();
        // A bad regex says so and is not used.
        edit->setText(QStringLiteral("save("));
        emit edit->editingFinished();
        QCoreApplication::processEvents();
        auto *error = h.panel.findChild<QLabel *>(QString(), Qt::FindDirectChildrenOnly);
        bool said = false;
        for (auto *label : h.panel.findChildren<QLabel *>())
            said = said
                || (label->isVisibleTo(&h.panel)
                    && label->text().startsWith(QStringLiteral("The checkpoint pattern is not a regular expression")));
        QVERIFY(error);
        QVERIFY(said);
        QCOMPARE(h.panel.patterns()[0], QString());
        QVERIFY(!h.panel.isComputing());
        // A valid one is: no range is a checkpoint now, and the figures are core's with it.
        QVERIFY(h.change([&] {
            edit->setText(QStringLiteral("^never$"));
            emit edit->editingFinished();
        }));
        QCOMPARE(h.panel.patterns()[0], QStringLiteral("^never$"));
        auto options = trainStep();
        options.patterns[0] = "^never$";
        const auto expected = core::computeRunAccounting(trace(), options);
        QCOMPARE(h.panel.accounting()->ranks[0].partitionNs, expected.ranks[0].partitionNs);
        QCOMPARE(h.panel.accounting()->ranks[0].partitionNs[ix(core::RunState::Checkpoint)], core::TimeNs(0));
        QVERIFY(before.ranks[0].partitionNs[ix(core::RunState::Checkpoint)] > 0);
        // The lanes follow the patterns.
        QCOMPARE(h.view.model()->stateLanes()->spans(0)->state, expected.ranks[0].spans.state);
    }

    // Real exports have no step-like range: the panel says so until one is chosen, as Rank
    // Pace does; then every figure is core's for that range (whose partition core's tests check
    // against SQL on the same files).
    void realExportWithAChosenStepRange_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("range");
        QTest::newRow("h100 aten::mm") << "nsysai_h100_2gpu_1s.sqlite"
                                       << "aten::mm";
        QTest::newRow("mfu before FlashAttnFunc") << "nsysai_mfu_2gpu_before.sqlite"
                                                  << "FlashAttnFunc";
    }
    void realExportWithAChosenStepRange()
    {
        QFETCH(QString, file);
        QFETCH(QString, range);
        const auto path = gaplens::test::realFile(file.toStdString().c_str());
        QVERIFY2(!path.empty(), "the real exports of ../shared/nsys-real are needed");
        Harness h;
        QVERIFY(h.load(LoadController::loadNow({ QString::fromStdString(path) })));
        QVERIFY2(
            h.panel.headlineText().startsWith(QStringLiteral("No step range: ")), qPrintable(h.panel.headlineText()));
        QVERIFY(!h.view.model()->stateLanes());
        QVERIFY(h.panel.rangeChooser()->findData(range) >= 0);
        QVERIFY(h.change([&] { h.panel.setRangeName(range); }));
        QCOMPARE(h.panel.rangeChooser()->currentData().toString(), range);
        auto options = trainStep();
        options.stepRange = range.toStdString();
        const auto expected = core::computeRunAccounting(*h.data->trace, options);
        QCOMPARE(expected.error, std::string());
        const auto *shown = h.panel.accounting();
        QCOMPARE(shown->ranks.size(), expected.ranks.size());
        auto *model = h.panel.partitionTable()->tableModel();
        for (std::size_t r = 0; r < expected.ranks.size(); ++r) {
            QCOMPARE(shown->ranks[r].partitionNs, expected.ranks[r].partitionNs);
            for (std::size_t s = 0; s < core::kRunStateCount; ++s)
                QCOMPARE(model->cell(int(r), RunAccountingPanel::kFirstStateColumn + int(s)).raw.toDouble(),
                    double(expected.ranks[r].partitionNs[s]));
            QCOMPARE(h.view.model()->stateLanes()->spans(expected.ranks[r].rank)->state, expected.ranks[r].spans.state);
        }
        QVERIFY(h.panel.headlineText().contains(QStringLiteral("Sustained rate = work / window time = ")));
        saveScreenshots(h, QFileInfo(file).baseName());
    }

    void sessionsKeepThePatternsAndRange()
    {
        Session s;
        s.before = QStringList { m_dir.path() + QStringLiteral("/train_0.sqlite") };
        s.runStateRange = QStringLiteral("train_step");
        s.runStatePatterns.insert(QStringLiteral("checkpoint"), QStringLiteral("ckpt_stage"));
        s.runStatePatterns.insert(QStringLiteral("data_wait"), QStringLiteral("data_wait|prefetch"));
        const QString path = m_dir.path() + QStringLiteral("/review.gaplens.json");
        QVERIFY(SessionFile::write(s, path));
        const auto read = SessionFile::read(path);
        QVERIFY(read.ok);
        QCOMPARE(read.session.runStateRange, s.runStateRange);
        QCOMPARE(read.session.runStatePatterns, s.runStatePatterns);

        // A session written before run accounting: defaults.
        QJsonObject old = SessionFile::toJson(s, path);
        old.remove(QStringLiteral("run_states"));
        const auto oldRead = SessionFile::fromJson(old, path);
        QVERIFY(oldRead.ok);
        QCOMPARE(oldRead.session.runStateRange, QString());
        QVERIFY(oldRead.session.runStatePatterns.isEmpty());

        // The panel takes them back as they were given.
        Harness h;
        QVERIFY(h.load(m_data));
        RunAccountingPanel::Patterns patterns { QStringLiteral("ckpt_stage"), {}, QStringLiteral("data_wait|prefetch"),
            {} };
        QVERIFY(h.change([&] { h.panel.setPatterns(patterns); }));
        QCOMPARE(h.panel.patterns(), patterns);
        QCOMPARE(h.panel.patternEdit(core::RunState::DataWait)->text(), QStringLiteral("data_wait|prefetch"));
        QCOMPARE(h.panel.accounting()->patterns[0], std::string("ckpt_stage"));
    }

    // The main window saves the panel's range and patterns and a reopened session restores
    // them: the panel and the lanes are computed with them again.
    void mainWindowSessionRestoresRangeAndPatterns()
    {
        const QString path = m_dir.path() + QStringLiteral("/main.gaplens.json");
        const RunAccountingPanel::Patterns patterns { QStringLiteral("^save_checkpoint$"), {}, {},
            QStringLiteral("wait_for_peers") };
        {
            MainWindow w;
            QSignalSpy loaded(w.loadController(), &LoadController::loadFinished);
            w.openPaths({ m_dir.path() });
            QVERIFY(loaded.wait(30000));
            auto *panel = w.runAccountingPanel();
            QVERIFY(QTest::qWaitFor([&] { return panel->accounting() && !panel->isComputing(); }, 30000));
            const int before = panel->generation();
            panel->setPatterns(patterns);
            panel->setRangeName(QStringLiteral("train_step"));
            QVERIFY(QTest::qWaitFor([&] { return panel->generation() > before && !panel->isComputing(); }, 30000));
            CHECK(fixture::saveSession(w, path));
        }
        MainWindow w;
        CHECK(fixture::openSessionAndWait(w, path));
        auto *panel = w.runAccountingPanel();
        QCOMPARE(panel->patterns(), patterns);
        QCOMPARE(panel->rangeName(), QStringLiteral("train_step"));
        QCOMPARE(panel->patternEdit(core::RunState::Barrier)->text(), QStringLiteral("wait_for_peers"));
        QVERIFY(QTest::qWaitFor(
            [&] {
                return !panel->isComputing() && panel->accounting()
                    && panel->accounting()->patterns[0] == "^save_checkpoint$";
            },
            30000));
        auto options = trainStep();
        options.patterns = { "^save_checkpoint$", "", "", "wait_for_peers" };
        const auto expected = core::computeRunAccounting(trace(), options);
        // Only the blocking checkpoints now: the staging ranges are no checkpoint.
        QCOMPARE(expected.overall.checkpoint->stagingCount, std::uint64_t(0));
        QCOMPARE(panel->accounting()->ranks[0].partitionNs, expected.ranks[0].partitionNs);
        QCOMPARE(w.timelineView()->model()->stateLanes()->spans(0)->state, expected.ranks[0].spans.state);
        if (qEnvironmentVariableIsSet("GAPLENS_SCREENSHOT_DIR")) {
            auto *dock = w.findChild<QDockWidget *>(QStringLiteral("runaccountingDock"));
            QVERIFY(dock);
            w.resize(1600, 1000);
            w.show();
            dock->raise();
            panel->stepState(0, core::RunState::Checkpoint);
            QTest::qWait(200);
            w.grab().save(qEnvironmentVariable("GAPLENS_SCREENSHOT_DIR") + QStringLiteral("/mainwindow.png"));
        }
    }
};

QTEST_MAIN(TestRunAccountingPanel)
#include "tst_run_accounting_panel.moc"
