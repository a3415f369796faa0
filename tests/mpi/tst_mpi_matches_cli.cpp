// SPDX-License-Identifier: MIT
// `mpirun -np P gaplens-mpi COMMAND FILES...` prints exactly what `gaplens-cli COMMAND
// FILES...` prints, with its exit status, for P = 1 to 4 (oversubscribed on this machine):
// summary, intervals, transfers, gaps, blame, ranks, kernels, nvtx, api, pace, overlap, ncu and throughput on the real
// six-rank job, every real single file (more processes than files) and a 16-rank synthetic capture; the summaries
// also on single files split into time shards (a large synthetic one, alone and beside a small one, and every real
// single file). tst_mpi_edge_cases has the errors, shard edges, diff, check, the digest and failures.
#include "mpi_job.h"
#include "testsupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTest>

using namespace gaplens::test;

class TestMpiMatchesCli : public QObject
{
    Q_OBJECT

    MpiTestCaptures m_captures;

private slots:
    void initTestCase()
    {
        QVERIFY2(!realDataDir().empty(), kRealDataMissing);
        QVERIFY(m_captures.write());
    }

    void distributedCommandsMatch_data()
    {
        QTest::addColumn<QStringList>("args");
        const auto ring = realInputs(QStringLiteral("ring_6ranks"));
        const auto synth = QStringList { m_captures.synth.path };
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
                           QStringLiteral("--interval=1ms"), m_captures.single.path };
            QTest::addRow("%s json at 2 ms, a large file in time shards beside a small one", command)
                << (QStringList { c, QStringLiteral("--format=json"), QStringLiteral("--interval=2ms") }
                       + (c == QLatin1String("intervals") ? QStringList { QStringLiteral("--metric=busy") }
                                                          : QStringList {})
                       + QStringList { m_captures.single.path } + realInputs(QStringLiteral("nsysai_mock.sqlite")));
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
            QTest::addRow("overlap %s, one large synthetic file in time shards", format) << (overlap
                + QStringList { QStringLiteral("--format"), QLatin1String(format), m_captures.single.path });
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
            << QStringList { QStringLiteral("ranks"), QStringLiteral("--format=json"), m_captures.synth.path };
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
            << QStringList { QStringLiteral("nvtx"), QStringLiteral("--format=json"), m_captures.synth.path };
        QTest::addRow("api json 16-rank synthetic")
            << QStringList { QStringLiteral("api"), QStringLiteral("--format=json"), m_captures.synth.path };
        QTest::addRow("nvtx --gpu json the mfu pair")
            << (QStringList { QStringLiteral("nvtx"), QStringLiteral("--gpu"), QStringLiteral("--format=json") }
                   + realInputs(QStringLiteral("nsysai_mfu_2gpu_before.sqlite nsysai_mfu_2gpu_after.sqlite")));
        // Time shards: a file far above its share, or fewer files than processes, is split.
        for (const char *command : { "kernels", "nvtx", "api" }) {
            for (const char *format : { "json", "table" })
                QTest::addRow("%s %s, one large synthetic file in time shards", command, format)
                    << QStringList { QLatin1String(command), QStringLiteral("--format"), QLatin1String(format),
                           m_captures.single.path };
            QTest::addRow("%s json, a large file in time shards beside a small one", command)
                << (QStringList { QLatin1String(command), QStringLiteral("--format=json"), m_captures.single.path }
                       + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        }
        QTest::addRow("kernels per rank json, a large file in time shards beside a small one, rank 0")
            << (QStringList { QStringLiteral("kernels"), QStringLiteral("--per-rank"), QStringLiteral("--format=json"),
                    QStringLiteral("--ranks=0"), m_captures.single.path }
                   + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        QTest::addRow("kernels per rank table, a large file in time shards beside a small one")
            << (QStringList { QStringLiteral("kernels"), QStringLiteral("--per-rank"), m_captures.single.path }
                   + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        // gaps and blame in time shards: a gap belongs to the shard whose work ends it, and
        // reads the launch calls, CUDA calls and NVTX ranges of earlier shards through a halo.
        for (const char *format : { "json", "table" }) {
            QTest::addRow("gaps %s, one large synthetic file in time shards", format)
                << (gaps + QStringList { QStringLiteral("--format"), QLatin1String(format), m_captures.single.path });
            QTest::addRow("blame %s, one large synthetic file in time shards", format)
                << (blame + QStringList { QStringLiteral("--format"), QLatin1String(format), m_captures.single.path });
        }
        QTest::addRow("gaps csv --with-copies, one large synthetic file in time shards") << (gaps
            + QStringList { QStringLiteral("--format=csv"), QStringLiteral("--with-copies"), m_captures.single.path });
        QTest::addRow("blame json --with-copies, a large file in time shards beside a small one") << (blame
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--with-copies"), m_captures.single.path }
            + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        QTest::addRow("gaps json, a large file in time shards beside a small one")
            << (gaps + QStringList { QStringLiteral("--format=json"), m_captures.single.path }
                   + realInputs(QStringLiteral("nsysai_mock.sqlite")));
        QTest::addRow("kernels json demangled top 5, in time shards")
            << QStringList { QStringLiteral("kernels"), QStringLiteral("--format=json"), QStringLiteral("--demangled"),
                   QStringLiteral("--top=5"), m_captures.single.path };
        // kernels --hist: bins, median, p95 and the slowest launches reduced over the processes.
        const QStringList hist { QStringLiteral("kernels"), QStringLiteral("--hist=ampere_sgemm_128x64_nt") };
        for (const char *format : { "json", "table" }) {
            QTest::addRow("kernels --hist %s 16-rank synthetic", format)
                << (hist + QStringList { QStringLiteral("--format"), QLatin1String(format) } + synth);
            QTest::addRow("kernels --hist %s, one large synthetic file", format)
                << (hist + QStringList { QStringLiteral("--format"), QLatin1String(format), m_captures.single.path });
        }
        QTest::addRow("kernels --hist table --log --bins 7 16-rank synthetic, ranks 0 2 5") << (hist
            + QStringList { QStringLiteral("--log"), QStringLiteral("--bins=7"), QStringLiteral("--ranks=0,2,5") }
            + synth);
        QTest::addRow("kernels --hist csv --log, one large synthetic file beside a small one")
            << (hist + QStringList { QStringLiteral("--format=csv"), QStringLiteral("--log"), m_captures.single.path }
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
                    m_captures.single.path });
        QTest::addRow("pace csv --range train_step --with-copies, a large file in time shards beside a small one")
            << (pace
                   + QStringList { QStringLiteral("--format=csv"), QStringLiteral("--range=train_step"),
                       QStringLiteral("--with-copies"), m_captures.single.path }
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
                   QStringLiteral("--instance=900"), m_captures.single.path });
        // throughput: the step range and work source decided over the processes, each rank
        // accounted where its report is, the overall figures on the root.
        const QStringList throughput { QStringLiteral("throughput") };
        const auto phases = QStringList { m_captures.phases.path };
        for (const char *format : { "json", "table", "csv", "md" })
            QTest::addRow("throughput %s, a job with phases", format)
                << (throughput + QStringList { QStringLiteral("--format"), QLatin1String(format) } + phases);
        QTest::addRow("throughput json --between train_step:2:10 --ranks 1,3, a job with phases") << (throughput
            + QStringList { QStringLiteral("--format=json"), QStringLiteral("--between=train_step:2:10"),
                QStringLiteral("--ranks=1,3") }
            + phases);
        QTest::addRow("throughput table --work-per-step, 16-rank synthetic")
            << (throughput + QStringList { QStringLiteral("--work-per-step=512"), m_captures.synth.path });
        // In time shards (one file, P = 2 to 4): a rank's step and state ranges gathered from
        // its shards, in their order, and accounted on the root; the proposal from the shards'
        // tallies. Checkpoints, their staging on another thread, validation and data waits lie
        // in every shard.
        const auto onePhases = QStringList { m_captures.onePhases.path };
        for (const char *format : { "json", "table", "csv", "md" })
            QTest::addRow("throughput %s, one rank with phases in time shards", format)
                << (throughput + QStringList { QStringLiteral("--format"), QLatin1String(format) } + onePhases);
        for (const char *window : { "--between=train_step:3:40", "--window=100ms:900ms", "--range=train_step" })
            QTest::addRow("throughput json %s, one rank with phases in time shards", window)
                << (throughput + QStringList { QStringLiteral("--format=json"), QLatin1String(window) } + onePhases);
        QTest::addRow("throughput json, one large synthetic file in time shards")
            << (throughput + QStringList { QStringLiteral("--format=json"), m_captures.single.path });
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
};

QTEST_GUILESS_MAIN(TestMpiMatchesCli)
#include "tst_mpi_matches_cli.moc"
