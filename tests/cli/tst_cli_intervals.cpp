// SPDX-License-Identifier: MIT
// `gaplens-cli intervals` and `transfers` end to end on one export written in code: the
// documented JSON fields with their exact values, an event on an interval edge, empty
// intervals, busy time clipped at an edge, the IQR anomaly, the transfer mix, --origin,
// ping-pong and the usage errors.
#include "cli_runner.h"

#include "gaplens/core/write/export_writer.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace gaplens::test;
using gaplens::core::ExportWriter;
using gaplens::core::TimeNs;

namespace {

constexpr TimeNs kSession = 1'700'000'000'000'000'000;
constexpr TimeNs us = 1000;

// One process (rank 0), 1 ms intervals from the first kernel (session time 0):
//   kernels [0,100) [200,500) | [1000,1100) on the edge, [1900,2300) | - | - | [4000,4050) us
//   HtoD [600,700) 4096 B; H D H D at 2400..2700 us (100..400 B, 10 us each);
//   DtoH [3000,3010) 1024 B; memset [3500,3600) 64 B.
void writeCapture(const std::string &path)
{
    ExportWriter::Options options;
    options.sessionStartUtcNs = kSession;
    ExportWriter w(path, options);
    w.addProcess(42, "python3");
    for (const auto &[s, e] :
        { std::pair<TimeNs, TimeNs> { 0, 100 }, { 200, 500 }, { 1000, 1100 }, { 1900, 2300 }, { 4000, 4050 } })
        w.addKernel({ .start = s * us, .end = e * us, .pid = 42, .shortName = "k" });
    w.addMemcpy({ .start = 600 * us, .end = 700 * us, .streamId = 8, .pid = 42, .bytes = 4096, .copyKind = 1 });
    for (int i = 0; i < 4; ++i)
        w.addMemcpy({ .start = (2400 + 100 * i) * us,
            .end = (2410 + 100 * i) * us,
            .streamId = 8,
            .pid = 42,
            .bytes = std::uint64_t(100 * (i + 1)),
            .copyKind = 1 + i % 2 });
    w.addMemcpy({ .start = 3000 * us, .end = 3010 * us, .streamId = 8, .pid = 42, .bytes = 1024, .copyKind = 2 });
    w.addMemset({ .start = 3500 * us, .end = 3600 * us, .streamId = 8, .pid = 42, .bytes = 64 });
    w.finish();
}

QJsonObject copy(const QJsonObject &copies, const char *direction)
{
    return copies[QLatin1String(direction)].toObject();
}

void compareCopy(const QJsonObject &c, qint64 count, qint64 bytes, qint64 ns)
{
    QCOMPARE(c[QStringLiteral("count")].toInteger(), count);
    QCOMPARE(c[QStringLiteral("bytes")].toInteger(), bytes);
    QCOMPARE(c[QStringLiteral("ns")].toInteger(), ns);
}

} // namespace

class TestCliIntervals : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_file;

    CliRun run(QStringList args)
    {
        args.append(m_file);
        return runCli(args);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_file = m_dir.filePath(QStringLiteral("capture.sqlite"));
        writeCapture(m_file.toStdString());
    }

    void intervalsJsonHoldsEveryFieldExactly()
    {
        const auto r = run({ QStringLiteral("intervals"), QStringLiteral("--interval"), QStringLiteral("1ms"),
            QStringLiteral("--metric"), QStringLiteral("htod"), QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        const auto doc = json(r);
        QCOMPARE(doc[QStringLiteral("command")].toString(), QStringLiteral("intervals"));
        QCOMPARE(doc[QStringLiteral("origin_ns")].toInteger(), kSession);
        QCOMPARE(doc[QStringLiteral("interval_ns")].toInteger(), 1'000'000);
        QCOMPARE(doc[QStringLiteral("metric")].toString(), QStringLiteral("htod"));
        QCOMPARE(doc[QStringLiteral("pooled")].toBool(), false);
        const auto ranks = doc[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), 1);
        const auto rank = ranks[0].toObject();
        QCOMPARE(rank[QStringLiteral("rank")].toInt(), 0);
        QCOMPARE(rank[QStringLiteral("events_before_origin")].toInteger(), 0);
        const auto intervals = rank[QStringLiteral("intervals")].toArray();
        QCOMPARE(intervals.size(), 5);
        const qint64 count[] = { 2, 2, 0, 0, 1 }, sum[] = { 400, 500, 0, 0, 50 }, mn[] = { 100, 100, 0, 0, 50 },
                     mx[] = { 300, 400, 0, 0, 50 }, busy[] = { 400, 200, 300, 0, 50 }, stall[] = { 100, 0, 40, 10, 0 };
        const double mean[] = { 200, 250, 0, 0, 50 };
        const double stddev[] = { std::sqrt(20000.0), std::sqrt(45000.0), 0, 0, 0 };
        for (int i = 0; i < 5; ++i) {
            const auto iv = intervals[i].toObject();
            QCOMPARE(iv[QStringLiteral("index")].toInteger(), i);
            QCOMPARE(iv[QStringLiteral("start_ns")].toInteger(), kSession + i * 1000 * us);
            QCOMPARE(iv[QStringLiteral("kernel_count")].toInteger(), count[i]);
            QCOMPARE(iv[QStringLiteral("kernel_ns")].toInteger(), sum[i] * us);
            QCOMPARE(iv[QStringLiteral("kernel_min_ns")].toInteger(), mn[i] * us);
            QCOMPARE(iv[QStringLiteral("kernel_max_ns")].toInteger(), mx[i] * us);
            QCOMPARE(iv[QStringLiteral("kernel_mean_ns")].toDouble(), mean[i] * us);
            QCOMPARE(iv[QStringLiteral("kernel_stddev_ns")].toDouble(), stddev[i] * us);
            QCOMPARE(iv[QStringLiteral("busy_ns")].toInteger(), busy[i] * us);
            QCOMPARE(iv[QStringLiteral("stall_ns")].toInteger(), stall[i] * us);
            // Every interval lists the directions of the capture, in CopyKind order.
            const auto copies = iv[QStringLiteral("copies")].toObject();
            QCOMPARE(copies.keys(),
                (QStringList { QStringLiteral("DtoH"), QStringLiteral("HtoD"), QStringLiteral("memset") }));
        }
        const auto c0 = intervals[0].toObject()[QStringLiteral("copies")].toObject();
        compareCopy(copy(c0, "HtoD"), 1, 4096, 100 * us);
        compareCopy(copy(c0, "DtoH"), 0, 0, 0);
        const auto c2 = intervals[2].toObject()[QStringLiteral("copies")].toObject();
        compareCopy(copy(c2, "HtoD"), 2, 400, 20 * us);
        compareCopy(copy(c2, "DtoH"), 2, 600, 20 * us);
        const auto c3 = intervals[3].toObject()[QStringLiteral("copies")].toObject();
        compareCopy(copy(c3, "DtoH"), 1, 1024, 10 * us);
        compareCopy(copy(c3, "memset"), 1, 64, 100 * us);

        // HtoD bytes per interval 4096 0 400 0 0: Q1 0, Q3 400, upper fence 1000; interval 0
        // scores (4096 - 1000) / 400.
        const auto fences = rank[QStringLiteral("fences")].toObject();
        QCOMPARE(fences[QStringLiteral("n")].toInt(), 5);
        QCOMPARE(fences[QStringLiteral("q1")].toDouble(), 0.0);
        QCOMPARE(fences[QStringLiteral("q3")].toDouble(), 400.0);
        QCOMPARE(fences[QStringLiteral("upper")].toDouble(), 1000.0);
        QCOMPARE(rank[QStringLiteral("anomalous")].toInteger(), 1);
        const auto anomalies = rank[QStringLiteral("anomalies")].toArray();
        QCOMPARE(anomalies.size(), 1);
        const auto a = anomalies[0].toObject();
        QCOMPARE(a[QStringLiteral("index")].toInteger(), 0);
        QCOMPARE(a[QStringLiteral("start_ns")].toInteger(), kSession);
        QCOMPARE(a[QStringLiteral("value")].toDouble(), 4096.0);
        QCOMPARE(a[QStringLiteral("score")].toDouble(), 3096.0 / 400.0);

        // The top 5% (one interval: 0) moves one HtoD copy and no ping-pong.
        const auto v = doc[QStringLiteral("variability")].toObject();
        QCOMPARE(v[QStringLiteral("pattern")].toString(), QStringLiteral("direction"));
        QCOMPARE(v[QStringLiteral("dominant_direction")].toString(), QStringLiteral("HtoD"));
        QVERIFY(v[QStringLiteral("ping_pong_median_bytes")].isNull());
        const auto top = v[QStringLiteral("top")].toObject();
        QCOMPARE(top[QStringLiteral("intervals")].toInteger(), 1);
        QCOMPARE(top[QStringLiteral("ping_pong_copies")].toInteger(), 0);
        const auto topHtoD = copy(top[QStringLiteral("copies")].toObject(), "HtoD");
        compareCopy(topHtoD, 1, 4096, 100 * us);
        QCOMPARE(topHtoD[QStringLiteral("bytes_share")].toDouble(), 1.0);
        QCOMPARE(topHtoD[QStringLiteral("ns_share")].toDouble(), 1.0);
        QVERIFY(copy(top[QStringLiteral("copies")].toObject(), "memset")[QStringLiteral("ns_share")].isNull());
        const auto rest = v[QStringLiteral("rest")].toObject();
        QCOMPARE(rest[QStringLiteral("intervals")].toInteger(), 4);
        QCOMPARE(rest[QStringLiteral("ping_pong_copies")].toInteger(), 4);
        const auto restDtoH = copy(rest[QStringLiteral("copies")].toObject(), "DtoH");
        compareCopy(restDtoH, 3, 1624, 30 * us);
        QCOMPARE(restDtoH[QStringLiteral("ns_share")].toDouble(), 30.0 / 50.0);
    }

    void theTopTwoIntervalsAreDominatedByPingPong()
    {
        const auto r = run({ QStringLiteral("intervals"), QStringLiteral("--interval"), QStringLiteral("1000us"),
            QStringLiteral("--metric"), QStringLiteral("htod"), QStringLiteral("--top-percent"), QStringLiteral("40"),
            QStringLiteral("--pool"), QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        const auto doc = json(r);
        const auto v = doc[QStringLiteral("variability")].toObject();
        QCOMPARE(v[QStringLiteral("top")].toObject()[QStringLiteral("intervals")].toInteger(), 2); // ceil(40% of 5)
        QCOMPARE(v[QStringLiteral("pattern")].toString(), QStringLiteral("ping_pong"));
        QCOMPARE(v[QStringLiteral("ping_pong_median_bytes")].toDouble(), 250.0);
        QVERIFY(v[QStringLiteral("finding")].toString().contains(QStringLiteral("ping-pong): 4 of their 5 copies")));
        // Pooled: the anomalies are the document's, with their rank; none per rank.
        const auto pool = doc[QStringLiteral("pool")].toObject();
        QCOMPARE(pool[QStringLiteral("anomalous")].toInteger(), 1);
        QCOMPARE(pool[QStringLiteral("anomalies")].toArray()[0].toObject()[QStringLiteral("rank")].toInt(), 0);
        QVERIFY(!doc[QStringLiteral("ranks")].toArray()[0].toObject().contains(QStringLiteral("anomalies")));
    }

    void originOverrideMovesTheEdges()
    {
        const auto origin = QString::number(kSession + 500 * us);
        const auto r = run({ QStringLiteral("intervals"), QStringLiteral("--interval"), QStringLiteral("1ms"),
            QStringLiteral("--origin"), origin, QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        const auto doc = json(r);
        QCOMPARE(doc[QStringLiteral("origin_ns")].toInteger(), kSession + 500 * us);
        const auto rank = doc[QStringLiteral("ranks")].toArray()[0].toObject();
        QCOMPARE(rank[QStringLiteral("events_before_origin")].toInteger(), 2);
        const auto intervals = rank[QStringLiteral("intervals")].toArray();
        QCOMPARE(intervals.size(), 4);
        const qint64 count[] = { 1, 1, 0, 1 }, busy[] = { 100, 400, 0, 50 };
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(intervals[i].toObject()[QStringLiteral("kernel_count")].toInteger(), count[i]);
            QCOMPARE(intervals[i].toObject()[QStringLiteral("busy_ns")].toInteger(), busy[i] * us);
        }
    }

    void transfersJsonHasTotalsBandwidthIntervalsAndPingPong()
    {
        const auto r = run({ QStringLiteral("transfers"), QStringLiteral("--interval"), QStringLiteral("1ms"),
            QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        const auto doc = json(r);
        QCOMPARE(doc[QStringLiteral("command")].toString(), QStringLiteral("transfers"));
        QCOMPARE(doc[QStringLiteral("origin_ns")].toInteger(), kSession);
        const auto rank = doc[QStringLiteral("ranks")].toArray()[0].toObject();
        const auto totals = rank[QStringLiteral("totals")].toObject();
        compareCopy(copy(totals, "HtoD"), 3, 4496, 120 * us);
        compareCopy(copy(totals, "DtoH"), 3, 1624, 30 * us);
        compareCopy(copy(totals, "memset"), 1, 64, 100 * us);
        // Binary units: GiB/s = 2^30 bytes per second.
        QCOMPARE(
            copy(totals, "HtoD")[QStringLiteral("bandwidth_gib_s")].toDouble(), 4496.0 / 120000.0 * 1e9 / 1073741824.0);
        const auto intervals = rank[QStringLiteral("intervals")].toArray();
        QCOMPARE(intervals.size(), 5);
        const auto i1 = intervals[1].toObject()[QStringLiteral("copies")].toObject();
        compareCopy(copy(i1, "HtoD"), 0, 0, 0);
        QVERIFY(copy(i1, "HtoD")[QStringLiteral("bandwidth_gib_s")].isNull());
        compareCopy(copy(intervals[2].toObject()[QStringLiteral("copies")].toObject(), "DtoH"), 2, 600, 20 * us);
        const auto pp = rank[QStringLiteral("ping_pong")].toObject();
        QCOMPARE(pp[QStringLiteral("runs")].toInteger(), 1);
        QCOMPARE(pp[QStringLiteral("copies")].toInteger(), 4);
        QCOMPARE(pp[QStringLiteral("htod_dtoh_copies")].toInteger(), 6);
        QCOMPARE(pp[QStringLiteral("median_bytes")].toDouble(), 250.0);
        QCOMPARE(pp[QStringLiteral("longest_run")].toInteger(), 4);
    }

    void csvHasRawColumnsPerDirection()
    {
        const auto r = run({ QStringLiteral("intervals"), QStringLiteral("--interval"), QStringLiteral("1ms"),
            QStringLiteral("--format"), QStringLiteral("csv") });
        QCOMPARE(r.exitCode, 0);
        const auto lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'));
        QCOMPARE(lines[0],
            QStringLiteral("rank,index,start_ns,kernel_count,kernel_ns,kernel_min_ns,kernel_max_ns,kernel_mean_ns,"
                           "kernel_stddev_ns,busy_ns,stall_ns,htod_count,htod_bytes,htod_ns,dtoh_count,dtoh_bytes,"
                           "dtoh_ns,memset_count,memset_bytes,memset_ns"));
        QCOMPARE(lines[1],
            QStringLiteral("0,0,%1,2,400000,100000,300000,200000,141421,400000,100000,1,4096,100000,0,0,0,0,0,0")
                .arg(kSession));
    }

    void tooManyIntervalsIsAClearError()
    {
        // 4.05 ms of work in 1 ns intervals: more than a million for the rank.
        const auto r = run({ QStringLiteral("intervals"), QStringLiteral("--interval"), QStringLiteral("1ns") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(QString::fromUtf8(r.err).contains(
                     QStringLiteral("intervals of 1 ns give rank 0 4050000 intervals, more than 1000000")),
            r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void badOptionsAreUsageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("zero interval") << QStringList { QStringLiteral("--interval"), QStringLiteral("0s") }
                                       << QStringLiteral("--interval must be at least 1 ns");
        QTest::newRow("unknown unit") << QStringList { QStringLiteral("--interval"), QStringLiteral("5min") }
                                      << QStringLiteral("--interval expects a duration");
        QTest::newRow("unknown metric") << QStringList { QStringLiteral("--metric"), QStringLiteral("median") }
                                        << QStringLiteral("--metric must be stddev");
        QTest::newRow("percent above 100") << QStringList { QStringLiteral("--top-percent"), QStringLiteral("101") }
                                           << QStringLiteral("--top-percent must be above 0");
        QTest::newRow("origin not a number") << QStringList { QStringLiteral("--origin"), QStringLiteral("1e9") }
                                             << QStringLiteral("--origin expects a number");
    }
    void badOptionsAreUsageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        args.prepend(QStringLiteral("intervals"));
        const auto r = run(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    }
};

QTEST_APPLESS_MAIN(TestCliIntervals)
#include "tst_cli_intervals.moc"
