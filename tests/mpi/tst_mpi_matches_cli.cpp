// SPDX-License-Identifier: MIT
// `mpirun -np P gaplens-mpi COMMAND FILES...` prints exactly what `gaplens-cli COMMAND
// FILES...` prints, with its exit status, for P = 1 to 4 (oversubscribed on this machine):
// summary, intervals, transfers, gaps, blame, ranks, kernels, nvtx, api, pace, overlap, ncu and throughput on the real
// six-rank job, every real single file (more processes than files), a 16-rank synthetic capture and a set with a bad
// file; the summaries also on single files split into time shards (a large synthetic one, alone and beside a small
// one, and every real single file); check against a stored summary and check --min-sustained-gain; diff; the digest
// file. A process that dies ends the job.
#include "cli_runner.h"
#include "minimal_export.h"
#include "run_exports.h"
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
    // Every job here runs on one machine, where Open MPI's ob1 (over shared memory) is the
    // transport; the default, UCX, probes for networks first: 0.44 s against 0.22 s a job at
    // P = 4, and the test runs about 1,000 jobs. A caller's own choice is kept.
    if (!env.contains(QStringLiteral("OMPI_MCA_pml")))
        env.insert(QStringLiteral("OMPI_MCA_pml"), QStringLiteral("ob1"));
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
    SynthSample m_single; // one rank, one large file: split into time shards
    SynthSample m_phases; // four ranks with checkpoints, validation and data waits (throughput)
    SynthSample m_shorterPhases; // three ranks of the same kind, fewer steps
    SynthSample m_onePhases; // one rank of that kind, in one file: throughput in time shards
    QTemporaryDir m_scratch;

    // Runs the command with gaplens-mpi at P = 1..4: the exit status and stdout are gaplens-cli's
    // (`cli`); with `inParts`, stderr starts with gaplens-cli's (mpirun adds its own lines about
    // the status after the root's messages) and the command was not run whole.
    void matchesAtEveryProcessCount(const QStringList &args, const CliRun &cli, bool inParts = false)
    {
        for (int processes = 1; processes <= 4; ++processes) {
            const auto mpi = runMpi(processes, args);
            QVERIFY2(mpi.exitCode == cli.exitCode,
                qPrintable(QStringLiteral("P=%1: exit %2, gaplens-cli %3\n%4")
                               .arg(processes)
                               .arg(mpi.exitCode)
                               .arg(cli.exitCode)
                               .arg(QString::fromUtf8(mpi.err))));
            QVERIFY2(mpi.out == cli.out, qPrintable(QStringLiteral("P=%1: output differs").arg(processes)));
            if (inParts) {
                QVERIFY2(mpi.err.startsWith(cli.err), mpi.err.constData());
                QVERIFY2(!mpi.err.contains("process 0 runs it alone"), mpi.err.constData());
            }
        }
    }

    // A row of diff or check --min-sustained-gain (columns args, exitCode, sameStderr): the
    // exit status gaplens-cli's and the expected one, stdout gaplens-cli's at P = 1..4; where
    // stderr differs, a bad input (`badFile`) named with gaplens-mpi's prefix and its label.
    void beforeAfterMatches(const char *badFile)
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(bool, sameStderr);
        const auto cli = runCli(args);
        QCOMPARE(cli.exitCode, exitCode);
        matchesAtEveryProcessCount(args, cli, sameStderr);
        if (!sameStderr) {
            // The capture the bad file is in, as gaplens-cli labels it.
            const QByteArray label = cli.err.contains("error: before: ") ? "before: " : "after: ";
            const auto mpi = runMpi(3, args);
            QVERIFY2(
                mpi.err.contains("gaplens-mpi: error: " + label) && mpi.err.contains(badFile), mpi.err.constData());
            QVERIFY2(!mpi.err.contains("process 0 runs it alone"), mpi.err.constData());
        }
    }

    // gaplens-cli summary's JSON of `args`, stored in the scratch folder as a baseline for check;
    // empty when the summary fails or cannot be written.
    QString storedSummary(const QString &name, const QStringList &args) const
    {
        const auto summary = runCli(QStringList { QStringLiteral("summary"), QStringLiteral("--format=json") } + args);
        const auto path = m_scratch.filePath(name);
        QFile file(path);
        if (summary.exitCode != 0 || !file.open(QIODevice::WriteOnly) || file.write(summary.out) < 0)
            return {};
        return path;
    }

    // A file in the scratch folder that is not an SQLite database; empty when it cannot be written.
    QString notAnExport(const QString &name) const
    {
        const auto path = m_scratch.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write("not an SQLite file") < 0)
            return {};
        return path;
    }

    // Runs the command with gaplens-cli once and with gaplens-mpi at P = 1..4.
    void compareAtEveryProcessCount(const QStringList &args)
    {
        const auto cli = runCli(args);
        QVERIFY2(cli.exitCode == 0 || cli.exitCode == 1, cli.err.constData());
        QVERIFY(!cli.out.isEmpty());
        matchesAtEveryProcessCount(args, cli);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!realDataDir().empty(), kRealDataMissing);
        QVERIFY(m_synth.write(synthOptions(16, 6)));
        auto single = synthOptions(1, 300);
        single.jitter = 0.2; // distinct durations: the medians take the histogram passes
        single.scaleRuntimePerRank = 12000;
        single.scaleNvtxPerRank = 12000;
        QVERIFY(m_single.write(single));
        QVERIFY(m_phases.write(gaplens::core::withRunPhases(synthOptions(4, 48))));
        QVERIFY(m_shorterPhases.write(gaplens::core::withRunPhases(synthOptions(3, 40))));
        QVERIFY(m_onePhases.write(gaplens::core::withRunPhases(synthOptions(1, 48))));
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
            // Time shards: busy time counted after the earlier shards' busy end, a rank's
            // intervals merged over its shards, its ping-pong runs found across them.
            for (const char *format : { "json", "table" })
                QTest::addRow("%s %s at 1 ms, one large synthetic file in time shards", command, format)
                    << QStringList { c, QStringLiteral("--format"), QLatin1String(format),
                           QStringLiteral("--interval=1ms"), m_single.path };
            QTest::addRow("%s json at 2 ms, a large file in time shards beside a small one", command)
                << (QStringList { c, QStringLiteral("--format=json"), QStringLiteral("--interval=2ms") }
                       + (c == QLatin1String("intervals") ? QStringList { QStringLiteral("--metric=busy") }
                                                          : QStringList {})
                       + QStringList { m_single.path } + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        }
        // overlap: the rows and each rank's communication kernels where its report is, the
        // collectives matched across ranks on the root.
        const QStringList overlap { QStringLiteral("overlap") };
        for (const char *format : { "json", "table", "csv" })
            QTest::addRow("overlap %s ring_6ranks", format)
                << (overlap + QStringList { QStringLiteral("--format"), QLatin1String(format) } + ring);
        QTest::addRow("overlap json ring_6ranks, ranks 0 2 5")
            << (overlap + QStringList { QStringLiteral("--format=json"), QStringLiteral("--ranks=0,2,5") } + ring);
        QTest::addRow("overlap json 16-rank synthetic")
            << (overlap + QStringList { QStringLiteral("--format=json") } + synth);
        QTest::addRow("overlap table 16-rank synthetic, ranks 1 4 9")
            << (overlap + QStringList { QStringLiteral("--ranks=1,4,9") } + synth);
        QTest::addRow("overlap csv 16-rank synthetic")
            << (overlap + QStringList { QStringLiteral("--format=csv") } + synth);
        QTest::addRow("overlap json the mfu pair") << (overlap + QStringList { QStringLiteral("--format=json") }
            + realInputs(QStringLiteral("nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite")));
        QTest::addRow("overlap table the mfu pair and the H100, ranks 1 2")
            << (overlap + QStringList { QStringLiteral("--ranks=1,2") }
                   + realInputs(QStringLiteral(
                       "nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite nsysai_h100_2gpu_1s.sqlite")));
        QTest::addRow("overlap json every real single file")
            << (overlap + QStringList { QStringLiteral("--format=json"), QString::fromStdString(realDataDir()) });
        // In time shards: a row's unions counted after the earlier shards' kernels, added up.
        for (const char *format : { "json", "table" })
            QTest::addRow("overlap %s, one large synthetic file in time shards", format)
                << (overlap + QStringList { QStringLiteral("--format"), QLatin1String(format), m_single.path });
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
        // Time shards: a file far above its share, or fewer files than processes, is split.
        for (const char *command : { "kernels", "nvtx", "api" }) {
            for (const char *format : { "json", "table" })
                QTest::addRow("%s %s, one large synthetic file in time shards", command, format)
                    << QStringList { QLatin1String(command), QStringLiteral("--format"), QLatin1String(format),
                           m_single.path };
            QTest::addRow("%s json, a large file in time shards beside a small one", command)
                << (QStringList { QLatin1String(command), QStringLiteral("--format=json"), m_single.path }
                       + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        }
        QTest::addRow("kernels per rank json, a large file in time shards beside a small one, rank 0")
            << (QStringList { QStringLiteral("kernels"), QStringLiteral("--per-rank"), QStringLiteral("--format=json"),
                    QStringLiteral("--ranks=0"), m_single.path }
                   + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        QTest::addRow("kernels per rank table, a large file in time shards beside a small one")
            << (QStringList { QStringLiteral("kernels"), QStringLiteral("--per-rank"), m_single.path }
                   + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        // gaps and blame in time shards: a gap belongs to the shard whose work ends it, and
        // reads the launch calls, CUDA calls and NVTX ranges of earlier shards through a halo.
        for (const char *format : { "json", "table" }) {
            QTest::addRow("gaps %s, one large synthetic file in time shards", format)
                << (gaps + QStringList { QStringLiteral("--format"), QLatin1String(format), m_single.path });
            QTest::addRow("blame %s, one large synthetic file in time shards", format)
                << (blame + QStringList { QStringLiteral("--format"), QLatin1String(format), m_single.path });
        }
        QTest::addRow("gaps csv --with-copies, one large synthetic file in time shards")
            << (gaps + QStringList { QStringLiteral("--format=csv"), QStringLiteral("--with-copies"), m_single.path });
        QTest::addRow("blame json --with-copies, a large file in time shards beside a small one")
            << (blame + QStringList { QStringLiteral("--format=json"), QStringLiteral("--with-copies"), m_single.path }
                   + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        QTest::addRow("gaps json, a large file in time shards beside a small one")
            << (gaps + QStringList { QStringLiteral("--format=json"), m_single.path }
                   + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        QTest::addRow("kernels json demangled top 5, in time shards") << QStringList { QStringLiteral("kernels"),
            QStringLiteral("--format=json"), QStringLiteral("--demangled"), QStringLiteral("--top=5"), m_single.path };
        // kernels --hist: bins, median, p95 and the slowest launches reduced over the processes.
        const QStringList hist { QStringLiteral("kernels"), QStringLiteral("--hist=ampere_sgemm_128x64_nt") };
        for (const char *format : { "json", "table" }) {
            QTest::addRow("kernels --hist %s 16-rank synthetic", format)
                << (hist + QStringList { QStringLiteral("--format"), QLatin1String(format) } + synth);
            QTest::addRow("kernels --hist %s, one large synthetic file", format)
                << (hist + QStringList { QStringLiteral("--format"), QLatin1String(format), m_single.path });
        }
        QTest::addRow("kernels --hist table --log --bins 7 16-rank synthetic, ranks 0 2 5") << (hist
            + QStringList { QStringLiteral("--log"), QStringLiteral("--bins=7"), QStringLiteral("--ranks=0,2,5") }
            + synth);
        QTest::addRow("kernels --hist csv --log, one large synthetic file beside a small one")
            << (hist + QStringList { QStringLiteral("--format=csv"), QStringLiteral("--log"), m_single.path }
                   + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        const QStringList ringHist { QStringLiteral("kernels"),
            QStringLiteral("--hist=ncclKernel_AllReduce_RING_LL_Sum_float") };
        for (const char *format : { "json", "table" })
            QTest::addRow("kernels --hist %s ring_6ranks", format)
                << (ringHist + QStringList { QStringLiteral("--format"), QLatin1String(format) } + ring);
        QTest::addRow("kernels --hist json --log ring_6ranks, ranks 1 4") << (ringHist
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--log"), QStringLiteral("--ranks=1,4") }
            + ring);
        for (const char *format : { "json", "table" })
            QTest::addRow("kernels --hist %s gpu4 (tied durations)", format)
                << (QStringList { QStringLiteral("kernels"), QStringLiteral("--hist=vecAdd"),
                        QStringLiteral("--format"), QLatin1String(format) }
                       + realInputs(QStringLiteral("gpu4_streams_report2.sqlite")));
        QTest::addRow("kernels --hist json --log the H100")
            << (QStringList { QStringLiteral("kernels"), QStringLiteral("--hist=vectorized_elementwise_kernel"),
                    QStringLiteral("--format=json"), QStringLiteral("--log") }
                   + realInputs(QStringLiteral("nsysai_h100_2gpu_1s.sqlite")));
        const QDir top(QString::fromStdString(realDataDir()));
        for (const auto &file : singles) {
            const QFileInfo info(QString::fromStdString(file));
            if (info.dir() != top)
                continue;
            for (const char *command : { "kernels", "nvtx", "api", "overlap" })
                QTest::addRow("%s %s in time shards", command, info.fileName().toUtf8().constData())
                    << QStringList { QLatin1String(command), QStringLiteral("--format=json"), info.filePath() };
            QTest::addRow("kernels per rank %s", info.fileName().toUtf8().constData())
                << (perRank + QStringList { QStringLiteral("--format=json"), info.filePath() });
            QTest::addRow("nvtx --gpu %s", info.fileName().toUtf8().constData())
                << QStringList { QStringLiteral("nvtx"), QStringLiteral("--gpu"), QStringLiteral("--format=json"),
                       info.filePath() };
            QTest::addRow("blame %s in time shards", info.fileName().toUtf8().constData())
                << (blame + QStringList { QStringLiteral("--format=json"), info.filePath() });
            QTest::addRow("gaps %s in time shards", info.fileName().toUtf8().constData())
                << (gaps + QStringList { QStringLiteral("--format=json"), info.filePath() });
        }

        // pace: the step range proposed from every process's NVTX tallies, each rank's pace
        // where its report is, the ranks compared on the root.
        const QStringList pace { QStringLiteral("pace") };
        for (const char *format : { "json", "table" })
            QTest::addRow("pace %s 16-rank synthetic (proposed range)", format)
                << (pace + QStringList { QStringLiteral("--format"), QLatin1String(format) } + synth);
        QTest::addRow("pace csv 16-rank synthetic, ranks 0 2 5")
            << (pace + QStringList { QStringLiteral("--format=csv"), QStringLiteral("--ranks=0,2,5") } + synth);
        QTest::addRow("pace json --gpu --with-copies 16-rank synthetic, ranks 1 2 9") << (pace
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--gpu"), QStringLiteral("--with-copies"),
                QStringLiteral("--ranks=1,2,9") }
            + synth);
        QTest::addRow("pace table --gpu --range train_step 16-rank synthetic")
            << (pace + QStringList { QStringLiteral("--gpu"), QStringLiteral("--range=train_step") } + synth);
        for (const char *format : { "json", "table" })
            QTest::addRow("pace %s --range ncclAllReduce ring_6ranks", format) << (pace
                + QStringList { QStringLiteral("--format"), QLatin1String(format),
                    QStringLiteral("--range=ncclAllReduce") }
                + ring);
        QTest::addRow("pace json --gpu --range ncclAllReduce ring_6ranks") << (pace
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--gpu"),
                QStringLiteral("--range=ncclAllReduce") }
            + ring);
        QTest::addRow("pace table --range ncclNetRecvTest() ring_6ranks (on two ranks)")
            << (pace + QStringList { QStringLiteral("--range=ncclNetRecvTest()") } + ring);
        QTest::addRow("pace json --gpu --range aten::to the mfu pair and the H100") << (pace
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--gpu"),
                QStringLiteral("--range=aten::to") }
            + realInputs(QStringLiteral(
                "nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite nsysai_h100_2gpu_1s.sqlite")));
        // In time shards (a given range, CPU time): a rank's pace from every shard's candidates,
        // its steps' busy time after the earlier shards' busy end, added up on the root.
        for (const char *format : { "json", "table" })
            QTest::addRow("pace %s --range train_step, one large synthetic file in time shards", format) << (pace
                + QStringList { QStringLiteral("--format"), QLatin1String(format), QStringLiteral("--range=train_step"),
                    m_single.path });
        QTest::addRow("pace csv --range train_step --with-copies, a large file in time shards beside a small one")
            << (pace
                   + QStringList { QStringLiteral("--format=csv"), QStringLiteral("--range=train_step"),
                       QStringLiteral("--with-copies"), m_single.path }
                   + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        for (const char *file : { "nsysai_h100_2gpu_1s.sqlite", "nsysai_mfu_2gpu_before.sqlite" })
            QTest::addRow("pace json --range aten::to --with-copies %s in time shards", file) << (pace
                + QStringList { QStringLiteral("--format=json"), QStringLiteral("--range=aten::to"),
                    QStringLiteral("--with-copies") }
                + realInputs(QLatin1String(file)));
        // ncu: the ranks that launched the kernel united over the processes, the command built
        // where the chosen rank is.
        const QStringList nccl { QStringLiteral("ncu"),
            QStringLiteral("--kernel=ncclKernel_AllReduce_RING_LL_Sum_float") };
        QTest::addRow("ncu ring_6ranks, the lowest rank") << (nccl + ring);
        QTest::addRow("ncu 16-rank synthetic, rank 9 launch 3")
            << (QStringList { QStringLiteral("ncu"), QStringLiteral("--kernel=ampere_sgemm_128x64_nt"),
                    QStringLiteral("--instance=3"), QStringLiteral("--rank=9") }
                   + synth);
        const auto threeFiles = realInputs(
            QStringLiteral("nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite nsysai_h100_2gpu_1s.sqlite"));
        QTest::addRow("ncu the mfu pair and the H100, a kernel of every rank")
            << (QStringList { QStringLiteral("ncu"), QStringLiteral("--kernel=vectorized_elementwise_kernel") }
                   + threeFiles);
        QTest::addRow("ncu the mfu pair and the H100, a kernel of the H100's ranks only")
            << (QStringList { QStringLiteral("ncu"),
                    QStringLiteral(
                        "--kernel=sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_"
                        "ffma_aligna4_alignc4_execute_kernel__5x_cublas"),
                    QStringLiteral("--instance=5") }
                   + threeFiles);
        QTest::addRow("ncu the mfu pair and the H100, a demangled name")
            << (QStringList { QStringLiteral("ncu"),
                    QStringLiteral("--kernel=void at::native::vectorized_gather_kernel<(int)16, long>(char *, char *, "
                                   "T2 *, int, long, long, long, long, bool)") }
                   + threeFiles);
        // In time shards: the rank's launches counted over its shards; its 900th of 1,200 lies
        // past the first shard at P = 2 to 4.
        QTest::addRow("ncu, one large synthetic file in time shards, launch 900")
            << (QStringList { QStringLiteral("ncu"), QStringLiteral("--kernel=ampere_sgemm_128x64_nt"),
                   QStringLiteral("--instance=900"), m_single.path });
        // throughput: the step range and work source decided over the processes, each rank
        // accounted where its report is, the overall figures on the root.
        const QStringList throughput { QStringLiteral("throughput") };
        const auto phases = QStringList { m_phases.path };
        for (const char *format : { "json", "table", "csv", "md" })
            QTest::addRow("throughput %s, a job with phases", format)
                << (throughput + QStringList { QStringLiteral("--format"), QLatin1String(format) } + phases);
        QTest::addRow("throughput json --between train_step:2:10 --ranks 1,3, a job with phases") << (throughput
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--between=train_step:2:10"),
                QStringLiteral("--ranks=1,3") }
            + phases);
        QTest::addRow("throughput table --work-per-step, 16-rank synthetic")
            << (throughput + QStringList { QStringLiteral("--work-per-step=512"), m_synth.path });
        // In time shards (one file, P = 2 to 4): a rank's step and state ranges gathered from
        // its shards, in their order, and accounted on the root; the proposal from the shards'
        // tallies. Checkpoints, their staging on another thread, validation and data waits lie
        // in every shard.
        const auto onePhases = QStringList { m_onePhases.path };
        for (const char *format : { "json", "table", "csv", "md" })
            QTest::addRow("throughput %s, one rank with phases in time shards", format)
                << (throughput + QStringList { QStringLiteral("--format"), QLatin1String(format) } + onePhases);
        for (const char *window : { "--between=train_step:3:40", "--window=100ms:900ms", "--range=train_step" })
            QTest::addRow("throughput json %s, one rank with phases in time shards", window)
                << (throughput + QStringList { QStringLiteral("--format=json"), QLatin1String(window) } + onePhases);
        QTest::addRow("throughput json, one large synthetic file in time shards")
            << (throughput + QStringList { QStringLiteral("--format=json"), m_single.path });
        QTest::addRow("throughput json centerformer (proposed range, NVTX only, in time shards)")
            << (throughput + QStringList { QStringLiteral("--format=json") }
                   + realInputs(QStringLiteral("centerformer_nvtx_only.sqlite")));
        QTest::addRow("pace json centerformer (proposed range, processes without files)")
            << (pace + QStringList { QStringLiteral("--format=json") }
                   + realInputs(QStringLiteral("centerformer_nvtx_only.sqlite")));
        // summary: each rank's figures where its report is, the findings from every process's
        // part and the capture-wide facts (idle groups, stragglers, warm-up, pageable copies,
        // interval anomalies and copy stalls, one rank, no step range, NVTX only).
        const QStringList summary { QStringLiteral("summary") };
        for (const char *format : { "json", "table", "csv" }) {
            QTest::addRow("summary %s ring_6ranks", format)
                << (summary + QStringList { QStringLiteral("--format"), QLatin1String(format) } + ring);
            QTest::addRow("summary %s 16-rank synthetic", format)
                << (summary + QStringList { QStringLiteral("--format"), QLatin1String(format) } + synth);
        }
        QTest::addRow("summary json 16-rank synthetic, ranks 1 4 9, --min-gap-us 500 --with-copies") << (summary
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--ranks=1,4,9"),
                QStringLiteral("--min-gap-us=500"), QStringLiteral("--with-copies") }
            + synth);
        QTest::addRow("summary json ring_6ranks, ranks 0 2 5")
            << (summary + QStringList { QStringLiteral("--format=json"), QStringLiteral("--ranks=0,2,5") } + ring);
        QTest::addRow("summary json, a job with phases, --range") << (summary
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--range=train_step") } + phases);
        QTest::addRow("summary table, no such --range")
            << (summary + QStringList { QStringLiteral("--range=no_such_range") } + phases);
        QTest::addRow("summary json the mfu pair and the H100")
            << (summary + QStringList { QStringLiteral("--format=json") }
                   + realInputs(QStringLiteral(
                       "nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite nsysai_h100_2gpu_1s.sqlite")));
        for (const auto &file : singles)
            if (QFileInfo(QString::fromStdString(file)).dir() == QDir(QString::fromStdString(realDataDir())))
                QTest::addRow(
                    "summary json %s", QFileInfo(QString::fromStdString(file)).fileName().toUtf8().constData())
                    << QStringList { QStringLiteral("summary"), QStringLiteral("--format=json"),
                           QString::fromStdString(file) };
    }

    void distributedCommandsMatch()
    {
        QFETCH(QStringList, args);
        compareAtEveryProcessCount(args);
    }

    // The errors of commands in parts: pace with no step-like range (the chooser's candidates,
    // tallied over the processes, in the message) or a range no rank has; kernels --hist of no
    // kernel; ncu's. The same message and status.
    void errorsInPartsMatch_data()
    {
        QTest::addColumn<QStringList>("args");
        const QStringList pace { QStringLiteral("pace") };
        QTest::addRow("no step range: ring_6ranks") << (pace + realInputs(QStringLiteral("ring_6ranks")));
        QTest::addRow("no step range: the mfu pair and the H100") << (pace
            + realInputs(QStringLiteral(
                "nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite nsysai_h100_2gpu_1s.sqlite")));
        QTest::addRow("no NVTX: gpu4") << (pace + realInputs(QStringLiteral("gpu4_streams_report2.sqlite")));
        QTest::addRow("no such range: 16-rank synthetic")
            << (pace + QStringList { QStringLiteral("--range=no_such_range"), m_synth.path });
        const QStringList nccl { QStringLiteral("ncu"),
            QStringLiteral("--kernel=ncclKernel_AllReduce_RING_LL_Sum_float") };
        const auto ring = realInputs(QStringLiteral("ring_6ranks"));
        QTest::addRow("ncu, no such kernel: ring_6ranks")
            << (QStringList { QStringLiteral("ncu"), QStringLiteral("--kernel=no_such_kernel") } + ring);
        QTest::addRow("ncu, no rank 9: ring_6ranks") << (nccl + QStringList { QStringLiteral("--rank=9") } + ring);
        // Found by the process holding rank 3, not by the root.
        QTest::addRow("ncu, no second launch on rank 3: ring_6ranks")
            << (nccl + QStringList { QStringLiteral("--rank=3"), QStringLiteral("--instance=2") } + ring);
        QTest::addRow("ncu, a rank that did not launch it: the mfu pair and the H100")
            << (QStringList { QStringLiteral("ncu"),
                    QStringLiteral(
                        "--kernel=sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_"
                        "ffma_aligna4_alignc4_execute_kernel__5x_cublas"),
                    QStringLiteral("--rank=4") }
                   + realInputs(QStringLiteral(
                       "nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite nsysai_h100_2gpu_1s.sqlite")));
        // The launches of every shard counted before the instance is judged.
        QTest::addRow("ncu, no such launch: one large synthetic file in time shards")
            << (QStringList { QStringLiteral("ncu"), QStringLiteral("--kernel=ampere_sgemm_128x64_nt"),
                   QStringLiteral("--instance=100000"), m_single.path });
        QTest::addRow("throughput, no step range: ring_6ranks")
            << (QStringList { QStringLiteral("throughput") } + ring);
        // The first failing rank's error, found by the processes of ranks 0 and 2.
        for (const char *ranks : { "--ranks=0,1,2,3", "--ranks=2,3" })
            QTest::addRow("throughput, --between beyond the ranks' steps, %s", ranks)
                << QStringList { QStringLiteral("throughput"), QStringLiteral("--between=train_step:2:100000"),
                       QLatin1String(ranks), m_phases.path };
        // In time shards: the occurrences of every shard counted before the window is judged;
        // the chooser's list from the shards' tallies.
        QTest::addRow("throughput, --between beyond the steps, one rank in time shards")
            << QStringList { QStringLiteral("throughput"), QStringLiteral("--between=train_step:2:100000"),
                   m_onePhases.path };
        QTest::addRow("throughput, no step range: the H100 in time shards")
            << (QStringList { QStringLiteral("throughput") }
                   + realInputs(QStringLiteral("nsysai_h100_2gpu_1s.sqlite")));
        QTest::addRow("kernels --hist, no such kernel on ranks 1 4: ring_6ranks")
            << (QStringList {
                    QStringLiteral("kernels"), QStringLiteral("--hist=no_such_kernel"), QStringLiteral("--ranks=1,4") }
                   + realInputs(QStringLiteral("ring_6ranks")));
    }

    void errorsInPartsMatch()
    {
        QFETCH(QStringList, args);
        const auto cli = runCli(args);
        QCOMPARE(cli.exitCode, 1);
        QVERIFY(cli.out.isEmpty());
        QVERIFY2(cli.err.startsWith("gaplens-cli: error: "), cli.err.constData());
        for (int processes = 1; processes <= 4; ++processes) {
            const auto mpi = runMpi(processes, args);
            QCOMPARE(mpi.exitCode, cli.exitCode);
            QVERIFY(mpi.out.isEmpty());
            // mpirun adds its own lines about the status after the root's message.
            QVERIFY2(mpi.err.startsWith(cli.err),
                qPrintable(QStringLiteral("P=%1:\n%2").arg(processes).arg(QString::fromUtf8(mpi.err))));
        }
    }

    // The rows above run in time shards where the division says so: check that it does.
    void aSingleFileIsReadInTimeShards()
    {
        // The summary, per rank, the histogram, overlap, pace with a given range and with the
        // proposed one, gaps and blame (their shards read with a halo), ncu, intervals, throughput, and
        // check against a baseline that names its step range.
        const auto baseline = storedSummary(QStringLiteral("single.json"), { m_single.path });
        QVERIFY(!baseline.isEmpty());
        for (const auto &args :
            { QStringList { QStringLiteral("kernels"), QStringLiteral("--format=json"), m_single.path },
                QStringList { QStringLiteral("kernels"), QStringLiteral("--per-rank"), m_single.path },
                QStringList {
                    QStringLiteral("kernels"), QStringLiteral("--hist=ampere_sgemm_128x64_nt"), m_single.path },
                QStringList { QStringLiteral("overlap"), QStringLiteral("--format=json"), m_single.path },
                QStringList { QStringLiteral("pace"), QStringLiteral("--range=train_step"), m_single.path },
                QStringList { QStringLiteral("pace"), QStringLiteral("--format=json"), m_single.path },
                QStringList { QStringLiteral("gaps"), QStringLiteral("--format=json"), m_single.path },
                QStringList { QStringLiteral("blame"), m_single.path },
                QStringList { QStringLiteral("ncu"), QStringLiteral("--kernel=ampere_sgemm_128x64_nt"),
                    QStringLiteral("--instance=900"), m_single.path },
                QStringList { QStringLiteral("intervals"), QStringLiteral("--format=json"), m_single.path },
                QStringList { QStringLiteral("throughput"), QStringLiteral("--format=json"), m_single.path },
                QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), baseline, m_single.path } }) {
            const auto cli = runCli(args);
            QCOMPARE(cli.exitCode, 0);
            const auto mpi = runMpi(3, args, { QStringLiteral("GAPLENS_MPI_STATS=1") });
            QCOMPARE(mpi.exitCode, 0);
            QCOMPARE(mpi.out, cli.out);
            for (const char *shard : { "process 0 of 3: time shards 1 to 1 of 3 of input file 1",
                     "process 1 of 3: time shards 2 to 2 of 3 of input file 1",
                     "process 2 of 3: time shards 3 to 3 of 3 of input file 1" })
                QVERIFY2(mpi.err.contains(shard), mpi.err.constData());
        }
        // check --min-sustained-gain: both captures in time shards.
        const QStringList sustained { QStringLiteral("check"), QStringLiteral("--min-sustained-gain=3%"),
            QStringLiteral("--before"), m_single.path, QStringLiteral("--after"), m_single.path };
        const auto sustainedCli = runCli(sustained);
        const auto sustainedMpi = runMpi(3, sustained, { QStringLiteral("GAPLENS_MPI_STATS=1") });
        QCOMPARE(sustainedMpi.exitCode, sustainedCli.exitCode);
        QCOMPARE(sustainedMpi.out, sustainedCli.out);
        QCOMPARE(sustainedMpi.err.count("process 2 of 3: time shards 3 to 3 of 3 of input file 1"), 2);
        // diff: both captures' gaps read in time shards, then their own rows again for the steps.
        const QStringList diff { QStringLiteral("diff"), QStringLiteral("--format=json"), QStringLiteral("--before"),
            m_single.path, QStringLiteral("--after"), m_single.path };
        const auto diffCli = runCli(diff);
        const auto diffMpi = runMpi(3, diff, { QStringLiteral("GAPLENS_MPI_STATS=1") });
        QCOMPARE(diffMpi.exitCode, diffCli.exitCode);
        QCOMPARE(diffMpi.out, diffCli.out);
        QCOMPARE(diffMpi.err.count("process 2 of 3: time shards 3 to 3 of 3 of input file 1"), 2);
        // nvtx --gpu projects ranges through their launches onto GPU work in any shard: whole files.
        const auto whole = runMpi(3, { QStringLiteral("nvtx"), QStringLiteral("--gpu"), m_single.path },
            { QStringLiteral("GAPLENS_MPI_STATS=1") });
        QCOMPARE(whole.exitCode, 0);
        QVERIFY2(!whole.err.contains("time shards"), whole.err.constData());
    }

    // pace's proposal in time shards: one "run" range encloses the 40 "step" ranges, which are
    // at depth 0 only in the shards that start inside it. Each shard counts them after its
    // thread's ranges still open from the earlier shards, so no step-like range is found, and
    // the chooser's message is gaplens-cli's.
    void aRangeOpenAcrossShardEdgesKeepsItsRangesNested()
    {
        std::string sql = gaplens::test::minimalExportSql()
            + "INSERT INTO NVTX_EVENTS VALUES (20, 9000, 59, 'run', 16777216 * 42 + 42, NULL, 0);\n";
        for (int i = 0; i < 40; ++i) {
            const auto start = std::to_string(400 + 200 * i), end = std::to_string(550 + 200 * i);
            sql += "INSERT INTO NVTX_EVENTS VALUES (" + start + ", " + end + ", 59, NULL, 16777216 * 42 + 42, 3, 0);\n";
            sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, " + start + ", " + end + ", 7, "
                + std::to_string(100 + i) + ", 16777216 * 42, 1);\n";
        }
        const auto file = QString::fromStdString(gaplens::test::writeExportIn(m_scratch, "one-run.sqlite", sql));
        QVERIFY(!file.isEmpty());
        for (const auto &args : { QStringList { QStringLiteral("pace"), file },
                 QStringList { QStringLiteral("pace"), QStringLiteral("--format=json"), file } }) {
            const auto cli = runCli(args);
            QCOMPARE(cli.exitCode, 1);
            QVERIFY2(cli.err.contains("no NVTX range looks like a training step"), cli.err.constData());
            for (int processes = 2; processes <= 4; ++processes) {
                const auto mpi = runMpi(processes, args, { QStringLiteral("GAPLENS_MPI_STATS=1") });
                QCOMPARE(mpi.exitCode, cli.exitCode);
                QCOMPARE(mpi.out, cli.out);
                QVERIFY2(mpi.err.contains(cli.err.trimmed()), mpi.err.constData());
                QVERIFY2(mpi.err.contains("time shards"), mpi.err.constData());
            }
        }
    }

    // check with copies counted, on a file whose one long copy (150-5000 ns) lies over the
    // kernels of every later shard: each shard's busy time starts after the earlier shards'
    // kernels and copies, so the copy's time is counted once, wherever the edges fall.
    void aCopyAcrossShardEdgesIsCountedOnce()
    {
        std::string sql = gaplens::test::minimalExportSql() + R"(
            CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, "end" INTEGER, deviceId INTEGER, streamId INTEGER,
                correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER,
                dstKind INTEGER);
            INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (150, 5000, 0, 9, 4, 16777216 * 42, 4096, 1, 0, 0);
        )";
        for (int i = 0; i < 40; ++i)
            sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, " + std::to_string(300 + 100 * i) + ", "
                + std::to_string(350 + 100 * i) + ", 7, " + std::to_string(100 + i) + ", 16777216 * 42, 1);\n";
        const auto file = QString::fromStdString(gaplens::test::writeExportIn(m_scratch, "long-copy.sqlite", sql));
        QVERIFY(!file.isEmpty());
        const auto baseline
            = storedSummary(QStringLiteral("long-copy.json"), { QStringLiteral("--with-copies"), file });
        QVERIFY(!baseline.isEmpty());
        // A step range given: check may read the file in time shards.
        const QStringList args { QStringLiteral("check"), QStringLiteral("--baseline"), baseline,
            QStringLiteral("--range=step"), QStringLiteral("--format=json"), QStringLiteral("--tolerance=0.001"),
            file };
        const auto cli = runCli(args);
        QCOMPARE(cli.exitCode, 0);
        QVERIFY2(cli.out.contains(R"("with_copies": true)"), cli.out.constData());
        for (int processes = 2; processes <= 4; ++processes) {
            const auto mpi = runMpi(processes, args, { QStringLiteral("GAPLENS_MPI_STATS=1") });
            QCOMPARE(mpi.exitCode, cli.exitCode);
            QCOMPARE(mpi.out, cli.out);
            QVERIFY2(mpi.err.contains("time shards"), mpi.err.constData());
        }
    }

    // diff: each capture measured in parts, the paces compared and the two captures compared
    // on the root. Steps with noise judged (the job with phases against a shorter one, and
    // itself), totals per call without steps (ring against gpu4), the real mfu pair, NVTX only,
    // a step range given, copies counted; a bad file (named with gaplens-mpi's prefix) and a
    // capture with nothing loaded (exit 1). `sameStderr`: stderr starts with gaplens-cli's.
    void diffMatches_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<bool>("sameStderr");
        const auto bad = notAnExport(QStringLiteral("not-an-export.sqlite"));
        QVERIFY(!bad.isEmpty());
        auto diff = [](const QStringList &before, const QStringList &after, QStringList extra = {}) {
            return QStringList { QStringLiteral("diff") } + extra + QStringList { QStringLiteral("--before") } + before
                + QStringList { QStringLiteral("--after") } + after;
        };
        const QStringList synth { m_synth.path }, phases { m_phases.path }, shorter { m_shorterPhases.path };
        QTest::addRow("16-rank synthetic against the job with phases, json")
            << diff(synth, phases, { QStringLiteral("--format=json") }) << 0 << true;
        QTest::addRow("4 against 3 ranks with phases, table") << diff(phases, shorter) << 0 << true;
        QTest::addRow("the job with phases against itself, markdown")
            << diff(phases, phases, { QStringLiteral("--format=md") }) << 0 << true;
        QTest::addRow("--range, --with-copies, --min-gap-us 500, csv") << diff(shorter, synth,
            { QStringLiteral("--format=csv"), QStringLiteral("--range=train_step"), QStringLiteral("--with-copies"),
                QStringLiteral("--min-gap-us=500") }) << 0 << true;
        QTest::addRow("the real mfu pair, json") << diff(realInputs(QStringLiteral("nsysai_mfu_2gpu_before.sqlite")),
            realInputs(QStringLiteral("nsysai_mfu_2gpu_after.sqlite")), { QStringLiteral("--format=json") })
                                                 << 0 << true;
        QTest::addRow("the real six-rank job against gpu4 and the H100 (no steps), table")
            << diff(realInputs(QStringLiteral("ring_6ranks")),
                   realInputs(QStringLiteral("gpu4_streams_report2.sqlite nsysai_h100_2gpu_1s.sqlite")))
            << 0 << true;
        QTest::addRow("NVTX only against the mock, json")
            << diff(realInputs(QStringLiteral("centerformer_nvtx_only.sqlite")),
                   realInputs(QStringLiteral("nsysai_mock.sqlite")), { QStringLiteral("--format=json") })
            << 0 << true;
        // One-rank files, read in time shards at P > 1: gaps and their blame across the edges,
        // the steps and phases from the second read of each shard's own rows.
        const QStringList single { m_single.path }, onePhases { m_onePhases.path };
        QTest::addRow("one-rank files in time shards, json")
            << diff(onePhases, single, { QStringLiteral("--format=json") }) << 0 << true;
        QTest::addRow("one-rank files in time shards, --with-copies, --min-gap-us 20, table") << diff(single, onePhases,
            { QStringLiteral("--with-copies"), QStringLiteral("--min-gap-us=20") }) << 0 << true;
        QTest::addRow("one-rank file against itself with --range, markdown")
            << diff(onePhases, onePhases, { QStringLiteral("--format=md"), QStringLiteral("--range=train_step") }) << 0
            << true;
        QTest::addRow("a bad file beside the after capture, json")
            << diff(phases, QStringList { bad } + shorter, { QStringLiteral("--format=json") }) << 1 << false;
        QTest::addRow("a bad file beside a one-rank file in time shards, json")
            << diff(onePhases, QStringList { bad } + single, { QStringLiteral("--format=json") }) << 1 << false;
        QTest::addRow("nothing loaded before") << diff({ bad }, phases) << 1 << false;
    }

    void diffMatches() { beforeAfterMatches("not-an-export.sqlite"); }

    // check against a stored summary: each rank measured where its report is, checked on the
    // root; stdout, stderr (the failed checks) and the exit status (3 for a regression) match.
    void checkMatches_data()
    {
        QTest::addColumn<QStringList>("args");
        const auto baseline = storedSummary(QStringLiteral("baseline.json"), { m_synth.path });
        QVERIFY(!baseline.isEmpty());
        const auto bad = m_scratch.filePath(QStringLiteral("bad-baseline.json"));
        QFile badFile(bad);
        QVERIFY(badFile.open(QIODevice::WriteOnly));
        badFile.write(R"({"command":"summary","ranks":[]})");
        badFile.close();
        const QStringList check { QStringLiteral("check"), QStringLiteral("--baseline"), baseline };
        for (const char *format : { "table", "json", "csv" })
            QTest::addRow("16-rank synthetic against itself, %s", format)
                << (check + QStringList { QStringLiteral("--format"), QLatin1String(format), m_synth.path });
        QTest::addRow("a job with phases against the 16-rank baseline (regressions, missing ranks)")
            << (check + QStringList { m_phases.path });
        QTest::addRow("json, --range, --tolerance 0.01") << (check
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--range=train_step"),
                QStringLiteral("--tolerance=0.01"), m_phases.path });
        QTest::addRow("a baseline with no ranks")
            << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), bad, m_synth.path };
        // The large file in time shards (its baseline's step range is known): busy % added up
        // over the shards, copies counted as the baseline did, and the median step from every
        // shard's steps; against the job with phases, its other ranks missing.
        const auto single = storedSummary(
            QStringLiteral("single-with-copies.json"), { QStringLiteral("--with-copies"), m_single.path });
        const auto phases = storedSummary(QStringLiteral("phases.json"), { m_phases.path });
        QVERIFY(!single.isEmpty() && !phases.isEmpty());
        QTest::addRow("one large file in time shards against itself, copies counted, json")
            << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), single,
                   QStringLiteral("--format=json"), QStringLiteral("--tolerance=0.001"), m_single.path };
        QTest::addRow("one large file in time shards against the job with phases (missing ranks)")
            << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), phases, m_single.path };
        // A baseline without a step range: check proposes one from the shards' NVTX tallies
        // (train_step for the large file, none for the H100), as gaplens-cli from the file.
        const auto h100
            = storedSummary(QStringLiteral("h100.json"), realInputs(QStringLiteral("nsysai_h100_2gpu_1s.sqlite")));
        QVERIFY(!h100.isEmpty());
        QTest::addRow("one large file in time shards against a baseline without a step range, json")
            << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), h100,
                   QStringLiteral("--format=json"), m_single.path };
        QTest::addRow("the H100 file in time shards against itself (no step-like range)")
            << (QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), h100 }
                   + realInputs(QStringLiteral("nsysai_h100_2gpu_1s.sqlite")));
    }

    void checkMatches()
    {
        QFETCH(QStringList, args);
        matchesAtEveryProcessCount(args, runCli(args), true);
    }

    // check --min-sustained-gain: each capture's windows accounted in parts, judged on the root.
    // The rule met (exit 0), not met (3: below the threshold, within the noise, work counted
    // differently), and failed (1: no step range; a bad file beside good ones, whose message
    // names it with gaplens-mpi's prefix). `sameStderr`: stderr starts with gaplens-cli's.
    void sustainedGainMatches_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<bool>("sameStderr");
        // Three ranks (or one) of ten 100 ms steps and a 500 ms checkpoint per cycle, then 90 ms
        // steps. Three files are in time shards at P = 4, one file at P = 2 to 4.
        auto ranks = [&](const QString &name, gaplens::core::TimeNs stepMs, int count = 3) {
            QDir(m_scratch.path()).mkpath(name);
            CheckpointCycles run;
            run.stepNs = stepMs * 1'000'000;
            run.checkpointNs.assign(6, 500'000'000);
            const auto dir = m_scratch.filePath(name);
            for (int r = 0; r < count; ++r)
                writeCheckpointCycles(QStringLiteral("%1/train_%2.sqlite").arg(dir).arg(r).toStdString(), run);
            return dir;
        };
        const auto base = ranks(QStringLiteral("cycles-base"), 100);
        const auto faster = ranks(QStringLiteral("cycles-faster"), 90);
        const auto bad = notAnExport(QStringLiteral("not-a-report.sqlite"));
        QVERIFY(!bad.isEmpty());
        auto check = [](const QString &before, const QString &after, QStringList extra = {}) {
            return QStringList { QStringLiteral("check"), QStringLiteral("--min-sustained-gain=3%"),
                QStringLiteral("--before"), before, QStringLiteral("--after"), after }
            + extra;
        };
        QTest::addRow("3 ranks 10%% faster, checkpoint windows: met") << check(base, faster) << 0 << true;
        QTest::addRow("met, json") << check(base, faster, { QStringLiteral("--format=json") }) << 0 << true;
        QTest::addRow("3 ranks 10%% slower: not met") << check(faster, base) << 3 << true;
        QTest::addRow("4 and 3 ranks with phases, 4 equal windows, json") << check(
            m_phases.path, m_shorterPhases.path, { QStringLiteral("--windows=4"), QStringLiteral("--format=json") })
                                                                          << 3 << true;
        QTest::addRow("the other way, checkpoint windows, csv")
            << check(m_shorterPhases.path, m_phases.path, { QStringLiteral("--format=csv") }) << 3 << true;
        QTest::addRow("a capture against itself, markdown")
            << check(m_phases.path, m_phases.path, { QStringLiteral("--windows=3"), QStringLiteral("--format=md") })
            << 3 << true;
        QTest::addRow("steps against tokens")
            << check(m_synth.path, m_phases.path, { QStringLiteral("--windows=3") }) << 3 << true;
        QTest::addRow("no such step range")
            << check(base, faster, { QStringLiteral("--range=no_such_range") }) << 1 << true;
        const auto oneBase = ranks(QStringLiteral("cycles-one-base"), 100, 1);
        const auto oneFaster = ranks(QStringLiteral("cycles-one-faster"), 90, 1);
        QTest::addRow("one rank 10%% faster, in time shards, json")
            << check(oneBase, oneFaster, { QStringLiteral("--format=json") }) << 0 << true;
        QTest::addRow("one rank with phases against itself, in time shards, 3 windows")
            << check(m_onePhases.path, m_onePhases.path, { QStringLiteral("--windows=3") }) << 3 << true;
        QTest::addRow("a bad file beside the before capture, json")
            << (check(base, faster, { QStringLiteral("--format=json") })
                   + QStringList { QStringLiteral("--before"), bad })
            << 1 << false;
    }

    void sustainedGainMatches() { beforeAfterMatches("not-a-report.sqlite"); }

    // gaplens-cli loads a file given twice as two reports; the parts name reports by path, so
    // gaplens-mpi runs such a job whole on process 0, says so, and prints the same.
    // A file given twice is two reports, as gaplens-cli loads it (two ranks claiming one rank
    // number, two GPUs of one device id): the processes tell the copies apart by input index.
    // Small files dealt whole, and the large one twice, each copy in time shards (gaps with its
    // halo exchange, intervals and overlap with their carries).
    void aFileGivenTwiceIsTwoReports_data()
    {
        QTest::addColumn<QStringList>("args");
        const auto twice
            = realInputs(QStringLiteral("gpu4_streams_report2.sqlite nsysai_mock.sqlite gpu4_streams_report2.sqlite"));
        for (const char *command : { "gaps", "kernels", "ranks", "summary", "intervals", "overlap" })
            QTest::addRow("%s, small files", command)
                << (QStringList { QLatin1String(command), QStringLiteral("--format=json") } + twice);
        const QStringList largeTwice { m_single.path, m_single.path };
        for (const char *command : { "gaps", "blame", "intervals", "overlap", "kernels" })
            QTest::addRow("%s, the large file in time shards", command)
                << (QStringList { QLatin1String(command), QStringLiteral("--format=json") } + largeTwice);
    }

    void aFileGivenTwiceIsTwoReports()
    {
        QFETCH(QStringList, args);
        compareAtEveryProcessCount(args);
    }

    // A bad file given twice is named twice, by the processes that read each copy.
    void aBadFileGivenTwiceIsNamedTwice()
    {
        const auto bad = notAnExport(QStringLiteral("bad-twice.sqlite"));
        QVERIFY(!bad.isEmpty());
        const QStringList args { QStringLiteral("kernels"), QStringLiteral("--format=json"), bad, m_synth.path, bad };
        const auto cli = runCli(args);
        QCOMPARE(cli.exitCode, 1);
        QCOMPARE(cli.err.count(bad.toUtf8()), 2);
        for (int processes : { 1, 2, 3 }) {
            const auto mpi = runMpi(processes, args);
            QCOMPARE(mpi.exitCode, 1);
            QCOMPARE(mpi.out, cli.out);
            QVERIFY2(mpi.err.count(bad.toUtf8()) == 2, mpi.err.constData());
        }
    }

    // The digest gaplens-mpi writes is gaplens-cli's, byte for byte, at every process count.
    void digestMatches_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addRow("ring_6ranks") << realInputs(QStringLiteral("ring_6ranks"));
        QTest::addRow("16-rank synthetic at 10 ms") << QStringList { QStringLiteral("--interval=10ms"), m_synth.path };
        QTest::addRow("16-rank synthetic, --with-copies --min-gap-us 500")
            << QStringList { QStringLiteral("--with-copies"), QStringLiteral("--min-gap-us=500"), m_synth.path };
        // Run accounting, and a --range no rank has (no pace; the findings then propose their
        // own step range).
        QTest::addRow("a job with phases") << QStringList { m_phases.path };
        QTest::addRow("a job with phases, no such --range")
            << QStringList { QStringLiteral("--range=no_such_range"), m_phases.path };
        QTest::addRow("the mfu pair and the H100") << realInputs(
            QStringLiteral("nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite nsysai_h100_2gpu_1s.sqlite"));
        QTest::addRow("NVTX only beside gpu4")
            << realInputs(QStringLiteral("centerformer_nvtx_only.sqlite gpu4_streams_report2.sqlite"));
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
            QVERIFY2(!mpi.err.contains("process 0 runs it alone"), mpi.err.constData());
            QFile mpiFile(mpiPath);
            QVERIFY(mpiFile.open(QIODevice::ReadOnly));
            QVERIFY2(mpiFile.readAll() == expected, qPrintable(QStringLiteral("P=%1: digest differs").arg(processes)));
        }
    }

    void badFileIsNamedAndTheOthersAnalysed()
    {
        const auto bad = notAnExport(QStringLiteral("bad.sqlite"));
        QVERIFY(!bad.isEmpty());
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
