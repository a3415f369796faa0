// SPDX-License-Identifier: MIT
// Review pictures: the timeline, a table and a chart exported as PNG and SVG have exactly the
// requested size and show what they should (the merged lane's pixels, the legend and ruler
// text in the SVG); `--render OUT.svg` writes SVG.
#include "picture_fixture.h"
#include "testsupport.h"
#include "ui_fixture.h"

#include "ui/compare/comparisonmodel.h"
#include "ui/export/exportsizedialog.h"
#include "ui/export/viewexporter.h"
#include "ui/rendercommand.h"
#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QChart>
#include <QCheckBox>
#include <QImage>
#include <QLineSeries>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace gaplens;
using namespace gaplens::ui;
using fixture::near;

namespace {

struct SvgInfo
{
    QString width, height, viewBox;
    QStringList texts;
};

SvgInfo parseSvg(const QByteArray &bytes)
{
    SvgInfo info;
    QXmlStreamReader xml(bytes);
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (xml.name() == QLatin1String("svg")) {
            info.width = xml.attributes().value(QLatin1String("width")).toString();
            info.height = xml.attributes().value(QLatin1String("height")).toString();
            info.viewBox = xml.attributes().value(QLatin1String("viewBox")).toString();
        } else if (xml.name() == QLatin1String("text")) {
            info.texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
        }
    }
    if (xml.hasError())
        info.width = QStringLiteral("parse error: ") + xml.errorString();
    return info;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestReviewExport : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // One rank of the fixture showing exactly its 3.2 ms (train_step) in a visible view.
    void showFixture(TimelineView &view)
    {
        view.resize(900, 500);
        view.setData(prepareTimelineData(fixture::buildTrace(1, 0)));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.zoom()->setWindow(view.model()->origin(), view.model()->origin() + fixture::us(3200), false);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        Theme::setCurrent(Theme::Kind::Light);
    }

    void timelinePngHasTheRequestedSizeAndTheMergedLanesPixels()
    {
        TimelineView view;
        showFixture(view);
        const QString path = m_dir.filePath(QStringLiteral("timeline.png"));
        const QSize size(1000, 600);
        QString error;
        QVERIFY2(ViewExporter::exportTimeline(view, path, size, {}, &error), qPrintable(error));
        const QImage image(path);
        QCOMPARE(image.size(), size);

        // The view part starts under the title band; in it, labels on the left, then the ruler,
        // the rank header and the merged lane. The window (3.2 ms) spans the track width.
        const auto layout = ViewExporter::timelineLayout(size);
        QCOMPARE(layout.view.width(), 1000);
        const int left = TimelineView::kLabelWidth;
        const int width = size.width() - left; // the picture has no scroll bar
        const int laneMid = layout.view.top() + TimelineView::kRulerHeight + TimelineModel::kHeaderHeight + 4;
        const int laneStrip = layout.view.top() + TimelineView::kRulerHeight + TimelineModel::kHeaderHeight
            + 3; // the gap strip along the lane's top edge
        auto xAt = [&](double tUs) { return left + int(tUs / 3200.0 * width); };
        const auto why = [&](int x, int y) {
            image.save(QDir::temp().filePath(QStringLiteral("gaplens_tst_review_export_actual.png")));
            return qPrintable(QStringLiteral("pixel (%1,%2) is %3").arg(x).arg(y).arg(image.pixelColor(x, y).name()));
        };
        QVERIFY2(near(image.pixelColor(xAt(200), laneMid), kernelColor("sgemm_kernel")), why(xAt(200), laneMid));
        QVERIFY2(near(image.pixelColor(xAt(2000), laneMid), kernelColor("ncclKernel_AllReduce_RING")),
            why(xAt(2000), laneMid));
        const QColor gap = gapCauseColor(core::GapCause::ApiCall);
        QVERIFY2(near(image.pixelColor(xAt(1350), laneStrip), QColor(gap.red(), gap.green(), gap.blue())),
            why(xAt(1350), laneStrip));
        // Title band and legend band are painted in the theme's colours.
        QVERIFY(near(image.pixelColor(2, 2), Theme::current().headerBackground, 2));
        QVERIFY(near(image.pixelColor(2, layout.legend.bottom() - 1), Theme::current().rulerBackground, 2));
        // The legend's swatch for the API-call cause is the band's colour (legend included).
        bool swatch = false;
        for (int x = 0; x < size.width() && !swatch; ++x)
            swatch
                = near(image.pixelColor(x, layout.legend.center().y()), QColor(gap.red(), gap.green(), gap.blue()), 3);
        QVERIFY(swatch);
    }

    void anExportOfAScrolledViewShowsEveryRankFromTheFirst()
    {
        // The screen shows 8 ranks in 300 px, scrolled to the bottom, in GPU-lanes-only view:
        // the picture starts at rank 0, holds rank 7 and keeps the view's rows.
        TimelineView view;
        view.resize(900, 300);
        view.setData(prepareTimelineData(fixture::buildTrace(8, 0)));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.zoom()->setWindow(view.model()->origin(), view.model()->origin() + fixture::us(3200), false);
        view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum());
        QVERIFY(view.verticalScrollBar()->value() > 0);
        view.model()->setRankCollapsed(core::RankIndex(2), true);

        const QSize size(1600, 900);
        const QString path = m_dir.filePath(QStringLiteral("eight.png"));
        QString error;
        QVERIFY2(ViewExporter::exportTimeline(view, path, size, {}, &error), qPrintable(error));
        const QImage image(path);
        QCOMPARE(image.size(), size);
        // The rows the picture holds: the screen's (rank 2 collapsed), fitted to 788 px.
        const auto layout = ViewExporter::timelineLayout(size);
        TimelineModel rows;
        rows.setData(view.model()->sharedData());
        rows.waitForGaps(); // the export waits for the derived capture (and its projected rows) too
        rows.setRankCollapsed(core::RankIndex(2), true);
        const auto fit = rows.fitToHeight(layout.view.height() - TimelineView::kRulerHeight);
        QCOMPARE(fit.ranksShown, 8);
        QCOMPARE(rows.rows().front().rank.value(), 0u);
        CHECK(fixture::checkSgemmOnEveryLane(image, layout.view, rows, 8));

        // GPU lanes only on screen: the picture too.
        view.model()->setDetail(RowDetail::GpuLanes);
        QVERIFY2(ViewExporter::exportTimeline(view, path, size, {}, &error), qPrintable(error));
        const QImage lanesOnly(path);
        const int x = fixture::sgemmColumn(lanesOnly);
        rows.setDetail(RowDetail::GpuLanes);
        QCOMPARE(int(rows.rows().size()), 8);
        for (const auto &row : rows.rows()) {
            const int y = layout.view.top() + TimelineView::kRulerHeight + row.y + 4;
            QVERIFY(near(lanesOnly.pixelColor(x, y), kernelColor("sgemm_kernel")));
        }
        const int below = layout.view.top() + TimelineView::kRulerHeight + 8 * TimelineModel::kLaneHeight + 10;
        QVERIFY(near(lanesOnly.pixelColor(x, below), Theme::current().emptyBackground, 2));
    }

    void theTimelineSizeDialogOffersToGrowTheHeight()
    {
        ExportSizeDialog timeline(QSize(1600, 900), nullptr, true);
        auto *grow = timeline.findChild<QCheckBox *>(QStringLiteral("growHeightCheck"));
        QVERIFY(grow);
        QVERIFY(!timeline.growHeight()); // the picture keeps its size unless asked
        grow->setChecked(true);
        QVERIFY(timeline.growHeight());
        QCOMPARE(timeline.size(), QSize(1600, 900));
        ExportSizeDialog chart(QSize(1600, 900), nullptr);
        QVERIFY(!chart.findChild<QCheckBox *>(QStringLiteral("growHeightCheck")));
        QVERIFY(!chart.growHeight());

        // Growing, the export of 8 ranks is as tall as their 848 px of rows need.
        TimelineView view;
        view.resize(900, 300);
        view.setData(prepareTimelineData(fixture::buildTrace(8, 0)));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        ViewExporter::TimelineOptions options;
        options.fit = ViewExporter::Fit::Grow;
        const QString path = m_dir.filePath(QStringLiteral("grown.png"));
        QString error;
        QVERIFY2(ViewExporter::exportTimeline(view, path, QSize(1600, 600), options, &error), qPrintable(error));
        const QImage image(path);
        QCOMPARE(image.width(), 1600);
        // 138 px per rank: 106, and the two rows of NVTX ranges projected onto its GPU.
        QCOMPARE(ViewExporter::timelineLayout(image.size()).view.height(), TimelineView::kRulerHeight + 8 * 138);
    }

    void timelineSvgHasTheRequestedSizeLegendAndRulerText()
    {
        TimelineView view;
        showFixture(view);
        const QString path = m_dir.filePath(QStringLiteral("timeline.svg"));
        QString error;
        ViewExporter::TimelineOptions options;
        options.title = QStringLiteral("Fixture capture");
        QVERIFY2(ViewExporter::exportTimeline(view, path, QSize(1280, 720), options, &error), qPrintable(error));
        const QByteArray bytes = readAll(path);
        const auto svg = parseSvg(bytes);
        QCOMPARE(svg.width, QStringLiteral("1280"));
        QCOMPARE(svg.height, QStringLiteral("720"));
        QCOMPARE(svg.viewBox, QStringLiteral("0 0 1280 720"));
        QSvgRenderer renderer(bytes);
        QVERIFY(renderer.isValid());
        QCOMPARE(renderer.defaultSize(), QSize(1280, 720));
        const QString all = svg.texts.join(QLatin1Char('|'));
        QVERIFY2(svg.texts.contains(QStringLiteral("Fixture capture")), qPrintable(all));
        for (const char *legend : { "queued", "API call", "host busy", "Kernels:", "sgemm_kernel", "relu_kernel" })
            QVERIFY2(svg.texts.contains(QString::fromLatin1(legend)), legend);
        // Ruler tick labels: numbers with a unit, several of them.
        static const QRegularExpression tick(QStringLiteral("^-?\\d+(\\.\\d+)? (s|ms|us|ns)$"));
        QVERIFY2(svg.texts.filter(tick).size() >= 4, qPrintable(all));
        QVERIFY(svg.texts.contains(QStringLiteral("Rank 0 · node0 · pid 100"))); // the track labels
    }

    void renderCommandWritesSvgWhenTheNameEndsInSvg()
    {
        const QString file = m_dir.filePath(QStringLiteral("rank0.sqlite"));
        fixture::writeExport(file.toStdString(), 0);
        RenderRequest request;
        request.output = m_dir.filePath(QStringLiteral("render.svg"));
        request.files = { file };
        request.size = QSize(800, 400);
        request.range = QStringLiteral("0:3.2ms");
        QString error;
        QCOMPARE(runRender(request, &error), 0);
        const auto svg = parseSvg(readAll(request.output));
        QCOMPARE(svg.width, QStringLiteral("800"));
        QCOMPARE(svg.height, QStringLiteral("400"));
        QVERIFY(svg.texts.contains(QStringLiteral("sgemm_kernel"))); // kernel names inside the boxes
        QVERIFY(svg.texts.contains(QStringLiteral("API call"))); // the gap legend
        request.output = m_dir.filePath(QStringLiteral("render.png"));
        QCOMPARE(runRender(request, &error), 0);
        QCOMPARE(QImage(request.output).size(), QSize(800, 400));
    }

    void tableExportsAtTheRequestedSizeWithHeaderAndRows()
    {
        auto c = std::make_shared<core::Comparison>();
        core::KernelChange k;
        k.name = "relu_kernel";
        k.callsBefore = k.callsAfter = 2;
        k.totalBefore = 1'000'000;
        k.totalAfter = 2'000'000;
        k.avgBefore = 500'000;
        k.avgAfter = 1'000'000;
        k.deltaNs = 1'000'000;
        k.avgRatio = 2.0;
        c->kernels = { k };
        ComparisonModel model(ComparisonModel::Table::Kernels);
        model.setComparison(c);
        const QString png = m_dir.filePath(QStringLiteral("table.png"));
        const QString svgPath = m_dir.filePath(QStringLiteral("table.svg"));
        QString error;
        QVERIFY2(ViewExporter::exportTable(model, png, QSize(1200, 300), QStringLiteral("Kernels"), &error),
            qPrintable(error));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1200, 300));
        // The header row is painted in the theme's header colour below the title.
        const int px = std::max(11, ViewExporter::textPixelSize(300) * 8 / 10);
        const int headerY = px * 17 / 10 * 13 / 10 + px;
        QVERIFY(near(image.pixelColor(1, headerY), Theme::current().headerBackground, 2));
        QVERIFY2(ViewExporter::exportTable(model, svgPath, QSize(1200, 300), QStringLiteral("Kernels"), &error),
            qPrintable(error));
        const auto svg = parseSvg(readAll(svgPath));
        QCOMPARE(svg.width, QStringLiteral("1200"));
        QCOMPARE(svg.height, QStringLiteral("300"));
        for (const char *t : { "Kernels", "Kernel", "Avg after", "relu_kernel", "+1.000 ms", "2.00x" })
            QVERIFY2(svg.texts.contains(QString::fromUtf8(t)), t);
    }

    void chartExportsAtTheRequestedSizeWithItsLegend()
    {
        QChart chart;
        auto *series = new QLineSeries;
        series->setName(QStringLiteral("rank 0"));
        series->append({ QPointF(1, 10), QPointF(2, 12), QPointF(3, 11) });
        chart.addSeries(series);
        chart.createDefaultAxes();
        chart.setTitle(QStringLiteral("Step time"));
        const QString png = m_dir.filePath(QStringLiteral("chart.png"));
        QString error;
        QVERIFY2(ViewExporter::exportChart(&chart, png, QSize(900, 500), &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(900, 500));
        const QString svgPath = m_dir.filePath(QStringLiteral("chart.svg"));
        QVERIFY2(ViewExporter::exportChart(&chart, svgPath, QSize(900, 500), &error), qPrintable(error));
        const auto svg = parseSvg(readAll(svgPath));
        QCOMPARE(svg.width, QStringLiteral("900"));
        QVERIFY2(svg.texts.contains(QStringLiteral("rank 0")), qPrintable(svg.texts.join(QLatin1Char('|'))));
        QVERIFY(svg.texts.contains(QStringLiteral("Step time")));
    }
};

QTEST_MAIN(TestReviewExport)
#include "tst_review_export.moc"
