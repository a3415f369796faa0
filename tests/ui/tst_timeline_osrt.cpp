// SPDX-License-Identifier: MIT
// OS runtime calls on the timeline: a row per thread and nesting level ("· OS runtime"),
// hidden with a collapsed rank, each call in its category's colour (never a cause colour),
// named with its category in the tooltip; a no-CUDA-call gap's tooltip names the OS call the
// launching thread was in.
#include "picture_fixture.h"
#include "ui_fixture.h"

#include "ui/timeline/colors.h"
#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QImage>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;
using fixture::kT0;
using fixture::us;

namespace {

// One rank (pid 100): kernels [0,1000) and [3000,4000) us, the second launched by "main" at
// [2800,2850), so the gap [1000,3000) (midpoint 2000) is a no-CUDA-call gap during main's
// pthread_cond_wait [1200,2500). Thread "loader" (101) has only OS calls: fopen [500,900)
// with read [600,700) inside it, and poll [3200,3900).
std::shared_ptr<core::TraceSet> osrtTrace()
{
    using namespace core;
    auto t = fixture::oneRankTrace({ { 0, 1000, "k1" }, { 3000, 4000, "k2" } });
    const auto call = [&](OsrtColumns &o, double start, double end, const char *name) {
        o.start.push_back(kT0 + us(start));
        o.end.push_back(kT0 + us(end));
        o.name.push_back(t->strings.intern(name));
        o.callchainId.push_back(0);
    };
    Thread main = fixture::rankThread(*t, 100, "main");
    main.api.start = { kT0 - us(50), kT0 + us(2800) };
    main.api.end = { kT0 - us(40), kT0 + us(2850) };
    main.api.name = { t->strings.intern("cudaLaunchKernel"), t->strings.intern("cudaLaunchKernel") };
    main.api.correlationId = { 1, 2 };
    call(main.osrt, 1200, 2500, "pthread_cond_wait");
    t->threads.push_back(std::move(main));
    Thread loader = fixture::rankThread(*t, 101, "loader");
    call(loader.osrt, 500, 900, "fopen");
    call(loader.osrt, 600, 700, "read");
    call(loader.osrt, 3200, 3900, "poll");
    t->threads.push_back(std::move(loader));
    finalizeTraceSet(*t);
    return t;
}

QStringList osrtLabels(const TimelineModel &model)
{
    QStringList labels;
    for (const auto &row : model.rows())
        if (row.kind == RowKind::Osrt)
            labels << row.label;
    return labels;
}

} // namespace

class TestTimelineOsrt : public QObject
{
    Q_OBJECT

    TimelineView m_view;
    QImage m_image;

    // The centre of `row`'s lane at time t, in image coordinates.
    QPoint at(const TimelineRow &row, core::TimeNs t) const { return fixture::imagePoint(m_view, row, t); }
    const TimelineRow &osrtRow(int n) const
    {
        int seen = 0;
        for (const auto &row : m_view.model()->rows())
            if (row.kind == RowKind::Osrt && seen++ == n)
                return row;
        qFatal("no OS runtime row %d", n);
    }
    HitResult hitAt(QPoint image) const { return fixture::hitAtImage(m_view, image); }

private slots:
    void initTestCase()
    {
        m_view.resize(1200, 500);
        m_view.setData(prepareTimelineData(osrtTrace()));
        m_view.zoom()->fitAll();
        QTRY_VERIFY_WITH_TIMEOUT(m_view.model()->gapsReady(), 10000);
        m_image = fixture::grabTimeline(m_view, QStringLiteral("timeline_osrt.png"));
    }

    void eachThreadHasARowPerDepthHiddenWithACollapsedRank()
    {
        TimelineModel model;
        model.setData(prepareTimelineData(osrtTrace()));
        QCOMPARE(osrtLabels(model),
            QStringList({ QStringLiteral("main (100) · OS runtime"), QStringLiteral("loader (101) · OS runtime"),
                QString() })); // a deeper level is labelled by the first
        model.setRankCollapsed(core::RankIndex(0), true);
        QCOMPARE(osrtLabels(model), QStringList());
        model.setRankCollapsed(core::RankIndex(0), false);
        model.setDetail(RowDetail::Nvtx); // below the CUDA and OS call rows
        QCOMPARE(osrtLabels(model), QStringList());
    }

    void callsAreInTheirCategorysColourNeverACausesColour()
    {
        const auto &main = osrtRow(0);
        const QPoint p = at(main, kT0 + us(1800));
        const QColor wait = osCategoryColor(core::OsCategory::Wait);
        QVERIFY2(fixture::near(m_image.pixelColor(p), wait, 3), qPrintable(m_image.pixelColor(p).name()));
        QVERIFY(
            fixture::near(m_image.pixelColor(at(osrtRow(1), kT0 + us(800))), osCategoryColor(core::OsCategory::Io), 3));
        QVERIFY(
            fixture::near(m_image.pixelColor(at(osrtRow(2), kT0 + us(650))), osCategoryColor(core::OsCategory::Io), 3));
        QVERIFY(fixture::near(
            m_image.pixelColor(at(osrtRow(1), kT0 + us(3500))), osCategoryColor(core::OsCategory::Poll), 3));
        const core::OsCategory categories[] = { core::OsCategory::Wait, core::OsCategory::Io, core::OsCategory::Poll,
            core::OsCategory::Sleep, core::OsCategory::Other };
        for (auto a : categories) {
            QVERIFY(!isCauseHue(osCategoryColor(a)));
            for (auto b : categories)
                if (a != b)
                    QVERIFY(osCategoryColor(a) != osCategoryColor(b));
        }
    }

    void aCallsTooltipNamesItsCategoryAndThread()
    {
        const HitResult hit = hitAt(at(osrtRow(0), kT0 + us(1800)));
        QCOMPARE(int(hit.kind), int(HitKind::Osrt));
        QCOMPARE(hit.index, 0u);
        QCOMPARE(tooltipText(*m_view.model(), hit),
            QStringLiteral(
                "pthread_cond_wait\nDuration: %1\nOS call category: wait\nStart: %2\nThread: main (tid 100)\n"
                "Depth: 0")
                .arg(formatDuration(us(1300)), formatDuration(us(1250)))); // from the capture start, kT0 - 50 us
        QCOMPARE(countText(2, HitKind::Osrt), QStringLiteral("2 OS runtime calls"));
    }

    void theGapsTooltipNamesTheOsCall()
    {
        const auto &blame = m_view.model()->gaps(core::GpuIndex(0)).blame;
        QCOMPARE(blame.size(), std::size_t(1));
        QCOMPARE(blame[0].cause, core::GapCause::NoCudaCall);
        HitResult gap;
        gap.kind = HitKind::Gap;
        gap.gpu = core::GpuIndex(0);
        gap.rank = core::RankIndex(0);
        gap.index = 0;
        gap.start = blame[0].gap.start;
        gap.end = blame[0].gap.end;
        const QString tip = tooltipText(*m_view.model(), gap);
        QVERIFY2(tip.contains(QStringLiteral("\nOS call: pthread_cond_wait (wait)\n")), qPrintable(tip));
        QVERIFY(detailsHtml(*m_view.model(), gap).contains(QStringLiteral("pthread_cond_wait (wait)")));
    }
};

QTEST_MAIN(TestTimelineOsrt)
#include "tst_timeline_osrt.moc"
