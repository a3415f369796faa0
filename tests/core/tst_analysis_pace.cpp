// SPDX-License-Identifier: MIT
// Rank pace (nvtx_pace), step accounting and NVTX GPU projection on hand-built traces.
#include "gaplens/core/analysis/gpu_projection.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/synth.h"
#include "synth_sample.h"
#include "trace_fixture.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace gaplens::core;
using gaplens::test::at;
using gaplens::test::FixtureBuilder;
using gaplens::test::GpuRef;
using gaplens::test::T0;

namespace {

// `durations[k][i]`: iteration i of rank k starts at T0 + 1000 * i + k. Rank numbers 0, 1, 3
// (so the straggler's number differs from its index). The last rank's iterations alternate
// between two threads: iterations are collected over all threads of a rank.
std::unique_ptr<TraceSet> paceFixture(const std::vector<std::vector<TimeNs>> &durations)
{
    FixtureBuilder b;
    const std::int32_t numbers[] = { 0, 1, 3, 4 };
    for (std::size_t k = 0; k < durations.size(); ++k) {
        const auto r = b.addRank(numbers[k]);
        const auto main = b.addThread(r);
        const auto worker = b.addThread(r, 5000 + std::uint32_t(k));
        for (std::size_t i = 0; i < durations[k].size(); ++i) {
            const TimeNs start = T0 + 1000 * TimeNs(i) + TimeNs(k);
            const bool onWorker = k == durations.size() - 1 && i % 2 == 1;
            b.nvtx(onWorker ? worker : main, start, start + durations[k][i], "train_step");
            b.nvtx(main, start + 1, start + 2, "forward"); // nested, other name: ignored
        }
    }
    return b.finish();
}

// Rank 0, main thread, GPU 0. CPU steps [0,1000) and [1000,2000), and an "idle" range that
// launches nothing. Step 1 launches k1 [200,500) (stream 1), k2 [450,1200) (stream 2, ends
// after the CPU range) and a copy [1200,1300); step 2 launches a graph (one correlation id)
// with kernels [1600,1700) and [1650,1800).
struct ProjectionFixture
{
    FixtureBuilder b;
    std::uint32_t rank = b.addRank(0);
    GpuRef gpu = b.addGpu(rank, 0);
    std::uint32_t thread = b.addThread(rank);
    std::unique_ptr<TraceSet> trace;

    ProjectionFixture()
    {
        b.nvtx(thread, T0 + 0, T0 + 1000, "train_step");
        b.nvtx(thread, T0 + 1000, T0 + 2000, "train_step");
        b.nvtx(thread, T0 + 2100, T0 + 2200, "idle");
        b.api(thread, T0 + 100, T0 + 110, "cudaLaunchKernel", 1);
        b.api(thread, T0 + 300, T0 + 310, "cudaLaunchKernel", 2);
        b.api(thread, T0 + 900, T0 + 910, "cudaMemcpyAsync", 3);
        b.api(thread, T0 + 1500, T0 + 1510, "cudaGraphLaunch", 4);
        b.api(thread, T0 + 2150, T0 + 2160, "cudaStreamSynchronize");
        b.kernel(gpu, 1, T0 + 200, T0 + 500, "k1", 1);
        b.kernel(gpu, 2, T0 + 450, T0 + 1200, "k2", 2);
        b.copy(gpu, 2, T0 + 1200, T0 + 1300, 3);
        b.kernel(gpu, 2, T0 + 1600, T0 + 1700, "g1", 4);
        b.kernel(gpu, 1, T0 + 1650, T0 + 1800, "g2", 4);
        trace = b.finish();
    }
};

// A step's usage the slow way: every kernel (and copy) of the rank clipped to the step, with
// no searching, and the busy union by sorting.
StepUsage usageByScanning(const TraceSet &trace, std::uint32_t rankIndex, TimeRange step, bool includeCopies)
{
    StepUsage usage;
    usage.step = step;
    std::vector<TimeRange> busy;
    const auto addClipped = [&](TimeNs start, TimeNs end, bool isKernel) {
        const TimeRange c { std::max(start, step.start), std::min(end, step.end) };
        if (c.end <= c.start)
            return;
        if (isKernel)
            usage.kernelNs += c.duration();
        busy.push_back(c);
    };
    const Rank &rank = trace.ranks[rankIndex];
    for (const auto g : rank.gpus) {
        const Gpu &gpu = trace.gpus[g];
        for (const auto &stream : gpu.streams)
            if (stream.rank == rankIndex)
                for (std::size_t k = 0; k < stream.kernels.size(); ++k)
                    addClipped(stream.kernels.start[k], stream.kernels.end[k], true);
        if (includeCopies)
            for (std::size_t c = 0; c < gpu.copies.size(); ++c)
                if (gpu.copies.pid[c] == rank.pid)
                    addClipped(gpu.copies.start[c], gpu.copies.end[c], false);
    }
    std::sort(busy.begin(), busy.end(), [](const TimeRange &a, const TimeRange &b) { return a.start < b.start; });
    TimeRange current {};
    for (std::size_t i = 0; i < busy.size(); ++i) {
        if (i > 0 && busy[i].start <= current.end) {
            current.end = std::max(current.end, busy[i].end);
            continue;
        }
        usage.busyNs += current.duration();
        current = busy[i];
    }
    usage.busyNs += current.duration();
    if (step.duration() > 0)
        usage.busyPercent = 100.0 * double(usage.busyNs) / double(step.duration());
    return usage;
}

} // namespace

class TestAnalysisPace : public QObject
{
    Q_OBJECT

private slots:
    void threeRanksWithAKnownStragglerGetAVerdict()
    {
        // Per iteration: [100,100,120] [110,100,130] [105,100,100] [100,100,125].
        const auto trace = paceFixture({ { 100, 110, 105, 100 }, { 100, 100, 100, 100 }, { 120, 130, 100, 125 } });
        const auto pace = computePace(*trace, { .rangeName = "train_step" });
        QCOMPARE(pace.ranks.size(), std::size_t(3));
        QCOMPARE(pace.iterations.size(), std::size_t(4));

        const double medians[] = { 100, 110, 100, 100 };
        const std::uint32_t slowest[] = { 2, 2, 0, 2 };
        const TimeNs slowestNs[] = { 120, 130, 105, 125 };
        for (std::uint32_t i = 0; i < 4; ++i) {
            QCOMPARE(pace.iterations[i].index, i);
            QCOMPARE(pace.iterations[i].medianNs, medians[i]);
            QCOMPARE(pace.iterations[i].slowestRank, slowest[i]);
            QCOMPARE(pace.iterations[i].slowestNs, slowestNs[i]);
        }

        const auto &r0 = pace.ranks[0];
        QCOMPARE(r0.iterations.size(), std::size_t(4));
        QCOMPARE(r0.iterations[1].time, at(1000, 1110));
        QCOMPARE(r0.iterations[1].durationNs, TimeNs(110));
        QCOMPARE(r0.iterations[0].deltaToPreviousNs, TimeNs(0));
        QCOMPARE(r0.iterations[3].deltaToPreviousNs, TimeNs(1000));
        QCOMPARE(r0.medianNs, 102.5);
        QCOMPARE(r0.p95Ns, TimeNs(110));
        QCOMPARE(r0.timesSlowest, 1u);
        QCOMPARE(pace.ranks[1].medianNs, 100.0);
        QCOMPARE(pace.ranks[1].timesSlowest, 0u);
        const auto &r2 = pace.ranks[2];
        QCOMPARE(r2.iterations.size(), std::size_t(4)); // two threads, merged by start
        QCOMPARE(r2.iterations[1].time, at(1002, 1132));
        QCOMPARE(r2.medianNs, 122.5); // 100 120 | 125 130
        QCOMPARE(r2.p95Ns, TimeNs(130));
        QCOMPARE(r2.timesSlowest, 3u);

        QVERIFY(pace.straggler.has_value());
        QCOMPARE(pace.straggler->rank, 2u);
        QCOMPARE(pace.straggler->slowestCount, 3u);
        QCOMPARE(pace.straggler->iterations, 4u);
        QCOMPARE(pace.straggler->percentAboveMedian, 22.5); // 122.5 vs median of medians 100
        QCOMPARE(describeStraggler(*trace, *pace.straggler),
            std::string("rank 3 was slowest in 3 of 4 steps, 23% above the median"));
    }

    void noVerdictWhenTheSlowestRankChanges()
    {
        // Slowest: rank 0, 1, 2, 0, 1 -> at most 2 of 5.
        const auto trace
            = paceFixture({ { 200, 100, 100, 200, 100 }, { 100, 200, 100, 100, 200 }, { 100, 100, 200, 100, 100 } });
        const auto pace = computePace(*trace, { .rangeName = "train_step" });
        QCOMPARE(pace.iterations.size(), std::size_t(5));
        QCOMPARE(pace.ranks[0].timesSlowest, 2u);
        QCOMPARE(pace.ranks[1].timesSlowest, 2u);
        QCOMPARE(pace.ranks[2].timesSlowest, 1u);
        QVERIFY(!pace.straggler.has_value());
    }

    void ranksThatTieForSlowestNameNoStraggler()
    {
        // Synchronous ranks waiting on one collective end their steps together.
        const auto trace = paceFixture({ { 100, 100, 100, 120 }, { 100, 100, 100, 100 }, { 100, 100, 100, 100 } });
        const auto pace = computePace(*trace, { .rangeName = "train_step" });
        for (std::uint32_t i = 0; i < 3; ++i)
            QCOMPARE(pace.iterations[i].slowestRank, kNoIndex);
        QCOMPARE(pace.iterations[3].slowestRank, 0u);
        QCOMPARE(pace.ranks[0].timesSlowest, 1u);
        QCOMPARE(pace.ranks[1].timesSlowest, 0u);
        QVERIFY(!pace.straggler.has_value());
    }

    void noVerdictWithFewerThanThreeIterationsOrOneRank()
    {
        const auto twoSteps = paceFixture({ { 100, 100 }, { 200, 200 } });
        QVERIFY(!computePace(*twoSteps, { .rangeName = "train_step" }).straggler);
        const auto oneRank = paceFixture({ { 100, 200, 300, 400 } });
        const auto pace = computePace(*oneRank, { .rangeName = "train_step" });
        QCOMPARE(pace.iterations.size(), std::size_t(4));
        QVERIFY(!pace.straggler);
    }

    void ranksWithDifferentIterationCountsCompareTheCommonOnes()
    {
        const auto trace = paceFixture({ { 100, 100, 100, 100, 500 }, { 150, 150, 150 } });
        const auto pace = computePace(*trace, { .rangeName = "train_step" });
        QCOMPARE(pace.ranks[0].iterations.size(), std::size_t(5));
        QCOMPARE(pace.ranks[1].iterations.size(), std::size_t(3));
        QCOMPARE(pace.iterations.size(), std::size_t(3));
        QCOMPARE(pace.iterations[0].medianNs, 125.0);
        QCOMPARE(pace.ranks[0].medianNs, 100.0); // over all its own iterations
        QCOMPARE(pace.ranks[0].p95Ns, TimeNs(500));
        QCOMPARE(pace.ranks[1].timesSlowest, 3u);
        QVERIFY(pace.straggler.has_value());
        QCOMPARE(pace.straggler->rank, 1u);
        QCOMPARE(pace.straggler->iterations, 3u);
        QCOMPARE(pace.straggler->percentAboveMedian, 20.0); // 150 vs 125
    }

    void rankSelectionAndUnknownNameAreRespected()
    {
        const auto trace = paceFixture({ { 100, 110, 105, 100 }, { 100, 100, 100, 100 }, { 120, 130, 100, 125 } });
        const auto two = computePace(*trace, { .rangeName = "train_step", .ranks = RankSelection::only({ 0, 1 }) });
        QCOMPARE(two.ranks.size(), std::size_t(2));
        QCOMPARE(two.ranks[1].rank, 1u);
        QVERIFY(computePace(*trace, { .rangeName = "no_such_range" }).ranks.empty());
    }

    void nestedSameNamedRangesCountOnce()
    {
        FixtureBuilder b;
        const auto t = b.addThread(b.addRank(0));
        b.nvtx(t, T0 + 0, T0 + 100, "train_step");
        b.nvtx(t, T0 + 10, T0 + 50, "train_step"); // e.g. a decorator inside the loop body
        b.nvtx(t, T0 + 200, T0 + 300, "train_step");
        const auto trace = b.finish();
        const auto pace = computePace(*trace, { .rangeName = "train_step" });
        QCOMPARE(pace.ranks[0].iterations.size(), std::size_t(2));
        QCOMPARE(pace.ranks[0].iterations[1].time, at(200, 300));
        QCOMPARE(pace.ranks[0].iterations[1].deltaToPreviousNs, TimeNs(200));
    }

    void proposedRangeNameIsTheMostRepeatedTopLevelName()
    {
        FixtureBuilder b;
        const auto t0 = b.addThread(b.addRank(0));
        const auto t1 = b.addThread(b.addRank(1));
        for (int i = 0; i < 2; ++i) {
            b.nvtx(t0, T0 + 1000 * i, T0 + 1000 * i + 900, "train_step");
            b.nvtx(t1, T0 + 1000 * i, T0 + 1000 * i + 900, "train_step");
            for (int j = 0; j < 5; ++j) // nested: not top level, however many
                b.nvtx(t0, T0 + 1000 * i + 10 * j, T0 + 1000 * i + 10 * j + 5, "forward");
        }
        for (int i = 0; i < 4; ++i)
            b.nvtx(t1, T0 + 5000 + 100 * i, T0 + 5000 + 100 * i + 50, "eval");
        auto tie = b.finish();
        // 4 vs 4: the name covering more time wins (train_step 3600 ns, eval 200 ns).
        QCOMPARE(proposePaceRangeName(*tie), std::optional<std::string>("train_step"));

        FixtureBuilder same;
        const auto s0 = same.addThread(same.addRank(0));
        for (int i = 0; i < 2; ++i) {
            same.nvtx(s0, T0 + 1000 * i, T0 + 1000 * i + 100, "b_step");
            same.nvtx(s0, T0 + 500 + 1000 * i, T0 + 500 + 1000 * i + 100, "a_step");
        }
        QCOMPARE(proposePaceRangeName(*same.finish()), std::optional<std::string>("a_step")); // all equal: alphabetical

        FixtureBuilder once;
        const auto o0 = once.addThread(once.addRank(0));
        once.nvtx(o0, T0, T0 + 100, "op_id = 1");
        once.nvtx(o0, T0 + 200, T0 + 300, "op_id = 2");
        QVERIFY(!proposePaceRangeName(*once.finish())); // nothing repeats: no step to pace

        FixtureBuilder tiny;
        const auto y0 = tiny.addThread(tiny.addRank(0));
        for (int i = 0; i < 50; ++i) // a 10 ns poll repeated 50 times over 100 us: 0.5% coverage
            tiny.nvtx(y0, T0 + 2000 * i, T0 + 2000 * i + 10, "poll");
        QVERIFY(!proposePaceRangeName(*tiny.finish()));

        FixtureBuilder c;
        const auto t = c.addThread(c.addRank(0));
        for (int i = 0; i < 3; ++i)
            c.nvtx(t, T0 + 1000 * i, T0 + 1000 * i + 900, "train_step");
        c.nvtx(t, T0 + 9000, T0 + 9100, "eval");
        QCOMPARE(proposePaceRangeName(*c.finish()), std::optional<std::string>("train_step"));

        FixtureBuilder empty;
        empty.addThread(empty.addRank(0));
        QVERIFY(!proposePaceRangeName(*empty.finish()));
    }

    void gpuProjectionSpansTheWorkLaunchedInTheRange()
    {
        ProjectionFixture f;
        const GpuProjector projector(*f.trace);
        const auto all = projector.projectThread(f.thread);
        QCOMPARE(all.size(), std::size_t(3));
        QVERIFY(all[0].has_value());
        QCOMPARE(*all[0], at(200, 1300)); // k1 start .. copy end, past the CPU range end 1000
        QCOMPARE(*all[1], at(1600, 1800)); // both kernels of the graph launch
        QVERIFY(!all[2].has_value()); // "idle" only synchronized

        const GpuProjector kernelsOnly(*f.trace, { .includeCopies = false });
        QCOMPARE(*kernelsOnly.project(f.thread, at(0, 1000)), at(200, 1200));
        // A call starting exactly at the range end is inside (both ends inclusive).
        QCOMPARE(*projector.project(f.thread, at(1400, 1500)), at(1600, 1800));
        QVERIFY(!projector.project(f.thread, at(1511, 2000)).has_value());

        const auto named = projector.projectNamed(f.trace->strings.find("train_step"));
        QCOMPARE(named.size(), std::size_t(2));
        QCOMPARE(named[0].cpu, at(0, 1000));
        QCOMPARE(*named[0].gpu, at(200, 1300));
        QCOMPARE(named[1].range, 1u);
    }

    void paceCanMeasureGpuProjectedSteps()
    {
        ProjectionFixture f;
        const auto pace = computePace(*f.trace, { .rangeName = "train_step", .useGpuProjection = true });
        QCOMPARE(pace.ranks.size(), std::size_t(1));
        const auto &its = pace.ranks[0].iterations;
        QCOMPARE(its.size(), std::size_t(2));
        QCOMPARE(its[0].cpu, at(0, 1000));
        QCOMPARE(its[0].time, at(200, 1300));
        QCOMPARE(its[0].durationNs, TimeNs(1100));
        QCOMPARE(its[1].time, at(1600, 1800));
        QCOMPARE(its[1].deltaToPreviousNs, TimeNs(1400));
        QCOMPARE(pace.ranks[0].medianNs, 650.0);
    }

    void stepAccountingClipsKernelsToEachStep()
    {
        ProjectionFixture f;
        const auto pace = computePace(*f.trace, { .rangeName = "train_step" });
        const auto steps = computeStepAccounting(*f.trace, pace);
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].rank, f.rank);
        QCOMPARE(steps[0].steps.size(), std::size_t(2));
        const auto &s1 = steps[0].steps[0];
        QCOMPARE(s1.step, at(0, 1000));
        QCOMPARE(s1.kernelNs, TimeNs(850)); // k1 300 + k2 clipped [450,1000) 550
        QCOMPARE(s1.busyNs, TimeNs(800)); // union [200,1000)
        QCOMPARE(s1.busyPercent, 80.0);
        const auto &s2 = steps[0].steps[1];
        QCOMPARE(s2.iteration, 1u);
        QCOMPARE(s2.kernelNs, TimeNs(450)); // k2 [1000,1200) 200 + g1 100 + g2 150
        QCOMPARE(s2.busyNs, TimeNs(400)); // [1000,1200) + [1600,1800)
        QCOMPARE(s2.busyPercent, 40.0);

        const auto withCopies = computeStepAccounting(*f.trace, pace, { .includeCopies = true });
        QCOMPARE(withCopies[0].steps[0].busyNs, TimeNs(800)); // the copy is after step 1
        QCOMPARE(withCopies[0].steps[1].kernelNs, TimeNs(450));
        QCOMPARE(withCopies[0].steps[1].busyNs, TimeNs(500)); // + copy [1200,1300)
        QCOMPARE(withCopies[0].steps[1].busyPercent, 50.0);
    }

    void stepAccountingOfAGeneratedJobMatchesScanningEveryKernel()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto synth = writeSyntheticCapture(dir.path().toStdString(), gaplens::test::eightyFourStepJob());
        LoadOptions load;
        load.files = synth.files;
        const auto trace = loadTraceSet(load);
        QVERIFY(trace && trace->errors.empty());

        TimeNs allKernelNs = 0, allBusyNs = 0; // busy: kernels, copies and memsets
        for (const auto &truth : synth.ranks) {
            allKernelNs += truth.computeKernelNs + truth.ncclKernelNs;
            allBusyNs += truth.busyNs;
        }
        QCOMPARE(allBusyNs, TimeNs(259'350'000));

        for (const bool projected : { false, true }) {
            auto pace = computePace(*trace, { .rangeName = "train_step", .useGpuProjection = projected });
            QCOMPARE(pace.ranks.size(), std::size_t(2));
            QCOMPARE(pace.ranks[1].iterations.size(), std::size_t(84));
            // Steps in time order (as computePace gives them), then reversed: step accounting
            // searches each stream from where the previous step's search ended.
            for (const bool reversed : { false, true }) {
                if (reversed)
                    for (auto &rank : pace.ranks)
                        std::reverse(rank.iterations.begin(), rank.iterations.end());
                for (const bool copies : { false, true }) {
                    const auto steps = computeStepAccounting(*trace, pace, { .includeCopies = copies });
                    QCOMPARE(steps.size(), pace.ranks.size());
                    TimeNs kernelNs = 0, busyNs = 0;
                    for (std::size_t r = 0; r < steps.size(); ++r) {
                        QCOMPARE(steps[r].steps.size(), pace.ranks[r].iterations.size());
                        for (std::uint32_t i = 0; i < steps[r].steps.size(); ++i) {
                            const auto &actual = steps[r].steps[i];
                            const auto expected
                                = usageByScanning(*trace, steps[r].rank, pace.ranks[r].iterations[i].time, copies);
                            QCOMPARE(actual.iteration, i);
                            QCOMPARE(actual.step, expected.step);
                            QCOMPARE(actual.kernelNs, expected.kernelNs);
                            QCOMPARE(actual.busyNs, expected.busyNs);
                            QCOMPARE(actual.busyPercent, expected.busyPercent);
                            kernelNs += actual.kernelNs;
                            busyNs += actual.busyNs;
                        }
                    }
                    // The steps hold all of the job's GPU work: the generator's totals.
                    QCOMPARE(kernelNs, allKernelNs);
                    QCOMPARE(kernelNs, TimeNs(221'760'000));
                    QCOMPARE(busyNs, copies ? allBusyNs : TimeNs(197'190'000));
                }
            }
        }
    }

    void stepAccountingCountsOnlyTheRanksOwnWork()
    {
        FixtureBuilder b;
        const auto r0 = b.addRank(0);
        const auto r1 = b.addRank(1, /*report*/ 0, /*pid*/ 2000);
        const auto g0 = b.addGpu(r0, 0);
        const auto g1 = b.addGpu(r1, 0); // same GPU, other process
        const auto t = b.addThread(r0);
        b.nvtx(t, T0 + 0, T0 + 1000, "train_step");
        b.kernel(g0, 1, T0 + 100, T0 + 300, "mine");
        b.kernel(g1, 1, T0 + 200, T0 + 900, "theirs");
        b.copy(g1, 2, T0 + 400, T0 + 500);
        const auto trace = b.finish();
        const auto pace = computePace(*trace, { .rangeName = "train_step" });
        const auto steps = computeStepAccounting(*trace, pace, { .includeCopies = true });
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].steps[0].kernelNs, TimeNs(200));
        QCOMPARE(steps[0].steps[0].busyNs, TimeNs(200));
        QCOMPARE(steps[0].steps[0].busyPercent, 20.0);
    }
};

QTEST_APPLESS_MAIN(TestAnalysisPace)
#include "tst_analysis_pace.moc"
