// SPDX-License-Identifier: MIT
// gaplens-cli diff and check end to end: built captures with a known difference, every
// output format, the regression gate's exit codes and its bad-baseline messages.
#include "gaplens/core/write/synth.h"

#include "cli_runner.h"
#include "synth_sample.h"
#include "test_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace gaplens::core;
using namespace gaplens::test;

namespace {

using Run = CliRun;

QJsonObject findRow(const QJsonArray &rows, const char *key, const QString &value)
{
    for (const auto &row : rows)
        if (row.toObject()[QLatin1String(key)].toString() == value)
            return row.toObject();
    return {};
}

} // namespace

class TestCliCompare : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_base, m_slowKernels, m_inputBound, m_baseline;

    QString capture(const char *name, const SynthOptions &options)
    {
        const auto dir = m_dir.filePath(QLatin1String(name));
        writeSyntheticCapture(dir.toStdString(), options);
        return dir;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const auto options = synthOptions(2, 8, -1);
        m_base = capture("base", options);
        // Every forward/backward kernel of every rank exactly 2x (the optimizer's is not).
        SynthOptions slow = options;
        slow.ranks = 1;
        slow.stragglerRank = 0;
        slow.stragglerSlowdown = 2.0;
        m_slowKernels = capture("slow_kernels", slow);
        // The nightly regression: data loading 2 ms -> 4 ms, so steps are longer and the GPU idler.
        SynthOptions input = options;
        input.inputGapNs = 4'000'000;
        m_inputBound = capture("input_bound", input);

        const auto summary
            = runCli({ QStringLiteral("summary"), QStringLiteral("--format"), QStringLiteral("json"), m_base });
        QCOMPARE(summary.exitCode, 0);
        m_baseline = m_dir.filePath(QStringLiteral("baseline.json"));
        QVERIFY(writeFile(m_baseline, summary.out));
    }

    void diffJsonShowsTheTwiceSlowerKernelsAndSaysSlower()
    {
        const auto base1 = capture("base_1rank", synthOptions(1, 8, -1));
        const auto run = runDiff(base1, m_slowKernels, QStringLiteral("json"));
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("command")].toString(), QStringLiteral("diff"));
        QCOMPARE(doc[QStringLiteral("files")].toArray().size(), 2);
        QCOMPARE(doc[QStringLiteral("step_range")].toString(), QStringLiteral("train_step"));
        QCOMPARE(doc[QStringLiteral("has_steps")].toBool(), true);
        QCOMPARE(doc[QStringLiteral("before")].toObject()[QStringLiteral("steps")].toInt(), 8);
        QCOMPARE(doc[QStringLiteral("after")].toObject()[QStringLiteral("steps")].toInt(), 8);
        QCOMPARE(doc[QStringLiteral("verdict")].toString(), QStringLiteral("slower"));
        const auto text = doc[QStringLiteral("verdict_text")].toString();
        QVERIFY2(text.startsWith(QStringLiteral("after is "))
                && text.contains(QStringLiteral("% slower per step (noise +-0.0%)")),
            qPrintable(text));
        QVERIFY(doc[QStringLiteral("noise_method")].toString().contains(QStringLiteral("Mann-Whitney U")));

        const auto kernels = doc[QStringLiteral("kernels")].toArray();
        const auto gemm = findRow(kernels, "name", QStringLiteral("ampere_sgemm_128x64_nn"));
        QCOMPARE(gemm[QStringLiteral("presence")].toString(), QStringLiteral("both"));
        QCOMPARE(gemm[QStringLiteral("calls_before")].toInt(), 8 * 8);
        QCOMPARE(gemm[QStringLiteral("calls_after")].toInt(), 8 * 8);
        QCOMPARE(gemm[QStringLiteral("avg_before_ns")].toDouble(), 120000.0);
        QCOMPARE(gemm[QStringLiteral("avg_after_ns")].toDouble(), 240000.0);
        QCOMPARE(gemm[QStringLiteral("avg_ratio")].toDouble(), 2.0);
        QCOMPARE(gemm[QStringLiteral("delta_ns")].toInteger(), qint64(64) * 120000);
        const auto optimizer = findRow(kernels, "name", QStringLiteral("multi_tensor_apply_kernel"));
        QCOMPARE(optimizer[QStringLiteral("avg_ratio")].toDouble(), 1.0);
        // Sorted by the absolute change of total time: the NT gemm (130 us) changed most.
        QCOMPARE(kernels[0].toObject()[QStringLiteral("name")].toString(), QStringLiteral("ampere_sgemm_128x64_nt"));

        const auto headline = doc[QStringLiteral("headline")].toArray();
        const auto step = findRow(headline, "key", QStringLiteral("median_step"));
        QCOMPARE(step[QStringLiteral("judgement")].toString(), QStringLiteral("exceeds_noise"));
        QVERIFY(step[QStringLiteral("after")].toDouble() > step[QStringLiteral("before")].toDouble());
        for (const char *key : { "median_step", "step_p95", "busy_pct_step", "idle_per_step", "kernel_per_step",
                 "busy_pct_total", "idle_total", "kernel_total", "kernel_count" })
            QVERIFY2(!findRow(headline, "key", QLatin1String(key)).isEmpty(), key);
        for (const char *key : { "idle_by_cause", "idle_by_phase", "nvtx", "warnings" })
            QVERIFY2(doc[QLatin1String(key)].isArray(), key);
        const auto phase
            = findRow(doc[QStringLiteral("idle_by_phase")].toArray(), "key", QStringLiteral("data_to_gpu"));
        // One input-bound gap per step except the first, which comes before any GPU work.
        QCOMPARE(phase[QStringLiteral("count_before")].toInt(), 7);
        QCOMPARE(phase[QStringLiteral("count_after")].toInt(), 7);
    }

    void diffOfFewerSlowerStepsIsPerStepAndNamesTheKernelsSlowerPerCall()
    {
        const auto before = capture("work_before", synthOptions(1, 8, -1));
        SynthOptions slow = synthOptions(1, 6, -1);
        slow.stragglerRank = 0;
        slow.stragglerSlowdown = 2.0;
        const auto after = capture("work_after", slow);
        const auto run = runDiff(before, after, QStringLiteral("json"));
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        const auto work = doc[QStringLiteral("work")].toObject();
        QCOMPARE(work[QStringLiteral("basis")].toString(), QStringLiteral("per_step"));
        QCOMPARE(work[QStringLiteral("differs")].toBool(), true);
        QCOMPARE(work[QStringLiteral("before")].toInt(), 8);
        QCOMPARE(work[QStringLiteral("after")].toInt(), 6);
        QCOMPARE(work[QStringLiteral("text")].toString(),
            QStringLiteral("different amounts of work (8 steps before, 6 after): figures are per step of NVTX range "
                           "'train_step'; capture totals are as measured"));
        QCOMPARE(doc[QStringLiteral("comparable")].toBool(), true);
        QVERIFY(doc[QStringLiteral("not_comparable")].toArray().isEmpty());
        const auto headline = doc[QStringLiteral("headline")].toArray();
        QCOMPARE(findRow(headline, "key", QStringLiteral("kernel_total"))[QStringLiteral("label")].toString(),
            QStringLiteral("kernel time (capture, as measured)"));

        // The forward/backward kernels are exactly 2x per call; the optimizer's is not.
        const auto regressions = doc[QStringLiteral("per_call_regressions")].toArray();
        QVERIFY(!regressions.isEmpty());
        QVERIFY(regressions.size() <= 3);
        double previousImpact = std::numeric_limits<double>::infinity();
        for (const auto &value : regressions) {
            const auto r = value.toObject();
            const auto name = r[QStringLiteral("name")].toString();
            QVERIFY(name != QStringLiteral("multi_tensor_apply_kernel"));
            QCOMPARE(r[QStringLiteral("ratio")].toDouble(), 2.0);
            const double impact = r[QStringLiteral("impact_ns")].toDouble();
            QCOMPARE(impact,
                (r[QStringLiteral("avg_after_ns")].toDouble() - r[QStringLiteral("avg_before_ns")].toDouble())
                    * r[QStringLiteral("calls_after")].toDouble());
            QVERIFY(impact <= previousImpact);
            previousImpact = impact;
            QVERIFY(
                r[QStringLiteral("text")].toString().startsWith(name + QStringLiteral(" 2.00x slower per call (+")));
        }
        QVERIFY(doc[QStringLiteral("per_call_improvements")].toArray().isEmpty());
        QVERIFY(
            doc[QStringLiteral("per_call_rule")].toString().startsWith(QStringLiteral("kernels both captures ran")));

        // The table format says the same under the verdict.
        const auto table = runDiff(before, after);
        QCOMPARE(table.exitCode, 0);
        const auto first = regressions[0].toObject()[QStringLiteral("text")].toString().toUtf8();
        QVERIFY2(table.out.contains("\nslower:  " + first + "\n"), table.out.constData());
        QVERIFY(table.out.contains("\nfaster:  none beyond the noise rule\n"));
        QVERIFY(table.out.contains("\nwork:    different amounts of work (8 steps before, 6 after)"));
        QVERIFY(table.out.contains("Largest changes per call (kernels in both, beyond the noise rule)"));
    }

    void diffOfCapturesWithOtherRankCountsWarnsInTheVerdict()
    {
        const auto run = runDiff(m_base, m_slowKernels, QStringLiteral("json"));
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("comparable")].toBool(), false);
        const auto reasons = doc[QStringLiteral("not_comparable")].toArray();
        QCOMPARE(reasons.first().toString(), QStringLiteral("ranks: 2 before, 1 after"));
        QVERIFY(doc[QStringLiteral("verdict_text")].toString().startsWith(
            QStringLiteral("captures may not be comparable (ranks: 2 before, 1 after")));
    }

    void diffOfACaptureWithItselfSaysNoSignificantChange()
    {
        const auto run = runDiff(m_base, m_base);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("verdict: no significant change\n"), run.out.constData());
        QVERIFY(run.out.contains("median step time"));
        QVERIFY(run.out.contains("noise:   Mann-Whitney U (rank-sum) test"));
    }

    void diffMarkdownIsReadyToPasteIntoAReview()
    {
        const auto run
            = runDiff(m_base, m_inputBound, QStringLiteral("md"), { QStringLiteral("--top"), QStringLiteral("3") });
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.startsWith("**Verdict: after is "), run.out.constData());
        QVERIFY(run.out.startsWith("**Verdict: after is 35.2% slower per step (noise +-0.0%)**\n"));
        QVERIFY(run.out.contains("### Kernels by short name"));
        QVERIFY(run.out.contains(
            "| metric | before | after | change | noise | judgement |\n|---|---:|---:|---:|---:|---|\n"));
        QVERIFY(run.out.contains("| GPU idle per step | "));
        // Input-bound gaps: 7 per rank (none before the first GPU work), 2 ms longer after.
        QVERIFY(run.out.contains("| data_to_gpu | 14 | 14 | 33.684 ms | 61.684 ms | +28.000 ms |  |\n"));
        QVERIFY(run.out.contains("| median step time | 5.686 ms | 7.686 ms | +35.2% | +-0.0% | exceeds noise |\n"));
        QVERIFY(run.out.contains("_Noise test: Mann-Whitney U"));
    }

    void diffCsvHasRawNumbers()
    {
        const auto run = runDiff(m_base, m_base, QStringLiteral("csv"));
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("name,calls_before,calls_after,total_before_ns,total_after_ns,avg_before_ns,"
                                 "avg_after_ns,delta_ns,avg_ratio,presence\n"));
        QVERIFY(run.out.contains("ampere_sgemm_128x64_nn,128,128,15360000,15360000,120000,120000,0,1.000000,\n"));
    }

    void diffUsageErrorsExitTwo()
    {
        auto run = runCli({ QStringLiteral("diff"), QStringLiteral("--before"), m_base });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("diff needs --before FILES... and --after FILES..."));
        run = runCli({ QStringLiteral("diff"), QStringLiteral("--before"), QStringLiteral("--after"), m_base });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--before needs at least one file or folder"));
        run = runCli({ QStringLiteral("summary"), QStringLiteral("--format"), QStringLiteral("md"), m_base });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--format md is for diff, check and throughput only"));
        run = runCli({ QStringLiteral("summary"), QStringLiteral("--before"), m_base });
        QCOMPARE(run.exitCode, 2);
    }

    void diffOfAnUnloadableCaptureExitsOne()
    {
        const auto bad = m_dir.filePath(QStringLiteral("bad.sqlite"));
        QVERIFY(writeFile(bad, "not a database"));
        const auto run = runDiff(bad, m_base);
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains("before: "));
        QVERIFY(run.err.contains("none of the 1 before file(s) could be loaded"));
    }

    void checkPassesOnTheBaselinesOwnCapture()
    {
        const auto run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), m_baseline, m_base });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        // Two GPUs' busy % and two ranks' median step, all ok.
        QCOMPARE(run.out.count(" ok\n"), 4);
        QVERIFY(!run.out.contains("REGRESSION"));
    }

    void checkFailsWithExitThreeOnARegression()
    {
        const auto run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), m_baseline,
            QStringLiteral("--tolerance"), QStringLiteral("3%"), m_inputBound });
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(
            run.err.contains("gaplens-cli: check failed: rank 0: median step time rose from "), run.err.constData());
        QVERIFY(run.err.contains("gaplens-cli: check failed: rank 1 GPU 1: GPU busy fell from "));
        QCOMPARE(run.out.count("REGRESSION"), 4);
    }

    void checkToleranceIsAPercentOfTheBaseline()
    {
        // The input-bound steps are ~35% longer: a 50% tolerance lets them pass.
        auto run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), m_baseline,
            QStringLiteral("--tolerance"), QStringLiteral("50"), m_inputBound });
        QCOMPARE(run.exitCode, 0);
        run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), m_baseline, QStringLiteral("--format"),
            QStringLiteral("json"), m_inputBound });
        QCOMPARE(run.exitCode, 3);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("passed")].toBool(), false);
        QCOMPARE(doc[QStringLiteral("tolerance_pct")].toDouble(), 3.0);
        QCOMPARE(doc[QStringLiteral("step_range")].toString(), QStringLiteral("train_step"));
        const auto checks = doc[QStringLiteral("checks")].toArray();
        QCOMPARE(checks.size(), 4);
        for (const auto &c : checks) {
            const auto row = c.toObject();
            QCOMPARE(row[QStringLiteral("status")].toString(), QStringLiteral("regression"));
            const double baseline = row[QStringLiteral("baseline")].toDouble();
            if (row[QStringLiteral("metric")].toString() == QStringLiteral("median_step_ns")) {
                QVERIFY(row[QStringLiteral("device")].isNull());
                QCOMPARE(row[QStringLiteral("limit")].toDouble(), baseline * 1.03);
            } else {
                QCOMPARE(row[QStringLiteral("limit")].toDouble(), baseline * 0.97);
            }
        }
    }

    void checkReportsARankMissingFromTheCapture()
    {
        const auto oneRank = capture("one_rank", synthOptions(1, 8, -1));
        const auto run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), m_baseline, oneRank });
        QCOMPARE(run.exitCode, 3);
        QVERIFY(run.err.contains("rank 1 GPU 1: the GPU is in the baseline but not in the capture"));
        QCOMPARE(run.out.count("MISSING"), 2);
    }

    void checkNamesABadBaselineAndExitsOne()
    {
        const auto missing = m_dir.filePath(QStringLiteral("no_such_baseline.json"));
        auto run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), missing, m_base });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(
            run.err.contains(QStringLiteral("cannot read baseline '%1'").arg(missing).toUtf8()), run.err.constData());

        const auto notJson = m_dir.filePath(QStringLiteral("not_json.json"));
        QVERIFY(writeFile(notJson, "{\"ranks\": [1, 2,]}"));
        run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), notJson, m_base });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(
            run.err.contains(
                QStringLiteral("baseline '%1' is not JSON: line 1, column 17: expected a value").arg(notJson).toUtf8()),
            run.err.constData());

        const auto kernels
            = runCli({ QStringLiteral("kernels"), QStringLiteral("--format"), QStringLiteral("json"), m_base });
        const auto wrongCommand = m_dir.filePath(QStringLiteral("kernels.json"));
        QVERIFY(writeFile(wrongCommand, kernels.out));
        run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), wrongCommand, m_base });
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains(
            "was written by `gaplens-cli kernels`; expected the output of `gaplens-cli summary --format json`"));

        const auto wrongShape = m_dir.filePath(QStringLiteral("shape.json"));
        QVERIFY(writeFile(wrongShape, "{\"ranks\": [{\"rank\": 0, \"devices\": [{\"device\": 0}]}]}"));
        run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), wrongShape, m_base });
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains(QStringLiteral("baseline '%1' has ranks[0].devices[0] without integer \"device\" and "
                                                "number \"busy_pct\"")
                                     .arg(wrongShape)
                                     .toUtf8()));

        const auto array = m_dir.filePath(QStringLiteral("array.json"));
        QVERIFY(writeFile(array, "[]"));
        run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), array, m_base });
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains("is not a JSON object"));
    }

    void checkUsageErrorsExitTwo()
    {
        auto run = runCli({ QStringLiteral("check"), m_base });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("check needs --baseline BASELINE.json"));
        run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), m_baseline });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("no input files"));
        run = runCli({ QStringLiteral("check"), QStringLiteral("--baseline"), m_baseline, QStringLiteral("--tolerance"),
            QStringLiteral("lots"), m_base });
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--tolerance expects a number, got 'lots'"));
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
