// SPDX-License-Identifier: MIT
// Reports: the HTML of a comparison holds the verdict and every headline number as the compare
// panel shows them, the findings, top kernels, gap blame and the inline pictures; the capture
// report holds core's findings and top kernels; PDF is written through QPdfWriter; the headless
// `--report` path writes both formats.
#include "picture_fixture.h"
#include "testsupport.h"
#include "ui_fixture.h"

#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/model/trace_builder.h"
#include "gaplens/core/util/units.h"
#include "gaplens/core/write/synth.h"
#include "ui/compare/comparisonmodel.h"
#include "ui/export/viewexporter.h"
#include "ui/loading/loadcontroller.h"
#include "ui/report/reportbuilder.h"
#include "ui/report/reportcommand.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QImage>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

class TestReviewReport : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const TimelineData> m_before, m_after;

    // The report of `capture`, or of its comparison with `after` when set, built.
    static std::unique_ptr<ReportBuilder> built(
        std::shared_ptr<const TimelineData> capture, std::shared_ptr<const TimelineData> after = nullptr)
    {
        ReportBuilder::Request request;
        request.capture = std::move(capture);
        request.after = std::move(after);
        auto builder = std::make_unique<ReportBuilder>(request);
        builder->build();
        return builder;
    }

    // Writes the report to `path` (HTML or PDF by the suffix) and reads the file back.
    static void writeAndRead(const ReportBuilder &builder, const QString &path, QByteArray &bytes)
    {
        QString error;
        QVERIFY2(builder.write(path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        bytes = f.readAll();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        std::tie(m_before, m_after) = fixture::loadSynthPair(m_dir.path(), 10, 1.4);
    }

    void theTimelinePictureShowsEveryRank()
    {
        // Eight ranks need 848 px of rows; the report's 1400x560 picture has 480 for them.
        const auto eight = prepareTimelineData(fixture::buildTrace(8));
        const auto report = built(eight);
        const QImage picture = report->images().value(QStringLiteral("timeline"));
        const ReportBuilder::Request request;
        QCOMPARE(picture.size(), request.timelineSize);
        const auto layout = ViewExporter::timelineLayout(picture.size());
        TimelineModel rows;
        rows.setData(eight);
        rows.fitToHeight(layout.view.height() - TimelineView::kRulerHeight);
        QCOMPARE(int(rows.detail()), int(RowDetail::Copies));
        // The picture spans the capture (3.2 ms): sgemm_kernel alone runs at 1000 us on every rank.
        CHECK(fixture::checkSgemmOnEveryLane(picture, layout.view, rows, 8));
    }

    void comparisonHtmlHoldsTheHeadlineNumbers()
    {
        const auto report = built(m_before, m_after);
        const ReportBuilder &builder = *report;
        const ReportBuilder::Request request; // the sizes asked for by default
        QVERIFY(builder.comparison());
        const auto &c = *builder.comparison();
        QVERIFY(c.hasSteps);
        const QString html = builder.html();
        QVERIFY(html.contains(QString::fromStdString(c.verdictText).toHtmlEscaped()));
        QVERIFY(html.contains(QString::fromStdString(c.noiseMethod).toHtmlEscaped()));
        QVERIFY(html.contains(QStringLiteral("slower per step")));
        for (const auto &m : c.headline) {
            // Each headline row as one table row: label, before, after, change.
            const QString row = QStringLiteral(
                "<tr><td>%1</td><td align=\"right\">%2</td><td align=\"right\">%3</td><td align=\"right\">%4</td>")
                                    .arg(QString::fromStdString(m.label).toHtmlEscaped(),
                                        ComparisonModel::formatMetric(m.unit, m.before),
                                        ComparisonModel::formatMetric(m.unit, m.after),
                                        ComparisonModel::formatChange(m.changePercent));
            QVERIFY2(html.contains(row), qPrintable(row));
        }
        // Top kernels by change, gap blame, findings and the pictures (pace chart + two timelines).
        QVERIFY(html.contains(QStringLiteral("<td>") + QString::fromStdString(c.kernels.front().name).toHtmlEscaped()
            + QStringLiteral("</td>")));
        QVERIFY(html.contains(QStringLiteral("By cause")));
        QVERIFY(html.contains(QStringLiteral("<h2>Findings</h2>")));
        QCOMPARE(html.count(QStringLiteral("<img src=\"data:image/png;base64,")), 3);
        QCOMPARE(builder.images().value(QStringLiteral("pace")).size(), request.chartSize);
        QCOMPARE(builder.images().value(QStringLiteral("timeline")).size(), request.timelineSize);
        QCOMPARE(builder.images().value(QStringLiteral("timeline-after")).size(), request.timelineSize);

        QByteArray file;
        CHECK(writeAndRead(builder, m_dir.filePath(QStringLiteral("compare.html")), file));
        const QString written = QString::fromUtf8(file);
        QVERIFY(written.startsWith(QStringLiteral("<!DOCTYPE html>")));
        QVERIFY(written.contains(QString::fromStdString(c.verdictText).toHtmlEscaped()));
        QCOMPARE(written.count(QStringLiteral("<img src=\"data:image/png;base64,")), 3); // one file, pictures inline
    }

    void captureHtmlHoldsFindingsAndTopKernels()
    {
        const auto report = built(m_after);
        const ReportBuilder &builder = *report;
        QVERIFY(!builder.isComparison());
        const QString html = builder.html();
        const auto summary = core::summarizeCapture(*m_after->trace);
        QVERIFY(!summary.findings.empty());
        for (const auto &f : summary.findings)
            QVERIFY2(html.contains(QString::fromStdString(f.text).toHtmlEscaped()), f.text.c_str());
        QVERIFY(html.contains(QStringLiteral("<h2>Top kernels</h2>")));
        QVERIFY(
            html.contains(QStringLiteral("ncclKernel_AllReduce")) || html.contains(QStringLiteral("ncclDevKernel")));
        // Pace, timeline, and the Intervals section's heat map and transfers chart.
        QCOMPARE(html.count(QStringLiteral("<img src=\"data:image/png;base64,")), 4);
    }

    void captureHtmlKeepsCopyTimeApartFromIdleTime()
    {
        // Rank 0's gap [1100, 1600) us gets a copy [1200, 1500) us: 300 us of the 1 ms idle
        // (two 500 us gaps), and a copy gap of its own.
        auto trace = fixture::buildTraceWithCopyInGap(2);
        const QString html = built(prepareTimelineData(trace))->html();
        const QString line = QStringLiteral("<p>2 gaps, %1 idle in total, of which copies or memsets ran %2.</p>")
                                 .arg(QString::fromStdString(core::formatDuration(double(fixture::us(1000)))),
                                     QString::fromStdString(core::formatDuration(double(fixture::us(300)))));
        QVERIFY2(html.contains(line), qPrintable(line));
        QVERIFY(html.contains(QStringLiteral("<td>copy (GPU moving data)</td>")));
        // Without the copy the line has no copy clause.
        const QString plain = built(prepareTimelineData(fixture::buildTrace(2)))->html();
        QVERIFY(plain.contains(QStringLiteral("<p>2 gaps, %1 idle in total.</p>")
                                   .arg(QString::fromStdString(core::formatDuration(double(fixture::us(1000)))))));
    }

    // The longest gaps, longest first, say what blame found: rank 0's copy gap names its copy
    // time, as `gaplens-cli gaps` does in its detail column.
    void captureHtmlListsTheLongestGapsWithTheirBlame()
    {
        const QString html = built(prepareTimelineData(fixture::buildTraceWithCopyInGap(2)))->html();
        QVERIFY(html.contains(QStringLiteral("<h3>Longest gaps</h3>")));
        const auto d = [](double us) { return QString::fromStdString(core::formatDuration(double(fixture::us(us)))); };
        const QString copyRow = QStringLiteral("<td align=\"right\">0</td><td align=\"right\">0</td><td "
                                               "align=\"right\">+%1</td><td align=\"right\">%2</td><td>copy (GPU "
                                               "moving data)</td><td>copies %3</td>")
                                    .arg(d(1100), d(500), d(300));
        QVERIFY2(html.contains(copyRow), qPrintable(html));
        // No OS runtime data: no OS call table.
        QVERIFY(!html.contains(QStringLiteral("By OS call")));
    }

    void pdfIsWrittenWithQPdfWriter()
    {
        QByteArray bytes;
        CHECK(writeAndRead(*built(m_before, m_after), m_dir.filePath(QStringLiteral("compare.pdf")), bytes));
        QVERIFY(bytes.startsWith("%PDF-"));
        QVERIFY(bytes.size() > 50'000); // the three pictures are embedded
        QVERIFY(bytes.count("/Type /Page\n") + bytes.count("/Type /Page ") + bytes.count("/Type/Page") >= 2);
    }

    void headlessReportOfTheRealPair()
    {
        const auto b = test::realFile("nsysai_mfu_2gpu_before.sqlite");
        const auto a = test::realFile("nsysai_mfu_2gpu_after.sqlite");
        QVERIFY2(!b.empty() && !a.empty(), "real exports missing (../shared/nsys-real)");
        ReportCommandRequest request;
        request.before = { QString::fromStdString(b) };
        request.after = { QString::fromStdString(a) };
        for (const char *name : { "real.html", "real.pdf" }) {
            request.output = m_dir.filePath(QString::fromLatin1(name));
            QString error;
            QCOMPARE(runReport(request, &error), 0);
            QVERIFY(QFileInfo(request.output).size() > 10'000);
        }
        QFile f(m_dir.filePath(QStringLiteral("real.html")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(f.readAll());
        // Numbers this pair is known to hold (the CLI's diff prints the same).
        QVERIFY(html.contains(QStringLiteral("<td align=\"right\">4,010</td><td align=\"right\">3,587</td>")));
        QVERIFY(html.contains(QStringLiteral("<td>flash_fwd_kernel</td>")));
        // The after capture ran fewer calls: the headline says its figures are per call and
        // names the per-call regression in the compare panel's "worse" colour.
        QVERIFY(html.contains(QStringLiteral("figures are per kernel call")));
        QVERIFY(html.contains(QStringLiteral("<font color=\"%1\">ncclDevKernel_SendRecv 1.41x slower per call (+")
                                  .arg(ComparisonModel::worseColor().name())));
        QVERIFY(html.contains(QStringLiteral("Per-call rule: kernels both captures ran")));
        request.output = m_dir.filePath(QStringLiteral("bad.html"));
        request.after = { m_dir.filePath(QStringLiteral("missing.sqlite")) };
        QString error;
        QVERIFY(runReport(request, &error) != 0);
        QVERIFY(error.contains(QStringLiteral("missing.sqlite")));
    }
};

QTEST_MAIN(TestReviewReport)
#include "tst_review_report.moc"
