// SPDX-License-Identifier: MIT
// `gaplens --render OUT.png --size WxH --range A:B FILES...` run as a process, offscreen.
#include "ui_fixture.h"

#include "ui/timeline/colors.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;
using fixture::near;

class TestRender : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_file;

    int run(const QStringList &args, QString *stderrText = nullptr)
    {
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("QT_QPA_PLATFORM")); // --render must pick offscreen by itself
        env.remove(QStringLiteral("DISPLAY"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(GAPLENS_GUI_BIN), args);
        if (!p.waitForFinished(60000))
            return -1;
        if (stderrText)
            *stderrText = QString::fromLocal8Bit(p.readAllStandardError());
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_file = m_dir.filePath(QStringLiteral("rank0.sqlite"));
        fixture::writeExport(m_file.toStdString(), 0);
    }

    void renderWritesAPngOfTheRequestedSizeShowingLaneAndGap()
    {
        const QString out = m_dir.filePath(QStringLiteral("out.png"));
        // The capture starts at 0 us (train_step), so 0:3.2ms is exactly the fixture's span.
        QString err;
        QCOMPARE(run({ QStringLiteral("--render"), out, QStringLiteral("--size"), QStringLiteral("800x400"),
                         QStringLiteral("--range"), QStringLiteral("0:3.2ms"), m_file },
                     &err),
            0);
        QImage image(out);
        QVERIFY2(!image.isNull(), qPrintable(err));
        QCOMPARE(image.size(), QSize(800, 400));

        // Layout: labels on the left, ruler on top, then rank header and the merged lane.
        const int left = TimelineView::kLabelWidth;
        const int width = 800 - left; // 6 rows fit: no vertical scroll bar
        const int laneTop = TimelineView::kRulerHeight + TimelineModel::kHeaderHeight;
        const int laneMid = laneTop + 4; // above the names drawn inside the boxes
        const int laneStrip = laneTop + 3; // the gap strip along the lane's top edge
        auto xAt = [&](double t) { return left + int(t / 3200.0 * width); };
        const auto why = [&](int x, int y) {
            image.save(QDir::temp().filePath(QStringLiteral("gaplens_tst_render_actual.png")));
            return qPrintable(QStringLiteral("pixel (%1,%2) is %3").arg(x).arg(y).arg(image.pixelColor(x, y).name()));
        };
        QVERIFY2(near(image.pixelColor(xAt(200), laneMid), kernelColor("sgemm_kernel")), why(xAt(200), laneMid));
        QVERIFY(near(image.pixelColor(xAt(2000), laneMid), kernelColor("ncclKernel_AllReduce_RING")));
        const QColor gap = gapCauseColor(core::GapCause::ApiCall);
        QVERIFY(near(image.pixelColor(xAt(1350), laneStrip), QColor(gap.red(), gap.green(), gap.blue())));
        QVERIFY(!near(image.pixelColor(xAt(2000), laneStrip), QColor(gap.red(), gap.green(), gap.blue())));
    }

    void renderFailsWithAMessageOnBadInput()
    {
        const QString out = m_dir.filePath(QStringLiteral("bad.png"));
        QString err;
        QVERIFY(
            run({ QStringLiteral("--render"), out, QStringLiteral("--size"), QStringLiteral("banana"), m_file }, &err)
            != 0);
        QVERIFY(err.contains(QStringLiteral("--size")));
        QVERIFY(run({ QStringLiteral("--render"), out, m_dir.filePath(QStringLiteral("missing.sqlite")) }, &err) != 0);
        QVERIFY(err.contains(QStringLiteral("missing.sqlite")));
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_MAIN(TestRender)
#include "tst_render.moc"
