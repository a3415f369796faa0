// SPDX-License-Identifier: MIT
// `gaplens-cli throughput` end to end on exports written by export_writer: the 20-minute
// window (96 steps of 100,000 tokens in 900 s, two 45 s checkpoints, a 210 s validation) with
// the tokens as NVTX payloads and with --work-per-step, --window and --between, the CSV, and
// the messages for bad input.
#include "cli_runner.h"
#include "run_exports.h"
#include "testsupport.h"

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

constexpr TimeNs kSecond = 1'000'000'000;
constexpr TimeNs kSessionStart = kRunSessionStart;

double round2(double v)
{
    return std::round(v * 100.0) / 100.0;
}

} // namespace

class TestCliThroughput : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_payload, m_plain;

    QJsonObject runJson(QStringList args)
    {
        args.prepend(QStringLiteral("throughput"));
        args << QStringLiteral("--format") << QStringLiteral("json");
        const auto run = runCli(args);
        if (run.exitCode != 0)
            qWarning("exit %d: %s", run.exitCode, run.err.constData());
        return json(run);
    }

    // The figures every variant of the 20-minute window shares.
    static void checkTwentyMinutes(const QJsonObject &r)
    {
        QCOMPARE(r[QStringLiteral("window_ns")].toInteger(), 1200 * kSecond);
        QCOMPARE(r[QStringLiteral("window_end_ns")].toInteger() - r[QStringLiteral("window_start_ns")].toInteger(),
            1200 * kSecond);
        QCOMPARE(r[QStringLiteral("active_ns")].toInteger(), 900 * kSecond);
        QCOMPARE(r[QStringLiteral("steps")].toInteger(), 96);
        QCOMPARE(r[QStringLiteral("work")].toDouble(), 9'600'000.0);
        QCOMPARE(r[QStringLiteral("work_unit")].toString(), QStringLiteral("tokens"));
        QCOMPARE(round2(r[QStringLiteral("active_rate")].toDouble()), 10'666.67);
        QCOMPARE(r[QStringLiteral("sustained_rate")].toDouble(), 8'000.0);
        QCOMPARE(r[QStringLiteral("sustained_over_active")].toDouble(), 0.75);
        const auto p = r[QStringLiteral("partition")].toObject();
        QCOMPARE(p.keys().size(), 6);
        QCOMPARE(p[QStringLiteral("active")].toInteger(), 900 * kSecond);
        QCOMPARE(p[QStringLiteral("checkpoint")].toInteger(), 90 * kSecond);
        QCOMPARE(p[QStringLiteral("validation")].toInteger(), 210 * kSecond);
        QCOMPARE(p[QStringLiteral("data_wait")].toInteger(), 0);
        QCOMPARE(p[QStringLiteral("barrier")].toInteger(), 0);
        QCOMPARE(p[QStringLiteral("unexplained")].toInteger(), 0);
        const auto byState = r[QStringLiteral("step_time_by_state")].toArray();
        QCOMPARE(byState.size(), 4);
        const char *states[] = { "checkpoint", "validation", "data_wait", "barrier" };
        for (int i = 0; i < 4; ++i) {
            const auto row = byState[i].toObject();
            QCOMPARE(row[QStringLiteral("state")].toString(), QString::fromLatin1(states[i]));
            QCOMPARE(row[QStringLiteral("inside_count")].toInteger(), 0);
            QVERIFY(row[QStringLiteral("inside_median_ns")].isNull());
            QCOMPARE(row[QStringLiteral("outside_count")].toInteger(), 96);
            QCOMPARE(row[QStringLiteral("outside_median_ns")].toDouble(), 9'375'000'000.0);
            QCOMPARE(row[QStringLiteral("outside_p95_ns")].toInteger(), 9'375'000'000);
            QCOMPARE(row[QStringLiteral("significant")].toBool(), false);
        }
        const auto ckpt = r[QStringLiteral("checkpoint")].toObject();
        QCOMPARE(ckpt[QStringLiteral("count")].toInteger(), 2);
        QCOMPARE(ckpt[QStringLiteral("cadence_ns")].toDouble(), 855e9);
        QCOMPARE(ckpt[QStringLiteral("p95_duration_ns")].toInteger(), 45 * kSecond);
        QCOMPARE(ckpt[QStringLiteral("backlog_growing")].toBool(), false);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_payload = m_dir.filePath(QStringLiteral("payload.sqlite"));
        m_plain = m_dir.filePath(QStringLiteral("plain.sqlite"));
        writeTwentyMinutes(m_payload.toStdString(), true);
        writeTwentyMinutes(m_plain.toStdString(), false);
    }

    void payloadTokensGiveBothRates()
    {
        const auto doc = runJson({ m_payload });
        QCOMPARE(doc[QStringLiteral("command")].toString(), QStringLiteral("throughput"));
        QCOMPARE(doc[QStringLiteral("step_range")].toString(), QStringLiteral("train_step"));
        QCOMPARE(doc[QStringLiteral("work_source")].toString(), QStringLiteral("payload"));
        QCOMPARE(doc[QStringLiteral("window_source")].toString(), QStringLiteral("state_span"));
        QCOMPARE(doc[QStringLiteral("patterns")].toObject()[QStringLiteral("checkpoint")].toString(),
            QStringLiteral("checkpoint|ckpt|save"));
        const auto ranks = doc[QStringLiteral("ranks")].toArray();
        QCOMPARE(ranks.size(), 1);
        QCOMPARE(ranks[0].toObject()[QStringLiteral("rank")].toInt(), 0);
        QCOMPARE(ranks[0].toObject()[QStringLiteral("window_start_ns")].toInteger(), kSessionStart);
        CHECK(checkTwentyMinutes(ranks[0].toObject()));
        CHECK(checkTwentyMinutes(doc[QStringLiteral("overall")].toObject()));
    }

    void workPerStepAndAnExplicitWindowGiveTheSame()
    {
        const auto doc = runJson({ QStringLiteral("--work-per-step"), QStringLiteral("100000"),
            QStringLiteral("--window"), QStringLiteral("0s:1200s"), m_plain });
        QCOMPARE(doc[QStringLiteral("work_source")].toString(), QStringLiteral("work_per_step"));
        QCOMPARE(doc[QStringLiteral("window_source")].toString(), QStringLiteral("explicit"));
        const auto r = doc[QStringLiteral("ranks")].toArray()[0].toObject();
        // Relative to the session start: the export's time zero.
        QCOMPARE(r[QStringLiteral("window_start_ns")].toInteger(), kSessionStart);
        QCOMPARE(r[QStringLiteral("window_end_ns")].toInteger(), kSessionStart + 1200 * kSecond);
        CHECK(checkTwentyMinutes(r));
    }

    // From the end of the 32nd step (300 s) to the end of the 64th: the first checkpoint and
    // the second block of 32 steps.
    void betweenTwoStepsCountsTheStepsAfterTheFirst()
    {
        const auto doc = runJson({ QStringLiteral("--between"), QStringLiteral("train_step:32:64"), m_payload });
        QCOMPARE(doc[QStringLiteral("window_source")].toString(), QStringLiteral("between"));
        QCOMPARE(doc[QStringLiteral("window_spec")].toString(), QStringLiteral("train_step:32:64"));
        const auto r = doc[QStringLiteral("ranks")].toArray()[0].toObject();
        QCOMPARE(r[QStringLiteral("window_start_ns")].toInteger(), kSessionStart + 300 * kSecond);
        QCOMPARE(r[QStringLiteral("window_ns")].toInteger(), 345 * kSecond);
        QCOMPARE(r[QStringLiteral("active_ns")].toInteger(), 300 * kSecond);
        QCOMPARE(r[QStringLiteral("steps")].toInteger(), 32);
        QCOMPARE(r[QStringLiteral("work")].toDouble(), 3'200'000.0);
        QCOMPARE(r[QStringLiteral("partition")].toObject()[QStringLiteral("checkpoint")].toInteger(), 45 * kSecond);
    }

    void csvHasRawColumns()
    {
        const auto run = runCli({ QStringLiteral("throughput"), QStringLiteral("--format"), QStringLiteral("csv"),
            QStringLiteral("--work-unit"), QStringLiteral("samples"), m_payload });
        QCOMPARE(run.exitCode, 0);
        const auto lines = QString::fromUtf8(run.out).split(QLatin1Char('\n'));
        QCOMPARE(lines[0],
            QStringLiteral("rank,window_ns,active_ns,steps,work,active_rate,sustained_rate,sustained_over_active"));
        QCOMPARE(lines[1],
            QStringLiteral("0,1200000000000,900000000000,96,9600000.000000,10666.666667,8000.000000,0.750000"));
        QVERIFY(QString::fromUtf8(run.out).contains(
            QStringLiteral("rank,active_ns,checkpoint_ns,validation_ns,data_wait_ns,barrier_ns,"
                           "unexplained_ns\n0,900000000000,90000000000,210000000000,0,0,0\n")));
    }

    void badInputGetsAClearMessage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("window in another unit")
            << QStringList { "--window", "0min:1200" } << 2
            << "--window: '0min' is not a duration (a number, then s, ms, us or ns; none is seconds)";
        QTest::newRow("window backwards")
            << QStringList { "--window", "9s:1s" } << 2 << "--window: the end must come after the start, got '9s:1s'";
        QTest::newRow("window and between")
            << QStringList { "--window", "0s:1s", "--between", "train_step" } << 2 << "--window excludes --between";
        QTest::newRow("between zero") << QStringList { "--between", "train_step:0:3" } << 2
                                      << "--between train_step:0:3: occurrences count from 1, not '0'";
        QTest::newRow("between too far") << QStringList { "--between", "train_step:2:500" } << 1
                                         << "rank 0 has 96 occurrence(s) of 'train_step'";
        QTest::newRow("unknown state") << QStringList { "--state", "nap=sleep" } << 2
                                       << "--state: unknown state 'nap' (checkpoint, validation, data_wait or barrier)";
        QTest::newRow("active state") << QStringList { "--state", "active=step" } << 2
                                      << "the active state is the step range; choose it with --range NAME";
        QTest::newRow("bad regex") << QStringList { "--state", "checkpoint=(" } << 2
                                   << "--state checkpoint: '(' is not a regular expression";
        QTest::newRow("negative work") << QStringList { "--work-per-step", "-5" } << 2
                                       << "--work-per-step must be a positive number, got '-5'";
        QTest::newRow("missing range") << QStringList { "--range", "fwd" } << 1
                                       << "no selected rank has an NVTX range named 'fwd'";
    }
    void badInputGetsAClearMessage()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        args.prepend(QStringLiteral("throughput"));
        args << m_payload;
        const auto run = runCli(args);
        QCOMPARE(run.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
        QVERIFY(run.out.isEmpty());
    }

    // An export whose only NVTX range repeats nowhere: no step to account, said so.
    void noStepRangeIsAClearMessage()
    {
        const auto path = m_dir.filePath(QStringLiteral("nostep.sqlite"));
        {
            ExportWriter w(path.toStdString(), {});
            ExportWriter::NvtxRange r;
            r.start = 0;
            r.end = 100;
            r.pid = r.tid = 7;
            r.text = "init";
            w.addNvtx(r);
        }
        const auto run = runCli({ QStringLiteral("throughput"), path });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.startsWith("gaplens-cli: error: no step range: "), run.err.constData());
        QVERIFY2(run.err.contains("choose one with --range NAME"), run.err.constData());
    }
};

QTEST_APPLESS_MAIN(TestCliThroughput)
#include "tst_cli_throughput.moc"
