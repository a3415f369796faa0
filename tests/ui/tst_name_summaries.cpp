// SPDX-License-Identifier: MIT
// The NVTX and CUDA API summary panels: their tree model under QAbstractItemModelTester, their
// numbers against core (what gaplens-cli nvtx / api print) and SQL on a real export, groups
// expanding to their per-call names, rank scope, and a row click stepping through the
// instances on the timeline.
#include "sqltestdb.h"
#include "testsupport.h"

#include "gaplens/core/analysis/summaries.h"
#include "ui/export/viewexporter.h"
#include "ui/mainwindow.h"
#include "ui/panels/namesummarypanel.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/paneltablemodel.h"
#include "ui/panels/summarytreemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QAbstractItemModelTester>
#include <QImage>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace gaplens;
using namespace gaplens::ui;
using test::SqlTestDb;

namespace {

void waitFor(NameSummaryPanel *panel, int generation)
{
    QVERIFY(QTest::qWaitFor([&] { return panel->generation() > generation && !panel->isComputing(); }, 60000));
}

// The top-level row of `model` named `name`, or an invalid index.
QModelIndex groupNamed(const SummaryTreeModel &model, const QString &name)
{
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.index(r, 0).data().toString() == name)
            return model.index(r, 0);
    return {};
}

double raw(const QModelIndex &nameIndex, int column)
{
    return nameIndex.siblingAtColumn(column).data(PanelTableModel::SortRole).toDouble();
}

} // namespace

class TestNameSummaries : public QObject
{
    Q_OBJECT

    QString m_h100;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_h100 = QString::fromStdString(test::realFile("nsysai_h100_2gpu_1s.sqlite"));
        QVERIFY(!m_h100.isEmpty());
    }

    void treeModelPassesTheTesterWithGroupsAndCalls()
    {
        SummaryTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        SummaryTreeModel::Row group { QStringLiteral("aten::add"), QStringLiteral("PushPop"), {}, 75.0, 1, {} };
        group.stats.count = 3;
        group.stats.totalNs = 300;
        group.children.push_back({ QStringLiteral("aten::add, op_id = 1"), QStringLiteral("PushPop"), {}, 50, 2, {} });
        group.children.push_back({ QStringLiteral("aten::add, op_id = 2"), QStringLiteral("PushPop"), {}, 25, 3, {} });
        SummaryTreeModel::Row leaf { QStringLiteral("train"), QStringLiteral("PushPop"), {}, 25.0, 4, {} };
        model.setRows({ group, leaf }, QStringLiteral("Instances"), QStringLiteral("share"));
        QCOMPARE(model.rowCount(), 2);
        const QModelIndex g = model.index(0, 0);
        QCOMPARE(model.rowCount(g), 2);
        QCOMPARE(model.rowCount(model.index(1, 0)), 0);
        QCOMPARE(model.index(1, 0, g).data().toString(), QStringLiteral("aten::add, op_id = 2"));
        QCOMPARE(model.index(1, 0, g).parent(), g);
        QVERIFY(SummaryTreeModel::isGroup(g));
        QVERIFY(!SummaryTreeModel::isGroup(model.index(0, 0, g)));
        QCOMPARE(model.index(0, SummaryTreeModel::CountColumn).data(PanelTableModel::SortRole).toULongLong(), 3ull);
        QCOMPARE(model.index(0, SummaryTreeModel::PercentColumn).data(PanelTableModel::SortRole).toDouble(), 75.0);
        QCOMPARE(model.index(0, 0, g).data(PanelTableModel::RowKeyRole).toLongLong(), 2);
        QCOMPARE(
            model.headerData(SummaryTreeModel::CountColumn, Qt::Horizontal).toString(), QStringLiteral("Instances"));
        // A proxy sorts groups and their calls on the raw numbers.
        QSortFilterProxyModel proxy;
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSortRole(PanelTableModel::SortRole);
        proxy.sort(SummaryTreeModel::PercentColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("train"));
        QCOMPARE(proxy.index(0, 0, proxy.index(1, 0)).data().toString(), QStringLiteral("aten::add, op_id = 2"));
        model.setRows({}, QStringLiteral("Calls"), QString());
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.headerData(SummaryTreeModel::CountColumn, Qt::Horizontal).toString(), QStringLiteral("Calls"));
    }

    // On the H100 export (PyTorch per-call names on two ranks): every group row is core's and
    // SQL's, each group expands to its calls, a rank scope narrows both panels.
    void panelsShowTheCliSummariesOnARealExport()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        auto *nvtx = w.nvtxSummaryPanel();
        auto *api = w.apiSummaryPanel();
        QAbstractItemModelTester nvtxTester(nvtx->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester apiTester(api->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        w.openPaths({ m_h100 });
        CHECK(waitFor(nvtx, 0));
        CHECK(waitFor(api, 0));
        const auto trace = w.panelContext()->trace();
        QVERIFY(trace);

        // What the CLI prints: the same core functions, whole capture, all ranks.
        const auto cliNvtx = core::summarizeNvtx(*trace);
        const auto cliApi = core::summarizeApi(*trace);
        QCOMPARE(nvtx->model()->rowCount(), int(cliNvtx.rows.size()));
        QCOMPARE(api->model()->rowCount(), int(cliApi.rows.size()));
        for (const auto &row : cliNvtx.rows) {
            const auto g = groupNamed(*nvtx->model(), QString::fromStdString(trace->str(row.name)));
            QVERIFY(g.isValid());
            QCOMPARE(raw(g, SummaryTreeModel::CountColumn), double(row.stats.count));
            QCOMPARE(raw(g, SummaryTreeModel::TotalColumn), double(row.stats.totalNs));
            QCOMPARE(raw(g, SummaryTreeModel::PercentColumn), row.percent);
            QCOMPARE(raw(g, SummaryTreeModel::AvgColumn), row.stats.avgNs);
            QCOMPARE(raw(g, SummaryTreeModel::MedianColumn), row.stats.medianNs);
            QCOMPARE(raw(g, SummaryTreeModel::MinColumn), double(row.stats.minNs));
            QCOMPARE(raw(g, SummaryTreeModel::MaxColumn), double(row.stats.maxNs));
            QCOMPARE(raw(g, SummaryTreeModel::StddevColumn), row.stats.stddevNs);
            QCOMPARE(g.siblingAtColumn(SummaryTreeModel::StyleColumn).data().toString(), QStringLiteral("PushPop"));
        }
        for (const auto &row : cliApi.rows) {
            const auto g = groupNamed(*api->model(), QString::fromStdString(trace->str(row.name)));
            QVERIFY(g.isValid());
            QCOMPARE(raw(g, SummaryTreeModel::CountColumn), double(row.stats.count));
            QCOMPARE(raw(g, SummaryTreeModel::TotalColumn), double(row.stats.totalNs));
            QCOMPARE(raw(g, SummaryTreeModel::MedianColumn), row.stats.medianNs);
            QCOMPARE(raw(g, SummaryTreeModel::StddevColumn), row.stats.stddevNs);
            QCOMPARE(api->model()->rowCount(g), 0);
        }
        QVERIFY(api->tree()->isColumnHidden(SummaryTreeModel::StyleColumn));
        QVERIFY(!nvtx->tree()->isColumnHidden(SummaryTreeModel::StyleColumn));

        // Independently: SQL's figures for a group and for the API's largest name.
        SqlTestDb db(m_h100.toStdString());
        const auto add = groupNamed(*nvtx->model(), QStringLiteral("aten::add"));
        QVERIFY(add.isValid());
        QCOMPARE(raw(add, SummaryTreeModel::CountColumn),
            double(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE 'aten::add, op_id = %'")));
        QCOMPARE(raw(add, SummaryTreeModel::TotalColumn),
            double(db.integer("SELECT sum(end - start) FROM NVTX_EVENTS WHERE text LIKE 'aten::add, op_id = %'")));
        // Expanded: one child per distinct per-call name, each with its own count.
        const auto distinct
            = db.integer("SELECT count(DISTINCT text) FROM NVTX_EVENTS WHERE text LIKE 'aten::add, op_id = %'");
        QCOMPARE(nvtx->model()->rowCount(add), int(distinct));
        const auto viewAdd = nvtx->proxy()->mapFromSource(add);
        nvtx->tree()->expand(viewAdd);
        QVERIFY(nvtx->tree()->isExpanded(viewAdd));
        QCOMPARE(nvtx->proxy()->rowCount(viewAdd), int(distinct));
        double childCount = 0;
        for (int c = 0; c < nvtx->model()->rowCount(add); ++c) {
            const auto child = nvtx->model()->index(c, 0, add);
            const QString name = child.data().toString();
            QVERIFY2(name.startsWith(QStringLiteral("aten::add, op_id = ")), qPrintable(name));
            QCOMPARE(raw(child, SummaryTreeModel::CountColumn),
                double(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE text = '" + name.toStdString() + "'")));
            childCount += raw(child, SummaryTreeModel::CountColumn);
        }
        QCOMPARE(childCount, raw(add, SummaryTreeModel::CountColumn));
        const auto launch = groupNamed(*api->model(), QStringLiteral("cudaLaunchKernel"));
        QVERIFY(launch.isValid());
        QCOMPARE(raw(launch, SummaryTreeModel::CountColumn),
            double(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                              "WHERE s.value = 'cudaLaunchKernel_v7000'")));
        QCOMPARE(raw(launch, SummaryTreeModel::TotalColumn),
            double(db.integer("SELECT sum(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON "
                              "s.id = r.nameId WHERE s.value = 'cudaLaunchKernel_v7000'")));

        // A time selection: the ranges that start in it, as core (and `nsys stats` on a range) counts.
        const core::TimeRange firstHalf { trace->span.start, (trace->span.start + trace->span.end) / 2 };
        int generation = nvtx->generation();
        w.panelContext()->setWindow(firstHalf);
        CHECK(waitFor(nvtx, generation));
        core::SummaryOptions windowed;
        windowed.window = firstHalf;
        const auto inWindow = core::summarizeNvtx(*trace, windowed);
        QCOMPARE(nvtx->model()->rowCount(), int(inWindow.rows.size()));
        QVERIFY(inWindow.instances < cliNvtx.instances);
        const auto windowAdd = groupNamed(*nvtx->model(), QStringLiteral("aten::add"));
        const auto offset = trace->reports[0].timeOffsetNs;
        QCOMPARE(raw(windowAdd, SummaryTreeModel::CountColumn),
            double(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE 'aten::add, op_id = %' AND start < "
                + std::to_string(firstHalf.end - offset))));
        generation = nvtx->generation();
        w.panelContext()->setWindow(std::nullopt);
        CHECK(waitFor(nvtx, generation));

        // Rank scope: both panels recompute for rank 1's process alone.
        const int nvtxGeneration = nvtx->generation(), apiGeneration = api->generation();
        w.panelContext()->setRanks({ 1 });
        CHECK(waitFor(nvtx, nvtxGeneration));
        CHECK(waitFor(api, apiGeneration));
        const std::string pid = std::to_string(trace->ranks[1].pid);
        const auto rankAdd = groupNamed(*nvtx->model(), QStringLiteral("aten::add"));
        QCOMPARE(raw(rankAdd, SummaryTreeModel::CountColumn),
            double(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE 'aten::add, op_id = %' AND "
                              "(globalTid >> 24) % 16777216 = "
                + pid)));
        QCOMPARE(raw(groupNamed(*api->model(), QStringLiteral("cudaLaunchKernel")), SummaryTreeModel::CountColumn),
            double(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                              "WHERE s.value = 'cudaLaunchKernel_v7000' AND (r.globalTid >> 24) % 16777216 = "
                + pid)));
    }

    // A group click highlights every range of the group on the timeline; Next frames them one
    // after the other; a call's row just its own. The API panel steps through CUDA calls.
    // The NVTX summary's "GPU projection" switch shows `gaplens-cli nvtx --gpu`'s figures
    // (core::summarizeNvtxProjection), and switching back gives the CPU-time rows again.
    void projectionSwitchShowsTheProjectedSummary()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        auto *nvtx = w.nvtxSummaryPanel();
        QAbstractItemModelTester tester(nvtx->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        w.openPaths({ m_h100 });
        CHECK(waitFor(nvtx, 0));
        const auto trace = w.panelContext()->trace();
        QVERIFY(trace);
        const int cpuRows = nvtx->model()->rowCount();
        auto generation = nvtx->generation();
        nvtx->setProjected(true);
        CHECK(waitFor(nvtx, generation));
        const auto projected = core::summarizeNvtxProjection(*trace);
        QVERIFY(!projected.rows.empty());
        QCOMPARE(nvtx->model()->rowCount(), int(projected.rows.size()));
        QCOMPARE(nvtx->projectedSummary().instances, projected.instances);
        for (const auto &row : projected.rows) {
            const auto g = groupNamed(*nvtx->model(), QString::fromStdString(trace->str(row.name)));
            QVERIFY(g.isValid());
            QCOMPARE(raw(g, SummaryTreeModel::CountColumn), double(row.stats.count));
            QCOMPARE(raw(g, SummaryTreeModel::TotalColumn), double(row.stats.totalNs));
            QCOMPARE(raw(g, SummaryTreeModel::PercentColumn), row.percent);
            QCOMPARE(raw(g, SummaryTreeModel::MedianColumn), row.stats.medianNs);
            QCOMPARE(raw(g, SummaryTreeModel::MaxColumn), double(row.stats.maxNs));
            QCOMPARE(nvtx->model()->rowCount(g), 0);
        }
        QCOMPARE(nvtx->model()->headerData(SummaryTreeModel::CountColumn, Qt::Horizontal).toString(),
            QStringLiteral("Projected"));
        generation = nvtx->generation();
        nvtx->setProjected(false);
        CHECK(waitFor(nvtx, generation));
        QCOMPARE(nvtx->model()->rowCount(), cpuRows);
        QVERIFY(!w.apiSummaryPanel()->isProjected());
    }

    void rowClickStepsThroughTheInstancesOnTheTimeline()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        auto *nvtx = w.nvtxSummaryPanel();
        auto *api = w.apiSummaryPanel();
        w.openPaths({ m_h100 });
        CHECK(waitFor(nvtx, 0));
        CHECK(waitFor(api, 0));
        SqlTestDb db(m_h100.toStdString());
        auto *view = w.timelineView();

        const auto add = groupNamed(*nvtx->model(), QStringLiteral("aten::add"));
        const int count = nvtx->selectRow(add);
        QCOMPARE(count, int(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE 'aten::add, op_id = %'")));
        QCOMPARE(view->findMatchCount(), count);
        core::TimeNs previousStart = 0;
        for (int step = 0; step < 3; ++step) {
            nvtx->nextInstance();
            const auto &hit = view->selection();
            QCOMPARE(hit.kind, HitKind::Nvtx);
            const auto &thread = w.panelContext()->trace()->threads[hit.thread.value()];
            QVERIFY(QString::fromStdString(w.panelContext()->trace()->str(thread.nvtx.name[hit.index]))
                        .startsWith(QStringLiteral("aten::add, op_id = ")));
            QVERIFY(hit.start >= previousStart); // in time order
            previousStart = hit.start;
            // Framed in the middle third of the window.
            const auto *zoom = view->zoom();
            const auto offset = view->model()->rankOffset(hit.rank);
            QVERIFY(zoom->windowStart() <= hit.start + offset && hit.end + offset <= zoom->windowEnd());
        }
        const auto call = nvtx->model()->index(0, 0, add);
        QCOMPARE(nvtx->selectRow(call),
            int(db.integer(
                "SELECT count(*) FROM NVTX_EVENTS WHERE text = '" + call.data().toString().toStdString() + "'")));

        const auto launch = groupNamed(*api->model(), QStringLiteral("cudaLaunchKernel"));
        QCOMPARE(api->selectRow(launch),
            int(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                           "WHERE s.value = 'cudaLaunchKernel_v7000'")));
        api->nextInstance();
        QCOMPARE(view->selection().kind, HitKind::Api);
        api->previousInstance();
        api->previousInstance();
        QCOMPARE(view->selection().kind, HitKind::Api);
        // The tree exports as a picture like the panels' tables (File > Export Focused Chart or Table).
        QTemporaryDir dir;
        const QString picture = dir.filePath(QStringLiteral("api.png"));
        QVERIFY(ViewExporter::exportTable(*api->tree()->model(), picture, QSize(900, 400)));
        QCOMPARE(QImage(picture).size(), QSize(900, 400));
        // The toolbar's find still looks at kernels and NVTX names only.
        QCOMPARE(view->find(QStringLiteral("cudaLaunchKernel"), false), 0);
    }
};

QTEST_MAIN(TestNameSummaries)
#include "tst_name_summaries.moc"
