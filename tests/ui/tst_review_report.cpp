// SPDX-License-Identifier: MIT
// Reports: the HTML of a comparison holds the verdict and every headline number as the compare
// panel shows them, the findings, top kernels, gap blame and the inline pictures; the capture
// report holds core's findings and top kernels; PDF is written through QPdfWriter; the headless
// `--report` path writes both formats.
#include "testsupport.h"
#include "ui_fixture.h"

#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/write/synth.h"
#include "ui/compare/comparisonmodel.h"
#include "ui/loading/loadcontroller.h"
#include "ui/report/reportbuilder.h"
#include "ui/report/reportcommand.h"

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

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        core::SynthOptions o;
        o.ranks = 2;
        o.steps = 10;
        o.stragglerRank = 1;
        o.stragglerSlowdown = 1.0;
        o.jitter = 0.02;
        core::writeSyntheticCapture(m_dir.filePath(QStringLiteral("before")).toStdString(), o);
        o.stragglerSlowdown = 1.4;
        core::writeSyntheticCapture(m_dir.filePath(QStringLiteral("after")).toStdString(), o);
        m_before = LoadController::loadNow({ m_dir.filePath(QStringLiteral("before")) });
        m_after = LoadController::loadNow({ m_dir.filePath(QStringLiteral("after")) });
    }

    void comparisonHtmlHoldsTheHeadlineNumbers()
    {
        ReportBuilder::Request request;
        request.capture = m_before;
        request.after = m_after;
        ReportBuilder builder(request);
        builder.build();
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

        const QString path = m_dir.filePath(QStringLiteral("compare.html"));
        QString error;
        QVERIFY2(builder.write(path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString written = QString::fromUtf8(f.readAll());
        QVERIFY(written.startsWith(QStringLiteral("<!DOCTYPE html>")));
        QVERIFY(written.contains(QString::fromStdString(c.verdictText).toHtmlEscaped()));
        QCOMPARE(written.count(QStringLiteral("<img src=\"data:image/png;base64,")), 3); // one file, pictures inline
    }

    void captureHtmlHoldsFindingsAndTopKernels()
    {
        ReportBuilder::Request request;
        request.capture = m_after;
        ReportBuilder builder(request);
        builder.build();
        QVERIFY(!builder.isComparison());
        const QString html = builder.html();
        const auto summary = core::summarizeCapture(*m_after->trace);
        QVERIFY(!summary.findings.empty());
        for (const auto &f : summary.findings)
            QVERIFY2(html.contains(QString::fromStdString(f.text).toHtmlEscaped()), f.text.c_str());
        QVERIFY(html.contains(QStringLiteral("<h2>Top kernels</h2>")));
        QVERIFY(
            html.contains(QStringLiteral("ncclKernel_AllReduce")) || html.contains(QStringLiteral("ncclDevKernel")));
        QCOMPARE(html.count(QStringLiteral("<img src=\"data:image/png;base64,")), 2); // pace + timeline
    }

    void pdfIsWrittenWithQPdfWriter()
    {
        ReportBuilder::Request request;
        request.capture = m_before;
        request.after = m_after;
        ReportBuilder builder(request);
        builder.build();
        const QString path = m_dir.filePath(QStringLiteral("compare.pdf"));
        QString error;
        QVERIFY2(builder.write(path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
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
        request.output = m_dir.filePath(QStringLiteral("bad.html"));
        request.after = { m_dir.filePath(QStringLiteral("missing.sqlite")) };
        QString error;
        QVERIFY(runReport(request, &error) != 0);
        QVERIFY(error.contains(QStringLiteral("missing.sqlite")));
    }
};

QTEST_MAIN(TestReviewReport)
#include "tst_review_report.moc"
