// SPDX-License-Identifier: MIT
// The side panels' tables on the hand-built two-rank capture (ui_fixture.h): every model passes
// QAbstractItemModelTester through its resets, and the numbers are the ones core computes.
#include "synth_sample.h"
#include "trace_counts.h"
#include "ui_fixture.h"

#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/analysis/summaries.h"
#include "ui/panels/communicationpanel.h"
#include "ui/panels/gapblamepanel.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/paneltable.h"
#include "ui/panels/rankpacepanel.h"
#include "ui/panels/summarypanel.h"
#include "ui/panels/topkernelspanel.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QAbstractItemModelTester>
#include <QChart>
#include <QLabel>
#include <QListWidget>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTest>

#include <map>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

double raw(PanelTable *t, int row, int column)
{
    return t->tableModel()->data(t->tableModel()->index(row, column), PanelTableModel::SortRole).toDouble();
}
QString shown(PanelTable *t, int row, int column)
{
    return t->tableModel()->data(t->tableModel()->index(row, column)).toString();
}
QString header(PanelTable *t, int column)
{
    return t->tableModel()->headerData(column, Qt::Horizontal).toString();
}

} // namespace

class TestPanelModels : public QObject
{
    Q_OBJECT
private slots:
    void everyPanelModelPassesTheModelTesterThroughLoadsAndScopeChanges()
    {
        fixture::PanelWindow h;
        std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
        for (auto *t : h.tables()) {
            testers.push_back(std::make_unique<QAbstractItemModelTester>(
                t->tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest));
            testers.push_back(std::make_unique<QAbstractItemModelTester>(
                t->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest));
        }
        auto before = h.generations();
        h.load(fixture::buildTrace(2));
        QVERIFY(h.waitAll(before));
        QVERIFY(h.kernels.table()->tableModel()->rowCount() > 0);
        before = h.generations();
        h.context.setRanks({ 1 });
        QVERIFY(h.waitAll(before));
        before = h.generations();
        h.context.setWindow(gaplens::core::TimeRange { fixture::kT0, fixture::kT0 + fixture::us(1500) });
        QVERIFY(h.waitAll(before));
        // Sorting through the proxy is checked by the tester too.
        for (auto *t : h.tables())
            for (int c = 0; c < t->tableModel()->columnCount(); ++c)
                t->sortByColumn(c, Qt::AscendingOrder);
        before = h.generations();
        h.load(fixture::buildTrace(1));
        QVERIFY(h.waitAll(before));
    }

    void topKernelsHoldWhatCoreSummarizes()
    {
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(fixture::buildTrace(2)));
        const auto expected = gaplens::core::summarizeKernels(*h.data->trace);
        auto *t = h.kernels.table();
        QCOMPARE(t->tableModel()->rowCount(), int(expected.rows.size()));
        QCOMPARE(expected.rows.size(), std::size_t(4));
        for (int r = 0; r < t->tableModel()->rowCount(); ++r) {
            const auto &e = expected.rows[std::size_t(r)];
            QCOMPARE(shown(t, r, TopKernelsPanel::NameColumn), QString::fromStdString(h.data->trace->str(e.name)));
            QCOMPARE(raw(t, r, TopKernelsPanel::CallsColumn), double(e.stats.count));
            QCOMPARE(raw(t, r, TopKernelsPanel::TotalColumn), double(e.stats.totalNs));
            QCOMPARE(raw(t, r, TopKernelsPanel::PercentColumn), e.percent);
            QCOMPARE(raw(t, r, TopKernelsPanel::MedianColumn), e.stats.medianNs);
            QCOMPARE(raw(t, r, TopKernelsPanel::StddevColumn), e.stats.stddevNs);
        }
        // Durations read in units, sort on raw ns: sgemm (2 x 1 ms) totals 2 ms.
        QCOMPARE(shown(t, 0, TopKernelsPanel::TotalColumn), QStringLiteral("2.000 ms"));
        // The view is sorted by total time, largest first.
        QCOMPARE(
            t->proxy()->data(t->proxy()->index(0, TopKernelsPanel::TotalColumn), PanelTableModel::SortRole).toDouble(),
            double(expected.rows.front().stats.totalNs));
        // One bar set with the top N kernels.
        QCOMPARE(h.kernels.chart()->series().size(), 1);
    }

    void gapBlameShowsCopyTimeApartFromIdleTime()
    {
        // Rank 0's gap [1100, 1600) us gets a DtoH copy [1200, 1500) us: 300 of 500 us, a copy
        // gap; rank 1's gap stays in cudaStreamSynchronize.
        auto trace = fixture::buildTraceWithCopyInGap(2);
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(trace));
        auto *t = h.blame.table();
        QCOMPARE(t->tableModel()->rowCount(), 2);
        QCOMPARE(header(t, GapBlamePanel::CopyColumn), QStringLiteral("Copies running"));
        std::map<QString, std::pair<double, double>> rows; // key -> (total, copies)
        for (int r = 0; r < 2; ++r)
            rows[shown(t, r, GapBlamePanel::KeyColumn)]
                = { raw(t, r, GapBlamePanel::TotalColumn), raw(t, r, GapBlamePanel::CopyColumn) };
        QCOMPARE(rows[QStringLiteral("copy (GPU moving data)")],
            std::make_pair(double(fixture::us(500)), double(fixture::us(300))));
        QCOMPARE(rows[QStringLiteral("cudaStreamSynchronize")], std::make_pair(double(fixture::us(500)), 0.0));
        bool told = false;
        for (const auto *label : h.blame.findChildren<QLabel *>())
            told = told
                || label->text().startsWith(QStringLiteral("2 gaps, %1 idle, of which copies or memsets ran %2.")
                                                .arg(gaplens::ui::formatDuration(fixture::us(1000)),
                                                    gaplens::ui::formatDuration(fixture::us(300))));
        QVERIFY(told);
    }

    void gapBlameHoldsWhatCoreBlames()
    {
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(fixture::buildTrace(2)));
        const auto expected = gaplens::core::blameGaps(*h.data->trace);
        auto *t = h.blame.table();
        QCOMPARE(t->tableModel()->rowCount(), int(expected.overall.byCause.size()));
        // The fixture: one 500 us gap per GPU, in cudaStreamSynchronize.
        QCOMPARE(shown(t, 0, GapBlamePanel::KeyColumn), QStringLiteral("cudaStreamSynchronize"));
        QCOMPARE(raw(t, 0, GapBlamePanel::CountColumn), double(expected.overall.byCause[0].count));
        QCOMPARE(raw(t, 0, GapBlamePanel::CountColumn), 2.0);
        QCOMPARE(raw(t, 0, GapBlamePanel::TotalColumn), double(expected.overall.byCause[0].totalNs));
        QCOMPARE(raw(t, 0, GapBlamePanel::LongestColumn), double(fixture::us(500)));
        // Share of the window: 2 x 500 us idle over two GPU windows of 3000 us (first to last kernel).
        QCOMPARE(raw(t, 0, GapBlamePanel::ShareColumn), 100.0 * 1000.0 / 6000.0);

        h.blame.setGroupBy(GapBlamePanel::GroupBy::Phase);
        QCOMPARE(t->tableModel()->rowCount(), int(expected.overall.byPhase.size()));
        QCOMPARE(shown(t, 0, GapBlamePanel::KeyColumn), QString::fromStdString(expected.overall.byPhase[0].key));
        h.blame.setSplitBy(GapBlamePanel::SplitBy::Rank);
        QCOMPARE(t->tableModel()->rowCount(), 2);
        QCOMPARE(shown(t, 1, GapBlamePanel::ScopeColumn), QStringLiteral("rank 1"));
        QCOMPARE(raw(t, 1, GapBlamePanel::TotalColumn), double(fixture::us(500)));
        // The stacked chart: one bar per rank, one set per cause.
        const auto series = h.blame.chart()->series();
        QCOMPARE(series.size(), 1);
    }

    // The tree: causes, then the CUDA call, then the NVTX phase, as core's blame tree; a group
    // click steps through its gaps in time order, and per rank puts each rank on top.
    void gapBlameTreeGroupsByCauseCallAndPhaseAndStepsThroughAGroup()
    {
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(fixture::buildTrace(2)));
        h.blame.setGroupBy(GapBlamePanel::GroupBy::Tree);
        auto *model = h.blame.treeModel();
        const auto &tree = h.blame.result().overallTree;
        QCOMPARE(model->rowCount(), int(tree.roots.size()));
        QCOMPARE(model->rowCount(), 1);
        const QModelIndex cause = model->index(0, GapBlamePanel::TreeGroupColumn);
        QCOMPARE(cause.data().toString(), QStringLiteral("CUDA API call"));
        QCOMPARE(model->index(0, GapBlamePanel::TreeCountColumn).data(PanelTableModel::SortRole).toDouble(), 2.0);
        QCOMPARE(model->index(0, GapBlamePanel::TreeTotalColumn).data(PanelTableModel::SortRole).toDouble(),
            double(fixture::us(1000)));
        QCOMPARE(model->rowCount(cause), 1);
        const QModelIndex call = model->index(0, GapBlamePanel::TreeGroupColumn, cause);
        QCOMPARE(call.data().toString(), QStringLiteral("cudaStreamSynchronize"));
        // Phases under the call: as many as core found, adding up to the call's two gaps.
        const auto &callNode = tree.nodes[tree.nodes[tree.roots[0]].children[0]];
        QCOMPARE(model->rowCount(call), int(callNode.children.size()));
        double phaseGaps = 0;
        for (int r = 0; r < model->rowCount(call); ++r)
            phaseGaps
                += model->index(r, GapBlamePanel::TreeCountColumn, call).data(PanelTableModel::SortRole).toDouble();
        QCOMPARE(phaseGaps, 2.0);

        // Stepping: the call's gaps in time order, then around again.
        QCOMPARE(callNode.gaps.size(), std::size_t(2));
        const auto &derived = *h.blame.result().derived;
        const auto first = h.blame.stepTreeGroup(call, 0);
        QVERIFY(first);
        QCOMPARE(first->gap, derived.gap(callNode.gaps[0]).gap);
        const auto second = h.blame.stepTreeGroup(call, 1);
        QVERIFY(second);
        QCOMPARE(second->gap, derived.gap(callNode.gaps[1]).gap);
        QVERIFY(first->gap.start <= second->gap.start);
        QCOMPARE(h.blame.stepTreeGroup(call, 1)->gap, first->gap);

        h.blame.setSplitBy(GapBlamePanel::SplitBy::Rank);
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->index(1, GapBlamePanel::TreeGroupColumn).data().toString(), QStringLiteral("rank 1"));
        QCOMPARE(model->index(1, GapBlamePanel::TreeTotalColumn).data(PanelTableModel::SortRole).toDouble(),
            double(fixture::us(500)));
        const QModelIndex rank1 = model->index(1, GapBlamePanel::TreeGroupColumn);
        QCOMPARE(
            model->index(0, GapBlamePanel::TreeGroupColumn, rank1).data().toString(), QStringLiteral("CUDA API call"));
    }

    void tablesCopyAsTextAndExportRawCsv()
    {
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(fixture::buildTrace(2)));
        auto *t = h.kernels.table();
        const QString text = t->selectionText();
        QVERIFY(text.startsWith(QStringLiteral("Name\tCalls\tTotal")));
        QVERIFY(text.contains(QStringLiteral("sgemm_kernel\t2\t2.000 ms")));
        const QString csv = t->csvText();
        QVERIFY(csv.startsWith(QStringLiteral("Name,Calls,Total [ns]")));
        QVERIFY(csv.contains(QStringLiteral("sgemm_kernel,2,2000000,")));
        t->sortByColumn(TopKernelsPanel::TotalColumn, Qt::AscendingOrder);
        QCOMPARE(t->csvText().split(QLatin1Char('\n')).value(1).section(QLatin1Char(','), 0, 0),
            QStringLiteral("relu_kernel")); // 2 x 500 us
    }

    // The generator's rank 2 launches every AllReduce late: the panel shows core's overlap
    // figures per rank and GPU, its skew per rank, names rank 2, and a row click scopes to it.
    void communicationShowsWhatCoreComputesAndNamesTheRankTheOthersWaitedFor()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(4, 6, 2)));
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(gaplens::test::load(sample.synth.files)));
        const auto &trace = *h.data->trace;
        const auto expected = gaplens::core::computeOverlap(trace);
        auto *overlap = h.communication.overlapTable();
        QCOMPARE(overlap->tableModel()->rowCount(), int(expected.rows.size()));
        QCOMPARE(expected.rows.size(), std::size_t(4));
        for (int r = 0; r < overlap->tableModel()->rowCount(); ++r) {
            const auto &e = expected.rows[std::size_t(r)];
            QCOMPARE(raw(overlap, r, CommunicationPanel::RankColumn), double(trace.ranks[e.rank].rank));
            QCOMPARE(raw(overlap, r, CommunicationPanel::CommColumn), double(e.commNs));
            QCOMPARE(raw(overlap, r, CommunicationPanel::ComputeColumn), double(e.computeNs));
            QCOMPARE(raw(overlap, r, CommunicationPanel::OverlapColumn), double(e.overlapNs));
            QCOMPARE(raw(overlap, r, CommunicationPanel::ExposedColumn), double(e.exposedCommNs));
            QVERIFY(e.commNs > 0);
            QCOMPARE(shown(overlap, r, CommunicationPanel::CollectivesColumn),
                QStringLiteral("AllReduce ×%1").arg(e.collectives.front().calls));
        }
        auto *skew = h.communication.skewTable();
        QCOMPARE(skew->tableModel()->rowCount(), 4);
        for (int r = 0; r < 4; ++r) {
            const auto &e = expected.ranks[std::size_t(r)];
            QCOMPARE(raw(skew, r, CommunicationPanel::InstancesColumn), double(e.instances));
            QCOMPARE(raw(skew, r, CommunicationPanel::MedianSkewColumn), e.medianSkewNs);
            QCOMPARE(raw(skew, r, CommunicationPanel::LastColumn), double(e.timesLast));
        }
        const auto straggler = gaplens::core::findCollectiveStraggler(expected);
        QVERIFY(straggler);
        QCOMPARE(h.communication.verdictText(),
            QStringLiteral("Rank 2 ") + QString::fromStdString(gaplens::core::describeCollectiveStraggler(*straggler))
                + QStringLiteral("."));
        // Stacked bars: compute only, overlapped, exposed, one bar per GPU.
        QCOMPARE(h.communication.chart()->series().size(), 1);

        const int before = h.communication.generation();
        emit skew->rowClicked(2, CommunicationPanel::SkewRankColumn);
        QCOMPARE(h.context.ranks().ranks, (std::vector<std::uint32_t> { expected.ranks[2].rank }));
        QTRY_VERIFY(h.communication.generation() > before);
        QCOMPARE(overlap->tableModel()->rowCount(), 1);
        QCOMPARE(raw(overlap, 0, CommunicationPanel::RankColumn), 2.0);
    }

    void theSummaryListsEveryRankAndItsFindings()
    {
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(fixture::buildTrace(1)));
        QCOMPARE(h.summary.table()->tableModel()->rowCount(), 1);
        QCOMPARE(shown(h.summary.table(), 0, SummaryPanel::GpuColumn), QStringLiteral("GPU 0 · Test GPU"));
        QCOMPARE(raw(h.summary.table(), 0, SummaryPanel::GapsColumn), 1.0);
        // H->D: 1 MiB.
        QCOMPARE(raw(h.summary.table(), 0, SummaryPanel::FirstCopyColumn), double(1 << 20));
        bool single = false;
        for (const auto &f : h.summary.summary().findings)
            single = single || f.kind == gaplens::core::FindingKind::SingleRank;
        QVERIFY(single);
        QCOMPARE(h.summary.findingsList()->count(), int(h.summary.summary().findings.size()));
    }
};

QTEST_MAIN(TestPanelModels)
#include "tst_panel_models.moc"
