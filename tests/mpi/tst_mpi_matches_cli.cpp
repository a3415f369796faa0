// SPDX-License-Identifier: MIT
// `mpirun -np P gaplens-mpi COMMAND FILES...` prints exactly what `gaplens-cli COMMAND
// FILES...` prints, with its exit status, for P = 1 to 4 (oversubscribed on this machine):
// intervals, transfers, gaps, blame, ranks, kernels, nvtx and api on the real six-rank job,
// every real single file (more processes than files), a 16-rank synthetic capture and a set
// with a bad file; the other commands through process 0; the digest file. A process that dies
// ends the job.
#include "cli_runner.h"
#include "synth_sample.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::test;

namespace {

CliRun runMpi(int processes, const QStringList &args, const QStringList &environment = {})
{
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    // Under the asan-ubsan preset, ASan and UBSan check gaplens-mpi but LeakSanitizer does not:
    // Open MPI leaves allocations at exit (MPI_Init's, and its progress thread's in a component
    // it has unloaded by then, so no suppression can name it). Leaks in the code gaplens-mpi
    // shares are checked by the other suites, which run the same core and commands.
    if (env.contains(QStringLiteral("ASAN_OPTIONS")))
        env.insert(QStringLiteral("ASAN_OPTIONS"),
            env.value(QStringLiteral("ASAN_OPTIONS")) + QStringLiteral(":detect_leaks=0"));
    for (const auto &entry : environment)
        env.insert(entry.section(QLatin1Char('='), 0, 0), entry.section(QLatin1Char('='), 1));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(GAPLENS_MPIEXEC),
        QStringList { QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"), QStringLiteral("-np"),
            QString::number(processes), QStringLiteral(GAPLENS_MPI_PATH) }
            + args);
    if (!p.waitForFinished(120000))
        p.kill();
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError() };
}

QStringList realInputs(const QString &relative)
{
    const auto dir = QString::fromStdString(realDataDir());
    QStringList inputs;
    for (const auto &part : relative.split(QLatin1Char(' ')))
        inputs << dir + QLatin1Char('/') + part;
    return inputs;
}

} // namespace

class TestMpiMatchesCli : public QObject
{
    Q_OBJECT

    SynthSample m_synth;
    QTemporaryDir m_scratch;

    // Runs the command with gaplens-cli once and with gaplens-mpi at P = 1..4.
    void compareAtEveryProcessCount(const QStringList &args)
    {
        const auto cli = runCli(args);
        QVERIFY2(cli.exitCode == 0 || cli.exitCode == 1, cli.err.constData());
        QVERIFY(!cli.out.isEmpty());
        for (int processes = 1; processes <= 4; ++processes) {
            const auto mpi = runMpi(processes, args);
            QVERIFY2(mpi.exitCode == cli.exitCode,
                qPrintable(QStringLiteral("P=%1: exit %2, gaplens-cli %3\n%4")
                               .arg(processes)
                               .arg(mpi.exitCode)
                               .arg(cli.exitCode)
                               .arg(QString::fromUtf8(mpi.err))));
            QVERIFY2(mpi.out == cli.out, qPrintable(QStringLiteral("P=%1: output differs").arg(processes)));
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!realDataDir().empty(), kRealDataMissing);
        QVERIFY(m_synth.write(synthOptions(16, 6)));
        QVERIFY(m_scratch.isValid());
    }

    void distributedCommandsMatch_data()
    {
        QTest::addColumn<QStringList>("args");
        const auto ring = realInputs(QStringLiteral("ring_6ranks"));
        const auto synth = QStringList { m_synth.path };
        std::vector<std::string> singles;
        listRealExports(singles, 14);
        for (const char *command : { "intervals", "transfers" }) {
            const QString c = QLatin1String(command);
            for (const char *format : { "json", "table", "csv" })
                QTest::addRow("%s %s ring_6ranks", command, format)
                    << (QStringList { c, QStringLiteral("--format"), QLatin1String(format) } + ring);
            QTest::addRow("%s 16-rank synthetic", command)
                << (QStringList { c, QStringLiteral("--format=json") } + synth);
            // intervals only: the anomaly options.
            const auto tenMs = c == QLatin1String("intervals") ? QStringList { QStringLiteral("--interval=10ms"),
                QStringLiteral("--pool"), QStringLiteral("--metric=busy") }
                                                               : QStringList { QStringLiteral("--interval=10ms") };
            QTest::addRow("%s 16-rank synthetic at 10 ms", command)
                << (QStringList { c, QStringLiteral("--format=json") } + tenMs + synth);
            // The single files: those directly in the folder (ring_6ranks' six are one job).
            const QDir top(QString::fromStdString(realDataDir()));
            for (const auto &file : singles) {
                const QFileInfo info(QString::fromStdString(file));
                if (info.dir() == top)
                    QTest::addRow("%s %s", command, info.fileName().toUtf8().constData()) << QStringList { c,
                        QStringLiteral("--format=json"), QStringLiteral("--interval=100ms"), info.filePath() };
            }
            QTest::addRow("%s the mfu pair", command)
                << (QStringList { c, QStringLiteral("--format=json"), QStringLiteral("--interval=10ms") }
                       + realInputs(QStringLiteral("nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite")));
        }
        // gaps: each GPU's gaps rendered where its report is, in the whole capture's GPU order.
        const QStringList gaps { QStringLiteral("gaps"), QStringLiteral("--min-gap-us=1") };
        for (const char *format : { "json", "table", "csv" })
            QTest::addRow("gaps %s ring_6ranks with copies", format) << (gaps
                + QStringList { QStringLiteral("--format"), QLatin1String(format), QStringLiteral("--with-copies") }
                + ring);
        QTest::addRow("gaps table 16-rank synthetic, ranks 0 2 5")
            << (gaps + QStringList { QStringLiteral("--ranks=0,2,5") } + synth);
        QTest::addRow("gaps json 16-rank synthetic")
            << (gaps + QStringList { QStringLiteral("--format=json") } + synth);
        QTest::addRow("gaps csv the mfu pair") << (gaps + QStringList { QStringLiteral("--format=csv") }
            + realInputs(QStringLiteral("nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite")));
        QTest::addRow("gaps json H100, two GPUs in one file") << (gaps + QStringList { QStringLiteral("--format=json") }
            + realInputs(QStringLiteral("nsysai_h100_2gpu_1s.sqlite")));

        // blame: each GPU's totals where its report is, merged on the root in GPU order.
        const QStringList blame { QStringLiteral("blame"), QStringLiteral("--min-gap-us=1") };
        for (const char *format : { "json", "table" })
            QTest::addRow("blame %s ring_6ranks with copies", format) << (blame
                + QStringList { QStringLiteral("--format"), QLatin1String(format), QStringLiteral("--with-copies") }
                + ring);
        QTest::addRow("blame table per rank 16-rank synthetic, ranks 1 4 9")
            << (blame + QStringList { QStringLiteral("--per-rank"), QStringLiteral("--ranks=1,4,9") } + synth);
        QTest::addRow("blame json 16-rank synthetic")
            << (blame + QStringList { QStringLiteral("--format=json") } + synth);
        QTest::addRow("blame json the mfu pair and the H100")
            << (blame + QStringList { QStringLiteral("--format=json") }
                   + realInputs(QStringLiteral(
                       "nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite nsysai_h100_2gpu_1s.sqlite")));

        // ranks: the skeleton's reports, ranks and GPUs, and the rank decision's warnings.
        QTest::addRow("ranks json ring_6ranks")
            << (QStringList { QStringLiteral("ranks"), QStringLiteral("--format=json") } + ring);
        QTest::addRow("ranks json 16-rank synthetic")
            << QStringList { QStringLiteral("ranks"), QStringLiteral("--format=json"), m_synth.path };
        QTest::addRow("ranks table the mfu pair, the H100 and gpu4 (ranks claimed twice: warnings)")
            << (QStringList { QStringLiteral("ranks") }
                   + realInputs(QStringLiteral("nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite "
                                               "nsysai_h100_2gpu_1s.sqlite gpu4_streams_report2.sqlite")));

        // The summaries: group names matched across processes, medians by summed histograms.
        for (const char *command : { "kernels", "nvtx", "api" })
            for (const char *format : { "json", "table" })
                QTest::addRow("%s %s ring_6ranks", command, format)
                    << (QStringList { QLatin1String(command), QStringLiteral("--format"), QLatin1String(format) }
                           + ring);
        const QStringList perRank { QStringLiteral("kernels"), QStringLiteral("--per-rank") };
        QTest::addRow("kernels per rank json 16-rank synthetic")
            << (perRank + QStringList { QStringLiteral("--format=json") } + synth);
        QTest::addRow("kernels per rank table 16-rank synthetic, ranks 0 2 5, demangled, top 3") << (perRank
            + QStringList { QStringLiteral("--ranks=0,2,5"), QStringLiteral("--demangled"), QStringLiteral("--top=3") }
            + synth);
        QTest::addRow("nvtx json 16-rank synthetic")
            << QStringList { QStringLiteral("nvtx"), QStringLiteral("--format=json"), m_synth.path };
        QTest::addRow("api json 16-rank synthetic")
            << QStringList { QStringLiteral("api"), QStringLiteral("--format=json"), m_synth.path };
        QTest::addRow("nvtx --gpu json the mfu pair")
            << (QStringList { QStringLiteral("nvtx"), QStringLiteral("--gpu"), QStringLiteral("--format=json") }
                   + realInputs(QStringLiteral("nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite")));
        const QDir top(QString::fromStdString(realDataDir()));
        for (const auto &file : singles) {
            const QFileInfo info(QString::fromStdString(file));
            if (info.dir() != top)
                continue;
            QTest::addRow("kernels per rank %s", info.fileName().toUtf8().constData())
                << (perRank + QStringList { QStringLiteral("--format=json"), info.filePath() });
            QTest::addRow("nvtx --gpu %s", info.fileName().toUtf8().constData())
                << QStringList { QStringLiteral("nvtx"), QStringLiteral("--gpu"), QStringLiteral("--format=json"),
                       info.filePath() };
            QTest::addRow("blame %s", info.fileName().toUtf8().constData())
                << (blame + QStringList { QStringLiteral("--format=json"), info.filePath() });
        }
    }

    void distributedCommandsMatch()
    {
        QFETCH(QStringList, args);
        compareAtEveryProcessCount(args);
    }

    // The commands not yet computed in parts run whole on process 0: the same output.
    void otherCommandsMatch_data()
    {
        addRows<QString>("command",
            { { "summary", "summary" }, { "kernels --hist", "kernels" }, { "pace", "pace" }, { "overlap", "overlap" },
                { "ncu", "ncu" }, { "throughput", "throughput" } });
    }

    void otherCommandsMatch()
    {
        QFETCH(QString, command);
        QStringList args { command, m_synth.path };
        if (command == QLatin1String("ncu")) // one command line, in no format, for a kernel the generator writes
            args << QStringLiteral("--kernel=ampere_sgemm_128x64_nt");
        if (command == QLatin1String("kernels")) // one kernel's histogram
            args << QStringLiteral("--hist=ampere_sgemm_128x64_nt");
        if (command != QLatin1String("ncu"))
            args.insert(1, QStringLiteral("--format=json"));
        const auto cli = runCli(args);
        const auto mpi = runMpi(2, args);
        QCOMPARE(mpi.exitCode, cli.exitCode);
        QCOMPARE(mpi.out, cli.out);
        QVERIFY2(mpi.err.contains("not computed in parts yet"), mpi.err.constData());
    }

    // gaplens-cli loads a file given twice as two reports; the parts name reports by path, so
    // gaplens-mpi runs such a job whole on process 0, says so, and prints the same.
    void aFileGivenTwiceRunsOnProcessZero()
    {
        const auto twice
            = realInputs(QStringLiteral("gpu4_streams_report2.sqlite nsysai_mock.sqlite gpu4_streams_report2.sqlite"));
        for (const char *command : { "gaps", "kernels" }) {
            const auto args = QStringList { QLatin1String(command), QStringLiteral("--format=json") } + twice;
            const auto cli = runCli(args);
            QCOMPARE(cli.exitCode, 0);
            const auto mpi = runMpi(3, args);
            QCOMPARE(mpi.exitCode, cli.exitCode);
            QCOMPARE(mpi.out, cli.out);
            QVERIFY2(mpi.err.contains("a file is given twice"), mpi.err.constData());
        }
    }

    // The digest gaplens-mpi writes is gaplens-cli's, byte for byte, at every process count.
    void digestMatches_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addRow("ring_6ranks") << realInputs(QStringLiteral("ring_6ranks"));
        QTest::addRow("16-rank synthetic at 10 ms") << QStringList { QStringLiteral("--interval=10ms"), m_synth.path };
    }

    void digestMatches()
    {
        QFETCH(QStringList, args);
        const auto cliPath = m_scratch.filePath(QStringLiteral("cli.gldigest"));
        const auto cli = runCli(QStringList { QStringLiteral("digest"), QStringLiteral("--out"), cliPath } + args);
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        QFile cliFile(cliPath);
        QVERIFY(cliFile.open(QIODevice::ReadOnly));
        const auto expected = cliFile.readAll();
        QVERIFY(expected.startsWith(R"({"format":"gaplens-digest","version":1,)"));
        for (int processes = 1; processes <= 4; ++processes) {
            const auto mpiPath = m_scratch.filePath(QStringLiteral("mpi%1.gldigest").arg(processes));
            const auto mpi
                = runMpi(processes, QStringList { QStringLiteral("digest"), QStringLiteral("--out"), mpiPath } + args);
            QVERIFY2(mpi.exitCode == 0, mpi.err.constData());
            QFile mpiFile(mpiPath);
            QVERIFY(mpiFile.open(QIODevice::ReadOnly));
            QVERIFY2(mpiFile.readAll() == expected, qPrintable(QStringLiteral("P=%1: digest differs").arg(processes)));
        }
    }

    void badFileIsNamedAndTheOthersAnalysed()
    {
        const auto bad = m_scratch.filePath(QStringLiteral("bad.sqlite"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not an SQLite database");
        file.close();
        const QStringList args { QStringLiteral("intervals"), QStringLiteral("--format=json"), m_synth.path, bad };
        const auto cli = runCli(args);
        QCOMPARE(cli.exitCode, 1);
        for (int processes : { 1, 3 }) {
            const auto mpi = runMpi(processes, args);
            QCOMPARE(mpi.exitCode, 1);
            QCOMPARE(mpi.out, cli.out);
            QVERIFY2(mpi.err.contains(bad.toUtf8()), mpi.err.constData());
        }
    }

    void noFileLoadsIsAnError()
    {
        const QStringList args { QStringLiteral("transfers"), m_scratch.filePath(QStringLiteral("missing.sqlite")) };
        QCOMPARE(runCli(args).exitCode, 1);
        const auto mpi = runMpi(2, args);
        QCOMPARE(mpi.exitCode, 1);
        QVERIFY(mpi.out.isEmpty());
        QVERIFY2(mpi.err.contains("none of the 1 input file(s) could be loaded"), mpi.err.constData());
    }

    void usageErrorsExitWithTwo()
    {
        const auto mpi = runMpi(2, { QStringLiteral("intervals"), QStringLiteral("--interval=0s"), m_synth.path });
        QCOMPARE(mpi.exitCode,
            runCli({ QStringLiteral("intervals"), QStringLiteral("--interval=0s"), m_synth.path }).exitCode);
        const auto unknown = runMpi(2, { QStringLiteral("no-such-command") });
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("gaplens-mpi"), unknown.err.constData());
    }

    void aProcessThatDiesEndsTheJob()
    {
        // Process 1 aborts after loading, while the root waits for its part.
        const auto mpi
            = runMpi(3, { QStringLiteral("intervals"), m_synth.path }, { QStringLiteral("GAPLENS_MPI_TEST_ABORT=1") });
        QVERIFY2(mpi.exitCode != 0 && mpi.exitCode != -1, mpi.err.constData()); // ended, not killed by the timeout
        QVERIFY(mpi.out.isEmpty());
        QVERIFY2(mpi.err.contains("signal") || mpi.err.contains("abort"), mpi.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestMpiMatchesCli)
#include "tst_mpi_matches_cli.moc"
