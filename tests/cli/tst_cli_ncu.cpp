// SPDX-License-Identifier: MIT
// `gaplens-cli ncu` end to end: the exact command line and notes for a built fixture and a real
// export, and the errors for a kernel, rank or launch that is not there.
#include "gaplens/core/write/export_writer.h"

#include "cli_runner.h"
#include "sqltestdb.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <tuple>

using namespace gaplens::core;
using namespace gaplens::test;

class TestCliNcu : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_fixture;

    QString writeFixture(const QString &name, bool withMetadata)
    {
        const auto path = m_dir.filePath(name);
        ExportWriter::Options options;
        options.command = "python3";
        options.arguments = { "train.py", "--run name", "it's" };
        options.workingDir = "/srv/job";
        options.writeCaptureMetadata = withMetadata;
        ExportWriter writer(path.toStdString(), options);
        writer.addProcess(100, "python3");
        writer.addProcess(200, "python3");
        // gemm three times in process 100 (the third first on the GPU), twice in process 200.
        const std::tuple<std::uint32_t, std::int64_t, std::uint32_t, TimeNs> launches[] = { { 100, 7, 10, 1000 },
            { 100, 7, 20, 3000 }, { 100, 8, 30, 2000 }, { 200, 7, 10, 1500 }, { 200, 7, 11, 2500 } };
        for (const auto &[pid, stream, correlation, start] : launches)
            writer.addKernel({ .start = start,
                .end = start + 100,
                .streamId = stream,
                .correlationId = correlation,
                .pid = pid,
                .shortName = "gemm" });
        writer.finish();
        return path;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_fixture = writeFixture(QStringLiteral("gemm.sqlite"), true);
    }

    void printsTheCommandThenWhatItCouldNotKnowAsComments()
    {
        const auto run = runCli({ QStringLiteral("ncu"), QStringLiteral("--kernel"), QStringLiteral("gemm"),
            QStringLiteral("--instance"), QStringLiteral("2"), m_fixture });
        QCOMPARE(run.err, QByteArray());
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out,
            QByteArray("ncu --kernel-name-base function --kernel-name gemm --launch-skip 1 --launch-count 1 -o "
                       "gaplens_gemm_2 python3 train.py '--run name' 'it'\\''s'\n"
                       "# It profiles launch 2 of 3 of gemm in rank 0 (pid 100): --launch-skip 1 skips the 1 earlier "
                       "launch of it in that process, in launch order (correlation ids).\n"
                       "# Rank 1 launched it too: --rank picks another.\n"
                       "# Launches before the capture began are not in the export: if it started late (a delay, a "
                       "capture range, a cut window), add them to --launch-skip.\n"
                       "# The program and its arguments are PROCESS_0's in META_DATA_CAPTURE.\n"
                       "# Run it in the program's working directory at capture time: /srv/job\n"
                       "# The environment is not in the export: run it with the one the program had "
                       "(CUDA_VISIBLE_DEVICES, rank variables).\n"
                       "# The report holds 2 GPU processes (ranks 0, 1); ncu follows the program's child processes "
                       "by default (--target-processes all) and may profile this launch in each: rank 0's result is "
                       "the one from pid 100.\n"));
    }

    void anotherRanksLaunchesAreCountedInItsOwnProcess()
    {
        const auto run = runCli(
            { QStringLiteral("ncu"), QStringLiteral("--kernel"), QStringLiteral("gemm"), QStringLiteral("--instance"),
                QStringLiteral("2"), QStringLiteral("--rank"), QStringLiteral("1"), m_fixture });
        QCOMPARE(run.exitCode, 0);
        const auto lines = run.out.split('\n');
        QCOMPARE(lines[0],
            QByteArray("ncu --kernel-name-base function --kernel-name gemm --launch-skip 1 --launch-count 1 -o "
                       "gaplens_gemm_2 python3 train.py '--run name' 'it'\\''s'"));
        QCOMPARE(lines[1],
            QByteArray("# It profiles launch 2 of 2 of gemm in rank 1 (pid 200): --launch-skip 1 skips the 1 earlier "
                       "launch of it in that process, in launch order (correlation ids)."));
    }

    void withoutMetaDataCaptureThePlaceholderIsMarked()
    {
        const auto path = writeFixture(QStringLiteral("no-meta.sqlite"), false);
        const auto run = runCli({ QStringLiteral("ncu"), QStringLiteral("--kernel"), QStringLiteral("gemm"), path });
        QCOMPARE(run.exitCode, 0);
        const auto lines = run.out.split('\n');
        QCOMPARE(lines[0],
            QByteArray("ncu --kernel-name-base function --kernel-name gemm --launch-skip 0 --launch-count 1 -o "
                       "gaplens_gemm_1 <program> <args>"));
        QCOMPARE(lines[4],
            QByteArray("# <program> <args> is a placeholder: the export has no META_DATA_CAPTURE table, so the "
                       "program and its arguments are not known; put them there."));
    }

    void whatIsNotThereIsAnError_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("err");
        QTest::newRow("kernel") << QStringList { QStringLiteral("--kernel"), QStringLiteral("gemv") }
                                << QByteArray("gaplens-cli: error: no kernel named 'gemv' in the capture "
                                              "(`gaplens-cli kernels` lists them)\n");
        QTest::newRow("launch") << QStringList { QStringLiteral("--kernel"), QStringLiteral("gemm"),
            QStringLiteral("--instance"), QStringLiteral("4") }
                                << QByteArray("gaplens-cli: error: rank 0 launched 'gemm' 3 times: there is no "
                                              "launch 4\n");
        QTest::newRow("rank") << QStringList { QStringLiteral("--kernel"), QStringLiteral("gemm"),
            QStringLiteral("--rank"), QStringLiteral("5") }
                              << QByteArray("gaplens-cli: error: no rank 5 in the capture\n");
    }

    void whatIsNotThereIsAnError()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, err);
        const auto run = runCli(QStringList { QStringLiteral("ncu") } + args + QStringList { m_fixture });
        QCOMPARE(run.exitCode, 1);
        QCOMPARE(run.out, QByteArray());
        QCOMPARE(run.err, err);
    }

    void usageErrors()
    {
        const auto noKernel = runCli({ QStringLiteral("ncu"), m_fixture });
        QCOMPARE(noKernel.exitCode, 2);
        QCOMPARE(noKernel.err,
            QByteArray("gaplens-cli: ncu needs --kernel NAME\nRun `gaplens-cli ncu --help` for usage.\n"));
        const auto zero = runCli({ QStringLiteral("ncu"), QStringLiteral("--kernel"), QStringLiteral("gemm"),
            QStringLiteral("--instance"), QStringLiteral("0"), m_fixture });
        QCOMPARE(zero.exitCode, 2);
        QCOMPARE(zero.err,
            QByteArray("gaplens-cli: --instance counts launches from 1\nRun `gaplens-cli ncu --help` for usage.\n"));
    }

    void aRealExportGivesItsCapturedCommand()
    {
        const auto path = realFile("sc23_openmp_offload_report3.sqlite");
        QVERIFY(!path.empty());
        SqlTestDb db(path);
        // The kernel launched most, and how often, by SQL.
        const auto top = db.rows("SELECT s.value, COUNT(*) AS n FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                                 "ON s.id = k.shortName GROUP BY s.value ORDER BY n DESC, s.value LIMIT 1");
        QCOMPARE(top.size(), std::size_t(1));
        const auto name = QString::fromStdString(top[0][0]);
        const auto count = std::stoi(top[0][1]);
        QVERIFY(count > 1);
        const auto run = runCli({ QStringLiteral("ncu"), QStringLiteral("--kernel"), name, QStringLiteral("--instance"),
            QString::number(count), QString::fromStdString(path) });
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out.split('\n')[0],
            QStringLiteral("ncu --kernel-name-base function --kernel-name %1 --launch-skip %2 --launch-count 1 -o "
                           "gaplens_%1_%3 ./heat 8000 50")
                .arg(name)
                .arg(count - 1)
                .arg(count)
                .toUtf8());
        QVERIFY(run.out.contains(
            "# Run it in the program's working directory at capture time: /shared/home/train06/openmp-tutorial\n"));
    }
};

QTEST_GUILESS_MAIN(TestCliNcu)
#include "tst_cli_ncu.moc"
