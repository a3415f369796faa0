// SPDX-License-Identifier: MIT
// The window's one derived capture (DerivedCaptureController): a threshold change builds one
// core::DerivedCapture that the timeline and every panel read, the newest request wins, a
// superseded or abandoned build delivers nothing, and the Gap Blame panel selects its gap on
// the timeline by GapId.
#include "ui_fixture.h"

#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/synth.h"
#include "ui/loading/derivedcapturecontroller.h"
#include "ui/panels/gapblamepanel.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/rankpacepanel.h"
#include "ui/panels/summarypanel.h"
#include "ui/panels/topkernelspanel.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;
using fixture::kT0;
using fixture::us;

class TestDerivedCaptureUi : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const core::TraceSet> m_synth; // large enough that a build takes a while

    std::shared_ptr<const core::TraceSet> synth()
    {
        if (!m_synth) {
            core::SynthOptions o;
            o.ranks = 2;
            o.steps = 40;
            const QString dir = m_dir.filePath(QStringLiteral("synth"));
            core::writeSyntheticCapture(dir.toStdString(), o);
            core::LoadOptions load;
            load.files.push_back(dir.toStdString());
            m_synth = core::loadTraceSet(load);
        }
        return m_synth;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void oneThresholdChangeBuildsOneDerivedCaptureForTheTimelineAndEveryPanel()
    {
        fixture::PanelWindow w;
        QCOMPARE(w.context.derivedSource(), &w.derived()); // the panels read the timeline's
        const auto before = w.generations();
        w.load(timelineDataOf(fixture::buildTrace(2))); // as the loader hands it over
        QVERIFY(w.waitAll(before));
        QCOMPARE(w.derived().buildCount(), 1); // one build for the timeline and four panels
        QVERIFY(w.view.model()->gapsReady());
        const auto first = w.view.model()->derived();
        QCOMPARE(w.blame.result().derived, first);

        const auto beforeChange = w.generations();
        w.view.model()->setGapThreshold(us(300)); // what the toolbar does
        QVERIFY(w.waitAll(beforeChange));
        QCOMPARE(w.derived().buildCount(), 2);
        const auto second = w.view.model()->derived();
        QVERIFY(second != first);
        QCOMPARE(second->minGapNs(), us(300));
        QCOMPARE(w.context.derived(), second);
        QCOMPARE(w.blame.result().derived, second);
        QCOMPARE(w.blame.result().threshold, us(300));
        // What the panel shows is what core's blame gives at that threshold.
        core::GapBlameOptions o;
        o.minGapNs = us(300);
        const auto report = core::blameGaps(second->trace(), o);
        QCOMPARE(w.blame.result().overall.gapCount, report.overall.gapCount);
        QCOMPARE(w.blame.result().overall.totalGapNs, report.overall.totalGapNs);
        QCOMPARE(w.view.model()->gapCount(), std::size_t(report.overall.gapCount));
        // The threshold-independent parts are shared with the first build, not recomputed.
        QCOMPARE(second->busyLanes(), first->busyLanes());
        QCOMPARE(second->foldIndex(), first->foldIndex());

        // A scope change (ranks) reads the same derived capture: no build.
        const auto beforeScope = w.generations();
        w.context.setRanks({ 0 });
        QVERIFY(w.waitAll(beforeScope));
        QCOMPARE(w.derived().buildCount(), 2);
        QCOMPARE(w.blame.result().derived, second);
    }

    void aPreparedCaptureIsUsedWithoutABuild()
    {
        fixture::PanelWindow w;
        const auto before = w.generations();
        w.load(prepareTimelineData(fixture::buildTrace(2))); // built on this thread at 100 us
        QVERIFY(w.waitAll(before));
        QCOMPARE(w.derived().buildCount(), 0);
        QVERIFY(w.view.model()->gapsReady());
    }

    void theNewestThresholdWins()
    {
        DerivedCaptureController controller;
        QSignalSpy changed(&controller, &DerivedCaptureController::derivedChanged);
        controller.setTrace(synth());
        controller.setGapThreshold(us(50));
        controller.setGapThreshold(us(200));
        controller.setGapThreshold(us(500));
        QCOMPARE(controller.gapThreshold(), us(500));
        QVERIFY(!controller.isReady());
        QTRY_VERIFY_WITH_TIMEOUT(controller.isReady(), 20000);
        QTest::qWait(100); // a superseded build would be delivered by now
        QCOMPARE(changed.count(), 1);
        QCOMPARE(controller.derived()->minGapNs(), us(500));
        QCOMPARE(controller.buildCount(), 4);

        // Back at the threshold shown: nothing to build.
        controller.setGapThreshold(us(200));
        controller.setGapThreshold(us(500));
        QCOMPARE(controller.buildCount(), 5);
        QVERIFY(controller.isReady());
        QTest::qWait(100);
        QCOMPARE(changed.count(), 1);
    }

    void aSupersededCaptureIsCancelledAndNeverDelivered()
    {
        DerivedCaptureController controller;
        QSignalSpy changed(&controller, &DerivedCaptureController::derivedChanged);
        controller.setTrace(synth());
        const auto small = fixture::buildTrace(2);
        controller.setTrace(small); // a new load while the first build runs
        QVERIFY(controller.waitUntilReady());
        QCOMPARE(controller.derived()->sharedTrace(), std::shared_ptr<const core::TraceSet>(small));
        QTest::qWait(100);
        QCOMPARE(changed.count(), 1);

        // Closed while building: the build is cancelled and delivers nowhere.
        auto gone = std::make_unique<DerivedCaptureController>();
        QSignalSpy goneChanged(gone.get(), &DerivedCaptureController::derivedChanged);
        gone->setTrace(synth());
        gone.reset();
        QTest::qWait(100);
        QCOMPARE(goneChanged.count(), 0);
    }

    void waitUntilReadyBlocksAndAppliesOnce()
    {
        DerivedCaptureController controller;
        QSignalSpy changed(&controller, &DerivedCaptureController::derivedChanged);
        QVERIFY(!controller.waitUntilReady()); // no capture
        controller.setTrace(synth());
        QVERIFY(controller.waitUntilReady()); // no event loop ran
        QCOMPARE(changed.count(), 1);
        QTest::qWait(50);
        QCOMPARE(changed.count(), 1);
    }

    void theGapBlamePanelSelectsItsGapOnTheTimelineById()
    {
        fixture::PanelWindow w;
        w.view.resize(1270, 400);
        const auto before = w.generations();
        w.load(timelineDataOf(fixture::buildTrace(2)));
        QVERIFY(w.waitAll(before));
        const auto &result = w.blame.result();
        QVERIFY(!result.gaps.empty());
        QCOMPARE(result.gapIds.size(), result.gaps.size());
        const auto shown = w.blame.stepRow(0, 0);
        QVERIFY(shown);
        const auto &sel = w.view.selection();
        QCOMPARE(int(sel.kind), int(HitKind::Gap));
        // The selection is the panel's gap by id: same GPU, ordinal and range.
        std::size_t i = 0;
        while (i < result.gaps.size() && result.gaps[i].gap != shown->gap)
            ++i;
        QVERIFY(i < result.gaps.size());
        QCOMPARE(sel.gpu.value(), result.gapIds[i].gpu.value());
        QCOMPARE(sel.index, result.gapIds[i].ordinal);
        QCOMPARE((core::TimeRange { sel.start, sel.end }), result.derived->gapRange(result.gapIds[i]));
    }
};

QTEST_MAIN(TestDerivedCaptureUi)
#include "tst_derivedcapture_ui.moc"
