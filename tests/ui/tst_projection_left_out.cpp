// SPDX-License-Identifier: MIT
// A capture whose projected NVTX rows would not fit in memory (DerivedOptions::
// projectionMemoryLimit) opens without them, and the status bar says so, with why on hover,
// so that the missing rows are not read as "no NVTX".
#include "ui_fixture.h"

#include "gaplens/core/analysis/derived_capture.h"
#include "ui/loading/derivedcapturecontroller.h"
#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

class TestProjectionLeftOut : public QObject
{
    Q_OBJECT

    static int projectedRows(const TimelineModel &model)
    {
        int rows = 0;
        for (const auto &row : model.rows())
            rows += row.kind == RowKind::ProjectedNvtx;
        return rows;
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void rowsThatWouldNotFitAreLeftOutAndSaid()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath(QStringLiteral("rank0.sqlite"));
        fixture::writeExport(file.toStdString(), 0);
        MainWindow w;
        QSignalSpy finished(w.loadController(), &LoadController::loadFinished);
        w.openPaths({ file });
        QVERIFY(finished.wait(30000));
        auto *model = w.timelineView()->model();
        QVERIFY(model->derivedSource()->waitUntilReady());
        auto *status = w.findChild<QLabel *>(QStringLiteral("captureStatus"));
        QVERIFY(status);
        // With the memory this machine has, the rows are built.
        QVERIFY(model->derived()->projectedNvtx());
        QVERIFY(projectedRows(*model) > 0);
        QVERIFY2(!status->text().contains(QStringLiteral("left out")), qPrintable(status->text()));

        core::DerivedOptions tight = model->derived()->options();
        tight.projectionMemoryLimit = 1;
        auto without = core::DerivedCapture::build(model->derived()->sharedTrace(), tight);
        QVERIFY(without && !without->projectedNvtx());
        model->derivedSource()->adopt(without);
        QCOMPARE(projectedRows(*model), 0);
        QVERIFY2(status->text().endsWith(QStringLiteral("; projected NVTX rows left out (hover for why)")),
            qPrintable(status->text()));
        QCOMPARE(status->toolTip(), QString::fromStdString(without->projectionSkipped()));
        QVERIFY(status->toolTip().startsWith(QStringLiteral("The projected NVTX rows under the GPUs were not built")));
    }
};

QTEST_MAIN(TestProjectionLeftOut)
#include "tst_projection_left_out.moc"
