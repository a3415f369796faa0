// SPDX-License-Identifier: MIT
// The report's run scorecard on the 20-minute window with --meta facts (headless --report
// path, after the findings), the comparison report's and the compare panel's sustained rate
// side by side on runs of checkpoint cycles whose rates are exact.
#include "run_exports.h"
#include "testsupport.h"

#include "gaplens/core/analysis/compare.h"
#include "ui/compare/comparepanel.h"
#include "ui/compare/comparisonmodel.h"
#include "ui/loading/loadcontroller.h"
#include "ui/report/reportbuilder.h"
#include "ui/report/reportcommand.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;
using Table = ComparisonModel::Table;

namespace {

constexpr core::TimeNs kMs = 1'000'000;

// Six cycles of ten steps of `stepMs` and a 500 ms checkpoint.
test::CheckpointCycles cycles(core::TimeNs stepMs)
{
    test::CheckpointCycles run;
    run.stepNs = stepMs * kMs;
    run.checkpointNs.assign(6, 500 * kMs);
    return run;
}

QString readText(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString row(std::initializer_list<const char *> cells)
{
    QString out = QStringLiteral("<tr>");
    for (const char *cell : cells)
        out += QStringLiteral("<td>%1</td>").arg(QString::fromUtf8(cell).toHtmlEscaped());
    return out + QStringLiteral("</tr>");
}

} // namespace

class TestReportScorecard : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_twenty, m_base, m_faster;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_twenty = m_dir.filePath(QStringLiteral("twenty.sqlite"));
        test::writeTwentyMinutes(m_twenty.toStdString(), true);
        m_base = m_dir.filePath(QStringLiteral("base.sqlite"));
        test::writeCheckpointCycles(m_base.toStdString(), cycles(100));
        m_faster = m_dir.filePath(QStringLiteral("faster.sqlite"));
        test::writeCheckpointCycles(m_faster.toStdString(), cycles(90));
    }

    void captureReportHasTheScorecardAfterTheFindings()
    {
        ReportCommandRequest request;
        request.files = { m_twenty };
        request.meta = { QStringLiteral("model=llama-8b"), QStringLiteral("precision=bf16"),
            QStringLiteral("global batch=1024") };
        request.output = m_dir.filePath(QStringLiteral("twenty.html"));
        QString error;
        QCOMPARE(runReport(request, &error), 0);
        const QString html = readText(request.output);
        const auto scorecard = html.indexOf(QStringLiteral("<h2>Run scorecard</h2>"));
        QVERIFY(scorecard > html.indexOf(QStringLiteral("<h2>Findings</h2>")));
        QVERIFY(html.indexOf(QStringLiteral("<h2>Timeline</h2>")) > scorecard);
        for (const auto &expected : {
                 row({ "work", "9,600,000 tokens",
                     "the NVTX payloads of the 96 steps of 'train_step' ending in the window" }),
                 row({ "active rate", "10,666.67 tokens/s", "work / active time = 9,600,000 tokens / 900.000 s" }),
                 row({ "sustained rate", "8,000.00 tokens/s", "work / window time = 9,600,000 tokens / 1,200.000 s" }),
                 row({ "sustained / active", "0.750",
                     "sustained rate / active rate = 8,000.00 / 10,666.67 = active time / window time" }),
                 row({ "validation", "210.000 s (17.5%)", "no step open; a range matching 'valid|eval' open" }),
                 row({ "cadence", "855.000 s", "median interval between checkpoint starts" }),
                 row({ "chosen by", "default (state_span)", "from the first to the last instant of any state range" }),
                 row({ "model", "llama-8b" }),
                 row({ "precision", "bf16" }),
                 row({ "global batch", "1024" }),
             })
            QVERIFY2(html.contains(expected), qPrintable(expected));
        for (const char *title : { "Throughput", "Where the window went", "Checkpoints", "Exclusions", "Window",
                 "What the capture knows", "What you supplied (--meta)" })
            QVERIFY2(html.contains(QStringLiteral("<h3>%1</h3>").arg(QLatin1String(title))), title);

        request.output = m_dir.filePath(QStringLiteral("twenty.pdf"));
        QCOMPARE(runReport(request, &error), 0);
        QVERIFY(readText(request.output).startsWith(QStringLiteral("%PDF-")));
    }

    void badMetaIsRefused()
    {
        ReportCommandRequest request;
        request.files = { m_twenty };
        request.meta = { QStringLiteral("no value") };
        request.output = m_dir.filePath(QStringLiteral("bad.html"));
        QString error;
        QCOMPARE(runReport(request, &error), 2);
        QCOMPARE(error, QStringLiteral("--meta expects KEY=VALUE (e.g. model=llama-8b), got 'no value'"));
        QVERIFY(!QFile::exists(request.output));
    }

    void captureWithoutAStepRangeSaysSo()
    {
        const QString empty = m_dir.filePath(QStringLiteral("empty.sqlite"));
        test::CheckpointCycles none;
        test::writeCheckpointCycles(empty.toStdString(), none);
        ReportBuilder::Request request;
        request.capture = LoadController::loadNow({ empty });
        ReportBuilder builder(request);
        builder.build();
        QVERIFY(QString::fromStdString(builder.scorecard().unavailable).startsWith(QStringLiteral("no step range")));
        QVERIFY(builder.html().contains(QStringLiteral("<p>No run scorecard: no step range")));
    }

    void comparisonShowsTheSustainedRateSideBySide()
    {
        ReportCommandRequest request;
        request.before = { m_base };
        request.after = { m_faster };
        request.output = m_dir.filePath(QStringLiteral("compare.html"));
        QString error;
        QCOMPARE(runReport(request, &error), 0);
        const QString html = readText(request.output);
        QVERIFY(
            html.indexOf(QStringLiteral("<h2>Run scorecard</h2>")) > html.indexOf(QStringLiteral("<h2>Findings</h2>")));
        // Six cycles of 1.5 s before and 1.4 s after, 60,000 tokens each.
        QVERIFY(html.contains(
            QStringLiteral("<td>sustained rate (tokens/s) = work / window</td><td align=\"right\">6,666.67</td><td "
                           "align=\"right\">7,142.86</td><td align=\"right\">+7.1%</td>")));
        QVERIFY(html.contains(QStringLiteral("<td>in checkpoint</td><td align=\"right\">3.000 s</td><td "
                                             "align=\"right\">3.000 s</td><td align=\"right\">+0.0%</td>")));
    }

    void comparePanelHasASustainedTab()
    {
        const auto before = LoadController::loadNow({ m_base });
        const auto after = LoadController::loadNow({ m_faster });
        auto comparison = std::make_shared<const core::Comparison>(core::compareTraces(*before->trace, *after->trace));
        ComparePanel panel;
        QAbstractItemModelTester tester(
            panel.model(Table::Sustained), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.setComparison(comparison);
        const auto *model = panel.model(Table::Sustained);
        QCOMPARE(model->rowCount(), 12);
        QCOMPARE(model->columnCount(), int(ComparisonModel::HeadlineColumnCount));
        QCOMPARE(model->key(4), QStringLiteral("sustained_rate"));
        QCOMPARE(model->index(4, ComparisonModel::BeforeColumn).data().toString(), QStringLiteral("6,666.67"));
        QCOMPARE(model->index(4, ComparisonModel::AfterColumn).data().toString(), QStringLiteral("7,142.86"));
        QCOMPARE(model->index(4, ComparisonModel::ChangeColumn).data().toString(), QStringLiteral("+7.1%"));
        QCOMPARE(model->index(5, ComparisonModel::BeforeColumn).data().toString(), QStringLiteral("0.667"));
        QCOMPARE(model->index(7, ComparisonModel::MetricColumn).data().toString(), QStringLiteral("in checkpoint"));
        QCOMPARE(model->index(7, ComparisonModel::AfterColumn).data().toString(), QStringLiteral("3.000 s"));
        QCOMPARE(model->index(4, ComparisonModel::JudgementColumn).data().toString(), QStringLiteral("-"));
        const auto *tabs = panel.tabs();
        const int tab = tabs->indexOf(panel.tableView(Table::Sustained));
        QVERIFY(tab >= 0);
        QCOMPARE(tabs->tabText(tab), QStringLiteral("Sustained"));
        QVERIFY(panel.tableView(Table::Sustained)->isColumnHidden(ComparisonModel::NoiseColumn));
        QVERIFY(panel.tableView(Table::Sustained)->isColumnHidden(ComparisonModel::JudgementColumn));
        QVERIFY(tabs->tabToolTip(tab).startsWith(QStringLiteral("Work per second of step time")));
    }
};

QTEST_MAIN(TestReportScorecard)
#include "tst_report_scorecard.moc"
