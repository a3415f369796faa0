// SPDX-License-Identifier: MIT
// NVTX marks (instants) are drawn: a diamond in the thread's "NVTX marks" row, in the mark's
// colour, with its name and time in the tooltip; marks closer than a few pixels fold into
// one neutral diamond whose tooltip counts them, so a frame stays O(pixels · log n).
#include "picture_fixture.h"
#include "ui_fixture.h"

#include "ui/theme/theme.h"
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

constexpr int kTicks = 200; // "tick" marks 10 ns apart from 5 ms: one pixel at full view
constexpr int kDenseMarks = 100'000; // "dense" marks on a second thread, 100 ns apart

// One rank: a kernel over [0, 10 ms) so the capture spans it; thread "main" with the lone
// marks "epoch_begin" (1 ms, domain "train") and "epoch_end" (9 ms) and the ticks; thread
// "worker" with the dense marks from 1 ms to 11 ms.
std::shared_ptr<core::TraceSet> markTrace()
{
    using namespace core;
    auto t = fixture::oneRankTrace({ { 0, 10'000, "long_kernel" } });
    Thread main = fixture::rankThread(*t, 100, "main");
    auto mark = [&](Thread &thread, TimeNs time, const char *name, StringId domain = kEmptyString) {
        thread.marks.time.push_back(time);
        thread.marks.name.push_back(t->strings.intern(name));
        thread.marks.domain.push_back(domain);
    };
    mark(main, kT0 + us(1000), "epoch_begin", t->strings.intern("train"));
    for (int i = 0; i < kTicks; ++i)
        mark(main, kT0 + us(5000) + 10 * i, "tick");
    mark(main, kT0 + us(9000), "epoch_end");
    t->threads.push_back(std::move(main));
    Thread worker = fixture::rankThread(*t, 101, "worker");
    for (int i = 0; i < kDenseMarks; ++i)
        mark(worker, kT0 + us(1000) + 100 * TimeNs(i), "dense");
    t->threads.push_back(std::move(worker));
    finalizeTraceSet(*t);
    return t;
}

struct Shown
{
    QImage image;
    QRect marks; // the first thread's marks row, image coordinates
    QRect denseMarks; // the second thread's
    int centreY = 0; // the diamonds' centre line in `marks`
};

void showAndGrab(TimelineView &view, Shown &s)
{
    s.image = fixture::grabTimeline(view, QStringLiteral("timeline_marks.png"));
    s.marks = s.denseMarks = {};
    for (const auto &row : view.model()->rows()) {
        if (row.kind != RowKind::Marks)
            continue;
        (s.marks.isNull() ? s.marks : s.denseMarks) = fixture::rowBand(view, row);
    }
    // TrackPainter's lane: the band less 2 px above and 2 below, centred.
    s.centreY = s.marks.top() + 2 + (s.marks.height() - 4 - 1) / 2;
}

using fixture::imageX;

HitResult hitAt(const TimelineView &view, int x, int y)
{
    return fixture::hitAtImage(view, { x, y });
}

} // namespace

class TestTimelineMarks : public QObject
{
    Q_OBJECT

    TimelineView m_view;
    Shown m_shown;

private slots:
    void initTestCase()
    {
        m_view.resize(1270, 400);
        m_view.setData(prepareTimelineData(markTrace()));
        m_view.zoom()->fitAll();
        QTRY_VERIFY_WITH_TIMEOUT(m_view.model()->gapsReady(), 10000);
        showAndGrab(m_view, m_shown);
    }

    void eachThreadWithMarksHasOneMarksRow()
    {
        QVERIFY(!m_shown.marks.isNull());
        QVERIFY(!m_shown.denseMarks.isNull());
        const auto &rows = m_view.model()->rows();
        QStringList labels;
        for (const auto &row : rows)
            if (row.kind == RowKind::Marks)
                labels << row.label;
        QCOMPARE(labels,
            QStringList({ QStringLiteral("main (100) · NVTX marks"), QStringLiteral("worker (101) · NVTX marks") }));
    }

    void aLoneMarkIsADiamondInItsColour()
    {
        const auto *model = m_view.model();
        const QColor colour = model->nvtxColor(model->trace()->strings.find("epoch_begin"));
        const int x = imageX(m_view, kT0 + us(1000));
        QVERIFY2(fixture::near(m_shown.image.pixelColor(x, m_shown.centreY), colour, 3),
            qPrintable(m_shown.image.pixelColor(x, m_shown.centreY).name()));
        // A diamond: as wide as it is tall around its centre, narrowing to its tips.
        QVERIFY(fixture::near(m_shown.image.pixelColor(x - 2, m_shown.centreY), colour, 3));
        QVERIFY(fixture::near(m_shown.image.pixelColor(x + 2, m_shown.centreY), colour, 3));
        QVERIFY(!fixture::near(m_shown.image.pixelColor(x + 3, m_shown.centreY - 3), colour, 3));
        QVERIFY(!fixture::near(m_shown.image.pixelColor(x + 7, m_shown.centreY), colour, 3));
    }

    void aLoneMarksTooltipHasItsNameTimeDomainAndThread()
    {
        const int x = imageX(m_view, kT0 + us(1000));
        const HitResult hit = hitAt(m_view, x + 3, m_shown.centreY); // within the diamond's reach
        QCOMPARE(int(hit.kind), int(HitKind::Mark));
        QCOMPARE(hit.index, 0u);
        QCOMPARE(hit.start, kT0 + us(1000));
        const QString tip = tooltipText(*m_view.model(), hit);
        QCOMPARE(tip,
            QStringLiteral("epoch_begin\nNVTX mark at: %1\nDomain: train\nThread: main (tid 100)")
                .arg(formatDuration(us(1000))));
        // Outlined where it is drawn when hovered or selected.
        const QRectF r = m_view.itemRect(hit);
        QVERIFY(r.left() <= x - 4 - m_view.viewport()->geometry().left());
        QVERIFY(r.right() >= x + 4 - m_view.viewport()->geometry().left());
    }

    void marksWithinAPixelFoldIntoOneNeutralCountedDiamond()
    {
        const auto *model = m_view.model();
        const Theme &theme = Theme::current();
        const int x = imageX(m_view, kT0 + us(5000));
        const QColor c = m_shown.image.pixelColor(x, m_shown.centreY);
        QVERIFY2(fixture::near(c, theme.foldFill, 3), qPrintable(c.name()));
        QVERIFY(!fixture::near(c, model->nvtxColor(model->trace()->strings.find("tick")), 3));
        const HitResult hit = hitAt(m_view, x, m_shown.centreY);
        QCOMPARE(int(hit.kind), int(HitKind::Fold));
        QCOMPARE(int(hit.foldOf), int(HitKind::Mark));
        QCOMPARE(hit.count, std::uint32_t(kTicks));
        QCOMPARE(hit.start, kT0 + us(5000));
        QCOMPARE(hit.end, kT0 + us(5000) + 10 * (kTicks - 1));
        const QString tip = tooltipText(*model, hit);
        QVERIFY2(tip.startsWith(countText(kTicks, HitKind::Mark) + QLatin1Char('\n')), qPrintable(tip));
        QCOMPARE(countText(kTicks, HitKind::Mark), QStringLiteral("200 NVTX marks"));
    }

    void aFrameDrawsAFewItemsPerPixelWhateverTheMarkCount()
    {
        // The whole row: lone, folded, lone.
        const auto *model = m_view.model();
        const auto &rows = model->rows();
        const auto isMarks = [](const TimelineRow &r) { return r.kind == RowKind::Marks; };
        const auto first = std::find_if(rows.begin(), rows.end(), isMarks);
        const auto second = std::find_if(first + 1, rows.end(), isMarks);
        QVERIFY(second != rows.end());
        const auto window = m_view.zoom()->viewWindow();
        std::vector<core::DrawItem> items;
        model->rowDrawList(*first, window, items);
        QCOMPARE(items.size(), std::size_t(3));
        QCOMPARE(items[1].count, std::uint32_t(kTicks));
        // 100,000 marks 100 ns apart (a 0.1 px pitch) are one fold; the frame visits a few items.
        model->rowDrawList(*second, window, items);
        QCOMPARE(items.size(), std::size_t(1));
        QCOMPARE(items[0].count, std::uint32_t(kDenseMarks));
        // Wide, that fold is a neutral band with its count, never a row of diamonds.
        const int mid = imageX(m_view, kT0 + us(6000));
        const QColor c = m_shown.image.pixelColor(mid, m_shown.denseMarks.center().y());
        QVERIFY2(fixture::near(c, Theme::current().foldFill, 3), qPrintable(c.name()));
    }

    void zoomedInEveryMarkIsItsOwnDiamond()
    {
        TimelineView view;
        view.resize(1270, 400);
        view.setData(prepareTimelineData(markTrace()));
        // 2 us over ~1,100 px: the ticks are 10 ns = ~5 px apart.
        view.zoom()->setWindow(kT0 + us(5000) - 500, kT0 + us(5000) + 1500);
        Shown s;
        showAndGrab(view, s);
        const auto *model = view.model();
        const QColor tick = model->nvtxColor(model->trace()->strings.find("tick"));
        for (int i : { 0, 17, 99, 149 }) {
            const int x = imageX(view, kT0 + us(5000) + 10 * i);
            QVERIFY2(fixture::near(s.image.pixelColor(x, s.centreY), tick, 3), qPrintable(QString::number(i)));
            const HitResult hit = hitAt(view, x, s.centreY);
            QCOMPARE(int(hit.kind), int(HitKind::Mark));
            QCOMPARE(hit.index, std::uint32_t(1 + i)); // after epoch_begin
        }
    }
};

QTEST_MAIN(TestTimelineMarks)
#include "tst_timeline_marks.moc"
