// SPDX-License-Identifier: MIT
// `gaplens-cli overlap` end to end on two hand-written one-rank exports: the documented JSON
// fields with their exact values, --ranks, and the CSV's raw columns.
#include "cli_runner.h"
#include "minimal_export.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::test;

namespace {

// One rank per file (the file-name numbers 0 and 1), kernels on streams 7 and 9 of device 0:
//   rank 0: gemm [100,300), AllReduce [200,400): comm 200, compute 200, overlap 100, exposed 100
//   rank 1: gemm [100,200), AllReduce [250,450): comm 200, compute 100, overlap 0, exposed 200
// The AllReduce starts 50 ns later on rank 1: skews 0 and 50, rank 1 started last.
std::string rankSql(int gemmEnd, int ncclStart)
{
    return exportHeadSql() + R"(
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (shortName INTEGER, deviceId INTEGER, start INTEGER, "end" INTEGER,
        streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 100, )"
        + std::to_string(gemmEnd) + R"(, 7, 5, 16777216 * 42, 1), (2, 0, )" + std::to_string(ncclStart) + ", "
        + std::to_string(ncclStart + 200) + R"(, 9, 6, 16777216 * 42, 2);
)";
}

} // namespace

class TestCliOverlap : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_rank0, m_rank1;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_rank0 = QString::fromStdString(writeExportIn(m_dir, "rank0.sqlite", rankSql(300, 200)));
        m_rank1 = QString::fromStdString(writeExportIn(m_dir, "rank1.sqlite", rankSql(200, 250)));
    }

    void jsonHoldsTheExactFiguresOfEveryRankAndTheSkew()
    {
        const auto run = runCli(
            { QStringLiteral("overlap"), QStringLiteral("--format"), QStringLiteral("json"), m_rank0, m_rank1 });
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("command")].toString(), QStringLiteral("overlap"));
        const auto devices = doc[QStringLiteral("devices")].toArray();
        QCOMPARE(devices.size(), 2);
        const qint64 comm[] = { 200, 200 }, compute[] = { 200, 100 }, overlap[] = { 100, 0 };
        const double hidden[] = { 50.0, 0.0 };
        for (int r = 0; r < 2; ++r) {
            const auto d = devices[r].toObject();
            QCOMPARE(d[QStringLiteral("rank")].toInt(), r);
            QCOMPARE(d[QStringLiteral("device")].toInt(), 0);
            QCOMPARE(d[QStringLiteral("comm_kernels")].toInteger(), 1);
            QCOMPARE(d[QStringLiteral("compute_kernels")].toInteger(), 1);
            QCOMPARE(d[QStringLiteral("comm_ns")].toInteger(), comm[r]);
            QCOMPARE(d[QStringLiteral("compute_ns")].toInteger(), compute[r]);
            QCOMPARE(d[QStringLiteral("overlap_ns")].toInteger(), overlap[r]);
            QCOMPARE(d[QStringLiteral("exposed_comm_ns")].toInteger(), comm[r] - overlap[r]);
            QCOMPARE(d[QStringLiteral("hidden_pct")].toDouble(), hidden[r]);
            const auto collectives = d[QStringLiteral("collectives")].toArray();
            QCOMPARE(collectives.size(), 1);
            const auto c = collectives[0].toObject();
            QCOMPARE(c[QStringLiteral("type")].toString(), QStringLiteral("AllReduce"));
            QCOMPARE(c[QStringLiteral("calls")].toInteger(), 1);
            QCOMPARE(c[QStringLiteral("total_ns")].toInteger(), 200);
        }

        const auto ranks = doc[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), 2);
        const qint64 skew[] = { 0, 50 }, last[] = { 0, 1 };
        for (int r = 0; r < 2; ++r) {
            const auto o = ranks[r].toObject();
            QCOMPARE(o[QStringLiteral("rank")].toInt(), r);
            QCOMPARE(o[QStringLiteral("instances")].toInteger(), 1);
            QCOMPARE(o[QStringLiteral("median_skew_ns")].toDouble(), double(skew[r]));
            QCOMPARE(o[QStringLiteral("max_skew_ns")].toInteger(), skew[r]);
            QCOMPARE(o[QStringLiteral("times_last")].toInteger(), last[r]);
        }

        const auto instances = doc[QStringLiteral("instances")].toArray();
        QCOMPARE(instances.size(), 1);
        const auto instance = instances[0].toObject();
        QCOMPARE(
            instance[QStringLiteral("name")].toString(), QStringLiteral("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
        QCOMPARE(instance[QStringLiteral("type")].toString(), QStringLiteral("AllReduce"));
        QCOMPARE(instance[QStringLiteral("occurrence")].toInteger(), 0);
        QCOMPARE(instance[QStringLiteral("last_rank")].toInt(), 1);
        const auto perRank = instance[QStringLiteral("ranks")].toArray();
        QCOMPARE(perRank.size(), 2);
        const auto first = perRank[0].toObject(), second = perRank[1].toObject();
        QCOMPARE(first[QStringLiteral("rank")].toInt(), 0);
        QCOMPARE(second[QStringLiteral("rank")].toInt(), 1);
        QCOMPARE(second[QStringLiteral("start_ns")].toInteger() - first[QStringLiteral("start_ns")].toInteger(), 50);
        QCOMPARE(first[QStringLiteral("skew_ns")].toInteger(), 0);
        QCOMPARE(second[QStringLiteral("skew_ns")].toInteger(), 50);
    }

    void oneSelectedRankHasNoOneToWaitFor()
    {
        const auto run = runCli({ QStringLiteral("overlap"), QStringLiteral("--ranks"), QStringLiteral("1"),
            QStringLiteral("--format"), QStringLiteral("json"), m_rank0, m_rank1 });
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        const auto devices = doc[QStringLiteral("devices")].toArray();
        QCOMPARE(devices.size(), 1);
        QCOMPARE(devices[0].toObject()[QStringLiteral("rank")].toInt(), 1);
        QCOMPARE(devices[0].toObject()[QStringLiteral("exposed_comm_ns")].toInteger(), 200);
        const auto ranks = doc[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), 1);
        QCOMPARE(ranks[0].toObject()[QStringLiteral("instances")].toInteger(), 0);
        QVERIFY(ranks[0].toObject()[QStringLiteral("median_skew_ns")].isNull());
        QVERIFY(doc[QStringLiteral("instances")].toArray().isEmpty());
    }

    void csvHasRawNanosecondsUnderUnitHeaders()
    {
        const auto run = runCli(
            { QStringLiteral("overlap"), QStringLiteral("--format"), QStringLiteral("csv"), m_rank0, m_rank1 });
        QCOMPARE(run.exitCode, 0);
        const auto lines = QString::fromUtf8(run.out).split(QLatin1Char('\n'));
        QCOMPARE(lines[0],
            QStringLiteral("rank,device,comm_kernels,compute_kernels,comm_ns,compute_ns,overlap_ns,exposed_comm_ns,"
                           "hidden_pct"));
        QCOMPARE(lines[1], QStringLiteral("0,0,1,1,200,200,100,100,50.000"));
        QCOMPARE(lines[2], QStringLiteral("1,0,1,1,200,100,0,200,0.000"));
        QVERIFY(lines.contains(QStringLiteral("rank,device,type,calls,total_ns")));
        QVERIFY(lines.contains(QStringLiteral("rank,instances,median_skew_ns,max_skew_ns,times_last")));
        QVERIFY(lines.contains(QStringLiteral("1,1,50,50,1")));
    }

    void tableNamesTheColumnsAndTheUnits()
    {
        const auto run = runCli({ QStringLiteral("overlap"), m_rank0, m_rank1 });
        QCOMPARE(run.exitCode, 0);
        const auto out = QString::fromUtf8(run.out);
        for (const char *text : { "exposed comm", "hidden", "50.0%", "AllReduce", "median skew", "started last" })
            QVERIFY2(out.contains(QLatin1String(text)), text);
    }
};

QTEST_APPLESS_MAIN(TestCliOverlap)
#include "tst_cli_overlap.moc"
