// SPDX-License-Identifier: MIT
// gaplens-cli end to end: a synthetic capture with known answers, every output format,
// exit codes, and a bad file among good ones.
#include "gaplens/core/write/synth.h"

#include "cli_runner.h"
#include "synth_sample.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace gaplens::core;
using namespace gaplens::test;

using Run = CliRun;

class TestCli : public QObject
{
    Q_OBJECT

    SynthSample m_sample;

private slots:
    void initTestCase()
    {
        QVERIFY(m_sample.write(synthOptions(3, 6, 1)));
        QCOMPARE(m_sample.synth.files.size(), std::size_t(3));
    }

    void summaryJsonHoldsTheGeneratorsExactBusyTimeAndGaps()
    {
        const auto run = runCli({ QStringLiteral("summary"), QStringLiteral("--with-copies"),
            QStringLiteral("--format"), QStringLiteral("json"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("command")].toString(), QStringLiteral("summary"));
        QCOMPARE(doc[QStringLiteral("min_gap_ns")].toInteger(), 100000);
        // The straggler and the input-bound gaps are named in plain words.
        const auto findings = doc[QStringLiteral("findings")].toArray();
        QStringList texts;
        for (const auto &f : findings)
            texts << f.toString();
        QVERIFY2(texts.join(QLatin1Char('\n')).contains(QStringLiteral("rank 1 was slowest")),
            qPrintable(texts.join(QLatin1Char('\n'))));
        QVERIFY2(texts.join(QLatin1Char('\n')).contains(QStringLiteral("no CUDA call")),
            qPrintable(texts.join(QLatin1Char('\n'))));
        const auto ranks = doc[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const auto rank = ranks[i].toObject();
            const auto &truth = m_sample.synth.ranks[std::size_t(i)];
            QCOMPARE(rank[QStringLiteral("rank")].toInt(), i);
            QCOMPARE(rank[QStringLiteral("rank_source")].toString(), QStringLiteral("environment"));
            QCOMPARE(rank[QStringLiteral("pid")].toInteger(), qint64(truth.pid));
            QCOMPARE(rank[QStringLiteral("host")].toString(), QString::fromStdString(truth.host));
            QVERIFY(rank[QStringLiteral("file")].toString().endsWith(QStringLiteral(".sqlite")));
            const auto device = rank[QStringLiteral("devices")].toArray()[0].toObject();
            QCOMPARE(device[QStringLiteral("device")].toInt(), truth.deviceId);
            QCOMPARE(device[QStringLiteral("busy_ns")].toInteger(), truth.busyNs);
            QCOMPARE(device[QStringLiteral("kernel_count")].toInteger(), qint64(truth.kernels));
            QCOMPARE(device[QStringLiteral("gap_count")].toInteger(), qint64(truth.idleGapsAtLeast100us));
            // The generator's times are session-relative; the CLI prints absolute ones.
            const auto session = SynthOptions().sessionStartUtcNs;
            QCOMPARE(device[QStringLiteral("window_start_ns")].toInteger(), session + truth.firstGpuNs);
            QCOMPARE(device[QStringLiteral("window_end_ns")].toInteger(), session + truth.lastGpuNs);
            const double pct = 100.0 * double(truth.busyNs) / double(truth.lastGpuNs - truth.firstGpuNs);
            QVERIFY(qAbs(device[QStringLiteral("busy_pct")].toDouble() - pct) < 1e-9);
            QCOMPARE(rank[QStringLiteral("problems")].toObject()[QStringLiteral("total")].toInt(), 0);
        }
    }

    void gapsJsonHasTheDocumentedFields()
    {
        const auto run = runCli({ QStringLiteral("gaps"), QStringLiteral("--with-copies"), QStringLiteral("--format"),
            QStringLiteral("json"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        const auto gaps = json(run)[QStringLiteral("gaps")].toArray();
        std::uint64_t expected = 0;
        for (const auto &r : m_sample.synth.ranks)
            expected += r.idleGapsAtLeast100us;
        QCOMPARE(std::uint64_t(gaps.size()), expected);
        const auto gap = gaps[0].toObject();
        for (const char *key : { "rank", "device", "start_ns", "end_ns", "cause", "api", "nvtx", "nvtx_stack" })
            QVERIFY2(gap.contains(QLatin1String(key)), key);
        QVERIFY(gap[QStringLiteral("end_ns")].toInteger() - gap[QStringLiteral("start_ns")].toInteger() >= 100000);
        // The generator's input-bound gap: host loading data, no CUDA call, inside data_to_gpu.
        QCOMPARE(gap[QStringLiteral("cause")].toString(), QStringLiteral("no_cuda_call"));
        QCOMPARE(gap[QStringLiteral("nvtx")].toString(), QStringLiteral("data_to_gpu"));
        QCOMPARE(gap[QStringLiteral("nvtx_stack")].toArray().first().toString(), QStringLiteral("train_step"));
    }

    void kernelsJsonCountsEveryKernelOnce()
    {
        const auto run
            = runCli({ QStringLiteral("kernels"), QStringLiteral("--format"), QStringLiteral("json"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        const auto kernels = json(run)[QStringLiteral("kernels")].toArray();
        qint64 calls = 0;
        double pct = 0;
        for (const auto &k : kernels) {
            const auto o = k.toObject();
            for (const char *key :
                { "name", "calls", "total_ns", "pct", "avg_ns", "median_ns", "min_ns", "max_ns", "stddev_ns" })
                QVERIFY2(o.contains(QLatin1String(key)), key);
            calls += o[QStringLiteral("calls")].toInteger();
            pct += o[QStringLiteral("pct")].toDouble();
        }
        std::uint64_t expected = 0;
        for (const auto &r : m_sample.synth.ranks)
            expected += r.kernels;
        QCOMPARE(std::uint64_t(calls), expected);
        QVERIFY(qAbs(pct - 100.0) < 1e-6);
    }

    void paceFindsTheStraggler()
    {
        const auto run = runCli({ QStringLiteral("pace"), QStringLiteral("--range"), QStringLiteral("train_step"),
            QStringLiteral("--format"), QStringLiteral("json"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("range")].toString(), QStringLiteral("train_step"));
        const auto ranks = doc[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), 3);
        const auto iterations = ranks[1].toObject()[QStringLiteral("iterations")].toArray();
        QCOMPARE(iterations.size(), 6);
        QCOMPARE(iterations[2].toObject()[QStringLiteral("duration_ns")].toInteger(),
            m_sample.synth.ranks[1].stepDurationNs[2]);
        const auto straggler = doc[QStringLiteral("straggler")].toObject();
        QCOMPARE(straggler[QStringLiteral("rank")].toInt(), 1);
        QCOMPARE(straggler[QStringLiteral("slowest_count")].toInt(), 6);
        QVERIFY(doc[QStringLiteral("verdict")].toString().startsWith(QStringLiteral("rank 1 was slowest in 6 of 6")));
    }

    void tableAndCsvFormatsShowUnitsAndRawNumbers()
    {
        auto run = runCli({ QStringLiteral("kernels"), QStringLiteral("--top"), QStringLiteral("3"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("median"));
        QVERIFY(run.out.contains(" us") || run.out.contains(" ms"));
        QCOMPARE(run.out.count('\n'), 1 + 1 + 1 + 3); // title, header, rule, 3 rows

        run = runCli({ QStringLiteral("kernels"), QStringLiteral("--format"), QStringLiteral("csv"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.startsWith("name,calls,total_ns,pct,avg_ns,median_ns,min_ns,max_ns,stddev_ns\n"));

        run = runCli({ QStringLiteral("api"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("cudaLaunchKernel "));
        QVERIFY(!run.out.contains("_v7000"));
    }

    void ranksCanBeOverriddenFromTheCommandLine()
    {
        const auto file0 = QString::fromStdString(m_sample.synth.files[0]);
        const auto run = runCli({ QStringLiteral("ranks"), QStringLiteral("--rank-map"), file0 + QStringLiteral("=9"),
            QStringLiteral("--format"), QStringLiteral("json"), m_sample.path });
        QCOMPARE(run.exitCode, 0);
        const auto ranks = json(run)[QStringLiteral("ranks")].toArray();
        const auto last = ranks.last().toObject();
        QCOMPARE(last[QStringLiteral("rank")].toInt(), 9);
        QCOMPARE(last[QStringLiteral("rank_source")].toString(), QStringLiteral("override"));
    }

    void badFileAmongGoodOnesIsReportedAndTheRestAnalysed()
    {
        const auto bad = m_sample.dir.filePath(QStringLiteral("broken.sqlite"));
        std::ofstream(bad.toStdString()) << "not a database";
        const auto run = runCli({ QStringLiteral("summary"), QStringLiteral("--format"), QStringLiteral("json"), bad,
            QString::fromStdString(m_sample.synth.files[0]) });
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains(bad.toUtf8()));
        QVERIFY(run.err.contains("is not an SQLite database"));
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("ranks")].toArray().size(), 1);
        QCOMPARE(doc[QStringLiteral("errors")].toArray()[0].toObject()[QStringLiteral("file")].toString(), bad);
    }

    void onlyBadFilesFailWithAMessage()
    {
        const auto run = runCli({ QStringLiteral("summary"), m_sample.dir.filePath(QStringLiteral("nope.sqlite")) });
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains("does not exist"));
        QVERIFY(run.out.isEmpty());
    }

    void usageErrorsExitWithTwo()
    {
        auto run = runCli({ QStringLiteral("frobnicate"), m_sample.path });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("unknown command 'frobnicate'"));
        run = runCli({ QStringLiteral("summary"), QStringLiteral("--format"), QStringLiteral("xml"), m_sample.path });
        QCOMPARE(run.exitCode, 2);
        run = runCli({ QStringLiteral("summary") });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("no input files"));
        run = runCli({ QStringLiteral("--help") });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("Usage: gaplens-cli"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
