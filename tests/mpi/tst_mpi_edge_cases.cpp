// SPDX-License-Identifier: MIT
// gaplens-mpi beyond tst_mpi_matches_cli's rows, against gaplens-cli at P = 1 to 4: the
// errors of commands in parts; a single file read in time shards, an NVTX range open across
// shard edges and a copy across them; diff, check against a stored summary and check
// --min-sustained-gain; a file given twice; the digest file; a bad file named and the others
// analysed; usage errors; and a process that dies, which ends the job.
#include "minimal_export.h"
#include "mpi_job.h"
#include "run_exports.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::test;

class TestMpiEdgeCases : public QObject
{
    Q_OBJECT

    MpiTestCaptures m_captures;
    QTemporaryDir m_scratch;

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

private slots:
    void initTestCase()
    {
        QVERIFY2(!realDataDir().empty(), kRealDataMissing);
        QVERIFY(m_captures.write());
        QVERIFY(m_scratch.isValid());
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
            << (pace + QStringList { QStringLiteral("--range=no_such_range"), m_captures.synth.path });
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
                   QStringLiteral("--instance=100000"), m_captures.single.path });
        QTest::addRow("throughput, no step range: ring_6ranks")
            << (QStringList { QStringLiteral("throughput") } + ring);
        // The first failing rank's error, found by the processes of ranks 0 and 2.
        for (const char *ranks : { "--ranks=0,1,2,3", "--ranks=2,3" })
            QTest::addRow("throughput, --between beyond the ranks' steps, %s", ranks)
                << QStringList { QStringLiteral("throughput"), QStringLiteral("--between=train_step:2:100000"),
                       QLatin1String(ranks), m_captures.phases.path };
        // In time shards: the occurrences of every shard counted before the window is judged;
        // the chooser's list from the shards' tallies.
        QTest::addRow("throughput, --between beyond the steps, one rank in time shards")
            << QStringList { QStringLiteral("throughput"), QStringLiteral("--between=train_step:2:100000"),
                   m_captures.onePhases.path };
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
        const auto baseline = storedSummary(QStringLiteral("single.json"), { m_captures.single.path });
        QVERIFY(!baseline.isEmpty());
        for (const auto &args :
            { QStringList { QStringLiteral("kernels"), QStringLiteral("--format=json"), m_captures.single.path },
                QStringList { QStringLiteral("kernels"), QStringLiteral("--per-rank"), m_captures.single.path },
                QStringList { QStringLiteral("kernels"), QStringLiteral("--hist=ampere_sgemm_128x64_nt"),
                    m_captures.single.path },
                QStringList { QStringLiteral("overlap"), QStringLiteral("--format=json"), m_captures.single.path },
                QStringList { QStringLiteral("pace"), QStringLiteral("--range=train_step"), m_captures.single.path },
                QStringList { QStringLiteral("pace"), QStringLiteral("--format=json"), m_captures.single.path },
                QStringList { QStringLiteral("gaps"), QStringLiteral("--format=json"), m_captures.single.path },
                QStringList { QStringLiteral("blame"), m_captures.single.path },
                QStringList { QStringLiteral("ncu"), QStringLiteral("--kernel=ampere_sgemm_128x64_nt"),
                    QStringLiteral("--instance=900"), m_captures.single.path },
                QStringList { QStringLiteral("intervals"), QStringLiteral("--format=json"), m_captures.single.path },
                QStringList { QStringLiteral("throughput"), QStringLiteral("--format=json"), m_captures.single.path },
                QStringList {
                    QStringLiteral("check"), QStringLiteral("--baseline"), baseline, m_captures.single.path } }) {
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
            QStringLiteral("--before"), m_captures.single.path, QStringLiteral("--after"), m_captures.single.path };
        const auto sustainedCli = runCli(sustained);
        const auto sustainedMpi = runMpi(3, sustained, { QStringLiteral("GAPLENS_MPI_STATS=1") });
        QCOMPARE(sustainedMpi.exitCode, sustainedCli.exitCode);
        QCOMPARE(sustainedMpi.out, sustainedCli.out);
        QCOMPARE(sustainedMpi.err.count("process 2 of 3: time shards 3 to 3 of 3 of input file 1"), 2);
        // diff: both captures' gaps read in time shards, then their own rows again for the steps.
        const QStringList diff { QStringLiteral("diff"), QStringLiteral("--format=json"), QStringLiteral("--before"),
            m_captures.single.path, QStringLiteral("--after"), m_captures.single.path };
        const auto diffCli = runCli(diff);
        const auto diffMpi = runMpi(3, diff, { QStringLiteral("GAPLENS_MPI_STATS=1") });
        QCOMPARE(diffMpi.exitCode, diffCli.exitCode);
        QCOMPARE(diffMpi.out, diffCli.out);
        QCOMPARE(diffMpi.err.count("process 2 of 3: time shards 3 to 3 of 3 of input file 1"), 2);
        // nvtx --gpu projects ranges through their launches onto GPU work in any shard: whole files.
        const auto whole = runMpi(3, { QStringLiteral("nvtx"), QStringLiteral("--gpu"), m_captures.single.path },
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
        const QStringList synth { m_captures.synth.path }, phases { m_captures.phases.path },
            shorter { m_captures.shorterPhases.path };
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
        const QStringList single { m_captures.single.path }, onePhases { m_captures.onePhases.path };
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
        const auto baseline = storedSummary(QStringLiteral("baseline.json"), { m_captures.synth.path });
        QVERIFY(!baseline.isEmpty());
        const auto bad = m_scratch.filePath(QStringLiteral("bad-baseline.json"));
        QFile badFile(bad);
        QVERIFY(badFile.open(QIODevice::WriteOnly));
        badFile.write(R"({"command":"summary","ranks":[]})");
        badFile.close();
        const QStringList check { QStringLiteral("check"), QStringLiteral("--baseline"), baseline };
        for (const char *format : { "table", "json", "csv" })
            QTest::addRow("16-rank synthetic against itself, %s", format)
                << (check + QStringList { QStringLiteral("--format"), QLatin1String(format), m_captures.synth.path });
        QTest::addRow("a job with phases against the 16-rank baseline (regressions, missing ranks)")
            << (check + QStringList { m_captures.phases.path });
        QTest::addRow("json, --range, --tolerance 0.01") << (check
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--range=train_step"),
                QStringLiteral("--tolerance=0.01"), m_captures.phases.path });
        QTest::addRow("a baseline with no ranks")
            << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), bad, m_captures.synth.path };
        // The large file in time shards (its baseline's step range is known): busy % added up
        // over the shards, copies counted as the baseline did, and the median step from every
        // shard's steps; against the job with phases, its other ranks missing.
        const auto single = storedSummary(
            QStringLiteral("single-with-copies.json"), { QStringLiteral("--with-copies"), m_captures.single.path });
        const auto phases = storedSummary(QStringLiteral("phases.json"), { m_captures.phases.path });
        QVERIFY(!single.isEmpty() && !phases.isEmpty());
        QTest::addRow("one large file in time shards against itself, copies counted, json")
            << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), single,
                   QStringLiteral("--format=json"), QStringLiteral("--tolerance=0.001"), m_captures.single.path };
        QTest::addRow("one large file in time shards against the job with phases (missing ranks)")
            << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), phases, m_captures.single.path };
        // A baseline without a step range: check proposes one from the shards' NVTX tallies
        // (train_step for the large file, none for the H100), as gaplens-cli from the file.
        const auto h100
            = storedSummary(QStringLiteral("h100.json"), realInputs(QStringLiteral("nsysai_h100_2gpu_1s.sqlite")));
        QVERIFY(!h100.isEmpty());
        QTest::addRow("one large file in time shards against a baseline without a step range, json")
            << QStringList { QStringLiteral("check"), QStringLiteral("--baseline"), h100,
                   QStringLiteral("--format=json"), m_captures.single.path };
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
        QTest::addRow("4 and 3 ranks with phases, 4 equal windows, json") << check(m_captures.phases.path,
            m_captures.shorterPhases.path, { QStringLiteral("--windows=4"), QStringLiteral("--format=json") })
                                                                          << 3 << true;
        QTest::addRow("the other way, checkpoint windows, csv")
            << check(m_captures.shorterPhases.path, m_captures.phases.path, { QStringLiteral("--format=csv") }) << 3
            << true;
        QTest::addRow("a capture against itself, markdown") << check(m_captures.phases.path, m_captures.phases.path,
            { QStringLiteral("--windows=3"), QStringLiteral("--format=md") })
                                                            << 3 << true;
        QTest::addRow("steps against tokens")
            << check(m_captures.synth.path, m_captures.phases.path, { QStringLiteral("--windows=3") }) << 3 << true;
        QTest::addRow("no such step range")
            << check(base, faster, { QStringLiteral("--range=no_such_range") }) << 1 << true;
        const auto oneBase = ranks(QStringLiteral("cycles-one-base"), 100, 1);
        const auto oneFaster = ranks(QStringLiteral("cycles-one-faster"), 90, 1);
        QTest::addRow("one rank 10%% faster, in time shards, json")
            << check(oneBase, oneFaster, { QStringLiteral("--format=json") }) << 0 << true;
        QTest::addRow("one rank with phases against itself, in time shards, 3 windows")
            << check(m_captures.onePhases.path, m_captures.onePhases.path, { QStringLiteral("--windows=3") }) << 3
            << true;
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
        const QStringList largeTwice { m_captures.single.path, m_captures.single.path };
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
        const QStringList args { QStringLiteral("kernels"), QStringLiteral("--format=json"), bad, m_captures.synth.path,
            bad };
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
        QTest::addRow("16-rank synthetic at 10 ms")
            << QStringList { QStringLiteral("--interval=10ms"), m_captures.synth.path };
        QTest::addRow("16-rank synthetic, --with-copies --min-gap-us 500")
            << QStringList { QStringLiteral("--with-copies"), QStringLiteral("--min-gap-us=500"),
                   m_captures.synth.path };
        // Run accounting, and a --range no rank has (no pace; the findings then propose their
        // own step range).
        QTest::addRow("a job with phases") << QStringList { m_captures.phases.path };
        QTest::addRow("a job with phases, no such --range")
            << QStringList { QStringLiteral("--range=no_such_range"), m_captures.phases.path };
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
        const QStringList args { QStringLiteral("intervals"), QStringLiteral("--format=json"), m_captures.synth.path,
            bad };
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
        const auto mpi
            = runMpi(2, { QStringLiteral("intervals"), QStringLiteral("--interval=0s"), m_captures.synth.path });
        QCOMPARE(mpi.exitCode,
            runCli({ QStringLiteral("intervals"), QStringLiteral("--interval=0s"), m_captures.synth.path }).exitCode);
        const auto unknown = runMpi(2, { QStringLiteral("no-such-command") });
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("gaplens-mpi"), unknown.err.constData());
    }

    void aProcessThatDiesEndsTheJob()
    {
        // Process 1 aborts after loading, while the root waits for its part.
        const auto mpi = runMpi(
            3, { QStringLiteral("intervals"), m_captures.synth.path }, { QStringLiteral("GAPLENS_MPI_TEST_ABORT=1") });
        QVERIFY2(mpi.exitCode != 0 && mpi.exitCode != -1, mpi.err.constData()); // ended, not killed by the timeout
        QVERIFY(mpi.out.isEmpty());
        QVERIFY2(mpi.err.contains("signal") || mpi.err.contains("abort"), mpi.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestMpiEdgeCases)
#include "tst_mpi_edge_cases.moc"
