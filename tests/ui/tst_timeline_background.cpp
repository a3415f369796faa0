// SPDX-License-Identifier: MIT
// The timeline draws a capture as soon as it is loaded; busy lanes, idle gaps and their blame
// come from the model's worker thread afterwards (gapsChanged), also after a threshold change,
// the newest request winning. Captures: the hand-built fixture (ui_fixture.h) and a small
// synthetic training run loaded like the app does (LoadController through MainWindow).
#include "ui_fixture.h"

#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/write/synth.h"
#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QImage>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;
using fixture::kT0;
using fixture::us;

namespace {

QColor opaque(const QColor &c)
{
    return QColor(c.red(), c.green(), c.blue());
}

// Core's idle gaps of every GPU at a threshold, as (gpu, range) in GPU then time order.
std::vector<std::pair<std::uint32_t, core::TimeRange>> coreGaps(const core::TraceSet &trace, core::TimeNs threshold)
{
    std::vector<std::pair<std::uint32_t, core::TimeRange>> out;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
        for (const auto &gap : core::findIdleGaps(core::computeGpuBusy(trace, g), threshold).gaps)
            out.emplace_back(g, gap);
    return out;
}

std::vector<std::pair<std::uint32_t, core::TimeRange>> timelineGaps(const TimelineModel &model)
{
    std::vector<std::pair<std::uint32_t, core::TimeRange>> out;
    for (std::uint32_t g = 0; g < model.trace()->gpus.size(); ++g) {
        const auto &list = model.gaps(core::GpuIndex(g));
        for (std::size_t i = 0; i < list.blame.size(); ++i) {
            if (list.blame[i].gap != core::TimeRange { list.start[i], list.end[i] })
                return {}; // blame and band columns disagree
            out.emplace_back(g, core::TimeRange { list.start[i], list.end[i] });
        }
    }
    return out;
}

// Pixels of the fixture's GPU 0 merged lane (row 1) in a grab of `view`.
struct LanePixels
{
    QColor kernelAt200us, stripAt1350us;
};
LanePixels lanePixels(TimelineView &view)
{
    const QImage image = view.grab().toImage();
    const QRect vp = view.viewport()->geometry();
    const auto &merged = view.model()->rows()[1];
    const int aboveNames = vp.top() + merged.y + 4;
    const int stripY = vp.top() + merged.y + 3; // the gap strip along the lane's top edge
    auto xAt = [&](double t) { return vp.left() + int(std::lround(view.zoom()->timeToX(kT0 + us(t)))); };
    return { image.pixelColor(xAt(200), aboveNames), image.pixelColor(xAt(1350), stripY) };
}

} // namespace

class TestTimelineBackground : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void theKernelsAreDrawnBeforeTheGapsArrive()
    {
        const auto trace = fixture::buildTrace(2);
        TimelineView view;
        view.resize(1270, 400);
        QSignalSpy gapsChanged(view.model(), &TimelineModel::gapsChanged);
        // As the loader hands it over: the capture alone, no busy lanes.
        view.setData(timelineDataOf(trace));
        view.zoom()->setWindow(kT0, kT0 + us(3200), false);

        // No event loop has run: whatever the worker did, nothing of it is applied yet.
        QCOMPARE(view.model()->rows().size(), std::size_t(12));
        QVERIFY(!view.model()->gapsReady());
        QCOMPARE(view.model()->gapCount(), std::size_t(0));
        QCOMPARE(gapsChanged.count(), 0);
        const QColor gapColour = opaque(gapCauseColor(core::GapCause::ApiCall));
        const LanePixels before = lanePixels(view);
        QVERIFY2(
            fixture::near(before.kernelAt200us, kernelColor("sgemm_kernel")), qPrintable(before.kernelAt200us.name()));
        QVERIFY2(!fixture::near(before.stripAt1350us, gapColour), qPrintable(before.stripAt1350us.name()));

        QTRY_COMPARE_WITH_TIMEOUT(gapsChanged.count(), 1, 10000);
        QVERIFY(view.model()->gapsReady());
        const auto expected = coreGaps(*trace, view.model()->gapThreshold());
        QCOMPARE(expected.size(), std::size_t(2)); // the synchronize gap on each GPU
        QCOMPARE(view.model()->gapCount(), expected.size());
        QCOMPARE(timelineGaps(*view.model()), expected);
        QCOMPARE(int(view.model()->gaps(core::GpuIndex(0)).blame[0].cause), int(core::GapCause::ApiCall));
        const LanePixels after = lanePixels(view);
        QVERIFY2(
            fixture::near(after.kernelAt200us, kernelColor("sgemm_kernel")), qPrintable(after.kernelAt200us.name()));
        QVERIFY2(fixture::near(after.stripAt1350us, gapColour), qPrintable(after.stripAt1350us.name()));
    }

    void aLoadedCaptureIsShownFirstAndItsGapsMatchCore()
    {
        core::SynthOptions o;
        o.ranks = 2;
        o.steps = 6;
        o.layers = 4;
        o.jitter = 0.2; // gaps of many lengths around the threshold
        const QString dir = m_dir.filePath(QStringLiteral("synth"));
        core::writeSyntheticCapture(dir.toStdString(), o);

        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *view = window.timelineView();
        // Connected after MainWindow's own slot: sees the view right after onLoadFinished.
        bool hadBusyLanes = true, gapsReadyAtLoad = true;
        std::size_t rowsAtLoad = 0, itemsAtLoad = 0;
        connect(window.loadController(), &LoadController::loadFinished, this,
            [&](std::shared_ptr<const TimelineData> data) {
                hadBusyLanes = data->busy != nullptr;
                gapsReadyAtLoad = view->model()->gapsReady();
                rowsAtLoad = view->model()->rows().size();
                view->viewport()->repaint(); // a synchronous frame of what is there now
                itemsAtLoad = view->lastItemCount();
            });
        QSignalSpy gapsChanged(view->model(), &TimelineModel::gapsChanged);
        QSignalSpy finished(window.loadController(), &LoadController::loadFinished);
        window.openPaths({ dir });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QVERIFY(!hadBusyLanes); // the loader thread did not merge the busy intervals
        QVERIFY(!gapsReadyAtLoad); // nor did the GUI thread blame the gaps before showing rows
        QVERIFY(rowsAtLoad >= 2 * 6);
        QVERIFY2(itemsAtLoad > 0, "the first frame drew kernels, NVTX and API rows");

        QTRY_VERIFY_WITH_TIMEOUT(view->model()->gapsReady(), 10000);
        QCOMPARE(gapsChanged.count(), 1);
        const auto *trace = view->model()->trace();
        const auto expected = coreGaps(*trace, view->model()->gapThreshold());
        // At least the input-bound gap at the start of every step but the first (gaps lie
        // between busy intervals, never before the first kernel).
        QVERIFY2(expected.size() >= 2 * (6 - 1), qPrintable(QString::number(expected.size())));
        QCOMPARE(view->model()->gapCount(), expected.size());
        QCOMPARE(timelineGaps(*view->model()), expected);
    }

    void aThresholdChangeIsComputedOnTheWorkerAndTheNewestWins()
    {
        const auto trace = fixture::buildTrace(2);
        TimelineModel model;
        model.setData(prepareTimelineData(trace));
        QVERIFY(model.waitForGaps());
        QCOMPARE(model.gapCount(), std::size_t(2));

        QSignalSpy gapsChanged(&model, &TimelineModel::gapsChanged);
        QSignalSpy thresholdChanged(&model, &TimelineModel::gapThresholdChanged);
        model.setGapThreshold(us(600));
        model.setGapThreshold(us(400));
        // The threshold is taken at once; the gaps shown stay until the worker's arrive.
        QCOMPARE(thresholdChanged.count(), 2);
        QCOMPARE(model.gapThreshold(), us(400));
        QVERIFY(!model.gapsReady());
        QCOMPARE(model.gapCount(), std::size_t(2));
        QTRY_VERIFY_WITH_TIMEOUT(model.gapsReady(), 10000);
        QTest::qWait(50); // a superseded (600 us) result would arrive by now
        QCOMPARE(gapsChanged.count(), 1);
        QCOMPARE(timelineGaps(model), coreGaps(*trace, us(400)));
        QCOMPARE(model.gapCount(), std::size_t(2));

        model.setGapThreshold(us(600));
        QTRY_COMPARE_WITH_TIMEOUT(gapsChanged.count(), 2, 10000);
        QCOMPARE(model.gapCount(), std::size_t(0));
        QCOMPARE(coreGaps(*trace, us(600)).size(), std::size_t(0));
    }

    void aSelectedGapSurvivesAThresholdThatKeepsIt()
    {
        TimelineView view;
        view.resize(1270, 400);
        view.setData(prepareTimelineData(fixture::buildTrace(2)));
        QVERIFY(view.model()->waitForGaps());
        QVERIFY(view.showGap(core::GpuIndex(0), core::TimeRange { kT0 + us(1100), kT0 + us(1600) }));
        QCOMPARE(int(view.selection().kind), int(HitKind::Gap));

        QSignalSpy gapsChanged(view.model(), &TimelineModel::gapsChanged);
        view.model()->setGapThreshold(us(200)); // the 500 us gap is still one
        QTRY_COMPARE_WITH_TIMEOUT(gapsChanged.count(), 1, 10000);
        QCOMPARE(int(view.selection().kind), int(HitKind::Gap));
        QCOMPARE(view.selection().start, kT0 + us(1100));
        QCOMPARE(view.model()->gaps(core::GpuIndex(0)).start[view.selection().index], kT0 + us(1100));

        view.model()->setGapThreshold(us(600)); // now it is not
        QTRY_COMPARE_WITH_TIMEOUT(gapsChanged.count(), 2, 10000);
        QCOMPARE(int(view.selection().kind), int(HitKind::None));
    }

    void aCopyOfTheViewSharesTheGapsInsteadOfComputingThem()
    {
        const auto data = prepareTimelineData(fixture::buildTrace(2));
        TimelineModel source;
        source.setData(data);
        source.setGapThreshold(us(300));
        TimelineModel copy; // what an export's hidden view does
        copy.setData(data);
        copy.copyViewStateFrom(source); // waits for the source's worker if needed
        QVERIFY(copy.gapsReady());
        QCOMPARE(copy.gapThreshold(), us(300));
        QCOMPARE(copy.gapCount(), std::size_t(2));
        QTRY_VERIFY_WITH_TIMEOUT(source.gapsReady(), 10000);
        QCOMPARE(&copy.gaps(core::GpuIndex(0)), &source.gaps(core::GpuIndex(0))); // one list, shared
    }
};

QTEST_MAIN(TestTimelineBackground)
#include "tst_timeline_background.moc"
