// SPDX-License-Identifier: MIT
// Loading on a worker thread: exports written with ExportWriter (see ui_fixture.h), a bad file
// among good ones, latest-wins cancellation, and the rows the timeline shows for the result.
#include "ui_fixture.h"

#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/problemspanel.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QFile>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

class TestLoadController : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_rank0, m_rank1, m_bad;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_rank0 = m_dir.filePath(QStringLiteral("rank0.sqlite"));
        m_rank1 = m_dir.filePath(QStringLiteral("rank1.sqlite"));
        m_bad = m_dir.filePath(QStringLiteral("broken.sqlite"));
        fixture::writeExport(m_rank0.toStdString(), 0);
        fixture::writeExport(m_rank1.toStdString(), 1);
        QFile bad(m_bad);
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("this is not an SQLite database, just some text that ends too early");
    }

    void loadingTwoExportsYieldsTheExpectedRows()
    {
        LoadController loader;
        QSignalSpy finished(&loader, &LoadController::loadFinished);
        QSignalSpy progress(&loader, &LoadController::progressChanged);
        loader.load({ m_rank0, m_rank1 });
        QVERIFY(loader.isLoading());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QVERIFY(!loader.isLoading());
        QVERIFY(progress.count() >= 1);
        const auto data = finished.at(0).at(0).value<std::shared_ptr<const TimelineData>>();
        QVERIFY(data && data->trace);
        QVERIFY2(
            data->trace->errors.empty(), data->trace->errors.empty() ? "" : data->trace->errors[0].message.c_str());
        QCOMPARE(data->trace->ranks.size(), std::size_t(2));

        TimelineModel model;
        model.setData(data);
        const auto &rows = model.rows();
        int headers = 0, merged = 0, nvtx = 0, api = 0, copies = 0;
        for (const auto &r : rows) {
            headers += r.kind == RowKind::RankHeader;
            merged += r.kind == RowKind::MergedKernels;
            nvtx += r.kind == RowKind::Nvtx;
            api += r.kind == RowKind::Api;
            copies += r.kind == RowKind::Copies;
        }
        QCOMPARE(headers, 2);
        QCOMPARE(merged, 2);
        QCOMPARE(copies, 2);
        QCOMPARE(nvtx, 4); // two depths per rank
        QCOMPARE(api, 2);
        QVERIFY(rows[0].label.startsWith(QStringLiteral("Rank 0")));
        QVERIFY(rows[0].label.contains(QStringLiteral("node0")));
        QTRY_VERIFY_WITH_TIMEOUT(model.gapsReady(), 10000); // blamed on the model's worker
        QCOMPARE(model.gapCount(), std::size_t(2)); // the 500 us synchronize gap, once per GPU
        QCOMPARE(model.gaps(core::GpuIndex(0)).blame[0].gap.duration(), fixture::us(500));
        QCOMPARE(int(model.gaps(core::GpuIndex(0)).blame[0].cause), int(core::GapCause::ApiCall));
    }

    void aBadFileAmongGoodOnesStillLoadsTheGoodOnes()
    {
        MainWindow window;
        QSignalSpy finished(window.loadController(), &LoadController::loadFinished);
        window.openPaths({ m_rank0, m_bad, m_rank1 });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        const auto *trace = window.timelineView()->model()->trace();
        QVERIFY(trace);
        QCOMPARE(trace->ranks.size(), std::size_t(2));
        QCOMPARE(trace->errors.size(), std::size_t(1));
        QVERIFY(QString::fromStdString(trace->errors[0].path).endsWith(QStringLiteral("broken.sqlite")));
        // The problem is listed, with the file name, in the (non-modal) problems panel.
        QVERIFY(window.problemsPanel()->problemCount() >= 1);
        QCOMPARE(window.problemsPanel()->topLevelItem(0)->text(0), QStringLiteral("broken.sqlite"));
        QVERIFY(window.timelineView()->model()->rows().size() >= 12);
    }

    void aNewLoadCancelsTheRunningOne()
    {
        LoadController loader;
        QSignalSpy finished(&loader, &LoadController::loadFinished);
        QSignalSpy cancelled(&loader, &LoadController::loadCancelled);
        loader.load({ m_rank0, m_rank1 });
        loader.load({ m_rank1 }); // latest wins
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QTest::qWait(200);
        QCOMPARE(finished.count(), 1); // the superseded load never reports
        const auto data = finished.at(0).at(0).value<std::shared_ptr<const TimelineData>>();
        QCOMPARE(data->trace->reports.size(), std::size_t(1));
        QCOMPARE(cancelled.count(), 0);

        loader.load({ m_rank0 });
        loader.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!loader.isLoading(), 20000);
        // Cancelled early or finished before the token was seen: exactly one outcome.
        QCOMPARE(cancelled.count() + finished.count(), 2);
    }

    // The main window loads in two stages: the GPU lanes are drawn first, without NVTX rows or
    // gaps (no blame without the NVTX phase), then the full capture replaces them. A bad file's
    // problem is listed once, as a single-stage load lists it.
    void stagedLoadDrawsGpuLanesBeforeNvtx()
    {
        MainWindow window;
        QVERIFY(window.loadController()->isStaged());
        auto *model = window.timelineView()->model();
        QStringList order;
        struct Rows
        {
            int merged = 0, copies = 0, api = 0, nvtx = 0;
        };
        auto countRows = [model] {
            Rows rows;
            for (const auto &r : model->rows()) {
                rows.merged += r.kind == RowKind::MergedKernels;
                rows.copies += r.kind == RowKind::Copies;
                rows.api += r.kind == RowKind::Api;
                rows.nvtx += r.kind == RowKind::Nvtx;
            }
            return rows;
        };
        Rows atFirstStage;
        bool gapsAtFirstStage = true, derivedAtFirstStage = true, loadingAtFirstStage = false;
        connect(window.loadController(), &LoadController::firstStageLoaded, this, [&] {
            order << QStringLiteral("first");
            atFirstStage = countRows();
            gapsAtFirstStage = model->gapsReady();
            derivedAtFirstStage = model->derived() != nullptr;
            loadingAtFirstStage = window.loadController()->isLoading();
            QVERIFY(model->data()->firstStage);
        });
        QSignalSpy finished(window.loadController(), &LoadController::loadFinished);
        connect(window.loadController(), &LoadController::loadFinished, this, [&] { order << QStringLiteral("full"); });
        window.openPaths({ m_rank0, m_bad, m_rank1 });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QCOMPARE(order, (QStringList { QStringLiteral("first"), QStringLiteral("full") }));
        QCOMPARE(atFirstStage.merged, 2);
        QCOMPARE(atFirstStage.copies, 2);
        QCOMPARE(atFirstStage.api, 2);
        QCOMPARE(atFirstStage.nvtx, 0);
        QVERIFY(!gapsAtFirstStage);
        QVERIFY(!derivedAtFirstStage);
        QVERIFY(loadingAtFirstStage);

        QVERIFY(!model->data()->firstStage);
        const auto full = countRows();
        QCOMPARE(full.merged, 2);
        QCOMPARE(full.nvtx, 4);
        QTRY_VERIFY_WITH_TIMEOUT(model->gapsReady(), 10000);
        QCOMPARE(model->gapCount(), std::size_t(2));
        QCOMPARE(int(model->gaps(core::GpuIndex(0)).blame[0].cause), int(core::GapCause::ApiCall));

        ProblemsPanel singleStage;
        const auto expected = singleStage.showProblems(*LoadController::loadNow({ m_rank0, m_bad, m_rank1 })->trace);
        QVERIFY(expected >= 1);
        QCOMPARE(window.problemsPanel()->problemCount(), expected);
    }

    // Cancelled while NVTX is read (the loader waits at the hook until the window has drawn the
    // first stage and cancelled): the capture shown before comes back, whole, and the window
    // loads the next capture as usual.
    void cancelDuringTheSecondStage()
    {
        MainWindow window;
        auto *loader = window.loadController();
        auto *model = window.timelineView()->model();
        QSignalSpy finished(loader, &LoadController::loadFinished);
        window.openPaths({ m_rank1 });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        const auto before = model->sharedData();
        QVERIFY(before && !before->firstStage);
        QTRY_VERIFY_WITH_TIMEOUT(model->gapsReady(), 10000);

        QSemaphore cancelled;
        loader->setAfterFirstStageHook([&cancelled] { cancelled.tryAcquire(1, 20000); });
        QSignalSpy firstStage(loader, &LoadController::firstStageLoaded);
        QSignalSpy cancelledSpy(loader, &LoadController::loadCancelled);
        bool firstStageShown = false;
        // Single shot: the load after this one must not be cancelled by it too (it was, when
        // its first stage arrived while the load still ran, as under ASan).
        connect(
            loader, &LoadController::firstStageLoaded, this,
            [&] {
                // The previous capture's gaps are not drawn over the new lanes.
                firstStageShown = model->data()->firstStage && model->trace()->ranks.size() == 2 && !model->derived()
                    && !model->gapsReady() && model->gapCount() == 0;
                loader->cancel();
                cancelled.release();
            },
            Qt::SingleShotConnection);
        window.openPaths({ m_rank0, m_rank1 });
        QTRY_COMPARE_WITH_TIMEOUT(cancelledSpy.count(), 1, 20000);
        QCOMPARE(firstStage.count(), 1);
        QVERIFY(firstStageShown);
        QCOMPARE(finished.count(), 1);
        QVERIFY(!loader->isLoading());
        QCOMPARE(model->sharedData(), before);
        QVERIFY(model->gapsReady());
        QCOMPARE(model->trace()->ranks.size(), std::size_t(1));

        loader->setAfterFirstStageHook({});
        window.openPaths({ m_rank0, m_rank1 });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 20000);
        QCOMPARE(model->trace()->ranks.size(), std::size_t(2));
        QTRY_VERIFY_WITH_TIMEOUT(model->gapsReady(), 10000);
    }

    // Zoomed in while the first stage is shown: the full capture opens at the same window; left
    // fitted, it opens fitted to its own span (which NVTX may widen).
    void aZoomMadeDuringTheFirstStageIsKept()
    {
        MainWindow window;
        window.resize(1200, 800);
        auto *loader = window.loadController();
        auto *zoom = window.timelineView()->zoom();
        QSemaphore zoomed;
        loader->setAfterFirstStageHook([&zoomed] { zoomed.tryAcquire(1, 20000); });
        core::TimeRange chosen;
        connect(loader, &LoadController::firstStageLoaded, this, [&] {
            const auto span = window.timelineView()->model()->displaySpan();
            chosen = { span.start + span.duration() / 4, span.start + span.duration() / 2 };
            zoom->setWindow(chosen.start, chosen.end, true);
            chosen = { zoom->windowStart(), zoom->windowEnd() };
            zoomed.release();
        });
        QSignalSpy finished(loader, &LoadController::loadFinished);
        window.openPaths({ m_rank0, m_rank1 });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QVERIFY(chosen.duration() > 0);
        QCOMPARE(zoom->windowStart(), chosen.start);
        QCOMPARE(zoom->windowEnd(), chosen.end);
        QVERIFY(!zoom->isFitted());

        loader->setAfterFirstStageHook({});
        disconnect(loader, &LoadController::firstStageLoaded, this, nullptr);
        window.openPaths({ m_rank0, m_rank1 });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 20000);
        QVERIFY(zoom->isFitted());
    }
};

QTEST_MAIN(TestLoadController)
#include "tst_loadcontroller.moc"
