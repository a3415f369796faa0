// SPDX-License-Identifier: MIT
// `gaplens --render OUT.png --size WxH --range A:B FILES...` run as a process, offscreen.
#include "ui_fixture.h"

#include "ui/export/viewexporter.h"
#include "ui/loading/loadcontroller.h"
#include "ui/rendercommand.h"
#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QDir>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QSvgRenderer>
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

    QString m_eight; // a folder of 8 one-rank exports

    RenderRequest eightRanks(QSize size) const
    {
        RenderRequest request;
        request.files = { m_eight };
        request.size = size;
        request.range = QStringLiteral("0:3.2ms");
        return request;
    }

    // The rows the picture of `request` shows: a model over the same capture fitted as the
    // picture's view is (or, growing, all of them).
    std::unique_ptr<TimelineModel> rowsOf(const RenderRequest &request, QSize pictureSize) const
    {
        auto model = std::make_unique<TimelineModel>();
        model->setData(LoadController::loadNow(request.files));
        model->waitForGaps(); // as the render does: rows such as the projected NVTX come with it
        model->setDetail(request.lanes);
        if (request.fit == ViewExporter::Fit::Shrink)
            model->fitToHeight(ViewExporter::timelineLayout(pictureSize).view.height() - TimelineView::kRulerHeight);
        return model;
    }

    // Every merged lane of `rows` shows `kernel` at `atUs` into the 3.2 ms window.
    void checkEveryLane(
        const QImage &image, const TimelineModel &rows, int expectedLanes, double atUs, const char *kernel) const
    {
        const int viewTop = ViewExporter::timelineLayout(image.size()).view.top() + TimelineView::kRulerHeight;
        const int left = TimelineView::kLabelWidth, width = image.width() - left;
        const int x = left + int(atUs / 3200.0 * width);
        int lanes = 0;
        for (const auto &row : rows.rows()) {
            if (row.kind != RowKind::MergedKernels)
                continue;
            const int y = viewTop + row.y + 4; // above the names drawn inside the boxes
            if (y >= ViewExporter::timelineLayout(image.size()).legend.top())
                continue;
            ++lanes;
            if (!near(image.pixelColor(x, y), kernelColor(kernel))) {
                image.save(QDir::temp().filePath(QStringLiteral("gaplens_tst_render_lanes.png")));
                QFAIL(qPrintable(QStringLiteral("rank %1's lane at (%2,%3) is %4")
                                     .arg(row.rank.value())
                                     .arg(x)
                                     .arg(y)
                                     .arg(image.pixelColor(x, y).name())));
            }
        }
        QCOMPARE(lanes, expectedLanes);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_file = m_dir.filePath(QStringLiteral("rank0.sqlite"));
        fixture::writeExport(m_file.toStdString(), 0);
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("eight")));
        m_eight = m_dir.filePath(QStringLiteral("eight"));
        for (int r = 0; r < 8; ++r)
            fixture::writeExport(QDir(m_eight).filePath(QStringLiteral("rank%1.sqlite").arg(r)).toStdString(), r);
    }

    void aRenderOfEightRanksKeepsItsSizeAndShowsEveryRank()
    {
        // 8 ranks need 1,104 px of rows; a 1600x900 picture has 788: the API rows fold away, then
        // the NVTX rows (the CPU ranges and those projected onto the GPUs).
        const auto request = eightRanks(QSize(1600, 900));
        QString error;
        const QImage image = renderTimeline(request, &error);
        QVERIFY2(!image.isNull(), qPrintable(error));
        QCOMPARE(image.size(), QSize(1600, 900));
        QCOMPARE(lastRenderNote(), QStringLiteral("detail rows hidden to fit"));
        const auto rows = rowsOf(request, image.size());
        QCOMPARE(int(rows->detail()), int(RowDetail::Copies));
        checkEveryLane(image, *rows, 8, 1000, "sgemm_kernel");
        // Every rank's header is there too, and the title band and legend band frame the view.
        QCOMPARE(int(std::count_if(rows->rows().begin(), rows->rows().end(),
                     [](const TimelineRow &r) { return r.kind == RowKind::RankHeader; })),
            8);
        const auto layout = ViewExporter::timelineLayout(image.size());
        QVERIFY(near(image.pixelColor(2, layout.title.center().y()), Theme::current().headerBackground, 2));
        QVERIFY(near(image.pixelColor(1598, layout.legend.center().y()), Theme::current().rulerBackground, 2));
    }

    void aGpuLanesRenderDrawsOnlyTheMergedLanes()
    {
        auto request = eightRanks(QSize(1600, 900));
        request.lanes = RowDetail::GpuLanes;
        QString error;
        const QImage image = renderTimeline(request, &error);
        QCOMPARE(image.size(), QSize(1600, 900));
        QCOMPARE(lastRenderNote(), QString());
        const auto rows = rowsOf(request, image.size());
        QCOMPARE(int(rows->rows().size()), 8);
        checkEveryLane(image, *rows, 8, 1000, "sgemm_kernel");
        // Below the eighth lane nothing is drawn, in the tracks or the labels.
        const int below = ViewExporter::timelineLayout(image.size()).view.top() + TimelineView::kRulerHeight
            + 8 * TimelineModel::kLaneHeight + 10;
        QVERIFY(near(image.pixelColor(800, below), Theme::current().emptyBackground, 2));
        QVERIFY(near(image.pixelColor(30, below), Theme::current().labelBackground, 2));

        // And headless, from the command line.
        const QString out = m_dir.filePath(QStringLiteral("gpu.png"));
        QString err;
        QCOMPARE(run({ QStringLiteral("--render"), out, QStringLiteral("--lanes"), QStringLiteral("gpu"),
                         QStringLiteral("--range"), QStringLiteral("0:3.2ms"), m_eight },
                     &err),
            0);
        const QImage fromCli(out);
        QCOMPARE(fromCli.size(), QSize(1600, 900)); // the default size
        checkEveryLane(fromCli, *rows, 8, 1000, "sgemm_kernel");
        QVERIFY(
            run({ QStringLiteral("--render"), out, QStringLiteral("--lanes"), QStringLiteral("some"), m_eight }, &err)
            != 0);
        QVERIFY2(err.contains(QStringLiteral("--lanes")), qPrintable(err));
    }

    void growingKeepsEveryRowAndMakesThePictureTaller()
    {
        auto request = eightRanks(QSize(1600, 600));
        request.fit = ViewExporter::Fit::Grow;
        QString error;
        const QImage image = renderTimeline(request, &error);
        QCOMPARE(image.width(), 1600);
        // Exactly tall enough for the ruler and all 1,104 px of rows (138 per rank: 106, and the
        // two rows of NVTX ranges projected onto its GPU).
        QCOMPARE(ViewExporter::timelineLayout(image.size()).view.height(), TimelineView::kRulerHeight + 8 * 138);
        QCOMPARE(lastRenderNote(), QString());
        const auto rows = rowsOf(request, image.size());
        QCOMPARE(int(rows->detail()), int(RowDetail::All));
        checkEveryLane(image, *rows, 8, 1000, "sgemm_kernel");

        const QString out = m_dir.filePath(QStringLiteral("grow.png"));
        QString err;
        QCOMPARE(run({ QStringLiteral("--render"), out, QStringLiteral("--size"), QStringLiteral("1600x600"),
                         QStringLiteral("--fit"), QStringLiteral("grow"), QStringLiteral("--range"),
                         QStringLiteral("0:3.2ms"), m_eight },
                     &err),
            0);
        QCOMPARE(QImage(out).size(), image.size());
        QVERIFY(
            run({ QStringLiteral("--render"), out, QStringLiteral("--fit"), QStringLiteral("stretch"), m_eight }, &err)
            != 0);
        QVERIFY2(err.contains(QStringLiteral("--fit")), qPrintable(err));
    }

    void aTooSmallPictureSaysHowManyRanksFitAndTheSvgHasNoScrollBar()
    {
        // 120 px leave 48 px of rows: four 11 px lanes. The rest would need a scroll bar,
        // which a picture never has: the lanes' kernels reach its right edge.
        auto request = eightRanks(QSize(1600, 120));
        request.range = QStringLiteral("0:3ms"); // relu_kernel runs to 3.1 ms: past the right edge
        QString error;
        const QByteArray svg = renderTimelineSvg(request, &error);
        QVERIFY2(!svg.isEmpty(), qPrintable(error));
        QCOMPARE(lastRenderNote(), QStringLiteral("4 of 8 ranks fit: grow the picture"));
        QVERIFY(svg.contains("4 of 8 ranks fit"));
        QSvgRenderer renderer(svg);
        QCOMPARE(renderer.defaultSize(), QSize(1600, 120));
        QImage image(renderer.defaultSize(), QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter p(&image);
        renderer.render(&p);
        p.end();
        const auto rows = rowsOf(request, image.size());
        const int viewTop = ViewExporter::timelineLayout(image.size()).view.top() + TimelineView::kRulerHeight;
        int lanes = 0;
        for (const auto &row : rows->rows()) {
            if (row.kind != RowKind::MergedKernels || row.y + row.height > 48)
                continue;
            ++lanes;
            for (int x : { image.width() - 2, image.width() - 8, image.width() - 14 }) {
                const QColor c = image.pixelColor(x, viewTop + row.y + 4);
                QVERIFY2(
                    near(c, kernelColor("relu_kernel")), qPrintable(QStringLiteral("x %1: %2").arg(x).arg(c.name())));
            }
        }
        QCOMPARE(lanes, 4);
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

        // Layout: the title band, then labels on the left, ruler on top, then rank header and
        // the merged lane.
        const int left = TimelineView::kLabelWidth;
        const int width = 800 - left; // the picture's view has no vertical scroll bar
        const int viewTop = ViewExporter::timelineLayout(QSize(800, 400)).view.top();
        const int laneTop = viewTop + TimelineView::kRulerHeight + TimelineModel::kHeaderHeight;
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
