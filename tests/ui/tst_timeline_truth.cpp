// SPDX-License-Identifier: MIT
// The timeline tells the truth zoomed out: a GPU lane shows how busy each pixel column was
// (not one arbitrary kernel per fold), idle gaps keep their bands and cause colour at every
// zoom, and a fold of many NVTX ranges never looks like one range.
#include "picture_fixture.h"
#include "ui_fixture.h"

#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QImage>
#include <QTest>

#include <functional>

using namespace gaplens;
using namespace gaplens::ui;
using fixture::kT0;
using fixture::us;

namespace {

constexpr int kPeriods = 10;
constexpr double kPeriodUs = 10'000; // each period: 2 ms of kernels at 50% duty, then 8 ms idle
constexpr int kKernelsPerPeriod = 1000; // 1 us every 2 us

// One rank, one GPU, one stream; one thread with 2,000 NVTX ranges of 1 us (every 5 us, in
// the first 10 ms) and one long "train" range.
std::shared_ptr<core::TraceSet> dutyCycleTrace()
{
    using namespace core;
    auto t = std::make_shared<TraceSet>();
    Report report;
    report.path = "duty.sqlite";
    t->reports.push_back(report);
    Rank rank;
    rank.pid = 100;
    t->ranks.push_back(rank);
    Gpu gpu;
    gpu.name = "Test GPU";
    Stream stream;
    stream.pid = 100;
    stream.streamId = 7;
    stream.rank = 0;
    const StringId name = t->strings.intern("tiny_kernel");
    for (int p = 0; p < kPeriods; ++p)
        for (int i = 0; i < kKernelsPerPeriod; ++i) {
            const TimeNs start = kT0 + us(p * kPeriodUs + 2.0 * i);
            fixture::pushKernel(stream.kernels, start, start + 1000, name);
        }
    gpu.streams.push_back(std::move(stream));
    t->gpus.push_back(std::move(gpu));
    Thread thread;
    thread.pid = thread.tid = 100;
    thread.rank = 0;
    thread.name = t->strings.intern("main");
    auto addRange = [&](TimeNs start, TimeNs end, const char *text) {
        thread.nvtx.start.push_back(start);
        thread.nvtx.end.push_back(end);
        thread.nvtx.name.push_back(t->strings.intern(text));
        thread.nvtx.domain.push_back(kEmptyString);
        thread.nvtx.kind.push_back(NvtxKind::PushPop);
    };
    for (int i = 0; i < 2000; ++i)
        addRange(kT0 + us(5.0 * i), kT0 + us(5.0 * i + 1), "op");
    addRange(kT0 + us(20'000), kT0 + us(90'000), "train");
    t->threads.push_back(std::move(thread));
    finalizeTraceSet(*t);
    return t;
}

struct Shown
{
    QImage image;
    QRect lane; // the merged lane's drawing area, image coordinates
    QRect nvtx; // the NVTX row's band
    std::function<int(double)> xAt; // image x of a time (us from kT0)
};

Shown showFittedAndGrab(TimelineView &view)
{
    view.resize(1270, 400);
    view.setData(prepareTimelineData(dutyCycleTrace()));
    view.zoom()->fitAll();
    [&] { QTRY_VERIFY_WITH_TIMEOUT(view.model()->gapsReady(), 10000); }();
    Shown s;
    s.image = fixture::grabTimeline(view, QStringLiteral("timeline_truth.png"));
    for (const auto &row : view.model()->rows()) {
        const QRect band = fixture::rowBand(view, row);
        if (row.kind == RowKind::MergedKernels)
            s.lane = band.adjusted(0, 2, 0, -1);
        if (row.kind == RowKind::Nvtx && s.nvtx.isNull())
            s.nvtx = band;
    }
    s.xAt = [&view](double t) { return fixture::imageX(view, kT0 + us(t)); };
    return s;
}

} // namespace

class TestTimelineTruth : public QObject
{
    Q_OBJECT
private slots:
    void aZoomedOutLaneShowsEachColumnsUtilisation()
    {
        TimelineView view;
        const Shown s = showFittedAndGrab(view);
        QVERIFY(!s.lane.isNull());
        const QColor fill = Theme::current().utilisationFill;
        const int bottom = s.lane.bottom();
        const int half = s.lane.top() + s.lane.height() / 2;
        for (int p = 0; p < kPeriods; ++p) {
            // Inside the 2 ms of kernels at 50% duty: a bar to half the lane's height ...
            const int busyX = s.xAt(p * kPeriodUs + 1000);
            QVERIFY2(fixture::near(s.image.pixelColor(busyX, bottom), fill, 3), qPrintable(QString::number(p)));
            QVERIFY2(fixture::near(s.image.pixelColor(busyX, half + 2), fill, 3), qPrintable(QString::number(p)));
            QVERIFY2(
                !fixture::near(s.image.pixelColor(busyX, s.lane.top() + 5), fill, 3), qPrintable(QString::number(p)));
            // ... and none in the 8 ms idle gap (the capture ends after the last burst), which
            // keeps its band and its cause's strip.
            if (p == kPeriods - 1)
                continue;
            const int idleX = s.xAt(p * kPeriodUs + 6000);
            QVERIFY(!fixture::near(s.image.pixelColor(idleX, bottom), fill, 3));
            const QColor cause = gapCauseColor(core::GapCause::NoCudaCall);
            QVERIFY2(fixture::near(s.image.pixelColor(idleX, s.lane.top() + 1), cause, 3),
                qPrintable(s.image.pixelColor(idleX, s.lane.top() + 1).name()));
        }
        // Over the whole lane the columns with a bar are the 2 ms of every 10 ms (20%), give or
        // take a column at each edge of each burst.
        int withBar = 0, columns = 0;
        for (int x = s.xAt(0); x < s.xAt(kPeriods * kPeriodUs - 8000); ++x, ++columns)
            withBar += fixture::near(s.image.pixelColor(x, bottom), fill, 3);
        const double share = double(withBar) / double(columns);
        QVERIFY2(share > 0.18 && share < 0.24, qPrintable(QString::number(share)));
    }

    void aFoldOfManyRangesIsNeutralInsetAndCounted()
    {
        TimelineView view;
        const Shown s = showFittedAndGrab(view);
        QVERIFY(!s.nvtx.isNull());
        // The 2,000 "op" ranges in the first 10 ms fold into few items: neutral, inset, edged.
        const int foldX = s.xAt(5000);
        const Theme &theme = Theme::current();
        bool neutral = false;
        for (int y = s.nvtx.top() + 4; y < s.nvtx.bottom() - 3; ++y) {
            const QColor c = s.image.pixelColor(foldX, y);
            neutral = neutral || fixture::near(c, theme.foldFill, 3) || fixture::near(c, theme.foldEdge, 3);
            QVERIFY2(!fixture::near(c, view.model()->nvtxColor(view.model()->trace()->strings.find("op")), 3),
                qPrintable(c.name()));
        }
        QVERIFY(neutral);
        // A real range keeps the full height and its colour.
        const QColor train = view.model()->nvtxColor(view.model()->trace()->strings.find("train"));
        QVERIFY(fixture::near(s.image.pixelColor(s.xAt(50'000), s.nvtx.top() + s.nvtx.height() / 2), train, 3));
        // Its tooltip says how many ranges it holds.
        const QRect vp = view.viewport()->geometry();
        const HitResult hit = view.hitTest({ foldX - vp.left(), s.nvtx.center().y() - vp.top() });
        QCOMPARE(int(hit.kind), int(HitKind::Fold));
        QCOMPARE(int(hit.foldOf), int(HitKind::Nvtx));
        QVERIFY(hit.count > 50);
        QVERIFY2(tooltipText(*view.model(), hit).contains(countText(hit.count, HitKind::Nvtx)),
            qPrintable(tooltipText(*view.model(), hit)));
    }
};

QTEST_MAIN(TestTimelineTruth)
#include "tst_timeline_truth.moc"
