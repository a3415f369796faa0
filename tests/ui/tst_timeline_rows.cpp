// SPDX-License-Identifier: MIT
// Which rows the timeline shows: collapsed ranks keep their merged GPU lane, collapse / expand
// all, "GPU lanes only" (RowDetail::GpuLanes), fitting the rows into a height, and the View
// menu's actions for them.
#include "ui_fixture.h"

#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/workspace/reviewactions.h"

#include <QAction>
#include <QMenu>
#include <QScrollBar>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

std::shared_ptr<const TimelineData> fixtureData(int ranks)
{
    return prepareTimelineData(fixture::buildTrace(ranks));
}

// The kinds of the model's rows, in order, as one string ("H M C N N A" ...).
QString kinds(const TimelineModel &model)
{
    static const char *const kLetters[] = { "H", "M", "S", "C", "N", "A" };
    QStringList out;
    for (const auto &row : model.rows())
        out << QString::fromLatin1(kLetters[int(row.kind)]);
    return out.join(QLatin1Char(' '));
}

} // namespace

class TestTimelineRows : public QObject
{
    Q_OBJECT
private slots:
    void aCollapsedRankStillShowsItsMergedGpuLane()
    {
        TimelineModel model;
        model.setData(fixtureData(2));
        QCOMPARE(kinds(model), QStringLiteral("H M C N N A H M C N N A"));
        model.setStreamsExpanded(core::RankIndex(0), core::GpuIndex(0), true);
        model.setRankCollapsed(core::RankIndex(0), true);
        // The streams fold away with the rest of the detail; the merged lane cannot expand.
        QCOMPARE(kinds(model), QStringLiteral("H M H M C N N A"));
        QVERIFY(!model.rows()[1].expandable);
        QVERIFY(!model.rows()[0].expanded);
        QCOMPARE(model.rows()[1].label, QStringLiteral("GPU 0 · Test GPU · kernels"));
        // Expanding it again brings back the streams it had open.
        model.toggleRow(0);
        QCOMPARE(kinds(model), QStringLiteral("H M S S C N N A H M C N N A"));
    }

    void collapseAllAndExpandAllChangeEveryRank()
    {
        TimelineModel model;
        model.setData(fixtureData(3));
        model.setStreamsExpanded(core::RankIndex(1), core::GpuIndex(1), true);
        model.collapseAll();
        QCOMPARE(kinds(model), QStringLiteral("H M H M H M"));
        for (std::uint32_t r = 0; r < 3; ++r)
            QVERIFY(model.isRankCollapsed(core::RankIndex(r)));
        QCOMPARE(model.totalHeight(), 3 * (TimelineModel::kHeaderHeight + TimelineModel::kLaneHeight));
        model.expandAll();
        // Collapse all closed the streams too: expanding shows every rank as it first was.
        QCOMPARE(kinds(model), QStringLiteral("H M C N N A H M C N N A H M C N N A"));
    }

    void gpuLanesOnlyShowsOneLabelledLanePerRank()
    {
        TimelineModel model;
        model.setData(fixtureData(3));
        model.setStreamsExpanded(core::RankIndex(0), core::GpuIndex(0), true);
        model.setDetail(RowDetail::GpuLanes);
        QCOMPARE(kinds(model), QStringLiteral("M M M"));
        for (std::uint32_t r = 0; r < 3; ++r) {
            const auto &row = model.rows()[r];
            QCOMPARE(row.rank.value(), r);
            QCOMPARE(row.label, QStringLiteral("Rank %1 · GPU %1 · Test GPU").arg(r));
            QCOMPARE(row.y, int(r) * TimelineModel::kLaneHeight);
            QVERIFY(!row.expandable);
        }
        model.setDetail(RowDetail::All);
        QCOMPARE(kinds(model), QStringLiteral("H M S S C N N A H M C N N A H M C N N A"));
    }

    void eachDetailLevelAddsItsKindOfRow()
    {
        TimelineModel model;
        model.setData(fixtureData(1));
        model.setStreamsExpanded(core::RankIndex(0), core::GpuIndex(0), true);
        const std::pair<RowDetail, const char *> levels[] = {
            { RowDetail::GpuLanes, "M" },
            { RowDetail::Essential, "H M" },
            { RowDetail::Streams, "H M S S" },
            { RowDetail::Copies, "H M S S C" },
            { RowDetail::Nvtx, "H M S S C N N" },
            { RowDetail::All, "H M S S C N N A" },
        };
        for (const auto &[detail, expected] : levels) {
            model.setDetail(detail);
            QCOMPARE(kinds(model), QString::fromUtf8(expected));
        }
    }

    void fittingEightRanksFoldsDetailBeforeLanes()
    {
        TimelineModel model;
        model.setData(fixtureData(8));
        // Per rank: header 20 + lane 22 + copies 16 + NVTX 2 × 16 + API 16 = 106 px; 848 in all.
        QCOMPARE(model.totalHeight(), 8 * 106);
        // 788 px (a 1600x900 picture's rows): the API rows go first.
        auto fit = model.fitToHeight(788);
        QCOMPARE(int(fit.detail), int(RowDetail::Nvtx));
        QCOMPARE(fit.scale, 1.0);
        QCOMPARE(fit.ranksShown, 8);
        QCOMPARE(fit.rankCount, 8);
        QVERIFY(!fit.reduced());
        QCOMPARE(model.totalHeight(), 8 * 90);
        QCOMPARE(kinds(model).count(QLatin1Char('M')), 8);
        QCOMPARE(kinds(model).count(QLatin1Char('A')), 0);

        // Room for the lanes with their headers (8 × 42 = 336) but not the copies (8 × 58);
        // no stream is expanded, so the Streams level shows the same rows as Essential.
        model.setDetail(RowDetail::All);
        fit = model.fitToHeight(400);
        QCOMPARE(int(fit.detail), int(RowDetail::Streams));
        QCOMPARE(model.totalHeight(), 336);
        QCOMPARE(kinds(model), QStringLiteral("H M H M H M H M H M H M H M H M"));

        // Lanes only (176 px) do not fit in 100: they shrink to 12 px, 96 px in all.
        model.setDetail(RowDetail::All);
        fit = model.fitToHeight(100);
        QCOMPARE(int(fit.detail), int(RowDetail::GpuLanes));
        QVERIFY(fit.scale < 1);
        QCOMPARE(fit.ranksShown, 8);
        QVERIFY(fit.reduced());
        QCOMPARE(kinds(model), QStringLiteral("M M M M M M M M"));
        for (const auto &row : model.rows())
            QCOMPARE(row.height, 12);

        // Never below the legible minimum: in 50 px only four 11 px lanes fit, and it says so.
        model.setDetail(RowDetail::All);
        fit = model.fitToHeight(50);
        QCOMPARE(fit.ranksShown, 4);
        for (const auto &row : model.rows())
            QCOMPARE(row.height, TimelineModel::kMinRowHeight);
    }

    void scrollingToARankWithoutHeadersFindsItsLane()
    {
        TimelineView view;
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.resize(800, 100 + TimelineView::kRulerHeight);
        view.show();
        view.setData(fixtureData(8));
        view.model()->setDetail(RowDetail::GpuLanes);
        view.scrollToRank(core::RankIndex(3));
        QCOMPARE(view.verticalScrollBar()->value(), 3 * TimelineModel::kLaneHeight);
    }

    void viewMenuActionsCollapseExpandAndShowGpuLanesOnly()
    {
        TimelineView view;
        view.setData(fixtureData(2));
        QMenu menu;
        QObject context;
        ReviewActions::addRowActions(&menu, &context, [&view] { return QList<TimelineView *> { &view }; });
        auto action = [&](const char *name) { return menu.findChild<QAction *>(QString::fromLatin1(name)); };
        QVERIFY(action("collapseAllAction") && action("expandAllAction") && action("gpuLanesOnlyAction"));
        QCOMPARE(action("collapseAllAction")->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
        QCOMPARE(action("expandAllAction")->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
        QCOMPARE(action("gpuLanesOnlyAction")->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
        QVERIFY(action("gpuLanesOnlyAction")->isCheckable());

        action("collapseAllAction")->trigger();
        QCOMPARE(kinds(*view.model()), QStringLiteral("H M H M"));
        action("expandAllAction")->trigger();
        QCOMPARE(kinds(*view.model()), QStringLiteral("H M C N N A H M C N N A"));
        action("gpuLanesOnlyAction")->trigger();
        QCOMPARE(kinds(*view.model()), QStringLiteral("M M"));
        action("gpuLanesOnlyAction")->trigger();
        QCOMPARE(int(view.model()->detail()), int(RowDetail::All));
        QCOMPARE(kinds(*view.model()), QStringLiteral("H M C N N A H M C N N A"));
    }
};

QTEST_MAIN(TestTimelineRows)
#include "tst_timeline_rows.moc"
