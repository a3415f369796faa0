// SPDX-License-Identifier: MIT
// TimelineView scenarios on a hand-built capture (see ui_fixture.h): rows, zoom and pan maths,
// hit testing, folds, gap bands, launch arrows, find, ruler ticks.
#include "ui_fixture.h"

#include "ui/timeline/colors.h"
#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeruler.h"
#include "ui/timeline/zoomcontrol.h"

#include <QImage>
#include <QScrollBar>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;
using fixture::kT0;
using fixture::us;

namespace {

std::shared_ptr<const TimelineData> fixtureData(int ranks = 2, double shiftUs = 0)
{
    return prepareTimelineData(fixture::buildTrace(ranks, shiftUs));
}

// The y (viewport coordinates) of the middle of a row.
int rowMiddle(const TimelineView &view, int row)
{
    const auto &r = view.model()->rows()[row];
    return r.y + r.height / 2 - view.verticalScrollBar()->value();
}
// The middle of the first row of `kind` that `key` names.
int rowMiddle(const TimelineView &view, RowKind kind, const RowKey &key)
{
    return rowMiddle(view, view.model()->findRow(kind, key));
}
int mergedLaneMiddle(const TimelineView &view, std::uint32_t rank)
{
    return rowMiddle(view, RowKind::MergedKernels, { core::RankIndex(rank), core::GpuIndex(rank) });
}
// Rank 0's main thread (the trace's first thread).
int threadRowMiddle(const TimelineView &view, RowKind kind, std::uint32_t level)
{
    return rowMiddle(view, kind, { core::RankIndex(0), {}, {}, core::ThreadIndex(0), level });
}

QColor opaque(const QColor &c)
{
    return QColor(c.red(), c.green(), c.blue());
}

} // namespace

class TestTimelineView : public QObject
{
    Q_OBJECT
private slots:
    void aCaptureOfTwoRanksHasOneRowGroupPerRank()
    {
        TimelineModel model;
        model.setData(fixtureData());
        const auto &rows = model.rows();
        // Per rank: header, merged kernels, copies, NVTX depth 0 and 1, CUDA API depth 0.
        QCOMPARE(rows.size(), std::size_t(12));
        const RowKind expected[] = { RowKind::RankHeader, RowKind::MergedKernels, RowKind::Copies, RowKind::Nvtx,
            RowKind::Nvtx, RowKind::Api };
        for (int r = 0; r < 2; ++r)
            for (int i = 0; i < 6; ++i) {
                QCOMPARE(int(rows[r * 6 + i].kind), int(expected[i]));
                QCOMPARE(rows[r * 6 + i].rank.value(), std::uint32_t(r));
            }
        QVERIFY(rows[0].label.startsWith(QStringLiteral("Rank 0")));
        QVERIFY(rows[0].label.contains(QStringLiteral("node0")));
        QVERIFY(rows[1].label.contains(QStringLiteral("GPU 0")));
        QVERIFY(rows[7].label.contains(QStringLiteral("GPU 1")));
        QVERIFY(rows[3].label.contains(QStringLiteral("main")));
        QCOMPARE(rows[4].level, 1u);
        // Rows are laid out top to bottom without holes.
        for (std::size_t i = 1; i < rows.size(); ++i)
            QCOMPARE(rows[i].y, rows[i - 1].y + rows[i - 1].height);
        QCOMPARE(model.rowAt(rows[7].y + 1), 7);

        // Expanding the merged lane shows both streams under it; collapsing a rank leaves its
        // header and merged lane.
        model.toggleRow(1);
        QCOMPARE(model.rows().size(), std::size_t(14));
        QCOMPARE(int(model.rows()[2].kind), int(RowKind::StreamKernels));
        QCOMPARE(model.rows()[2].label, QStringLiteral("stream 7"));
        QCOMPARE(model.rows()[3].label, QStringLiteral("stream 8"));
        model.toggleRow(0);
        QCOMPARE(model.rows().size(), std::size_t(8));
        QCOMPARE(int(model.rows()[1].kind), int(RowKind::MergedKernels));
        QCOMPARE(int(model.rows()[2].kind), int(RowKind::RankHeader));
    }

    void zoomingKeepsTheTimeUnderTheCursorInPlace_data()
    {
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("factor");
        QTest::newRow("zoom in at left third") << 333.0 << 2.0;
        QTest::newRow("zoom in a lot") << 701.0 << 1000.0;
        QTest::newRow("zoom out") << 500.0 << 0.5;
        QTest::newRow("zoom in at the right edge") << 999.0 << 1.25;
    }
    void zoomingKeepsTheTimeUnderTheCursorInPlace()
    {
        QFETCH(double, x);
        QFETCH(double, factor);
        ZoomControl zoom;
        zoom.setWidth(1000);
        zoom.setTraceRange({ kT0, kT0 + 10'000'000'000 }); // 10 s
        zoom.setWindow(kT0 + 2'000'000'000, kT0 + 6'000'000'000);
        const core::TimeNs before = zoom.xToTime(x);
        const double nsPerPx = zoom.nsPerPx();
        zoom.zoomAt(x, factor);
        QVERIFY(std::abs(zoom.nsPerPx() - nsPerPx / factor) < 1e-6 * nsPerPx);
        QVERIFY2(std::abs(double(zoom.xToTime(x) - before)) <= std::max(2.0, zoom.nsPerPx()),
            qPrintable(QString::number(zoom.xToTime(x) - before)));
    }

    void panningMovesByPixelsAndBackRestoresTheWindow()
    {
        ZoomControl zoom;
        zoom.setWidth(1000);
        zoom.setTraceRange({ kT0, kT0 + 10'000'000 });
        zoom.setWindow(kT0 + 2'000'000, kT0 + 4'000'000);
        QCOMPARE(zoom.nsPerPx(), 2000.0);
        const core::TimeNs t = zoom.xToTime(500);
        zoom.panPixels(100);
        QCOMPARE(zoom.windowStart(), kT0 + 2'200'000);
        QCOMPARE(zoom.xToTime(400), t); // content moved left by 100 px
        zoom.setWindow(kT0 + 5'000'000, kT0 + 5'100'000);
        QVERIFY(zoom.back());
        QCOMPARE(zoom.windowStart(), kT0 + 2'200'000);
        QVERIFY(zoom.back()); // the fitted window from before the first setWindow
        QVERIFY(zoom.windowStart() <= kT0);
        QVERIFY(!zoom.back());
        // Zoom is clamped: never below kMinWindowNs over the width.
        zoom.zoomAt(0, 1e12);
        QVERIFY(zoom.windowEnd() - zoom.windowStart() >= ZoomControl::kMinWindowNs - 1);
        zoom.fitAll();
        QVERIFY(zoom.windowStart() <= kT0 && zoom.windowEnd() >= kT0 + 10'000'000);
    }

    void theWindowStaysInsideTheCapture()
    {
        ZoomControl zoom;
        zoom.setWidth(1000);
        zoom.setTraceRange({ kT0, kT0 + 10'000'000 });
        // Fitted: exactly the capture, no margin before its start.
        QCOMPARE(zoom.windowStart(), kT0);
        QCOMPARE(zoom.windowEnd(), kT0 + 10'000'000);
        zoom.zoomAt(500, 0.001); // zooming out stops at the capture
        QCOMPARE(zoom.windowStart(), kT0);
        QCOMPARE(zoom.nsPerPx(), 10'000.0);
        zoom.setWindow(kT0 + 1'000'000, kT0 + 2'000'000);
        zoom.panPixels(-5000); // far before the start
        QCOMPARE(zoom.windowStart(), kT0);
        zoom.panPixels(1e6); // far past the end
        QCOMPARE(zoom.windowEnd(), kT0 + 10'000'000);
        zoom.setWindow(kT0 - 3'000'000, kT0 + 1'000'000); // a jump near the start keeps its width
        QCOMPARE(zoom.windowStart(), kT0);
        QCOMPARE(zoom.windowEnd(), kT0 + 4'000'000);
    }

    void hitTestingFindsKernelNvtxRangeAndGapAtAPixel()
    {
        TimelineView view;
        view.resize(1270, 600);
        view.setData(fixtureData());
        view.zoom()->setWindow(kT0, kT0 + us(3200), false);
        QTRY_VERIFY_WITH_TIMEOUT(view.model()->gapsReady(), 10000); // blamed on the model's worker
        const auto *zoom = view.zoom();
        auto xAt = [&](double t) { return int(std::lround(zoom->timeToX(kT0 + us(t)))); };

        // Merged lane of GPU 0 at 500 us: sgemm (stream 7) — copy_kernel on stream 8 overlaps.
        HitResult hit = view.hitTest({ xAt(500), mergedLaneMiddle(view, 0) });
        QCOMPARE(int(hit.kind), int(HitKind::Kernel));
        QCOMPARE(view.model()->str(
                     at(at(view.model()->trace()->gpus, hit.gpu).streams, hit.stream).kernels.shortName[hit.index]),
            QStringLiteral("sgemm_kernel"));
        QCOMPARE(hit.gpu.value(), 0u);
        // Its launch shape (fixture::kFixtureLaunch), from the stream's distinct shapes.
        const auto tooltip = tooltipText(*view.model(), hit);
        QVERIFY2(tooltip.contains(QStringLiteral("\nGrid: 64 × 2 × 1\nBlock: 256 × 1 × 1\nRegisters/thread: 40\n")),
            qPrintable(tooltip));

        // Rank 1's merged lane at 2000 us: the NCCL kernel on GPU 1.
        hit = view.hitTest({ xAt(2000), mergedLaneMiddle(view, 1) });
        QCOMPARE(int(hit.kind), int(HitKind::Kernel));
        QCOMPARE(hit.gpu.value(), 1u);
        QCOMPARE(hit.start, kT0 + us(1600));

        // The idle gap [1100, 1600) us, blamed on cudaStreamSynchronize.
        hit = view.hitTest({ xAt(1350), mergedLaneMiddle(view, 0) });
        QCOMPARE(int(hit.kind), int(HitKind::Gap));
        QCOMPARE(hit.start, kT0 + us(1100));
        QCOMPARE(hit.end, kT0 + us(1600));
        const auto &blame = view.model()->gaps(core::GpuIndex(0)).blame[hit.index];
        QCOMPARE(int(blame.cause), int(core::GapCause::ApiCall));
        QCOMPARE(view.model()->str(blame.apiName), QStringLiteral("cudaStreamSynchronize"));
        QCOMPARE(view.model()->str(blame.phase()), QStringLiteral("backward"));

        // NVTX: depth 0 is train_step everywhere, depth 1 is forward at 500 us.
        hit = view.hitTest({ xAt(500), threadRowMiddle(view, RowKind::Nvtx, 0) });
        QCOMPARE(int(hit.kind), int(HitKind::Nvtx));
        QCOMPARE(view.model()->str(at(view.model()->trace()->threads, hit.thread).nvtx.name[hit.index]),
            QStringLiteral("train_step"));
        hit = view.hitTest({ xAt(500), threadRowMiddle(view, RowKind::Nvtx, 1) });
        QCOMPARE(view.model()->str(at(view.model()->trace()->threads, hit.thread).nvtx.name[hit.index]),
            QStringLiteral("forward"));
        // Between forward and backward (1050 us) the depth-1 row is empty.
        hit = view.hitTest({ xAt(1050), threadRowMiddle(view, RowKind::Nvtx, 1) });
        QCOMPARE(int(hit.kind), int(HitKind::None));

        // The API row at 1350 us: the synchronize call.
        hit = view.hitTest({ xAt(1350), threadRowMiddle(view, RowKind::Api, 0) });
        QCOMPARE(int(hit.kind), int(HitKind::Api));
        QCOMPARE(hit.start, kT0 + us(1100));
    }

    void selectingAKernelLinksItsLaunchAndTheReverse()
    {
        TimelineView view;
        view.resize(1270, 600);
        view.setData(fixtureData());
        view.zoom()->setWindow(kT0, kT0 + us(3200), false);
        const int x = int(view.zoom()->timeToX(kT0 + us(2800)));
        view.setSelection(view.hitTest({ x, mergedLaneMiddle(view, 0) })); // relu_kernel, corr 4
        QCOMPARE(int(view.linkedItem().kind), int(HitKind::Api));
        QCOMPARE(view.linkedItem().start, kT0 + us(1600));
        QVERIFY(!view.itemRect(view.linkedItem()).isEmpty());
        // The arrow is drawn between them: the pixels on the line are dark.
        const HitResult api = view.linkedItem();
        view.setSelection(api);
        QCOMPARE(int(view.linkedItem().kind), int(HitKind::Kernel));
        QCOMPARE(view.linkedItem().start, kT0 + us(2600));
    }

    void fullZoomOutFoldsTinyKernels()
    {
        auto trace = fixture::buildTrace(1);
        fixture::addDenseStream(*trace, 200'000); // 200k kernels over 400 ms
        TimelineView view;
        view.resize(1270, 400);
        view.setData(prepareTimelineData(trace));
        view.model()->toggleRow(1); // show the streams
        const int denseRow = view.model()->findRow(
            RowKind::StreamKernels, { .gpu = core::GpuIndex(0), .stream = core::StreamIndex(2) });
        QVERIFY(denseRow > 0);
        const int x = int(view.zoom()->timeToX(kT0 + us(200'000)));
        const HitResult hit = view.hitTest({ x, rowMiddle(view, denseRow) });
        QCOMPARE(int(hit.kind), int(HitKind::Fold));
        QCOMPARE(int(hit.foldOf), int(HitKind::Kernel));
        QVERIFY(hit.count > 100);
        QCOMPARE(hit.count, hit.last - hit.index + 1);
        // Painting draws a bounded number of items, not 200k.
        const QImage image = view.grab().toImage();
        QVERIFY(!image.isNull());
        QVERIFY2(view.lastItemCount() < 4 * 1000, qPrintable(QString::number(view.lastItemCount())));
    }

    void gapBandsAreDrawnWhereTheGapsAre()
    {
        TimelineView view;
        view.resize(1270, 400);
        view.setData(fixtureData());
        view.zoom()->setWindow(kT0, kT0 + us(3200), false);
        QTRY_VERIFY_WITH_TIMEOUT(view.model()->gapsReady(), 10000); // the bands come from the worker
        const QImage image = view.grab().toImage();
        const int vpLeft = view.viewport()->geometry().left();
        const int vpTop = view.viewport()->geometry().top();
        const auto &merged = view.model()->rows()[1];
        const int stripY = vpTop + merged.y + 3; // the gap strip along the lane's top edge
        const int mid = vpTop + merged.y + merged.height / 2;
        const QColor gapColour = opaque(gapCauseColor(core::GapCause::ApiCall));
        auto xAt = [&](double t) { return vpLeft + int(std::lround(view.zoom()->timeToX(kT0 + us(t)))); };
        // Inside the gap [1100, 1600) the top strip has the cause's colour ...
        for (double t : { 1110.0, 1350.0, 1590.0 })
            QVERIFY2(fixture::near(image.pixelColor(xAt(t), stripY), gapColour), qPrintable(QString::number(t)));
        // ... and outside it the lane shows kernels, not the gap colour.
        for (double t : { 500.0, 1000.0, 2000.0, 2900.0 })
            QVERIFY2(!fixture::near(image.pixelColor(xAt(t), stripY), gapColour), qPrintable(QString::number(t)));
        QVERIFY(fixture::near(image.pixelColor(xAt(200), mid), kernelColor("sgemm_kernel")));
        QVERIFY(fixture::near(image.pixelColor(xAt(500), mid), kernelColor("copy_kernel"))); // stream 8 overlaps it
        // The band's edges are at the gap's times (±1 px).
        const HitResult gap = view.hitTest({ xAt(1350) - vpLeft, mergedLaneMiddle(view, 0) });
        const QRectF r = view.itemRect(gap);
        QVERIFY(std::abs(r.left() - view.zoom()->timeToX(kT0 + us(1100))) <= 1.0);
        QVERIFY(std::abs(r.right() - view.zoom()->timeToX(kT0 + us(1600))) <= 1.0);

        // Raising the threshold above 500 us removes the band.
        view.model()->setGapThreshold(us(600));
        QTRY_VERIFY_WITH_TIMEOUT(view.model()->gapsReady(), 10000);
        QCOMPARE(view.model()->gapCount(), std::size_t(0));
        const QImage after = view.grab().toImage();
        QVERIFY(!fixture::near(after.pixelColor(xAt(1350), stripY), gapColour));
    }

    void findStepsThroughKernelAndNvtxMatches()
    {
        TimelineView view;
        view.resize(1270, 400);
        view.setData(fixtureData(2, 5000));
        QCOMPARE(view.find(QStringLiteral("RELU"), false), 2);
        view.findNext();
        QCOMPARE(int(view.selection().kind), int(HitKind::Kernel));
        QCOMPARE(view.selection().gpu.value(), 0u);
        view.findNext();
        QCOMPARE(view.selection().gpu.value(), 1u);
        // The view zooms to the match with margin: a window three times its length (it takes the
        // middle third, or slides to stay inside the capture) that holds it whole.
        const auto &sel = view.selection();
        const core::TimeNs off = view.model()->rankOffset(core::RankIndex(1));
        const core::TimeNs d = sel.end - sel.start;
        const auto *zoom = view.zoom();
        QVERIFY(std::abs(double(zoom->windowEnd() - zoom->windowStart() - 3 * d)) <= zoom->nsPerPx() + 1);
        QVERIFY(zoom->windowStart() <= sel.start + off && sel.end + off <= zoom->windowEnd());
        view.findPrevious(); // the first match, away from the capture's edges: exactly the middle third
        QCOMPARE(zoom->windowStart(), view.selection().start - (view.selection().end - view.selection().start));
        QCOMPARE(view.find(QStringLiteral("^(forward|backward)$"), true), 4);
        view.findPrevious();
        QCOMPARE(int(view.selection().kind), int(HitKind::Nvtx));
        QCOMPARE(view.find(QStringLiteral("no such name"), false), 0);
    }

    void aligningOnAnNvtxRangeLinesUpTheRanks()
    {
        TimelineModel model;
        model.setData(fixtureData(2, 777)); // rank 1 runs 777 us later
        QCOMPARE(model.rankOffset(core::RankIndex(1)), core::TimeNs(0));
        QVERIFY(model.alignOnNvtx(QStringLiteral("backward"), 1));
        QCOMPARE(model.rankOffset(core::RankIndex(0)), core::TimeNs(0));
        QCOMPARE(model.rankOffset(core::RankIndex(1)), -us(777));
        QVERIFY(!model.alignOnNvtx(QStringLiteral("backward"), 2)); // only one occurrence
        model.alignAbsolute();
        QCOMPARE(model.rankOffset(core::RankIndex(1)), core::TimeNs(0));
    }

    void rulerLabelsNeverOverlap_data()
    {
        QTest::addColumn<double>("windowUs");
        QTest::newRow("3.2 ms") << 3200.0;
        QTest::newRow("10 s") << 1e7;
        QTest::newRow("1.5 us") << 1.5;
        QTest::newRow("777 ms") << 777'000.0;
    }
    void rulerLabelsNeverOverlap()
    {
        QFETCH(double, windowUs);
        TimelineView view;
        view.resize(1270, 300);
        view.setData(fixtureData());
        view.zoom()->setWindow(kT0 + us(100), kT0 + us(100 + windowUs), false);
        QList<TimeRuler::Tick> labelled;
        for (const auto &tick : view.ruler()->ticks())
            if (!tick.label.isEmpty())
                labelled.append(tick);
        QVERIFY(labelled.size() >= 2);
        for (int i = 0; i < labelled.size(); ++i) {
            // Whole labels only: none is cut off at either edge of the ruler.
            QVERIFY2(labelled[i].labelRect.right() < view.ruler()->width(), qPrintable(labelled[i].label));
            if (labelled[i].x >= 0)
                QVERIFY2(labelled[i].labelRect.left() >= 0, qPrintable(labelled[i].label));
            if (i == 0)
                continue;
            QVERIFY2(labelled[i - 1].labelRect.right() < labelled[i].labelRect.left(), qPrintable(labelled[i].label));
            QVERIFY(labelled[i - 1].label != labelled[i].label);
        }
    }

    void tickLabelsTakeTheUnitWithFewestDigits()
    {
        QCOMPARE(formatTick(us(265'500), us(500), us(300'000)), QStringLiteral("265.5 ms"));
        QCOMPARE(formatTick(us(265'000), us(1000), us(300'000)), QStringLiteral("265 ms"));
        QCOMPARE(formatTick(us(270'000), us(10'000), us(300'000)), QStringLiteral("270 ms"));
        QCOMPARE(formatTick(us(150'270'000), us(1000), us(150'300'000)), QStringLiteral("150.270 s"));
        QCOMPARE(formatTick(4250, 10, us(5)), QStringLiteral("4.25 us"));
        QCOMPARE(formatTick(-us(2000), us(1000), us(3000)), QStringLiteral("-2 ms"));
        QCOMPARE(formatTick(0, 5, 40), QStringLiteral("0 ns"));
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
