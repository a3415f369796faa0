// SPDX-License-Identifier: MIT
// The run scorecard (run_scorecard.h) on the 20-minute window, GPU topology and
// --meta facts; the sustained windows check splits (sustained_gain.h); compare's sustained
// rows; and the shared noise rule and number format they use.
#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/noise.h"
#include "gaplens/core/analysis/run_scorecard.h"
#include "gaplens/core/analysis/sustained_gain.h"
#include "gaplens/core/util/units.h"

#include "run_fixture.h"
#include "sqltestdb.h"
#include "testsupport.h"
#include "trace_counts.h"
#include "trace_fixture.h"

#include <QTest>

#include <fmt/format.h>

#include <map>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;
using gaplens::test::T0;
using gaplens::test::twentyMinutes;

namespace {

constexpr TimeNs kSecond = 1'000'000'000;

RunScorecard scorecardOf(const TraceSet &trace, const RunAccountingOptions &options, std::vector<RunMeta> meta = {})
{
    return buildRunScorecard(trace, computeRunAccounting(trace, options), meta);
}

// "value | how" of a row, for one QCOMPARE per row.
QString rowText(const RunScorecard &card, std::string_view section, std::string_view item)
{
    const auto *row = card.row(section, item);
    if (!row)
        return QStringLiteral("(no row %1)").arg(QString::fromUtf8(item.data(), qsizetype(item.size())));
    return QString::fromStdString(row->value + " | " + row->how);
}

} // namespace

class TestRunScorecard : public QObject
{
    Q_OBJECT

private slots:
    void twentyMinuteScorecardWritesBothFormulas()
    {
        const auto trace = twentyMinutes(true);
        const auto card = scorecardOf(*trace, {}, { { "model", "llama-8b" }, { "global batch", "1024" } });
        QVERIFY(card.unavailable.empty());
        QStringList titles;
        for (const auto &s : card.sections)
            titles << QString::fromStdString(s.title);
        QCOMPARE(titles,
            QStringList({ "Throughput", "Where the window went", "Checkpoints", "Exclusions", "Window",
                "What the capture knows", "What you supplied (--meta)" }));
        QCOMPARE(rowText(card, kScorecardRates, "work"),
            QStringLiteral(
                "9,600,000 tokens | the NVTX payloads of the 96 steps of 'train_step' ending in the window"));
        QCOMPARE(rowText(card, kScorecardRates, "active time"),
            QStringLiteral("900.000 s | the union of the 'train_step' ranges inside the window"));
        QCOMPARE(rowText(card, kScorecardRates, "window time"), QStringLiteral("1,200.000 s | the window's wall time"));
        QCOMPARE(rowText(card, kScorecardRates, "active rate"),
            QStringLiteral("10,666.67 tokens/s | work / active time = 9,600,000 tokens / 900.000 s"));
        QCOMPARE(rowText(card, kScorecardRates, "sustained rate"),
            QStringLiteral("8,000.00 tokens/s | work / window time = 9,600,000 tokens / 1,200.000 s"));
        QCOMPARE(rowText(card, kScorecardRates, "sustained / active"),
            QStringLiteral("0.750 | sustained rate / active rate = 8,000.00 / 10,666.67 = active time / window time"));
        // Every part of the partition, and their sum.
        QCOMPARE(card.section(kScorecardPartition)->rows.size(), std::size_t(7));
        QCOMPARE(rowText(card, kScorecardPartition, "active"),
            QStringLiteral("900.000 s (75.0%) | a step range open on any thread"));
        QCOMPARE(rowText(card, kScorecardPartition, "checkpoint"),
            QStringLiteral("90.000 s (7.5%) | no step open; a range matching 'checkpoint|ckpt|save' open"));
        QCOMPARE(rowText(card, kScorecardPartition, "validation"),
            QStringLiteral("210.000 s (17.5%) | no step open; a range matching 'valid|eval' open"));
        QCOMPARE(card.row(kScorecardPartition, "data_wait")->value, std::string("0 ns (0.0%)"));
        QCOMPARE(card.row(kScorecardPartition, "barrier")->value, std::string("0 ns (0.0%)"));
        QCOMPARE(card.row(kScorecardPartition, "unexplained")->value, std::string("0 ns (0.0%)"));
        QCOMPARE(card.row(kScorecardPartition, "total")->value, std::string("1200.000 s"));
        // Cadence and health of the two blocking checkpoints, 855 s apart.
        QCOMPARE(card.row(kScorecardCheckpoints, "checkpoints")->value, std::string("2 blocking, 0 staging"));
        QCOMPARE(card.row(kScorecardCheckpoints, "cadence")->value, std::string("855.000 s"));
        QCOMPARE(card.row(kScorecardCheckpoints, "duration")->value, std::string("median 45.000 s, p95 45.000 s"));
        QCOMPARE(rowText(card, kScorecardCheckpoints, "commit p95 / cadence"),
            QStringLiteral("0.053 | 45.000 s / 855.000 s; above 1, commits outlast the interval"));
        QCOMPARE(card.row(kScorecardCheckpoints, "backlog")->value, std::string("0.00 then 0.00 (max 0): not growing"));
        // Exclusions: the two states outside the steps, and no step left out.
        QCOMPARE(card.row(kScorecardExclusions, "checkpoint time")->value, std::string("90.000 s"));
        QCOMPARE(card.row(kScorecardExclusions, "validation time")->value, std::string("210.000 s"));
        QVERIFY(!card.row(kScorecardExclusions, "data_wait time"));
        QCOMPARE(card.row(kScorecardExclusions, "steps ending outside the window")->value, std::string("0 steps"));
        QCOMPARE(card.row(kScorecardExclusions, "steps without a payload")->value, std::string("0 steps"));
        QCOMPARE(rowText(card, kScorecardWindow, "window"),
            QStringLiteral("0.000 s to 1,200.000 s | rank 0, from its session start (the time zero nsys shows)"));
        QCOMPARE(card.row(kScorecardWindow, "chosen by")->value, std::string("default (state_span)"));
        QCOMPARE(card.row(kScorecardCapture, "window length")->value, std::string("1,200.000 s"));
        QCOMPARE(rowText(card, kScorecardCapture, "step range"),
            QStringLiteral("'train_step' | 96 steps counted over 1 rank"));
        QCOMPARE(card.row(kScorecardSupplied, "model")->value, std::string("llama-8b"));
        QCOMPARE(card.row(kScorecardSupplied, "global batch")->value, std::string("1024"));
    }

    void workPerStepAndAWindowAreSaid()
    {
        const auto trace = twentyMinutes(false);
        RunAccountingOptions options;
        options.workPerStep = 100'000;
        options.window.rule = RunWindowRule::Explicit;
        options.window.startNs = 300 * kSecond;
        options.window.endNs = 1200 * kSecond;
        const auto card = scorecardOf(*trace, options);
        QCOMPARE(rowText(card, kScorecardRates, "work"),
            QStringLiteral("6,400,000 tokens | 64 steps of 'train_step' ending in the window x --work-per-step"));
        QCOMPARE(card.row(kScorecardExclusions, "steps ending outside the window")->value, std::string("32 steps"));
        QVERIFY(!card.row(kScorecardExclusions, "steps without a payload"));
        QCOMPARE(rowText(card, kScorecardWindow, "chosen by"),
            QStringLiteral("--window 300000000000ns:1200000000000ns | given, relative to the session start"));
        QCOMPARE(card.row(kScorecardWindow, "window")->value, std::string("300.000 s to 1,200.000 s"));
        QCOMPARE(rowText(card, kScorecardSupplied, "nothing"),
            QStringLiteral("- | give --meta KEY=VALUE (model, precision, global batch, ...)"));
    }

    void captureKnowsRanksAndGpus()
    {
        FixtureBuilder b;
        for (int n = 0; n < 2; ++n) {
            const auto r = b.addRank(n);
            const auto t = b.addThread(r);
            for (int d = 0; d < 2; ++d)
                b.kernel(b.addGpu(r, d), 7, T0 + 10, T0 + 20, "gemm", 1);
            b.nvtx(t, T0, T0 + 50, "train_step");
            b.nvtx(t, T0 + 50, T0 + 100, "train_step");
        }
        auto trace = b.finish();
        for (std::size_t g = 0; g < trace->gpus.size(); ++g)
            trace->gpus[g].name = g == 0 ? std::string() : std::string("NVIDIA H100 80GB HBM3");
        const auto card = scorecardOf(*trace, {});
        QCOMPARE(rowText(card, kScorecardCapture, "ranks"), QStringLiteral("2 (ranks 0 to 1) | "));
        QCOMPARE(rowText(card, kScorecardCapture, "GPUs per rank"),
            QStringLiteral("2 ranks x 2 GPUs | 4 GPUs: 1 x (name not in the export), 3 x NVIDIA H100 80GB HBM3"));
        QCOMPARE(rowText(card, kScorecardCapture, "step range"),
            QStringLiteral("'train_step' | 4 steps counted over 2 ranks"));
        // Steps alone: the window is all active, 200 steps per second each rank.
        QCOMPARE(card.row(kScorecardRates, "sustained / active")->value, std::string("1.000"));
        QCOMPARE(card.row(kScorecardRates, "work")->value, std::string("4 steps"));
        QCOMPARE(rowText(card, kScorecardCheckpoints, "checkpoints"),
            QStringLiteral("none | no range matching 'checkpoint|ckpt|save' starts in the window"));
    }

    void realCaptureKnowsItsGpusAsSqlCountsThem()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        const auto dir = gaplens::test::realFile("ring_6ranks");
        QVERIFY(!dir.empty());
        const auto trace = gaplens::test::load({ dir });
        QVERIFY(trace->errors.empty());
        RunAccountingOptions options;
        options.stepRange = "ncclNetRecvTest()";
        const auto card = scorecardOf(*trace, options);
        // Independently: per file, the devices its kernels ran on and their TARGET_INFO_GPU names.
        std::map<std::int64_t, int> ranksByGpuCount;
        std::map<std::string, int> names;
        int gpus = 0;
        for (const auto &report : trace->reports) {
            gaplens::test::SqlTestDb db(report.path);
            const auto devices = db.rows("SELECT DISTINCT k.deviceId, g.name FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                         "LEFT JOIN TARGET_INFO_GPU g ON g.id = k.deviceId");
            ++ranksByGpuCount[std::int64_t(devices.size())];
            for (const auto &d : devices) {
                ++names[d[1]];
                ++gpus;
            }
        }
        QCOMPARE(ranksByGpuCount.size(), std::size_t(1));
        const auto [perRank, ranks] = *ranksByGpuCount.begin();
        QCOMPARE(names.size(), std::size_t(1));
        QCOMPARE(rowText(card, kScorecardCapture, "GPUs per rank"),
            QString::fromStdString(fmt::format("{} ranks x {} GPU | {} GPUs: {} x {}", ranks, perRank, gpus,
                names.begin()->second, names.begin()->first)));
        QCOMPARE(card.row(kScorecardCapture, "ranks")->value,
            fmt::format("{} (ranks 0 to {})", trace->reports.size(), trace->reports.size() - 1));
    }

    void withoutAStepRangeTheScorecardSaysSo()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        b.nvtx(b.addThread(r), T0, T0 + 10, "setup");
        const auto trace = b.finish();
        const auto card = scorecardOf(*trace, {}, { { "model", "x" } });
        QVERIFY(QString::fromStdString(card.unavailable).startsWith(QStringLiteral("no step range: ")));
        QCOMPARE(card.sections.size(), std::size_t(2));
        QVERIFY(!card.section(kScorecardRates));
        QVERIFY(card.section(kScorecardCapture));
        QCOMPARE(card.row(kScorecardSupplied, "model")->value, std::string("x"));
    }

    void metaParsesKeyAndValue_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("error");
        QTest::newRow("plain") << "model=llama-8b"
                               << "model"
                               << "llama-8b" << QString();
        QTest::newRow("blanks trimmed") << " global batch = 1024 "
                                        << "global batch"
                                        << "1024" << QString();
        QTest::newRow("first = splits") << "note=a=b"
                                        << "note"
                                        << "a=b" << QString();
        QTest::newRow("empty value") << "tag="
                                     << "tag"
                                     << "" << QString();
        QTest::newRow("no =") << "model" << QString() << QString()
                              << "--meta expects KEY=VALUE (e.g. model=llama-8b), got 'model'";
        QTest::newRow("no key") << " =x" << QString() << QString()
                                << "--meta expects KEY=VALUE (e.g. model=llama-8b), got ' =x'";
    }

    void metaParsesKeyAndValue()
    {
        QFETCH(QString, text);
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, error);
        std::string why;
        const auto meta = parseRunMeta(text.toStdString(), why);
        QCOMPARE(meta.has_value(), error.isEmpty());
        QCOMPARE(QString::fromStdString(why), error);
        if (meta) {
            QCOMPARE(QString::fromStdString(meta->key), key);
            QCOMPARE(QString::fromStdString(meta->value), value);
        }
    }

    void groupedNumbers()
    {
        QCOMPARE(formatGrouped(9'600'000, 0), std::string("9,600,000"));
        QCOMPARE(formatGrouped(10'666.666666, 2), std::string("10,666.67"));
        QCOMPARE(formatGrouped(999, 0), std::string("999"));
        QCOMPARE(formatGrouped(1000, 0), std::string("1,000"));
        QCOMPARE(formatGrouped(-1234.5, 1), std::string("-1,234.5"));
        QCOMPARE(formatGrouped(-0.001, 2), std::string("0.00"));
        QCOMPARE(formatGrouped(std::numeric_limits<double>::infinity(), 2), std::string("-"));
    }

    void medianShiftIsComparesRule()
    {
        // Tied samples a side: no bootstrap spread, the rank-sum p of two tie groups of three.
        const auto shift = judgeMedianShift({ 1, 1, 1 }, { 2, 2, 2 }, 0.05, 2000, 7);
        QCOMPARE(shift.difference, 1.0);
        QCOMPARE(shift.halfWidth, 0.0);
        QCOMPARE(shift.pValue, mannWhitneyU({ 1, 1, 1 }, { 2, 2, 2 }).pValue);
        QVERIFY(shift.pValue < 0.05);
        QVERIFY(shift.significant);
        // Two values a side can never reject at 0.05.
        QVERIFY(!judgeMedianShift({ 1, 1 }, { 2, 2 }, 0.05, 2000, 7).significant);
        QVERIFY(!judgeMedianShift({}, { 2, 2 }, 0.05, 2000, 7).significant);
    }

    void windowsSplitAtCommitsOrEqually()
    {
        const auto trace = twentyMinutes(true);
        // Commits at the checkpoints' ends, 345 s and 1,200 s: one window of 64 steps.
        auto split = splitSustainedWindows(*trace, {}, WindowSplit::CheckpointCommits);
        QCOMPARE(split.windows.size(), std::size_t(1));
        QCOMPARE(split.windows[0].window, (TimeRange { T0 + 345 * kSecond, T0 + 1200 * kSecond }));
        QCOMPARE(split.windows[0].steps, std::uint64_t(64));
        QCOMPARE(*split.windows[0].sustainedRate, 6'400'000.0 / 855.0);
        QCOMPARE(split.comparableCount(), std::size_t(1));
        // Four windows of 300 s: 32 steps end by 300 s (the end included), then the
        // checkpoint; steps of 9.375 s from 345 s end in (300, 600] 27 times.
        split = splitSustainedWindows(*trace, {}, WindowSplit::Equal, 4);
        QCOMPARE(split.windows.size(), std::size_t(4));
        QCOMPARE(split.windows[0].window, (TimeRange { T0, T0 + 300 * kSecond }));
        QCOMPARE(split.windows[0].steps, std::uint64_t(32));
        QCOMPARE(*split.windows[0].sustainedRate, 3'200'000.0 / 300.0);
        QCOMPARE(split.windows[1].steps, std::uint64_t(27));
        std::uint64_t steps = 0;
        for (const auto &w : split.windows)
            steps += w.steps;
        QCOMPARE(steps, std::uint64_t(96));
    }

    void compareShowsTheSustainedRateSideBySide()
    {
        const auto before = twentyMinutes(true);
        const auto after = twentyMinutes(false);
        auto c = compareTraces(*before, *after);
        // The after capture has no payload: it counts steps, and the unit says both.
        QCOMPARE(c.sustainedWorkUnit, std::string("tokens"));
        QCOMPARE(c.sustained.size(), std::size_t(12));
        const auto *sustained = &c.sustained[4];
        QCOMPARE(sustained->key, std::string("sustained_rate"));
        QCOMPARE(sustained->label, std::string("sustained rate (tokens / steps/s) = work / window"));
        QCOMPARE(*sustained->before, 8000.0);
        QCOMPARE(*sustained->after, 96.0 / 1200.0);
        QCOMPARE(sustained->judgement, NoiseJudgement::NotJudged);
        QCOMPARE(c.sustained[5].key, std::string("sustained_over_active"));
        QCOMPARE(*c.sustained[5].before, 0.75);
        QCOMPARE(*c.sustained[5].after, 0.75);
        QCOMPARE(c.sustained[8].key, std::string("partition_validation"));
        QCOMPARE(*c.sustained[8].before, 210e9);
        QCOMPARE(*c.sustained[8].delta, 0.0);

        FixtureBuilder b;
        const auto r = b.addRank(0);
        b.kernel(b.addGpu(r, 0), 7, T0, T0 + 10, "gemm", 1);
        const auto noSteps = b.finish();
        c = compareTraces(*noSteps, *noSteps);
        QVERIFY(c.sustained.empty());
        QCOMPARE(c.sustainedError, std::string("no step range"));
    }
};

QTEST_APPLESS_MAIN(TestRunScorecard)
#include "tst_run_scorecard.moc"
