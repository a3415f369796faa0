// SPDX-License-Identifier: MIT
// GPU busy union and idle gaps on hand-built traces; every expected number is computed by hand.
#include "gaplens/core/analysis/gpu_busy.h"
#include "trace_fixture.h"

#include <QTest>

using namespace gaplens::core;
using namespace gaplens::test;

namespace {
struct Kernel
{
    std::int64_t stream;
    TimeNs start, end; // from T0
    const char *name;
};

// GPU 0 of one rank, running `kernels`.
std::unique_ptr<TraceSet> kernelsOnOneGpu(std::initializer_list<Kernel> kernels)
{
    FixtureBuilder b;
    auto g = b.addGpu(b.addRank(0), 0);
    for (const auto &k : kernels)
        b.kernel(g, k.stream, T0 + k.start, T0 + k.end, k.name);
    return b.finish();
}
} // namespace

class TestAnalysisGpuBusy : public QObject
{
    Q_OBJECT

private:
    // Stream 1: [0,100) [300,400); stream 2: [50,150). Sum 300, union 250.
    static std::unique_ptr<TraceSet> twoOverlappingStreams()
    {
        return kernelsOnOneGpu({ { 1, 0, 100, "a" }, { 1, 300, 400, "b" }, { 2, 50, 150, "c" } });
    }

private slots:
    void busyTimeIsTheUnionNotTheSumOfOverlappingStreams()
    {
        const auto trace = twoOverlappingStreams();
        const auto busy = computeGpuBusy(*trace, 0);
        QCOMPARE(busy.intervals, (std::vector<TimeRange> { at(0, 150), at(300, 400) }));
        QCOMPARE(busy.busyNs, TimeNs(250));
        QCOMPARE(busy.window, at(0, 400));
        QCOMPARE(busy.busyPercent, 62.5);
        QCOMPARE(busy.streams.size(), std::size_t(2));
        QCOMPARE(busy.streams[0].streamId, std::int64_t(1));
        QCOMPARE(busy.streams[0].busyNs, TimeNs(200));
        QCOMPARE(busy.streams[0].kernelCount, std::uint64_t(2));
        QCOMPARE(busy.streams[1].busyNs, TimeNs(100));
    }

    void gapAtOrAboveTheThresholdIsReported()
    {
        const auto trace = twoOverlappingStreams();
        const auto gaps = findIdleGaps(computeGpuBusy(*trace, 0), 100);
        QCOMPARE(gaps.count(), std::size_t(1));
        QCOMPARE(gaps.gaps[0], at(150, 300));
        QCOMPARE(gaps.totalNs, TimeNs(150));
        QCOMPARE(findIdleGaps(computeGpuBusy(*trace, 0), 150).count(), std::size_t(1)); // >= threshold
    }

    void gapBelowTheThresholdIsNotReported()
    {
        const auto trace = twoOverlappingStreams();
        const auto gaps = findIdleGaps(computeGpuBusy(*trace, 0), 200);
        QCOMPARE(gaps.count(), std::size_t(0));
        QCOMPARE(gaps.totalNs, TimeNs(0));
    }

    void defaultThresholdIsOneHundredMicroseconds()
    {
        const auto trace = kernelsOnOneGpu({ { 1, 0, 10, "a" }, { 1, 10 + 99'999, 200'000, "b" }, // gap of 99,999 ns
            { 1, 300'000, 300'010, "c" } }); // gap of 100,000 ns
        const auto gaps = findIdleGaps(computeGpuBusy(*trace, 0));
        QCOMPARE(gaps.count(), std::size_t(1));
        QCOMPARE(gaps.gaps[0], at(200'000, 300'000));
    }

    void noGapBeforeTheFirstOrAfterTheLastInterval()
    {
        FixtureBuilder b;
        auto g = b.addGpu(b.addRank(0), 0);
        b.kernel(g, 1, T0 + 1000, T0 + 1100, "only");
        b.addThread(0); // CPU activity long before and after must not make edge gaps
        const auto trace = b.finish();
        QCOMPARE(findIdleGaps(computeGpuBusy(*trace, 0), 1).count(), std::size_t(0));
    }

    void includeCopiesFillsAHoleBetweenKernels()
    {
        FixtureBuilder b;
        auto g = b.addGpu(b.addRank(0), 0);
        b.kernel(g, 1, T0 + 0, T0 + 100, "a");
        b.kernel(g, 1, T0 + 200, T0 + 300, "b");
        b.copy(g, 3, T0 + 100, T0 + 200);
        const auto trace = b.finish();

        const auto kernelsOnly = computeGpuBusy(*trace, 0);
        QCOMPARE(kernelsOnly.busyNs, TimeNs(200));
        QCOMPARE(findIdleGaps(kernelsOnly, 100).count(), std::size_t(1));

        const auto withCopies = computeGpuBusy(*trace, 0, { .includeCopies = true });
        QCOMPARE(withCopies.intervals, (std::vector<TimeRange> { at(0, 300) }));
        QCOMPARE(withCopies.busyNs, TimeNs(300));
        QCOMPARE(withCopies.busyPercent, 100.0);
        QCOMPARE(findIdleGaps(withCopies, 1).count(), std::size_t(0));
        QCOMPARE(withCopies.streams[0].busyNs, TimeNs(200)); // per stream: kernels only
    }

    void kernelFullyInsideAnotherAddsNothing()
    {
        const auto trace = kernelsOnOneGpu({ { 1, 0, 100, "outer" }, { 2, 20, 50, "inner" } });
        const auto busy = computeGpuBusy(*trace, 0);
        QCOMPARE(busy.intervals, (std::vector<TimeRange> { at(0, 100) }));
        QCOMPARE(busy.busyNs, TimeNs(100));
    }

    void touchingIntervalsMergeWithoutAGap()
    {
        const auto trace = kernelsOnOneGpu({ { 1, 0, 10, "a" }, { 1, 10, 20, "b" } });
        const auto busy = computeGpuBusy(*trace, 0);
        QCOMPARE(busy.intervals, (std::vector<TimeRange> { at(0, 20) }));
        QCOMPARE(findIdleGaps(busy, 0).count(), std::size_t(0)); // not even a zero-length gap
    }

    void twoProcessesOnOneGpuMerge()
    {
        FixtureBuilder b;
        const auto r0 = b.addRank(0);
        const auto r1 = b.addRank(1, /*report*/ 0, /*pid*/ 2000);
        auto g0 = b.addGpu(r0, 0);
        auto g1 = b.addGpu(r1, 0);
        QCOMPARE(g0.gpu, g1.gpu);
        b.kernel(g0, 7, T0 + 0, T0 + 100, "a");
        b.kernel(g1, 7, T0 + 100, T0 + 250, "b"); // same stream id, other process: other stream
        b.kernel(g1, 7, T0 + 400, T0 + 500, "c");
        const auto trace = b.finish();
        QCOMPARE(trace->gpus.size(), std::size_t(1));
        const auto busy = computeGpuBusy(*trace, 0);
        QCOMPARE(busy.streams.size(), std::size_t(2));
        QCOMPARE(busy.intervals, (std::vector<TimeRange> { at(0, 250), at(400, 500) }));
        QCOMPARE(busy.busyNs, TimeNs(350));
        const auto gaps = findIdleGaps(busy, 100);
        QCOMPARE(gaps.gaps, (std::vector<TimeRange> { at(250, 400) }));
    }

    void timeWindowClipsIntervals()
    {
        const auto trace = twoOverlappingStreams();
        const auto busy = computeGpuBusy(*trace, 0, { .window = at(60, 350) });
        QCOMPARE(busy.intervals, (std::vector<TimeRange> { at(60, 150), at(300, 350) }));
        QCOMPARE(busy.busyNs, TimeNs(140));
        QCOMPARE(busy.window, at(60, 350));
        QCOMPARE(busy.streams[0].busyNs, TimeNs(90)); // [60,100) + [300,350)
        QCOMPARE(busy.streams[1].busyNs, TimeNs(90)); // [60,150)
        QCOMPARE(findIdleGaps(busy, 100).gaps, (std::vector<TimeRange> { at(150, 300) }));

        // A window inside one kernel: that kernel, clipped.
        const auto inside = computeGpuBusy(*trace, 0, { .window = at(310, 320) });
        QCOMPARE(inside.intervals, (std::vector<TimeRange> { at(310, 320) }));
        // A window inside the gap: nothing.
        QCOMPARE(computeGpuBusy(*trace, 0, { .window = at(160, 290) }).busyNs, TimeNs(0));
    }

    void timeWindowKeepsCopiesStraddlingItsStart()
    {
        FixtureBuilder b;
        auto g = b.addGpu(b.addRank(0), 0);
        b.kernel(g, 1, T0 + 500, T0 + 600, "k");
        b.copy(g, 2, T0 + 0, T0 + 300); // straddles the window start
        b.copy(g, 3, T0 + 50, T0 + 150); // nested in the first, ends before the window
        b.copy(g, 3, T0 + 250, T0 + 400);
        const auto trace = b.finish();
        const auto busy = computeGpuBusy(*trace, 0, { .includeCopies = true, .window = at(200, 550) });
        QCOMPARE(busy.intervals, (std::vector<TimeRange> { at(200, 400), at(500, 550) }));
        QCOMPARE(busy.busyNs, TimeNs(250));
    }

    void allGpusAreComputedInOrder()
    {
        FixtureBuilder b;
        auto g0 = b.addGpu(b.addRank(0), 0);
        auto g1 = b.addGpu(b.addRank(1), 0);
        b.kernel(g0, 1, T0, T0 + 10, "a");
        b.kernel(g1, 1, T0, T0 + 30, "a");
        const auto trace = b.finish();
        const auto all = computeAllGpuBusy(*trace);
        QCOMPARE(all.size(), std::size_t(2));
        QCOMPARE(all[0].gpu, 0u);
        QCOMPARE(all[0].busyNs, TimeNs(10));
        QCOMPARE(all[1].busyNs, TimeNs(30));
    }

    void emptyGpuHasNoWindowAndZeroPercent()
    {
        FixtureBuilder b;
        b.addGpu(b.addRank(0), 0);
        const auto trace = b.finish();
        const auto busy = computeGpuBusy(*trace, 0);
        QVERIFY(busy.intervals.empty());
        QCOMPARE(busy.window, TimeRange {});
        QCOMPARE(busy.busyPercent, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestAnalysisGpuBusy)
#include "tst_analysis_gpu_busy.moc"
