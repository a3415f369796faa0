// SPDX-License-Identifier: MIT
// Before/after comparison: the noise statistics on hand-computed samples, a built pair with
// one kernel exactly 2x slower, two captures that differ only by noise, and the real
// before/after pair against numbers computed independently (SQL and computeGpuBusy).
#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/compare_headline.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/noise.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/model/nvtx_names.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/util/units.h"
#include "gaplens/core/write/export_writer.h"
#include "gaplens/core/write/synth.h"
#include "sqltestdb.h"
#include "synth_sample.h"
#include "testsupport.h"
#include "trace_counts.h"
#include "trace_fixture.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

using namespace gaplens::core;

namespace {

using gaplens::test::load;

// RANK=0 in the capture's environment: a one-rank capture.
ExportWriter::Options rankZeroOptions()
{
    ExportWriter::Options options;
    options.environment = { { "RANK", "0" } };
    return options;
}

// The process "python3" (pid) with its main thread.
void addPythonProcess(ExportWriter &w, std::uint32_t pid)
{
    w.addProcess(pid, "python3");
    w.addThreadName(pid, pid, "python3");
}

// One rank, one GPU, `steps` train_step ranges. Each step launches "gemm_kernel" (gemmNs)
// and then "relu_kernel" (50 us) back to back; the step ends 20 us after relu: step time =
// 100 us + gemm + 10 us + 50 us + 20 us, exactly. A 2 ms host gap (no CUDA call) separates steps.
void writeStepCapture(const std::string &path, TimeNs gemmNs, int steps)
{
    ExportWriter w(path, rankZeroOptions());
    const std::uint32_t pid = 100;
    addPythonProcess(w, pid);
    w.addGpu(0, "NVIDIA H100");
    std::uint32_t correlation = 1;
    TimeNs s = 10'000'000;
    for (int k = 0; k < steps; ++k) {
        const TimeNs gemmStart = s + 100'000;
        const TimeNs reluStart = gemmStart + gemmNs + 10'000;
        const TimeNs stepEnd = reluStart + 50'000 + 20'000;
        for (const auto &[name, start, end, call] :
            { std::tuple { "gemm_kernel", gemmStart, gemmStart + gemmNs, s + 10'000 },
                std::tuple { "relu_kernel", reluStart, reluStart + 50'000, s + 20'000 } }) {
            ExportWriter::RuntimeCall launch;
            launch.start = call;
            launch.end = call + 5'000;
            launch.pid = pid;
            launch.tid = pid;
            launch.correlationId = correlation;
            launch.name = "cudaLaunchKernel_v7000";
            w.addRuntime(launch);
            ExportWriter::Kernel kernel;
            kernel.start = start;
            kernel.end = end;
            kernel.pid = pid;
            kernel.correlationId = correlation++;
            kernel.shortName = name;
            w.addKernel(kernel);
        }
        ExportWriter::NvtxRange range;
        range.start = s;
        range.end = stepEnd;
        range.pid = pid;
        range.tid = pid;
        range.text = "train_step";
        w.addNvtx(range);
        s = stepEnd + 2'000'000;
    }
    w.finish();
}

struct KernelRun
{
    const char *name;
    TimeNs durationNs;
    int calls;
};

// One rank, no NVTX (so no step), `gpus` GPUs; each GPU runs every KernelRun's calls in turn,
// back to back with 50 us between kernels.
void writeKernelCapture(const std::string &path, const std::vector<KernelRun> &runs, int gpus = 1)
{
    ExportWriter w(path, rankZeroOptions());
    const std::uint32_t pid = 100;
    addPythonProcess(w, pid);
    std::uint32_t correlation = 1;
    for (int g = 0; g < gpus; ++g) {
        w.addGpu(g, "NVIDIA H100");
        TimeNs t = 10'000'000;
        for (const auto &run : runs)
            for (int i = 0; i < run.calls; ++i) {
                ExportWriter::Kernel kernel;
                kernel.start = t;
                kernel.end = t + run.durationNs;
                kernel.deviceId = g;
                kernel.pid = pid;
                kernel.correlationId = correlation++;
                kernel.shortName = run.name;
                w.addKernel(kernel);
                t = kernel.end + 50'000;
            }
    }
    w.finish();
}

// A comparison of the kernels alone, as compareTraces would have matched them.
Comparison kernelsOnly(std::vector<KernelChange> kernels)
{
    Comparison c;
    for (auto &k : kernels) {
        k.totalBefore = TimeNs(k.avgBefore * double(k.callsBefore));
        k.totalAfter = TimeNs(k.avgAfter * double(k.callsAfter));
        c.before.kernelNs += k.totalBefore;
        c.after.kernelNs += k.totalAfter;
        c.before.kernels += k.callsBefore;
        c.after.kernels += k.callsAfter;
    }
    c.kernels = std::move(kernels);
    return c;
}

KernelChange kernelChange(const char *name, std::uint64_t calls, double avgBefore, double avgAfter)
{
    KernelChange k;
    k.name = name;
    k.callsBefore = k.callsAfter = calls;
    k.avgBefore = avgBefore;
    k.avgAfter = avgAfter;
    return k;
}

struct SqlKernelRow
{
    std::uint64_t calls = 0;
    std::int64_t totalNs = 0;
};

// Kernels per short name straight from the export, independent of the reader.
std::map<std::string, SqlKernelRow> sqlKernels(const std::string &file)
{
    std::map<std::string, SqlKernelRow> rows;
    for (const auto &row : gaplens::test::SqlTestDb(file).rows(
             "SELECT s.value, COUNT(*), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
             "JOIN StringIds s ON s.id = k.shortName GROUP BY s.value"))
        rows[row.at(0)] = { std::stoull(row.at(1)), std::stoll(row.at(2)) };
    return rows;
}

// NVTX push/pop and start/end ranges per group name, from the export (a range without a name
// is grouped under "").
std::map<std::string, SqlKernelRow> sqlNvtx(const std::string &file)
{
    std::map<std::string, SqlKernelRow> rows;
    for (const auto &range : gaplens::test::SqlTestDb(file).rows(
             "SELECT COALESCE(n.text, s.value, ''), n.end - n.start FROM NVTX_EVENTS n "
             "LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType IN (59, 60) AND n.end IS NOT NULL")) {
        auto &row = rows[std::string(nvtxGroupName(range.at(0)))];
        ++row.calls;
        row.totalNs += std::stoll(range.at(1));
    }
    return rows;
}

// The row of `name`; zeros when SQL found none.
SqlKernelRow rowOf(const std::map<std::string, SqlKernelRow> &rows, const std::string &name)
{
    const auto it = rows.find(name);
    return it == rows.end() ? SqlKernelRow {} : it->second;
}

// A change's (count, total) before and after are what SQL sums.
void expectSqlRows(
    const SqlKernelRow &before, const SqlKernelRow &after, const SqlKernelRow &sqlBefore, const SqlKernelRow &sqlAfter)
{
    QCOMPARE(before.calls, sqlBefore.calls);
    QCOMPARE(before.totalNs, sqlBefore.totalNs);
    QCOMPARE(after.calls, sqlAfter.calls);
    QCOMPARE(after.totalNs, sqlAfter.totalNs);
}

const KernelChange *findKernel(const Comparison &c, const std::string &name)
{
    return gaplens::test::findFirst(c.kernels, [&](const KernelChange &k) { return k.name == name; });
}

// Checks work counted in `basis` that differs: `before` and `after` units, and the text.
void checkDifferentWork(
    const WorkComparison &work, WorkBasis basis, std::uint64_t before, std::uint64_t after, const std::string &text)
{
    QCOMPARE(work.basis, basis);
    QVERIFY(work.differs);
    QCOMPARE(work.before, before);
    QCOMPARE(work.after, after);
    QCOMPARE(work.text, text);
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void rankSumTestMatchesTheHandComputedValueWithoutTies()
    {
        // U1 = 0 (no value of the first beats one of the second), mean 4.5, sigma^2 = 9/12 * 7.
        const auto t = mannWhitneyU({ 1, 2, 3 }, { 4, 5, 6 });
        QCOMPARE(t.n1, std::size_t(3));
        QCOMPARE(t.rankSum1, 6.0);
        QCOMPARE(t.u1, 0.0);
        QCOMPARE(t.meanU, 4.5);
        QVERIFY(std::fabs(t.sigmaU - std::sqrt(5.25)) < 1e-12);
        QVERIFY(std::fabs(t.z - (-4.0 / std::sqrt(5.25))) < 1e-12);
        QVERIFY(std::fabs(t.pValue - 0.0808555983700523) < 1e-12); // scipy mannwhitneyu asymptotic
    }

    void rankSumTestUsesMidranksAndTheTieCorrection()
    {
        // Pooled: 1 f | 2 f f s | 3 f s | 4 s -> midranks 1, 3, 5.5, 7; R1 = 1 + 3 + 3 + 5.5.
        // Ties: (27 - 3) + (8 - 2) = 30, so sigma^2 = 4 * 3 / 12 * (8 - 30 / 42).
        const auto t = mannWhitneyU({ 1, 2, 2, 3 }, { 2, 3, 4 });
        QCOMPARE(t.rankSum1, 12.5);
        QCOMPARE(t.u1, 2.5);
        QCOMPARE(t.meanU, 6.0);
        QVERIFY(std::fabs(t.sigmaU - std::sqrt(8.0 - 30.0 / 42.0)) < 1e-12);
        QVERIFY(std::fabs(t.pValue - 0.2663799233424826) < 1e-12);
    }

    void rankSumTestOfAllTiedOrEmptySamplesIsNeverSignificant()
    {
        QCOMPARE(mannWhitneyU({ 5, 5, 5 }, { 5, 5 }).pValue, 1.0);
        QCOMPARE(mannWhitneyU({}, { 1, 2 }).pValue, 1.0);
    }

    void rankSumTestIsSymmetricInItsSamples()
    {
        const auto ab = mannWhitneyU({ 1, 4, 7, 9 }, { 2, 3, 10, 12, 15 });
        const auto ba = mannWhitneyU({ 2, 3, 10, 12, 15 }, { 1, 4, 7, 9 });
        QCOMPARE(ab.u1 + ba.u1, 20.0); // U1 + U2 = n1 n2
        QCOMPARE(ab.pValue, ba.pValue);
    }

    void bootstrapOfConstantSamplesIsTheExactDifference()
    {
        const auto interval = bootstrapDifference({ 1, 1, 1 }, { 3, 3, 3 });
        QCOMPARE(interval.estimate, 2.0);
        QCOMPARE(interval.low, 2.0);
        QCOMPARE(interval.high, 2.0);
        QCOMPARE(interval.halfWidth(), 0.0);
    }

    void bootstrapIntervalSpansTheResampledMedians()
    {
        // Resampled medians of {0, 10}: 0 (1/4), 5 (1/2), 10 (1/4); minus the constant {0}'s
        // median. 2000 resamples put far more than 2.5% in each tail value, so the 95%
        // interval is exactly [-10, 0] around the estimate -5.
        const auto interval = bootstrapDifference({ 0, 10 }, { 0 });
        QCOMPARE(interval.estimate, -5.0);
        QCOMPARE(interval.low, -10.0);
        QCOMPARE(interval.high, 0.0);
        QCOMPARE(interval.halfWidth(), 5.0);
    }

    void bootstrapIsDeterministicForOneSeed()
    {
        const std::vector<double> a { 10, 12, 11, 13, 9, 14 }, b { 12, 15, 13, 16, 11 };
        const auto first = bootstrapDifference(a, b);
        const auto second = bootstrapDifference(a, b);
        QCOMPARE(first.low, second.low);
        QCOMPARE(first.high, second.high);
        QCOMPARE(first.estimate, 13.0 - 11.5);
        QVERIFY(first.low <= first.estimate && first.estimate <= first.high);
    }

    void percentile95IsTheNearestRank()
    {
        std::vector<double> values;
        for (int i = 20; i >= 1; --i)
            values.push_back(i);
        QCOMPARE(sampleStatistic(values, BootstrapStatistic::Percentile95), 19.0); // ceil(0.95 * 20) = 19th
        QCOMPARE(sampleStatistic(values, BootstrapStatistic::Median), 10.5);
    }

    void aKernelTwiceAsSlowShowsExactlyTwoXAndTheVerdictSaysSlower()
    {
        const auto beforePath = m_dir.filePath(QStringLiteral("pair_before.sqlite")).toStdString();
        const auto afterPath = m_dir.filePath(QStringLiteral("pair_after.sqlite")).toStdString();
        writeStepCapture(beforePath, 1'000'000, 10);
        writeStepCapture(afterPath, 2'000'000, 10);
        const auto before = load({ beforePath });
        const auto after = load({ afterPath });
        QVERIFY(before->errors.empty() && after->errors.empty());
        const auto c = compareTraces(*before, *after);

        QCOMPARE(c.stepRange, std::string("train_step"));
        QCOMPARE(c.rangeSource, std::string("proposed (before)"));
        QVERIFY(c.hasSteps);
        QCOMPARE(c.before.steps, std::size_t(10));
        QCOMPARE(c.after.steps, std::size_t(10));

        const auto *gemm = findKernel(c, "gemm_kernel");
        QVERIFY(gemm);
        QCOMPARE(gemm->presence, Presence::Both);
        QCOMPARE(gemm->callsBefore, std::uint64_t(10));
        QCOMPARE(gemm->callsAfter, std::uint64_t(10));
        QCOMPARE(gemm->totalBefore, TimeNs(10'000'000));
        QCOMPARE(gemm->totalAfter, TimeNs(20'000'000));
        QCOMPARE(gemm->avgBefore, 1'000'000.0);
        QCOMPARE(gemm->avgAfter, 2'000'000.0);
        QCOMPARE(*gemm->avgRatio, 2.0);
        QCOMPARE(gemm->deltaNs, TimeNs(10'000'000));
        QCOMPARE(c.kernels.front().name, std::string("gemm_kernel")); // largest absolute change first
        const auto *relu = findKernel(c, "relu_kernel");
        QVERIFY(relu);
        QCOMPARE(*relu->avgRatio, 1.0);
        QCOMPARE(relu->deltaNs, TimeNs(0));

        // Steps: 1.18 ms before, 2.18 ms after, identical in every step.
        const auto *step = c.metric("median_step");
        QVERIFY(step);
        QCOMPARE(*step->before, 1'180'000.0);
        QCOMPARE(*step->after, 2'180'000.0);
        QVERIFY(std::fabs(*step->changePercent - 100.0 / 1.18) < 1e-9);
        QCOMPARE(*step->noisePercent, 0.0);
        QCOMPARE(step->judgement, NoiseJudgement::ExceedsNoise);
        QVERIFY(*step->pValue < 1e-4);
        QCOMPARE(*c.metric("kernel_per_step")->before, 1'050'000.0);
        QCOMPARE(*c.metric("kernel_per_step")->after, 2'050'000.0);
        // Idle in a step: 100 us before gemm + 10 us + 20 us after relu, unchanged.
        QCOMPARE(*c.metric("idle_per_step")->before, 130'000.0);
        QCOMPARE(*c.metric("idle_per_step")->after, 130'000.0);
        QCOMPARE(c.metric("idle_per_step")->judgement, NoiseJudgement::WithinNoise);
        QCOMPARE(*c.metric("kernel_total")->after, 20'500'000.0);

        QCOMPARE(c.verdict, Verdict::Slower);
        QCOMPARE(c.verdictText, std::string("after is 84.7% slower per step (noise +-0.0%)"));
        QVERIFY(c.noiseMethod.find("Mann-Whitney U") != std::string::npos);
        QVERIFY(c.noiseMethod.find("bootstrap") != std::string::npos);

        // The other way round it is faster by (2.18 - 1.18) / 2.18.
        const auto reverse = compareTraces(*after, *before);
        QCOMPARE(reverse.verdict, Verdict::Faster);
        QCOMPARE(reverse.verdictText, std::string("after is 45.9% faster per step (noise +-0.0%)"));
    }

    void capturesThatDifferOnlyByNoiseShowNoSignificantChange()
    {
        auto options = gaplens::test::synthOptions(2, 20, -1);
        options.jitter = 0.05;
        options.seed = 1;
        const auto a = writeSyntheticCapture(m_dir.filePath(QStringLiteral("noise_a")).toStdString(), options);
        options.seed = 2;
        const auto b = writeSyntheticCapture(m_dir.filePath(QStringLiteral("noise_b")).toStdString(), options);
        const auto before = load(a.files);
        const auto after = load(b.files);
        const auto c = compareTraces(*before, *after);
        QVERIFY(c.hasSteps);
        QCOMPARE(c.before.steps, std::size_t(20));
        const auto *step = c.metric("median_step");
        QVERIFY(*step->before != *step->after); // the jitter did change the numbers
        QVERIFY(*step->noisePercent > 0);
        QCOMPARE(step->judgement, NoiseJudgement::WithinNoise);
        QCOMPARE(c.verdict, Verdict::NoSignificantChange);
        QCOMPARE(c.verdictText, std::string("no significant change"));
        // Every kernel exists in both; none is new or vanished.
        for (const auto &k : c.kernels)
            QCOMPARE(k.presence, Presence::Both);
    }

    void aRealSlowdownAboveTheJitterIsSignificant()
    {
        // Same jitter as above, but the after run's compute kernels take 1.5x: a real change.
        auto options = gaplens::test::synthOptions(1, 20, -1);
        options.jitter = 0.05;
        const auto a = writeSyntheticCapture(m_dir.filePath(QStringLiteral("slow_a")).toStdString(), options);
        options.seed = 7;
        options.stragglerRank = 0;
        options.stragglerSlowdown = 1.5;
        const auto b = writeSyntheticCapture(m_dir.filePath(QStringLiteral("slow_b")).toStdString(), options);
        const auto c = compareTraces(*load(a.files), *load(b.files));
        QCOMPARE(c.verdict, Verdict::Slower);
        const auto *step = c.metric("median_step");
        QVERIFY(*step->changePercent > *step->noisePercent);
        QVERIFY(c.verdictText.starts_with("after is "));
        QVERIFY(c.verdictText.find("% slower per step (noise +-") != std::string::npos);
    }

    void aRangeMissingFromOneCaptureFallsBackToTotals()
    {
        const auto path = m_dir.filePath(QStringLiteral("range_only.sqlite")).toStdString();
        writeStepCapture(path, 1'000'000, 3);
        const auto trace = load({ path });
        CompareOptions options;
        options.rangeName = "no_such_range";
        const auto c = compareTraces(*trace, *trace, options);
        QVERIFY(!c.hasSteps);
        QCOMPARE(c.verdict, Verdict::NoSteps);
        QCOMPARE(c.warnings.size(), std::size_t(2));
        QVERIFY(c.verdictText.starts_with("no step to judge noise by (NVTX range 'no_such_range'"));
        QVERIFY(!c.metric("median_step"));
        QCOMPARE(*c.metric("kernel_total")->delta, 0.0);
    }

    void fewerStepsOfASlowerKernelAreJudgedPerStepAndNamedPerCall()
    {
        // After: gemm 1.2x slower per call but only 8 steps in the window, so its kernel time
        // as measured falls (10.5 ms -> 10.0 ms) although every step is slower.
        const auto beforePath = m_dir.filePath(QStringLiteral("steps10.sqlite")).toStdString();
        const auto afterPath = m_dir.filePath(QStringLiteral("steps8_slower.sqlite")).toStdString();
        writeStepCapture(beforePath, 1'000'000, 10);
        writeStepCapture(afterPath, 1'200'000, 8);
        const auto c = compareTraces(*load({ beforePath }), *load({ afterPath }));

        QVERIFY(c.hasSteps);
        CHECK(checkDifferentWork(c.work, WorkBasis::PerStep, 10, 8,
            std::string("different amounts of work (10 steps before, 8 after): figures are per step of NVTX range "
                        "'train_step'; capture totals are as measured")));
        QCOMPARE(*c.metric("kernel_total")->before, 10'500'000.0);
        QCOMPARE(*c.metric("kernel_total")->after, 10'000'000.0);
        QCOMPARE(c.metric("kernel_total")->label, std::string("kernel time (capture, as measured)"));
        QCOMPARE(c.metric("kernel_count")->label, std::string("kernels (capture, as measured)"));
        QVERIFY(!c.metric("kernel_per_call")); // per step already
        QCOMPARE(*c.metric("kernel_per_step")->after, 1'250'000.0);
        QCOMPARE(c.verdict, Verdict::Slower);

        QCOMPARE(c.regressions.size(), std::size_t(1));
        const auto &gemm = c.regressions.front();
        QCOMPARE(gemm.name, std::string("gemm_kernel"));
        QCOMPARE(gemm.callsBefore, std::uint64_t(10));
        QCOMPARE(gemm.callsAfter, std::uint64_t(8));
        QCOMPARE(gemm.ratio, 1.2);
        QCOMPARE(gemm.impactNs, 1'600'000.0);
        QCOMPARE(gemm.text, std::string("gemm_kernel 1.20x slower per call (+1.600 ms)"));
        QVERIFY(c.improvements.empty()); // relu is unchanged
        QVERIFY(c.notComparable.empty());
        // Every step is identical: no step-level noise, so the fixed 5% rule.
        QVERIFY(c.perCallRule.starts_with("kernels both captures ran whose time per call changed by at least 5.0% "
                                          "and whose impact"));
    }

    void withoutStepsFewerCallsAreJudgedPerCall()
    {
        // The real mfu pair's shape: the collective 1.41x slower per call, the big kernel
        // unchanged but called less, so kernel time as measured falls.
        const auto beforePath = m_dir.filePath(QStringLiteral("calls_before.sqlite")).toStdString();
        const auto afterPath = m_dir.filePath(QStringLiteral("calls_after.sqlite")).toStdString();
        writeKernelCapture(beforePath, { { "comm", 385'000, 66 }, { "gemm", 4'000'000, 68 } });
        writeKernelCapture(afterPath, { { "comm", 544'000, 62 }, { "gemm", 4'000'000, 60 } });
        const auto c = compareTraces(*load({ beforePath }), *load({ afterPath }));

        QVERIFY(!c.hasSteps);
        CHECK(checkDifferentWork(c.work, WorkBasis::PerCall, 134, 122,
            std::string("different amounts of work (134 calls of kernels in both before, 122 after): figures are per "
                        "kernel call; capture totals are as measured")));
        QVERIFY(*c.metric("kernel_total")->delta < 0); // as measured: a "win"
        const auto *perCall = c.metric("kernel_per_call");
        QVERIFY(perCall);
        QCOMPARE(perCall->label, std::string("kernel time per call (kernels in both, before's mix)"));
        QCOMPARE(*perCall->before, 297'410'000.0 / 134);
        QCOMPARE(*perCall->after, (66 * 544'000.0 + 68 * 4'000'000.0) / 134);
        const auto *idle = c.metric("idle_per_call");
        QVERIFY(idle);
        QCOMPARE(*idle->before, double(c.before.gapNs) / 134);
        QCOMPARE(*idle->after, double(c.after.gapNs) / 122);
        QCOMPARE(c.headline.front().key, std::string("kernel_per_call")); // first, before the totals

        QCOMPARE(c.regressions.size(), std::size_t(1));
        QCOMPARE(c.regressions.front().name, std::string("comm"));
        QCOMPARE(c.regressions.front().ratio, 544.0 / 385.0);
        QCOMPARE(c.regressions.front().impactNs, 159'000.0 * 62);
        QCOMPARE(c.regressions.front().text, std::string("comm 1.41x slower per call (+9.858 ms)"));
        QVERIFY(c.improvements.empty());
        QVERIFY(c.notComparable.empty());
        QCOMPARE(c.verdict, Verdict::NoSteps);
        QCOMPARE(c.verdictText, std::string("no step to judge noise by (no NVTX range looks like a training step)"));
        QCOMPARE(c.verdictDetail,
            "per kernel call, as the work differs: kernel time " + formatDuration(*perCall->before) + " -> "
                + formatDuration(*perCall->after) + " (+3.5%), idle in gaps " + formatDuration(*idle->before) + " -> "
                + formatDuration(*idle->after) + "; GPU busy " + formatPercent(c.before.busyPercent) + " -> "
                + formatPercent(c.after.busyPercent));
    }

    void theSameWorkIsComparedAsMeasured()
    {
        const auto path = m_dir.filePath(QStringLiteral("same_work.sqlite")).toStdString();
        writeKernelCapture(path, { { "comm", 385'000, 66 }, { "gemm", 4'000'000, 68 } });
        const auto trace = load({ path });
        const auto c = compareTraces(*trace, *trace);
        QCOMPARE(c.work.basis, WorkBasis::Capture);
        QVERIFY(!c.work.differs);
        QCOMPARE(c.work.text,
            std::string("the same work (134 -> 134 calls of kernels in both, within 2%): totals are compared as "
                        "measured"));
        QVERIFY(!c.metric("kernel_per_call"));
        QCOMPARE(c.metric("kernel_total")->label, std::string("kernel time (capture)"));
        QVERIFY(c.regressions.empty() && c.improvements.empty() && c.notComparable.empty());
        QCOMPARE(c.verdictText, std::string("no step to judge noise by (no NVTX range looks like a training step)"));
        QVERIFY(c.verdictDetail.starts_with("totals: GPU busy "));
    }

    void capturesOfOtherGpusOrOtherKernelsAreNotComparable()
    {
        const auto oneGpu = m_dir.filePath(QStringLiteral("one_gpu_a.sqlite")).toStdString();
        const auto twoGpus = m_dir.filePath(QStringLiteral("two_gpus_b.sqlite")).toStdString();
        writeKernelCapture(oneGpu, { { "a", 100'000, 10 } });
        writeKernelCapture(twoGpus, { { "b", 100'000, 10 } }, 2);
        const auto c = compareTraces(*load({ oneGpu }), *load({ twoGpus }));
        QCOMPARE(c.notComparable,
            (std::vector<std::string> { "GPUs: 1 before, 2 after",
                "only 0.0% of the before's and 0.0% of the after's kernel time is in kernels both ran" }));
        QVERIFY(c.verdictText.starts_with("captures may not be comparable (GPUs: 1 before, 2 after; only 0.0% of the "
                                          "before's and 0.0% of the after's kernel time is in kernels both ran): no "
                                          "step to judge noise by"));
        QCOMPARE(c.warnings.back(),
            std::string("captures may not be comparable: GPUs: 1 before, 2 after; only 0.0% of the before's and 0.0% "
                        "of the after's kernel time is in kernels both ran"));

        const auto triple = m_dir.filePath(QStringLiteral("triple_work.sqlite")).toStdString();
        const auto single = m_dir.filePath(QStringLiteral("single_work.sqlite")).toStdString();
        writeKernelCapture(single, { { "a", 100'000, 10 } });
        writeKernelCapture(triple, { { "a", 100'000, 30 } });
        const auto more = compareTraces(*load({ single }), *load({ triple }));
        QCOMPARE(more.notComparable,
            (std::vector<std::string> {
                "the after capture holds 3.00x the work of the before (calls of kernels in both 10 -> 30)" }));
        QCOMPARE(more.work.basis, WorkBasis::PerCall);
        QCOMPARE(*more.metric("kernel_per_call")->delta, 0.0);
    }

    void perCallChangesKeepOnlyWhatIsBeyondTheNoiseRule()
    {
        // 1 s of unchanged kernel time, so 1% impact = 10 ms or more.
        auto c = kernelsOnly({ kernelChange("steady", 10'000, 100'000, 100'000),
            kernelChange("four_pct", 1'000, 100'000, 104'000), // 4 ms impact but only 4% per call
            kernelChange("rare", 10, 100'000, 200'000), // 2x per call but 1 ms impact
            kernelChange("worse", 1'000, 100'000, 120'000), kernelChange("worst", 1'000, 100'000, 130'000),
            kernelChange("better", 1'000, 100'000, 80'000) });
        findPerCallChanges(c, 0.0);
        QCOMPARE(c.regressions.size(), std::size_t(2));
        QCOMPARE(c.regressions[0].name, std::string("worst")); // largest impact first
        QCOMPARE(c.regressions[0].impactNs, 30'000'000.0);
        QCOMPARE(c.regressions[1].name, std::string("worse"));
        QCOMPARE(c.improvements.size(), std::size_t(1));
        QCOMPARE(c.improvements[0].text, std::string("better 1.25x faster per call (-20.000 ms)"));
        QCOMPARE(c.perCallRule,
            "kernels both captures ran whose time per call changed by at least 5.0% and whose impact ((after avg - "
            "before avg) x after calls) is at least "
                + formatDuration(0.01 * double(c.after.kernelNs))
                + " (1% of the larger capture's kernel time, and at least 10.000 us)");

        // Step-level noise of 35% raises the bar above every change (the largest is 30%).
        findPerCallChanges(c, 0.35);
        QVERIFY(c.regressions.empty() && c.improvements.empty());
        QVERIFY(c.perCallRule.starts_with("kernels both captures ran whose time per call changed by at least 35.0% "
                                          "(the step-level noise of kernel time per step)"));

        // At most three of each, by impact.
        auto many
            = kernelsOnly({ kernelChange("k1", 1'000, 100'000, 110'000), kernelChange("k2", 1'000, 100'000, 120'000),
                kernelChange("k3", 1'000, 100'000, 130'000), kernelChange("k4", 1'000, 100'000, 140'000) });
        findPerCallChanges(many, 0.0);
        QCOMPARE(many.regressions.size(), kTopPerCallChanges);
        QCOMPARE(many.regressions.back().name, std::string("k2"));
    }

    void realPairMatchesIndependentNumbers()
    {
        const auto beforePath = gaplens::test::realFile("nsysai_mfu_2gpu_before.sqlite");
        const auto afterPath = gaplens::test::realFile("nsysai_mfu_2gpu_after.sqlite");
        QVERIFY2(!beforePath.empty() && !afterPath.empty(), gaplens::test::kRealDataMissing);
        const auto before = load({ beforePath });
        const auto after = load({ afterPath });
        QVERIFY(before->errors.empty() && after->errors.empty());
        const auto c = compareTraces(*before, *after);

        // Every top-level NVTX name is unique (PyTorch's ", op_id = N"), so nothing repeats:
        // there is no step, and the verdict says so instead of guessing.
        QCOMPARE(c.stepRange, std::string());
        QVERIFY(!c.hasSteps);
        QCOMPARE(c.verdict, Verdict::NoSteps);
        QCOMPARE(c.verdictText, std::string("no step to judge noise by (no NVTX range looks like a training step)"));
        QVERIFY(c.verdictDetail.starts_with("per kernel call, as the work differs: kernel time "));
        QVERIFY(c.noiseMethod.starts_with("none: "));
        QCOMPARE(c.before.ranks, std::size_t(2));
        QCOMPARE(c.after.gpus, std::size_t(2));

        // Busy % = summed per-GPU unions over summed windows, from computeGpuBusy directly.
        for (const auto &[trace, figures, metricValue] :
            { std::tuple { before.get(), &c.before, *c.metric("busy_pct_total")->before },
                std::tuple { after.get(), &c.after, *c.metric("busy_pct_total")->after } }) {
            TimeNs busy = 0, window = 0, gaps = 0;
            for (std::uint32_t g = 0; g < trace->gpus.size(); ++g) {
                const auto b = computeGpuBusy(*trace, g);
                busy += b.busyNs;
                window += b.window.duration();
                gaps += findIdleGaps(b, kDefaultMinGapNs).totalNs;
            }
            QCOMPARE(figures->busyNs, busy);
            QCOMPARE(figures->windowNs, window);
            QCOMPARE(figures->gapNs, gaps);
            QCOMPARE(metricValue, 100.0 * double(busy) / double(window));
        }
        // What `summary` prints for these files: 89.4% -> 81.7%.
        QCOMPARE(std::lround(10 * *c.metric("busy_pct_total")->before), 894L);
        QCOMPARE(std::lround(10 * *c.metric("busy_pct_total")->after), 817L);

        // Kernels by short name: calls and totals exactly as SQL sums them.
        const auto sqlBefore = sqlKernels(beforePath);
        const auto sqlAfter = sqlKernels(afterPath);
        std::size_t names = sqlBefore.size();
        for (const auto &[name, row] : sqlAfter)
            names += sqlBefore.count(name) ? 0 : 1;
        QCOMPARE(c.kernels.size(), names);
        std::uint64_t callsBefore = 0;
        TimeNs totalAfter = 0;
        for (const auto &k : c.kernels) {
            const auto b = sqlBefore.find(k.name);
            const auto a = sqlAfter.find(k.name);
            CHECK(expectSqlRows({ k.callsBefore, k.totalBefore }, { k.callsAfter, k.totalAfter },
                rowOf(sqlBefore, k.name), rowOf(sqlAfter, k.name)));
            const Presence expected
                = b == sqlBefore.end() ? Presence::New : (a == sqlAfter.end() ? Presence::Vanished : Presence::Both);
            QCOMPARE(k.presence, expected);
            callsBefore += k.callsBefore;
            totalAfter += k.totalAfter;
        }
        QCOMPARE(callsBefore, std::uint64_t(4010));
        QCOMPARE(*c.metric("kernel_count")->before, 4010.0);
        QCOMPARE(*c.metric("kernel_count")->after, 3587.0);
        QCOMPARE(TimeNs(*c.metric("kernel_total")->after), totalAfter);
        for (std::size_t i = 1; i < c.kernels.size(); ++i)
            QVERIFY(std::llabs(c.kernels[i - 1].deltaNs) >= std::llabs(c.kernels[i].deltaNs));
        // The biggest change: flash_fwd_kernel, 68 -> 60 calls.
        QCOMPARE(c.kernels.front().name, std::string("flash_fwd_kernel"));
        QCOMPARE(c.kernels.front().deltaNs,
            sqlAfter.at("flash_fwd_kernel").totalNs - sqlBefore.at("flash_fwd_kernel").totalNs);

        // Fewer iterations after: kernel time as measured falls, per call it rises, and the
        // one change beyond the noise is the collective, 1.41x slower per call.
        QCOMPARE(c.work.basis, WorkBasis::PerCall);
        QVERIFY(*c.metric("kernel_total")->delta < 0);
        QVERIFY(*c.metric("kernel_per_call")->delta > 0);
        QVERIFY(c.notComparable.empty());
        QCOMPARE(c.regressions.size(), std::size_t(1));
        const auto &sendRecv = c.regressions.front();
        QCOMPARE(sendRecv.name, std::string("ncclDevKernel_SendRecv"));
        const auto sqlAvg = [](const SqlKernelRow &row) { return double(row.totalNs) / double(row.calls); };
        const auto &sendBefore = sqlBefore.at(sendRecv.name);
        const auto &sendAfter = sqlAfter.at(sendRecv.name);
        QCOMPARE(sendRecv.ratio, sqlAvg(sendAfter) / sqlAvg(sendBefore));
        QCOMPARE(sendRecv.impactNs, (sqlAvg(sendAfter) - sqlAvg(sendBefore)) * double(sendAfter.calls));
        QCOMPARE(std::lround(100 * sendRecv.ratio), 141L);
        QVERIFY(sendRecv.text.starts_with("ncclDevKernel_SendRecv 1.41x slower per call (+9."));
        QVERIFY(c.improvements.empty());

        // NVTX by group name, as SQL counts them after grouping.
        const auto nvtxBefore = sqlNvtx(beforePath);
        const auto nvtxAfter = sqlNvtx(afterPath);
        for (const auto &n : c.nvtx)
            CHECK(expectSqlRows({ n.instancesBefore, n.totalBefore }, { n.instancesAfter, n.totalAfter },
                rowOf(nvtxBefore, n.name), rowOf(nvtxAfter, n.name)));
        QCOMPARE(c.nvtx.front().name, std::string("aten::copy_"));
        QCOMPARE(c.nvtx.front().instancesBefore, std::uint64_t(2840));
        QCOMPARE(c.nvtx.front().instancesAfter, std::uint64_t(2524));

        // Idle by cause and by phase add up to the idle totals of each capture.
        for (const auto *rows : { &c.idleByCause, &c.idleByPhase }) {
            TimeNs b = 0, a = 0;
            std::uint64_t nb = 0, na = 0;
            for (const auto &r : *rows) {
                b += r.totalBefore;
                a += r.totalAfter;
                nb += r.countBefore;
                na += r.countAfter;
            }
            QCOMPARE(b, c.before.gapNs);
            QCOMPARE(a, c.after.gapNs);
            QCOMPARE(nb, c.before.gapCount);
            QCOMPARE(na, c.after.gapCount);
        }
    }

    // compareTraces in steps, as gaplens-mpi runs it: a 4-rank job with phases measured in two
    // parts of two reports each, the parts' measures added up and finished with every rank's
    // pace and steps, compared with a shorter job, gives exactly the whole captures' comparison.
    void measuresAddedUpOverPartsCompareAsTheWhole()
    {
        gaplens::test::SynthSample longer, shorter;
        QVERIFY(longer.write(withRunPhases(gaplens::test::synthOptions(4, 24))));
        QVERIFY(shorter.write(withRunPhases(gaplens::test::synthOptions(4, 16))));
        const auto file = [](const gaplens::test::SynthSample &sample, int rank) {
            return QStringLiteral("%1/train_%2.sqlite").arg(sample.path).arg(rank).toStdString();
        };
        DerivedOptions derivedOptions;
        derivedOptions.foldIndexes = false;
        CompareOptions options;
        options.rangeName = "train_step";
        const auto accountingOf = [&](const TraceSet &trace) {
            RunAccountingOptions accounting;
            accounting.stepRange = options.rangeName;
            return computeRunAccounting(trace, accounting);
        };
        // Parts of ranks {0, 1} and {2, 3}: a part's rank index r is the whole's r + first.
        const auto inParts = [&](const gaplens::test::SynthSample &sample) {
            CaptureMeasures whole;
            std::vector<RankPace> paces;
            std::vector<RankSteps> steps;
            for (const std::uint32_t first : { 0u, 2u }) {
                const auto part = gaplens::test::load({ file(sample, int(first)), file(sample, int(first) + 1) });
                addCaptureMeasures(whole, measureCapturePart(*DerivedCapture::build(part, derivedOptions)));
                PaceOptions paceOptions;
                paceOptions.rangeName = options.rangeName;
                auto partPaces = computeRankPaces(*part, paceOptions);
                auto partSteps = computeStepAccounting(*part, partPaces);
                for (std::size_t i = 0; i < partPaces.size(); ++i) {
                    partPaces[i].rank += first;
                    partSteps[i].rank += first;
                    paces.push_back(std::move(partPaces[i]));
                    steps.push_back(std::move(partSteps[i]));
                }
            }
            const auto pace = comparePaces(options.rangeName, std::move(paces));
            finishCaptureMeasures(whole, 4, 4, &pace, steps);
            return whole;
        };
        const auto before = gaplens::test::load({ file(longer, 0), file(longer, 1), file(longer, 2), file(longer, 3) });
        const auto after
            = gaplens::test::load({ file(shorter, 0), file(shorter, 1), file(shorter, 2), file(shorter, 3) });
        const auto whole = compareTraces(
            *DerivedCapture::build(before, derivedOptions), *DerivedCapture::build(after, derivedOptions), options);
        const auto parts = compareMeasures(inParts(longer), inParts(shorter), options.rangeName, "option",
            accountingOf(*before), accountingOf(*after), options);
        QVERIFY(whole.hasSteps);
        QCOMPARE(whole.before.steps, std::size_t(24));
        QCOMPARE(parts.before.steps, whole.before.steps);
        QCOMPARE(parts.after.steps, whole.after.steps);
        QCOMPARE(parts.before.stepNs, whole.before.stepNs);
        QCOMPARE(parts.after.stepBusyPercent, whole.after.stepBusyPercent);
        QCOMPARE(parts.before.stepIdleNs, whole.before.stepIdleNs);
        QCOMPARE(parts.after.stepKernelNs, whole.after.stepKernelNs);
        QCOMPARE(parts.before.busyNs, whole.before.busyNs);
        QCOMPARE(parts.before.gapNs, whole.before.gapNs);
        QCOMPARE(parts.after.kernelNs, whole.after.kernelNs);
        QCOMPARE(parts.before.busyPercent, whole.before.busyPercent);
        QCOMPARE(parts.verdictText, whole.verdictText);
        QCOMPARE(parts.verdictDetail, whole.verdictDetail);
        QCOMPARE(parts.headline.size(), whole.headline.size());
        for (std::size_t i = 0; i < whole.headline.size(); ++i) {
            QCOMPARE(parts.headline[i].key, whole.headline[i].key);
            QCOMPARE(parts.headline[i].before, whole.headline[i].before);
            QCOMPARE(parts.headline[i].after, whole.headline[i].after);
            QCOMPARE(parts.headline[i].pValue, whole.headline[i].pValue);
        }
        QCOMPARE(parts.kernels.size(), whole.kernels.size());
        for (std::size_t i = 0; i < whole.kernels.size(); ++i) {
            QCOMPARE(parts.kernels[i].name, whole.kernels[i].name);
            QCOMPARE(parts.kernels[i].callsBefore, whole.kernels[i].callsBefore);
            QCOMPARE(parts.kernels[i].totalAfter, whole.kernels[i].totalAfter);
        }
        QVERIFY(!whole.idleByPhase.empty());
        QCOMPARE(parts.idleByCause.size(), whole.idleByCause.size());
        QCOMPARE(parts.idleByPhase.size(), whole.idleByPhase.size());
        for (std::size_t i = 0; i < whole.idleByPhase.size(); ++i) {
            QCOMPARE(parts.idleByPhase[i].key, whole.idleByPhase[i].key);
            QCOMPARE(parts.idleByPhase[i].totalBefore, whole.idleByPhase[i].totalBefore);
        }
        QCOMPARE(parts.nvtx.size(), whole.nvtx.size());
        for (std::size_t i = 0; i < whole.nvtx.size(); ++i) {
            QCOMPARE(parts.nvtx[i].name, whole.nvtx[i].name);
            QCOMPARE(parts.nvtx[i].instancesAfter, whole.nvtx[i].instancesAfter);
        }
        QCOMPARE(parts.sustained.size(), whole.sustained.size());
        QVERIFY(!whole.sustained.empty());
    }

    void copyTimeIsComparedAsItsOwnCause()
    {
        // The same two kernels with a 1000 ns gap; before, a copy fills 800 ns of it (a copy
        // gap); after, nothing runs in it and the host was in no CUDA call.
        const auto capture = [](bool withCopy) {
            gaplens::test::FixtureBuilder b;
            const auto rank = b.addRank(0);
            const auto gpu = b.addGpu(rank, 0);
            b.kernel(gpu, 1, gaplens::test::T0, gaplens::test::T0 + 1000, "A", 1);
            b.kernel(gpu, 1, gaplens::test::T0 + 2000, gaplens::test::T0 + 2100, "B", 2);
            if (withCopy)
                b.copy(gpu, 3, gaplens::test::T0 + 1100, gaplens::test::T0 + 1900);
            return std::shared_ptr<const TraceSet>(b.finish());
        };
        CompareOptions options;
        options.minGapNs = 100;
        const auto c = compareTraces(*capture(true), *capture(false), options);
        QCOMPARE(c.idleByCause.size(), std::size_t(2));
        std::map<std::string, IdleChange> rows;
        for (const auto &r : c.idleByCause)
            rows[r.key] = r;
        const auto &copy = rows.at("copy (GPU moving data)");
        QCOMPARE(copy.presence, Presence::Vanished);
        QCOMPARE(copy.countBefore, std::uint64_t(1));
        QCOMPARE(copy.countAfter, std::uint64_t(0));
        QCOMPARE(copy.totalBefore, TimeNs(1000));
        QCOMPARE(copy.deltaNs, TimeNs(-1000));
        const auto &host = rows.at("no CUDA call (host busy elsewhere)");
        QCOMPARE(host.presence, Presence::New);
        QCOMPARE(host.totalAfter, TimeNs(1000));
    }
};

QTEST_APPLESS_MAIN(TestCompare)
#include "tst_compare.moc"
