// SPDX-License-Identifier: MIT
// Loading on a worker thread: exports written with ExportWriter (see ui_fixture.h), a bad file
// among good ones, latest-wins cancellation, and the rows the timeline shows for the result.
#include "ui_fixture.h"

#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/problemspanel.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QFile>
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
};

QTEST_MAIN(TestLoadController)
#include "tst_loadcontroller.moc"
