// SPDX-License-Identifier: MIT
// gaplens-cli's memory limits: --max-memory SIZE on every command that loads captures (a bad
// SIZE is a usage error, exit 2; a capture over it is refused with the guard's message, exit 1),
// and the process's own limit (ulimit -v) is respected without any option.
#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/ncu_command.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/read/rank_identity.h"
#include "gaplens/core/util/units.h"
#include "gaplens/core/write/synth.h"

#include "cli_runner.h"
#include "sqltestdb.h"
#include "synth_sample.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::core;
using namespace gaplens::test;

namespace {

const QStringList kLoadingCommands = { QStringLiteral("summary"), QStringLiteral("kernels"), QStringLiteral("gaps"),
    QStringLiteral("blame"), QStringLiteral("pace"), QStringLiteral("overlap"), QStringLiteral("nvtx"),
    QStringLiteral("api"), QStringLiteral("ranks"), QStringLiteral("ncu"), QStringLiteral("intervals"),
    QStringLiteral("transfers"), QStringLiteral("throughput"), QStringLiteral("diff"), QStringLiteral("check") };

// The tables each command reads as argsFor runs it (table format, no --range): the guard
// estimates what those need, so `kernels` is refused only for the kernels it would hold.
TableSet tablesOf(const QString &command)
{
    if (command == QLatin1String("kernels"))
        return kKernelSummaryTables;
    if (command == QLatin1String("gaps") || command == QLatin1String("blame"))
        return kGapBlameTables | kCaptureSpanTables;
    if (command == QLatin1String("pace"))
        return kStepRangeTables | kPaceTables | kStepAccountingTables;
    if (command == QLatin1String("overlap"))
        return kOverlapTables;
    if (command == QLatin1String("nvtx"))
        return kNvtxSummaryTables;
    if (command == QLatin1String("api"))
        return kApiSummaryTables;
    if (command == QLatin1String("ranks"))
        return kRankMappingTables;
    if (command == QLatin1String("ncu"))
        return kNcuCommandTables;
    if (command == QLatin1String("intervals"))
        return kIntervalTables | kCaptureSpanTables;
    if (command == QLatin1String("transfers"))
        return kTransferTables | kCaptureSpanTables;
    if (command == QLatin1String("throughput"))
        return kStepRangeTables | kRunAccountingTables;
    if (command == QLatin1String("check")) // its baseline names the step range: no proposal
        return gpuBusyTables(true) | kPaceTables;
    if (command == QLatin1String("diff"))
        return kCompareTables;
    return TableSet::all(); // summary
}

} // namespace

class TestCliMaxMemory : public QObject
{
    Q_OBJECT

    SynthSample m_sample;
    QString m_baseline;
    std::string m_tooLarge1000; // the guard's message for the sample under --max-memory 1000

    // The arguments of `command` on the sample, with `extra` options. Without the report
    // cache: the guard counts a cached report at what it keeps beside its mapped columns
    // (tst_report_cache), and these tests want the estimate of a read from the exports.
    QStringList argsFor(const QString &command, QStringList extra) const
    {
        extra.prepend(QStringLiteral("--no-cache"));
        if (command == QLatin1String("diff"))
            return QStringList { command, QStringLiteral("--before"), m_sample.path, QStringLiteral("--after"),
                m_sample.path }
            + extra;
        if (command == QLatin1String("check"))
            return QStringList { command, QStringLiteral("--baseline"), m_baseline } + extra
                + QStringList { m_sample.path };
        if (command == QLatin1String("ncu")) // a kernel every synthetic rank launches
            return QStringList { command, QStringLiteral("--kernel"), QStringLiteral("ampere_sgemm_128x64_nn") } + extra
                + QStringList { m_sample.path };
        return QStringList { command } + extra + QStringList { m_sample.path };
    }

    std::string tooLargeMessage(const std::string &limit, TableSet tables = TableSet::all()) const
    {
        const auto estimate = estimateLoad(m_sample.synth.files, tables);
        return m_sample.synth.files[0] + ", " + m_sample.synth.files[1] + ", " + m_sample.synth.files[2]
            + ": too large to load: " + std::to_string(estimate.rows) + " rows need an estimated "
            + formatBytes(estimate.bytes) + " of memory, but " + limit + "; open fewer ranks or free memory";
    }

    static QByteArray usageError(const QString &message)
    {
        return "gaplens-cli: " + message.toUtf8() + "\nRun `gaplens-cli summary --help` for usage.\n";
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_sample.write(synthOptions(3, 4)));
        QCOMPARE(m_sample.synth.files.size(), std::size_t(3));
        m_baseline = m_sample.dir.filePath(QStringLiteral("baseline.json"));
        const auto baseline = runCli({ QStringLiteral("summary"), QStringLiteral("--no-cache"),
            QStringLiteral("--format"), QStringLiteral("json"), m_sample.path });
        QCOMPARE(baseline.exitCode, 0);
        QFile file(m_baseline);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(baseline.out);
    }

    void helpOfEveryLoadingCommandOffersIt()
    {
        for (const auto &command : kLoadingCommands) {
            const auto run = runCli({ command, QStringLiteral("--help") });
            QCOMPARE(run.exitCode, 0);
            QVERIFY2(run.out.contains("\n  --max-memory SIZE           refuse captures estimated to need more, e.g. "
                                      "512M, 4G, 1.5GiB\n"),
                qPrintable(command));
        }
        const auto synth = runCli({ QStringLiteral("synth"), QStringLiteral("--help") });
        QCOMPARE(synth.exitCode, 0);
        QVERIFY(!synth.out.contains("--max-memory"));
    }

    void everyLoadingCommandRefusesACaptureOverTheLimit()
    {
        for (const auto &command : kLoadingCommands) {
            const auto message = tooLargeMessage("the limit is 1000 B", tablesOf(command));
            const auto run = runCli(argsFor(command, { QStringLiteral("--max-memory"), QStringLiteral("1000") }));
            QCOMPARE(run.exitCode, 1);
            QVERIFY(run.out.isEmpty());
            const QByteArray expected = command == QLatin1String("diff")
                ? QByteArray::fromStdString("gaplens-cli: error: before: " + message + "\ngaplens-cli: error: after: "
                    + message + "\ngaplens-cli: error: none of the 1 before file(s) could be loaded\n")
                : QByteArray::fromStdString("gaplens-cli: error: " + message
                    + "\ngaplens-cli: error: none of the 1 input file(s) could be loaded\n");
            QCOMPARE(run.err, expected);
        }
    }

    void everyLoadingCommandLoadsUnderALargeLimit()
    {
        for (const auto &command : kLoadingCommands) {
            const auto run = runCli(argsFor(command, { QStringLiteral("--max-memory"), QStringLiteral("1.5GiB") }));
            QCOMPARE(run.exitCode, 0);
            QVERIFY2(run.err.isEmpty(), run.err.constData());
            QVERIFY(!run.out.isEmpty());
        }
    }

    // The limit the guard names shows what each SIZE parsed to.
    void sizesTakeUnits_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("limit");
        const auto maxMemory = [](const char *size) { return QStringList { QStringLiteral("--max-memory"), size }; };
        QTest::newRow("bytes") << maxMemory("1000") << "1000 B";
        QTest::newRow("B") << maxMemory("999B") << "999 B";
        QTest::newRow("KB is 1000") << maxMemory("1KB") << "1000 B";
        QTest::newRow("fraction of a KiB") << maxMemory("0.5KiB") << "512 B";
        QTest::newRow("k is 1024") << maxMemory("20k") << "20.0 KiB";
        QTest::newRow("last use wins") << maxMemory("4G") + maxMemory("1000") << "1000 B";
    }

    void sizesTakeUnits()
    {
        QFETCH(QStringList, options);
        QFETCH(QString, limit);
        const auto run = runCli(argsFor(QStringLiteral("summary"), options));
        QCOMPARE(run.exitCode, 1);
        QCOMPARE(run.err,
            QByteArray::fromStdString("gaplens-cli: error: " + tooLargeMessage("the limit is " + limit.toStdString())
                + "\ngaplens-cli: error: none of the 1 input file(s) could be loaded\n"));
    }

    void largeSizesLoad()
    {
        for (const char *size : { "512M", "4G", "1.5GiB", "2GB", "1T", "1073741824" }) {
            const auto run = runCli(argsFor(QStringLiteral("summary"),
                { QStringLiteral("--max-memory"), QString::fromLatin1(size), QStringLiteral("--format"),
                    QStringLiteral("json") }));
            QCOMPARE(run.exitCode, 0);
            QVERIFY2(run.err.isEmpty(), run.err.constData());
            QCOMPARE(json(run).value(QStringLiteral("files")).toArray().size(), 3);
        }
    }

    void badSizesAreUsageErrors_data()
    {
        QTest::addColumn<QString>("size");
        QTest::addColumn<QString>("message");
        const QString expects
            = QStringLiteral("--max-memory expects a size such as 512M, 4G, 1.5GiB or a number of bytes, got '%1'");
        for (const char *size : { "abc", "12X", "-5", "1e3", "1.5.5", "4 G", "", "18446744073709551616", "16777216T" })
            QTest::newRow(size) << QString::fromLatin1(size) << expects.arg(QString::fromLatin1(size));
        QTest::newRow("0") << "0"
                           << "--max-memory must be at least 1 byte, got '0'";
        QTest::newRow("0.5") << "0.5"
                             << "--max-memory must be at least 1 byte, got '0.5'";
    }

    void badSizesAreUsageErrors()
    {
        QFETCH(QString, size);
        QFETCH(QString, message);
        const auto run = runCli(argsFor(QStringLiteral("summary"), { QStringLiteral("--max-memory"), size }));
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QCOMPARE(run.err, usageError(message));
    }

    void missingSizeIsAUsageError()
    {
        const auto run = runCli({ QStringLiteral("summary"), m_sample.path, QStringLiteral("--max-memory") });
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err, usageError(QStringLiteral("--max-memory: 1 required SIZE missing")));
    }

    void synthHasNoMemoryLimit()
    {
        const auto run = runCli({ QStringLiteral("synth"), QStringLiteral("--out"),
            m_sample.dir.filePath(QStringLiteral("x")), QStringLiteral("--max-memory"), QStringLiteral("1G") });
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err,
            QByteArray("gaplens-cli: The following arguments were not expected: 1G --max-memory\n"
                       "Run `gaplens-cli synth --help` for usage.\n"));
    }

    // Under `ulimit -v` the guard refuses what the address space cannot hold, naming RLIMIT_AS,
    // instead of running out of memory halfway. Two million strings are estimated at 96 bytes
    // each (183.1 MiB) in a 33 MB file; the limit is 128 MiB.
    void addressSpaceLimitIsRespected()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("ASan's shadow memory takes terabytes of address space: gaplens-cli cannot start under ulimit -v");
#endif
        const auto strings = m_sample.dir.filePath(QStringLiteral("strings.sqlite"));
        {
            gaplens::test::SqlTestDb db(strings.toStdString(), gaplens::test::SqlTestDb::Mode::Create);
            db.exec("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
                    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1999999)"
                    "INSERT INTO StringIds SELECT i, 'k' || i FROM n;");
        }
        QProcess shell;
        shell.start(QStringLiteral("/bin/sh"),
            { QStringLiteral("-c"), QStringLiteral("ulimit -v 131072 && exec \"$0\" summary \"$1\""),
                QStringLiteral(GAPLENS_CLI_PATH), strings });
        QVERIFY(shell.waitForFinished(120000));
        QCOMPARE(shell.exitStatus(), QProcess::NormalExit);
        QCOMPARE(shell.exitCode(), 1);
        const auto err = QString::fromUtf8(shell.readAllStandardError());
        // What the process already uses varies; the rest is exact.
        const QRegularExpression expected(
            QStringLiteral("^gaplens-cli: error: %1: too large to load: 2000000 rows need an estimated 183.1 MiB of "
                           "memory, but only (\\d+\\.\\d) MiB is available \\(RLIMIT_AS \\(ulimit -v\\) of 128.0 MiB, "
                           "(\\d+\\.\\d) MiB of address space in use\\); open fewer ranks or free memory\n"
                           "gaplens-cli: error: none of the 1 input file\\(s\\) could be loaded\n$")
                .arg(QRegularExpression::escape(strings)));
        const auto match = expected.match(err);
        QVERIFY2(match.hasMatch(), qPrintable(err));
        // Available and in use add up to the limit, to the rounding of the two figures.
        const double sum = match.captured(1).toDouble() + match.captured(2).toDouble();
        QVERIFY2(sum >= 127.9 && sum <= 128.1, qPrintable(err));
    }
};

QTEST_APPLESS_MAIN(TestCliMaxMemory)
#include "tst_cli_max_memory.moc"
