// SPDX-License-Identifier: MIT
// The run scorecard of `throughput --format md` with --meta on the 20-minute window, the
// sustained rate side by side in `diff`, and `check --min-sustained-gain` passing and failing
// for each of its conditions on runs of checkpoint cycles whose window rates are exact.
#include "cli_runner.h"
#include "run_exports.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <vector>

using namespace gaplens::test;
using gaplens::core::TimeNs;

namespace {

constexpr TimeNs kMs = 1'000'000;

// `cycles` checkpoint cycles of ten steps of `stepMs`, checkpoints of `checkpointMs` (the
// pattern repeated), 1,000 tokens a step.
CheckpointCycles cycles(int count, TimeNs stepMs, std::vector<TimeNs> checkpointMs, TimeNs stagingMs = 0)
{
    CheckpointCycles run;
    run.stepNs = stepMs * kMs;
    for (int k = 0; k < count; ++k)
        run.checkpointNs.push_back(checkpointMs[std::size_t(k) % checkpointMs.size()] * kMs);
    run.stagingNs = stagingMs * kMs;
    return run;
}

// A window's sustained rate: ten steps of 1,000 tokens over `windowMs`.
double windowRate(double windowMs)
{
    return 10'000.0 / (windowMs / 1000.0);
}

} // namespace

class TestCliSustained : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_twenty, m_base, m_faster, m_slightlyFaster, m_fewCycles, m_backlog, m_noisyBase, m_noisyAfter;

    QString write(const QString &name, const CheckpointCycles &run)
    {
        const QString path = m_dir.filePath(name);
        writeCheckpointCycles(path.toStdString(), run);
        return path;
    }

    CliRun check(const QString &before, const QString &after, QStringList extra = {})
    {
        QStringList args { QStringLiteral("check"), QStringLiteral("--before"), before, QStringLiteral("--after"),
            after, QStringLiteral("--min-sustained-gain"), QStringLiteral("3%") };
        return runCli(args + extra);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_twenty = m_dir.filePath(QStringLiteral("twenty.sqlite"));
        writeTwentyMinutes(m_twenty.toStdString(), true);
        // 6 cycles: 5 windows between commits, each ten steps and one 500 ms checkpoint.
        m_base = write(QStringLiteral("base.sqlite"), cycles(6, 100, { 500 }));
        m_faster = write(QStringLiteral("faster.sqlite"), cycles(6, 90, { 500 }));
        m_slightlyFaster = write(QStringLiteral("slightly.sqlite"), cycles(6, 98, { 500 }));
        m_fewCycles = write(QStringLiteral("few.sqlite"), cycles(3, 90, { 500 }));
        // Staging of 1.5 cycles from each checkpoint's end: one earlier staging still open at
        // every start but the first (0, 1, 1 then 1, 1, 1: growing), commits a cycle apart.
        m_backlog = write(QStringLiteral("backlog.sqlite"), cycles(6, 90, { 500 }, 2100));
        // Checkpoints of 0.5 s and 1.5 s in turn: windows of 1.5 s and 2.5 s before, 1.4 s and
        // 2.4 s after; the medians (three short windows of five) are 7.1% apart, the rank-sum
        // test cannot tell the samples apart (p = 0.196).
        m_noisyBase = write(QStringLiteral("noisy-base.sqlite"), cycles(6, 100, { 500, 500, 1500 }));
        m_noisyAfter = write(QStringLiteral("noisy-after.sqlite"), cycles(6, 90, { 500, 500, 1500 }));
    }

    void scorecardWritesTheFormulasWithTheirNumbers()
    {
        const auto run = runCli(
            { QStringLiteral("throughput"), QStringLiteral("--format"), QStringLiteral("md"), QStringLiteral("--meta"),
                QStringLiteral("model=llama-8b"), QStringLiteral("--meta"), QStringLiteral("precision=bf16"),
                QStringLiteral("--meta"), QStringLiteral("global batch = 1024"), m_twenty });
        QCOMPARE(run.exitCode, 0);
        const QString md = QString::fromUtf8(run.out);
        QVERIFY(md.startsWith(QStringLiteral("## Run scorecard\n\n### Throughput\n")));
        const QStringList lines {
            "| work | 9,600,000 tokens | the NVTX payloads of the 96 steps of 'train_step' ending in the window |",
            "| active time | 900.000 s | the union of the 'train_step' ranges inside the window |",
            "| window time | 1,200.000 s | the window's wall time |",
            "| active rate | 10,666.67 tokens/s | work / active time = 9,600,000 tokens / 900.000 s |",
            "| sustained rate | 8,000.00 tokens/s | work / window time = 9,600,000 tokens / 1,200.000 s |",
            "| sustained / active | 0.750 | sustained rate / active rate = 8,000.00 / 10,666.67 = active time / "
            "window time |",
            "| active | 900.000 s (75.0%) | a step range open on any thread |",
            "| checkpoint | 90.000 s (7.5%) | no step open; a range matching 'checkpoint\\|ckpt\\|save' open |",
            "| validation | 210.000 s (17.5%) | no step open; a range matching 'valid\\|eval' open |",
            "| unexplained | 0 ns (0.0%) | no state range open |",
            "| total | 1200.000 s | = the window: every instant in exactly one state (first open in the order above) |",
            "| checkpoints | 2 blocking, 0 staging | blocking: on a thread that runs steps; staging: on the rank's "
            "other "
            "threads |",
            "| cadence | 855.000 s | median interval between checkpoint starts |",
            "| checkpoint time | 90.000 s | left out of the active time, kept in the window time |",
            "| validation time | 210.000 s | left out of the active time, kept in the window time |",
            "| steps ending outside the window | 0 steps | not counted as work (a step counts when its end is in the "
            "window, its end included) |",
            "| window | 0.000 s to 1,200.000 s | rank 0, from its session start (the time zero nsys shows) |",
            "| chosen by | default (state_span) | from the first to the last instant of any state range |",
            "| ranks | 1 (rank 0) | on 1 host |",
            "| model | llama-8b |  |",
            "| precision | bf16 |  |",
            "| global batch | 1024 |  |",
            "## Per rank",
        };
        for (const auto &line : lines)
            QVERIFY2(md.contains(line + QLatin1Char('\n')), qPrintable(line));
        // Each section is its own table, in order.
        qsizetype at = 0;
        for (const char *title : { "### Throughput", "### Where the window went", "### Checkpoints", "### Exclusions",
                 "### Window", "### What the capture knows", "### What you supplied (--meta)" }) {
            const auto next = md.indexOf(QLatin1String(title), at);
            QVERIFY2(next > at || (at == 0 && next > 0), title);
            at = next;
        }
    }

    void scorecardCountsWorkPerStepAndSaysWhatWasExcluded()
    {
        const QString plain = m_dir.filePath(QStringLiteral("plain.sqlite"));
        writeTwentyMinutes(plain.toStdString(), false);
        const auto run = runCli({ QStringLiteral("throughput"), QStringLiteral("--format"), QStringLiteral("md"),
            QStringLiteral("--window"), QStringLiteral("300s:1200s"), QStringLiteral("--work-per-step"),
            QStringLiteral("100000"), plain });
        QCOMPARE(run.exitCode, 0);
        const QString md = QString::fromUtf8(run.out);
        // From 300 s: the first 32 steps end by 300 s, 32 steps of the window's 64 end after it.
        QVERIFY(md.contains(QStringLiteral(
            "| work | 6,400,000 tokens | 64 steps of 'train_step' ending in the window x --work-per-step |\n")));
        QVERIFY(md.contains(QStringLiteral("| steps ending outside the window | 32 steps |")));
        QVERIFY(md.contains(QStringLiteral("| chosen by | --window 300000000000ns:1200000000000ns |")));
        QVERIFY(md.contains(QStringLiteral("| window | 300.000 s to 1,200.000 s |")));
        QVERIFY(md.contains(
            QStringLiteral("| nothing | - | give --meta KEY=VALUE (model, precision, global batch, ...) |")));
    }

    void scorecardSaysWhenThereIsNoStepRange()
    {
        const QString empty = m_dir.filePath(QStringLiteral("nothing.sqlite"));
        {
            CheckpointCycles none;
            writeCheckpointCycles(empty.toStdString(), none);
        }
        const auto run = runCli({ QStringLiteral("throughput"), QStringLiteral("--format"), QStringLiteral("md"),
            QStringLiteral("--meta"), QStringLiteral("model=x"), empty });
        QCOMPARE(run.exitCode, 1);
        const QString md = QString::fromUtf8(run.out);
        QVERIFY(md.contains(QStringLiteral("No run scorecard: no step range: ")));
        QVERIFY(!md.contains(QStringLiteral("### Throughput")));
        QVERIFY(md.contains(QStringLiteral("| model | x |  |")));
    }

    void metaIsInTheJsonAndBadMetaIsAUsageError()
    {
        auto run = runCli({ QStringLiteral("throughput"), QStringLiteral("--format"), QStringLiteral("json"),
            QStringLiteral("--meta"), QStringLiteral("model=llama-8b"), QStringLiteral("--meta"),
            QStringLiteral("note=a=b"), m_twenty });
        QCOMPARE(run.exitCode, 0);
        const auto meta = json(run)[QStringLiteral("meta")].toArray();
        QCOMPARE(meta.size(), 2);
        QCOMPARE(meta[0].toObject()[QStringLiteral("key")].toString(), QStringLiteral("model"));
        QCOMPARE(meta[0].toObject()[QStringLiteral("value")].toString(), QStringLiteral("llama-8b"));
        QCOMPARE(meta[1].toObject()[QStringLiteral("value")].toString(), QStringLiteral("a=b"));
        run = runCli({ QStringLiteral("throughput"), QStringLiteral("--meta"), QStringLiteral("=x"), m_twenty });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--meta expects KEY=VALUE (e.g. model=llama-8b), got '=x'"));
        run = runCli({ QStringLiteral("throughput"), QStringLiteral("--help") });
        QVERIFY(run.out.contains("--meta KEY=VALUE"));
        QVERIFY(run.out.contains("gaplens-cli throughput --format md --meta model=llama-8b"));
    }

    void diffShowsTheSustainedRateSideBySide()
    {
        const auto run = runDiff(m_base, m_faster, QStringLiteral("json"));
        QCOMPARE(run.exitCode, 0);
        const auto sustained = json(run)[QStringLiteral("sustained")].toObject();
        QCOMPARE(sustained[QStringLiteral("work_unit")].toString(), QStringLiteral("tokens"));
        QCOMPARE(sustained[QStringLiteral("error")].toString(), QString());
        QHash<QString, QJsonObject> byKey;
        for (const auto &m : sustained[QStringLiteral("metrics")].toArray())
            byKey.insert(m.toObject()[QStringLiteral("key")].toString(), m.toObject());
        QCOMPARE(byKey.size(), 12);
        // Six cycles of 1.5 s before and 1.4 s after, 60,000 tokens each.
        auto value = [&](const char *key, const char *side) {
            return byKey[QLatin1String(key)][QLatin1String(side)].toDouble();
        };
        QCOMPARE(value("window_ns", "before"), 9e9);
        QCOMPARE(value("window_ns", "after"), 8.4e9);
        QCOMPARE(value("work", "before"), 60'000.0);
        QCOMPARE(value("sustained_rate", "before"), 60'000.0 / 9.0);
        QCOMPARE(value("sustained_rate", "after"), 60'000.0 / 8.4);
        QCOMPARE(value("active_rate", "before"), 10'000.0);
        QCOMPARE(value("active_rate", "after"), 60'000.0 / 5.4);
        QCOMPARE(value("partition_checkpoint", "before"), 3e9);
        QCOMPARE(value("partition_checkpoint", "after"), 3e9);
        QCOMPARE(value("partition_active", "after"), 5.4e9);
        QCOMPARE(byKey[QStringLiteral("sustained_rate")][QStringLiteral("unit")].toString(), QStringLiteral("per_s"));
        QCOMPARE(byKey[QStringLiteral("sustained_rate")][QStringLiteral("judgement")].toString(),
            QStringLiteral("not_judged"));
        const auto md = runDiff(m_base, m_faster, QStringLiteral("md"));
        QVERIFY(md.out.contains("| sustained rate (tokens/s) = work / window | 6,666.67 | 7,142.86 | +7.1% |"));
    }

    void sustainedGainPassesWithEveryCondition()
    {
        const auto run = check(m_base, m_faster, { QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("rule")].toString(), QStringLiteral("sustained_gain"));
        QCOMPARE(doc[QStringLiteral("split")].toString(), QStringLiteral("checkpoint_commits"));
        QCOMPARE(doc[QStringLiteral("before")].toObject()[QStringLiteral("comparable_windows")].toInt(), 5);
        QCOMPARE(doc[QStringLiteral("after")].toObject()[QStringLiteral("comparable_windows")].toInt(), 5);
        const auto windows = doc[QStringLiteral("after")].toObject()[QStringLiteral("windows")].toArray();
        QCOMPARE(windows.size(), 5);
        // The first window starts at the first commit: the end of cycle 1's checkpoint.
        QCOMPARE(windows[0].toObject()[QStringLiteral("start_ns")].toInteger(), kRunSessionStart + 1400 * kMs);
        QCOMPARE(windows[0].toObject()[QStringLiteral("steps")].toInt(), 10);
        QCOMPARE(windows[0].toObject()[QStringLiteral("sustained_rate")].toDouble(), windowRate(1400));
        QCOMPARE(doc[QStringLiteral("median_sustained_rate_before")].toDouble(), windowRate(1500));
        QCOMPARE(doc[QStringLiteral("median_sustained_rate_after")].toDouble(), windowRate(1400));
        QCOMPARE(doc[QStringLiteral("gain_pct")].toDouble(), (windowRate(1400) / windowRate(1500) - 1.0) * 100.0);
        QCOMPARE(doc[QStringLiteral("noise_pct")].toDouble(), 0.0);
        const auto conditions = doc[QStringLiteral("conditions")].toObject();
        for (const auto &key : conditions.keys())
            QVERIFY2(conditions[key].toBool(), qPrintable(key));
        QCOMPARE(doc[QStringLiteral("passed")].toBool(), true);
        QCOMPARE(doc[QStringLiteral("failures")].toArray().size(), 0);

        const auto table = check(m_base, m_faster);
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("Sustained-gain rule: passed"));
        QVERIFY(table.out.contains("+7.14% (6,666.67 -> 7,142.86 tokens/s, medians)"));
    }

    void equalWindowsSplitTheWholeWindow()
    {
        const auto run = check(m_base, m_faster,
            { QStringLiteral("--windows"), QStringLiteral("3"), QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("split")].toString(), QStringLiteral("equal"));
        QCOMPARE(doc[QStringLiteral("window_count")].toInt(), 3);
        // Two cycles per window: 20 steps in 3 s before, in 2.8 s after.
        for (const auto &w : doc[QStringLiteral("before")].toObject()[QStringLiteral("windows")].toArray()) {
            QCOMPARE(w.toObject()[QStringLiteral("steps")].toInt(), 20);
            QCOMPARE(w.toObject()[QStringLiteral("sustained_rate")].toDouble(), windowRate(1500));
        }
        QCOMPARE(doc[QStringLiteral("median_sustained_rate_after")].toDouble(), windowRate(1400));
        // Three tied values a side are the fewest the rank-sum test rejects at 0.05 (p = 0.047).
        QCOMPARE(std::round(doc[QStringLiteral("p_value")].toDouble() * 1000.0) / 1000.0, 0.047);
        QCOMPARE(doc[QStringLiteral("passed")].toBool(), true);
    }

    void tooFewWindowsFails()
    {
        // Five windows a side, the gain clear of the threshold and the noise; six are asked.
        auto run = check(m_base, m_faster, { QStringLiteral("--min-windows"), QStringLiteral("6") });
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(QString::fromUtf8(run.err).trimmed(),
            QStringLiteral("gaplens-cli: check failed: too few comparable windows: 5 before and 5 after, at least 6 "
                           "needed (windows run from one checkpoint commit to the next; --windows N splits into N "
                           "equal ones)"));
        QVERIFY(run.out.contains("Sustained-gain rule: NOT MET"));
        // Three cycles make two windows.
        run = check(m_base, m_fewCycles, { QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(json(run)[QStringLiteral("after")].toObject()[QStringLiteral("comparable_windows")].toInt(), 2);
        QVERIFY(run.err.contains("too few comparable windows: 5 before and 2 after, at least 3 needed"));
    }

    void backlogGrowthFails()
    {
        // The window ends with the after run's last checkpoint (6 cycles of 1.4 s), before the
        // last staging ranges: inside it, commits at 3.5, 4.9, 6.3 and 7.7 s make three windows
        // of ten steps; the staging ranges starting in it have 0, 1, 1, 1, 1 earlier ones open.
        const auto run = check(m_base, m_backlog,
            { QStringLiteral("--window"), QStringLiteral("0s:8.4s"), QStringLiteral("--format"),
                QStringLiteral("json") });
        QCOMPARE(run.exitCode, 3);
        const auto doc = json(run);
        const auto conditions = doc[QStringLiteral("conditions")].toObject();
        QCOMPARE(conditions[QStringLiteral("backlog_steady")].toBool(), false);
        QCOMPARE(conditions[QStringLiteral("enough_windows")].toBool(), true);
        QCOMPARE(conditions[QStringLiteral("above_threshold")].toBool(), true);
        QCOMPARE(conditions[QStringLiteral("above_noise")].toBool(), true);
        QCOMPARE(doc[QStringLiteral("after")].toObject()[QStringLiteral("backlog_growing")].toBool(), true);
        QCOMPARE(doc[QStringLiteral("after")].toObject()[QStringLiteral("comparable_windows")].toInt(), 3);
        QCOMPARE(doc[QStringLiteral("before")].toObject()[QStringLiteral("comparable_windows")].toInt(), 4);
        // Commits are the staging ends, a cycle apart: each window still holds ten steps.
        QCOMPARE(doc[QStringLiteral("median_sustained_rate_after")].toDouble(), windowRate(1400));
        QCOMPARE(QString::fromUtf8(run.err).trimmed(),
            QStringLiteral("gaplens-cli: check failed: checkpoint backlog grows after the change: rank 0 has 0.50 "
                           "earlier checkpoint(s) still being written at a start in the first half, 1.00 in the "
                           "second (max 1)"));
    }

    void gainBelowTheThresholdFails()
    {
        const auto run = check(m_base, m_slightlyFaster, { QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(run.exitCode, 3);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("gain_pct")].toDouble(), (windowRate(1480) / windowRate(1500) - 1.0) * 100.0);
        const auto conditions = doc[QStringLiteral("conditions")].toObject();
        QCOMPARE(conditions[QStringLiteral("above_threshold")].toBool(), false);
        QCOMPARE(conditions[QStringLiteral("above_noise")].toBool(), true);
        QCOMPARE(QString::fromUtf8(run.err).trimmed(),
            QStringLiteral("gaplens-cli: check failed: sustained-rate gain +1.35% (median 6,666.67 -> 6,756.76 "
                           "tokens/s) is not above the threshold +3.00%"));
    }

    void gainWithinNoiseFails()
    {
        const auto run = check(m_noisyBase, m_noisyAfter, { QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(run.exitCode, 3);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("gain_pct")].toDouble(), (windowRate(1400) / windowRate(1500) - 1.0) * 100.0);
        QCOMPARE(std::round(doc[QStringLiteral("p_value")].toDouble() * 1000.0) / 1000.0, 0.196);
        const auto conditions = doc[QStringLiteral("conditions")].toObject();
        QCOMPARE(conditions[QStringLiteral("enough_windows")].toBool(), true);
        QCOMPARE(conditions[QStringLiteral("backlog_steady")].toBool(), true);
        QCOMPARE(conditions[QStringLiteral("above_threshold")].toBool(), true);
        QCOMPARE(conditions[QStringLiteral("above_noise")].toBool(), false);
        const auto failures = doc[QStringLiteral("failures")].toArray();
        QCOMPARE(failures.size(), 1);
        QVERIFY(
            failures[0].toString().startsWith(QStringLiteral("sustained-rate gain +7.14% is within run-to-run noise")));
        QVERIFY(failures[0].toString().endsWith(QStringLiteral("rank-sum p = 0.196 over 5 and 5 windows)")));
    }

    void baselineCheckIsUnchangedAndTheModesDoNotMix()
    {
        auto run = runCli({ QStringLiteral("check"), m_base });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("check needs --baseline BASELINE.json"));
        run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), QStringLiteral("b.json"),
            QStringLiteral("--windows"), QStringLiteral("3"), m_base });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--windows is for check --min-sustained-gain"));
        run = runCli({ QStringLiteral("check"), QStringLiteral("--min-sustained-gain"), QStringLiteral("3%"),
            QStringLiteral("--before"), m_base });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("check --min-sustained-gain needs --before FILES... and --after FILES..."));
        run = check(m_base, m_faster, { QStringLiteral("--windows"), QStringLiteral("10001") });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--windows must be from 1 to 10000, got '10001'"));
        run = runCli({ QStringLiteral("check"), QStringLiteral("--help") });
        QVERIFY(run.out.contains("--min-sustained-gain P[%]"));
        QVERIFY(
            run.out.contains("gaplens-cli check --before base/ --after new/ --min-sustained-gain 3% --min-windows 3"));
    }
};

QTEST_GUILESS_MAIN(TestCliSustained)
#include "tst_cli_sustained.moc"
