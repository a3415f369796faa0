// SPDX-License-Identifier: MIT
// The capture summary and its plain-language findings on hand-built captures.
#include "synth_sample.h"
#include "testsupport.h"
#include "trace_counts.h"
#include "trace_fixture.h"

#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/read/loader.h"

#include <QTest>

#include <algorithm>

using namespace gaplens;
using namespace gaplens::core;
using gaplens::test::FixtureBuilder;
using gaplens::test::T0;

namespace {

// Two ranks (or `ranks`), six contiguous train_step iterations each (the first is a 3x
// warm-up step). Rank 1's steps are `rank1Tenths`/10 as long as the others' (20% longer). In each step: data_loading
// [S, S+300) with no CUDA call, a launch at S+290, one kernel [S+300, S+D-50): the idle gap from the previous kernel's
// end (S-50) to S+300 sits at the step start with no CUDA call, in data_loading. Rank 0 also has one cudaMemcpyAsync
// from pageable memory (1 MiB, 100 ns) in step 1.
struct Capture
{
    std::unique_ptr<TraceSet> trace;
    std::vector<std::vector<TimeRange>> steps; // per rank
};

Capture buildCapture(int ranks = 2, int rank1Tenths = 12)
{
    FixtureBuilder b;
    Capture c;
    c.steps.resize(std::size_t(ranks));
    for (int r = 0; r < ranks; ++r) {
        const auto rank = b.addRank(r);
        const auto gpu = b.addGpu(rank, r);
        const auto thread = b.addThread(rank);
        TimeNs s = 10'000;
        for (int i = 0; i < 6; ++i) {
            const TimeNs d = (i == 0 ? 3000 : 1000) * (r == 1 ? rank1Tenths : 10) / 10;
            b.nvtx(thread, s, s + d, "train_step");
            b.nvtx(thread, s, s + 300, "data_loading");
            b.api(thread, s + 290, s + 295, "cudaLaunchKernel", std::uint32_t(i + 1));
            b.kernel(gpu, 7, s + 300, s + d - 50, "gemm", std::uint32_t(i + 1));
            if (r == 0 && i == 1) {
                b.api(thread, s + 400, s + 410, "cudaMemcpyAsync", 99);
                b.copy(gpu, 7, s + 500, s + 600, 99, CopyKind::HostToDevice, 1 << 20);
            }
            c.steps[r].push_back({ s, s + d });
            s += d;
        }
    }
    c.trace = b.finish();
    c.trace->gpus[0].copies.srcKind[0] = MemKind::Pageable;
    c.trace->gpus[0].copies.dstKind[0] = MemKind::Device;
    return c;
}

// One rank, six train_step iterations of 1000 ns with data_loading [S, S+300) and a kernel
// [S+300, S+950): each step after the first starts with a 350 ns gap [S-50, S+300), midpoint
// S+125. With `copies`, a copy [S-50, S+200) fills 250 ns of each gap (at least half: the GPU
// was moving data); with `slowLaunch`, the kernel's launch runs [S+100, S+295), across the
// midpoint (launch-bound); else the launch is [S+290, S+295) (no CUDA call at the midpoint).
std::unique_ptr<TraceSet> buildOneRank(bool copies, bool slowLaunch)
{
    auto [b, rank, gpu, thread] = gaplens::test::oneRankFixture();
    for (int i = 0; i < 6; ++i) {
        const TimeNs s = 10'000 + 1000 * i;
        b.nvtx(thread, s, s + 1000, "train_step");
        b.nvtx(thread, s, s + 300, "data_loading");
        b.api(thread, slowLaunch ? s + 100 : s + 290, s + 295, "cudaLaunchKernel", std::uint32_t(i + 1));
        b.kernel(gpu, 7, s + 300, s + 950, "gemm", std::uint32_t(i + 1));
        if (copies && i > 0)
            b.copy(gpu, 8, s - 50, s + 200, std::uint32_t(100 + i));
    }
    return b.finish();
}

const Finding *findKind(const CaptureSummary &s, FindingKind kind)
{
    return gaplens::test::findFirst(s.findings, [&](const Finding &f) { return f.kind == kind; });
}

// The text of the summary's finding of `kind`; empty when it has none.
QString findingText(const CaptureSummary &s, FindingKind kind)
{
    const Finding *finding = findKind(s, kind);
    return finding ? QString::fromStdString(finding->text) : QString();
}

// Interval findings (L = 1 us intervals from T0). `spread`: rank 0 has two kernels per interval
// for 20 intervals, of 10 and 20 ns (stddev 7.07 ns) but 10 and 110 ns (70.7 ns) in intervals
// 12-14. `stalls`: `ranks` ranks with one kernel and a 10 ns HtoD copy in each of 10 intervals,
// and a 300 ns copy (rank 1: longerOnRank1 more) in the intervals of `stallIntervals` on the
// ranks of `stallRanks`.
constexpr TimeNs kL = 1000;

std::unique_ptr<TraceSet> spreadCapture()
{
    FixtureBuilder b;
    const auto gpu = b.addGpu(b.addRank(0), 0);
    for (TimeNs i = 0; i < 20; ++i) {
        const TimeNs s = T0 + i * kL;
        b.kernel(gpu, 1, s, s + 10, "k");
        b.kernel(gpu, 1, s + 100, s + (i >= 12 && i <= 14 ? 210 : 120), "k");
    }
    return b.finish();
}

std::unique_ptr<TraceSet> stallCapture(int ranks, const std::vector<int> &stallRanks,
    const std::vector<TimeNs> &stallIntervals = { 6 }, TimeNs longerOnRank1 = 0)
{
    FixtureBuilder b;
    for (int r = 0; r < ranks; ++r) {
        const auto gpu = b.addGpu(b.addRank(r), r);
        const bool stalls = std::find(stallRanks.begin(), stallRanks.end(), r) != stallRanks.end();
        for (TimeNs i = 0; i < 10; ++i) {
            const TimeNs s = T0 + i * kL;
            b.kernel(gpu, 1, s, s + 100, "k");
            const bool stall
                = stalls && std::find(stallIntervals.begin(), stallIntervals.end(), i) != stallIntervals.end();
            b.copy(
                gpu, 2, s + 200, s + (stall ? 500 + (r == 1 ? longerOnRank1 : 0) : 210), 0, CopyKind::HostToDevice, 64);
        }
    }
    return b.finish();
}

// One rank with `copies` copies of 4 KiB alternating HtoD, DtoH, 100 ns apart, and a kernel.
std::unique_ptr<TraceSet> pingPongCapture(int copies)
{
    FixtureBuilder b;
    const auto gpu = b.addGpu(b.addRank(0), 0);
    b.kernel(gpu, 1, T0, T0 + 10, "k");
    for (int i = 0; i < copies; ++i)
        b.copy(
            gpu, 2, T0 + 100 * i, T0 + 100 * i + 10, 0, i % 2 ? CopyKind::DeviceToHost : CopyKind::HostToDevice, 4096);
    return b.finish();
}

CaptureSummary summarizeWithIntervals(const TraceSet &trace, CaptureSummaryOptions o = {})
{
    o.intervalNs = kL;
    return summarizeCapture(trace, o);
}

// The summary of `trace` at a 100 ns gap threshold (the fixtures' idle gaps are 350 ns).
CaptureSummary summarizeAt100ns(const TraceSet &trace, CaptureSummaryOptions o = {})
{
    o.minGapNs = 100;
    return summarizeCapture(trace, o);
}

// The IdleGpu findings of `ranks` ranks (rank 1's steps rank1Tenths/10 long) at a 100 ns threshold.
std::vector<Finding> idleFindings(int ranks, int rank1Tenths, CaptureSummary *summary = nullptr)
{
    const auto c = buildCapture(ranks, rank1Tenths);
    const auto s = summarizeAt100ns(*c.trace);
    std::vector<Finding> idle;
    for (const auto &f : s.findings)
        if (f.kind == FindingKind::IdleGpu)
            idle.push_back(f);
    if (summary)
        *summary = s;
    return idle;
}

std::vector<std::string> textsOf(const std::vector<Finding> &findings)
{
    std::vector<std::string> texts;
    for (const auto &f : findings)
        texts.push_back(f.text);
    return texts;
}

} // namespace

class TestFindings : public QObject
{
    Q_OBJECT
private slots:
    void rowsHoldBusyGapsStepsAndCopiesPerRankAndGpu()
    {
        const auto c = buildCapture();
        const auto s = summarizeAt100ns(*c.trace);
        QCOMPARE(s.stepRange, std::string("train_step"));
        QCOMPARE(s.rows.size(), std::size_t(2));
        for (std::uint32_t r = 0; r < 2; ++r) {
            const auto &row = s.rows[r];
            QCOMPARE(row.rank, r);
            QCOMPARE(row.gpu, r);
            const auto busy = computeGpuBusy(*c.trace, r);
            QCOMPARE(row.busyNs, busy.busyNs);
            QCOMPARE(row.window, busy.window);
            QCOMPARE(row.gapCount, std::uint64_t(5)); // one per step after the first
            QCOMPARE(row.idleNs, TimeNs(5 * 350));
            QCOMPARE(row.steps, std::uint64_t(6));
            QVERIFY(row.medianStepNs);
            QCOMPARE(*row.medianStepNs, r == 0 ? 1000.0 : 1200.0);
            QCOMPARE(*row.medianKernelNsPerStep, r == 0 ? 650.0 : 850.0);
        }
        QCOMPARE(s.rows[0].copies.size(), std::size_t(1));
        QCOMPARE(int(s.rows[0].copies[0].kind), int(CopyKind::HostToDevice));
        QCOMPARE(s.rows[0].copies[0].bytes, std::uint64_t(1 << 20));
        QCOMPARE(s.rows[0].copies[0].totalNs, TimeNs(100));
        QVERIFY(s.rows[1].copies.empty());
    }

    void findingsNameTheIdleCauseStragglerWarmUpAndPageableCopies()
    {
        const auto c = buildCapture();
        const auto s = summarizeAt100ns(*c.trace);
        // Rank 0: busy 650 of 1000 in the median step -> 35% idle, all of it at step start.
        QCOMPARE(findingText(s, FindingKind::IdleGpu),
            QStringLiteral("rank 0 GPU 0 idle 35% of each step; most idle time (100%) is at step start with no "
                           "CUDA call, in data_loading"));
        const Finding *straggler = findKind(s, FindingKind::Straggler);
        QVERIFY(straggler);
        QCOMPARE(straggler->rank, 1u);
        QVERIFY(
            QString::fromStdString(straggler->text).startsWith(QStringLiteral("rank 1 was slowest in 6 of 6 steps")));
        // Iteration medians: (3000 + 3600) / 2 = 3300, then 1100 -> 3x.
        QCOMPARE(findingText(s, FindingKind::WarmUp),
            QStringLiteral("the first step is 3x slower than the median: the capture includes warm-up"));
        QVERIFY(findingText(s, FindingKind::PageableCopies)
                    .startsWith(QStringLiteral("asynchronous copies from pageable memory: 1 calls, 100 ns")));
        QVERIFY(!findKind(s, FindingKind::SingleRank));
        QVERIFY(!findKind(s, FindingKind::NvtxOnly));
        QVERIFY(!findKind(s, FindingKind::NoStraggler));
    }

    void gapsFilledByCopiesReadAsMovingData()
    {
        const auto trace = buildOneRank(/*copies*/ true, /*slowLaunch*/ false);
        const auto s = summarizeAt100ns(*trace);
        // Five gaps of 350 ns, 250 ns of each under a copy: 1250 of 1750 ns = 71%.
        QCOMPARE(findingText(s, FindingKind::IdleGpu),
            QStringLiteral("GPU 0 idle 35% of each step; most idle time (100%) is at step start moving data "
                           "(copies or memsets ran for at least half of each gap), in data_loading; copies or "
                           "memsets ran during 71% of the idle time"));
    }

    void aSlowLaunchIsCalledLaunchBound()
    {
        const auto trace = buildOneRank(/*copies*/ false, /*slowLaunch*/ true);
        const auto s = summarizeAt100ns(*trace);
        QCOMPARE(findingText(s, FindingKind::IdleGpu),
            QStringLiteral("GPU 0 idle 35% of each step; most idle time (100%) is at step start in "
                           "cudaLaunchKernel (launch-bound: the launches themselves were slow), in data_loading"));
        // Without the slow launch the same gaps had no CUDA call at their midpoint.
        const auto plain = summarizeAt100ns(*buildOneRank(false, false));
        QCOMPARE(findingText(plain, FindingKind::IdleGpu),
            QStringLiteral("GPU 0 idle 35% of each step; most idle time (100%) is at step start with no "
                           "CUDA call, in data_loading"));
    }

    void aWindowAfterTheWarmUpDropsTheWarmUpFindingAndItsSteps()
    {
        const auto c = buildCapture();
        CaptureSummaryOptions o;
        // From the end of rank 0's step 1: four steps of each rank start after it.
        o.window = TimeRange { c.steps[0][1].end, c.steps[1][5].end + 10'000 };
        const auto s = summarizeAt100ns(*c.trace, o);
        QVERIFY(!findKind(s, FindingKind::WarmUp));
        QVERIFY(!findKind(s, FindingKind::PageableCopies)); // the copy is in step 1
        QCOMPARE(s.rows[0].steps, std::uint64_t(4));
        QVERIFY(s.rows[0].copies.empty());
        const auto busy = computeGpuBusy(*c.trace, 0, { false, o.window });
        QCOMPARE(s.rows[0].busyNs, busy.busyNs);
    }

    void selectingOneRankLimitsRowsAndSkipsCrossRankFindings()
    {
        const auto c = buildCapture();
        CaptureSummaryOptions o;
        o.ranks = RankSelection::only({ 1 });
        const auto s = summarizeAt100ns(*c.trace, o);
        QCOMPARE(s.rows.size(), std::size_t(1));
        QCOMPARE(s.rows[0].rank, 1u);
        QVERIFY(!findKind(s, FindingKind::Straggler));
        QVERIFY(!findKind(s, FindingKind::PageableCopies)); // rank 0's copy
        QVERIFY(findingText(s, FindingKind::IdleGpu).startsWith(QStringLiteral("rank 1 GPU 1 idle 29% of each step")));
    }

    void gpusWithTheSameIdleStoryShareOneLine()
    {
        // Five ranks: 0, 2, 3, 4 idle 35% of each step (650 of 1000 busy), rank 1 29% (850 of
        // 1200), all at step start with no CUDA call in data_loading: one line, exact ranges.
        CaptureSummary s;
        const auto idle = idleFindings(5, 12, &s);
        QCOMPARE(textsOf(idle),
            std::vector<std::string> { "5 GPUs (ranks 0-4) idle 29-35% of each step; most idle time "
                                       "(100%) is at step start with no CUDA call, in data_loading" });
        QCOMPARE(idle.front().rank, kNoIndex); // a group is no one GPU to jump to
        QVERIFY(findKind(s, FindingKind::Straggler));
    }

    void aGpuFarFromTheGroupKeepsItsOwnLine()
    {
        // Rank 1's steps are twice as long: 1650 of 2000 busy, 18% idle, 17 points from the
        // others' 35%: it is told apart, after the group of the four more idle GPUs.
        QCOMPARE(textsOf(idleFindings(5, 20)),
            (std::vector<std::string> { "4 GPUs (ranks 0, 2-4) idle 35% of each step; most idle time (100%) is at "
                                        "step start with no CUDA call, in data_loading",
                "rank 1 GPU 1 idle 18% of each step; most idle time (100%) is at step start with no CUDA call, in "
                "data_loading" }));
    }

    void twoGpusWithTheSameStoryKeepTheirOwnLines()
    {
        std::vector<std::uint32_t> idleRanks;
        for (const auto &f : idleFindings(2, 10))
            idleRanks.push_back(f.rank);
        QCOMPARE(idleRanks, (std::vector<std::uint32_t> { 0, 1 }));
    }

    void anNvtxOnlySingleRankCaptureSaysSo()
    {
        FixtureBuilder b;
        const auto rank = b.addRank(0);
        const auto thread = b.addThread(rank);
        b.nvtx(thread, 0, 100, "step");
        b.nvtx(thread, 100, 200, "step");
        const auto trace = b.finish();
        const auto s = summarizeCapture(*trace);
        QCOMPARE(s.rows.size(), std::size_t(1));
        QCOMPARE(s.rows[0].gpu, kNoIndex);
        QCOMPARE(s.rows[0].steps, std::uint64_t(2));
        QVERIFY(!s.rows[0].medianKernelNsPerStep);
        QVERIFY(findingText(s, FindingKind::NvtxOnly).startsWith(QStringLiteral("NVTX-only capture: no GPU lanes")));
        QVERIFY(findKind(s, FindingKind::SingleRank));
        QCOMPARE(int(s.findings.front().kind), int(FindingKind::NvtxOnly));
    }

    void idleBeforeTheFirstAndAfterTheLastKernelIsShownAndNamed()
    {
        // Each rank runs one 50 ns kernel inside a capture of 10'000 ns (its CUDA calls and NVTX
        // ranges): busy % over the kernel window is 100, the GPU idles 99.5% of the capture.
        FixtureBuilder b;
        for (int r = 0; r < 3; ++r) {
            const auto rank = b.addRank(r);
            const auto gpu = b.addGpu(rank, 0);
            const auto thread = b.addThread(rank);
            b.nvtx(thread, 1000, 11'000, "ncclCommInitRank");
            b.api(thread, 2000, 2010, "cudaLaunchKernel", 1);
            b.kernel(gpu, 7, 9000 + 100 * r, 9050 + 100 * r, "ncclDevKernel_AllReduce", 1);
        }
        const auto trace = b.finish();
        QCOMPARE(trace->ranks[1].span, (TimeRange { 1000, 11'000 }));
        const auto s = summarizeCapture(*trace);
        QCOMPARE(s.rows.size(), std::size_t(3));
        const auto &row = s.rows[1];
        QCOMPARE(row.busyPercent, 100.0);
        QCOMPARE(row.captureSpan, (TimeRange { 1000, 11'000 }));
        QCOMPARE(row.idleOutside.beforeNs, TimeNs(8100)); // 1000 .. 9100
        QCOMPARE(row.idleOutside.afterNs, TimeNs(1850)); // 9150 .. 11000
        // Three GPUs with the same story: one line.
        QCOMPARE(findingText(s, FindingKind::IdleOutsideKernels),
            QStringLiteral("3 GPUs (ranks 0-2) idle 99% of their capture: their kernels ran within 50 ns of 10.000 us; "
                           "busy % counts only that time"));
        QCOMPARE(std::count_if(s.findings.begin(), s.findings.end(),
                     [](const Finding &f) { return f.kind == FindingKind::IdleOutsideKernels; }),
            std::ptrdiff_t(1));

        // One rank selected: its own line, with the idle time before and after.
        CaptureSummaryOptions one;
        one.ranks = RankSelection::only({ 2 });
        const auto ofOne = summarizeCapture(*trace, one);
        QCOMPARE(findingText(ofOne, FindingKind::IdleOutsideKernels),
            QStringLiteral("rank 2 GPU 0 idle 99% of its 10.000 us capture: its kernels ran within 50 ns of it "
                           "(8.200 us idle before the first kernel, 1.750 us after the last); busy % counts only that "
                           "50 ns"));

        // A window clips the capture: inside [9000, 9400) the GPUs idle 87.5%.
        CaptureSummaryOptions windowed;
        windowed.window = TimeRange { 9000, 9400 };
        const auto w = summarizeCapture(*trace, windowed);
        QCOMPARE(w.rows[0].captureSpan, (TimeRange { 9000, 9400 }));
        QCOMPARE(w.rows[0].idleOutside.afterNs, TimeNs(350));

        QCOMPARE(idleOutsideWindow({ 0, 100 }, {}).beforeNs, TimeNs(100)); // no kernel: all before
        QCOMPARE(idleOutsideWindow({}, { 10, 20 }).totalNs(), TimeNs(0));
    }

    void anNvtxMarkAfterEverythingElseEndsTheCapture()
    {
        // The capture's span, and so the idle time after the last kernel, counts marks too.
        auto [b, rank, gpu, thread] = gaplens::test::oneRankFixture();
        b.nvtx(thread, 1000, 2000, "step");
        b.api(thread, 1100, 1110, "cudaLaunchKernel", 1);
        b.kernel(gpu, 7, 1200, 1300, "k", 1);
        b.mark(thread, 500, "start");
        b.mark(thread, 5000, "checkpoint saved");
        const auto trace = b.finish();
        QCOMPARE(trace->ranks[0].span, (TimeRange { 500, 5000 }));
        QCOMPARE(trace->span, (TimeRange { 500, 5000 }));
        const auto s = summarizeCapture(*trace);
        QCOMPARE(s.rows[0].idleOutside.beforeNs, TimeNs(700)); // 500 .. 1200
        QCOMPARE(s.rows[0].idleOutside.afterNs, TimeNs(3700)); // 1300 .. 5000
    }

    void aShareShortOfAllIsNeverRoundedToAll()
    {
        // nsys-ai's H100 window: copies ran during 99.55% of GPU 0's idle time, and copy gaps
        // hold 99.96% of it. Rounded, both read "100%", which says no idle time is left.
        const auto path = test::realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY2(!path.empty(), "../shared/nsys-real/nsysai_h100_2gpu_1s.sqlite is missing");
        LoadOptions load;
        load.files = { path };
        const auto trace = loadTraceSet(load);
        QVERIFY(trace && trace->errors.empty());
        const auto s = summarizeCapture(*trace);
        QCOMPARE(findingText(s, FindingKind::IdleGpu),
            QStringLiteral("rank 0 GPU 0 idle 98% of the time between its first and last kernel; most idle time (99%) "
                           "is spent moving data (copies or memsets ran for at least half of each gap); copies or "
                           "memsets ran during 99% of the idle time"));
    }

    // The generator's straggler (rank 2) is slowest in every step and starts every AllReduce
    // last: one line names both signals.
    void aStragglerSlowestInStepsAndLastToCollectivesIsOneLine()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(4, 6, 2)));
        const auto trace = gaplens::test::load(sample.synth.files);
        QVERIFY(trace->errors.empty());
        const auto s = summarizeCapture(*trace);
        QCOMPARE(std::count_if(s.findings.begin(), s.findings.end(),
                     [](const Finding &f) { return f.kind == FindingKind::Straggler; }),
            std::ptrdiff_t(1));
        const Finding *straggler = findKind(s, FindingKind::Straggler);
        QCOMPARE(trace->ranks[straggler->rank].rank, 2);
        const auto collectives = findCollectiveStraggler(computeOverlap(*trace));
        QVERIFY(collectives);
        QCOMPARE(collectives->rank, straggler->rank);
        const auto text = QString::fromStdString(straggler->text);
        QVERIFY2(text.startsWith(QStringLiteral("rank 2 was slowest in 6 of 6 steps")), qPrintable(text));
        QVERIFY2(text.endsWith(QString::fromStdString("; it also " + describeCollectiveStraggler(*collectives))),
            qPrintable(text));
    }

    // Without a step range only the collectives can name the straggler, and then "no rank is
    // consistently the slowest" is not said.
    void collectiveSkewAloneNamesTheRankTheOthersWaitedFor()
    {
        FixtureBuilder b;
        for (std::int32_t r = 0; r < 3; ++r) {
            const auto gpu = b.addGpu(b.addRank(r), 0);
            for (TimeNs k = 0; k < 3; ++k) {
                const TimeNs start = T0 + 1000 * k + (r == 1 ? 40 + 10 * k : 0);
                b.kernel(gpu, 7, start, start + 100, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
            }
        }
        const auto trace = b.finish();
        const auto s = summarizeCapture(*trace);
        const Finding *straggler = findKind(s, FindingKind::Straggler);
        QVERIFY(straggler);
        QCOMPARE(straggler->rank, 1u);
        QCOMPARE(QString::fromStdString(straggler->text),
            QStringLiteral(
                "rank 1 started last in 3 of 3 collectives (median skew 50 ns): the other ranks waited for it"));
        QVERIFY(!findKind(s, FindingKind::NoStraggler));
    }

    void aRunOfIntervalsWithAnUnusualKernelSpreadIsNamed()
    {
        const auto trace = spreadCapture();
        const auto s = summarizeWithIntervals(*trace);
        // Stddev 70.71 ns against the median interval's 7.071 ns: 10.0x.
        QCOMPARE(findingText(s, FindingKind::AnomalousIntervals),
            QStringLiteral("rank 0: 12-15 us anomalous (3 intervals of 1 us; kernel duration spread 10.0x the median "
                           "interval)"));
        QCOMPARE(findKind(s, FindingKind::AnomalousIntervals)->rank, 0u);
        QVERIFY(!findKind(s, FindingKind::SimultaneousCopyStalls));
        QVERIFY(!findKind(s, FindingKind::PingPong));
        // A window on intervals 0-9 holds none of them; one on interval 13 holds the run.
        CaptureSummaryOptions early;
        early.window = TimeRange { T0, T0 + 10 * kL };
        QVERIFY(!findKind(summarizeWithIntervals(*trace, early), FindingKind::AnomalousIntervals));
        CaptureSummaryOptions late;
        late.window = TimeRange { T0 + 13 * kL, T0 + 13 * kL + 1 };
        QVERIFY(findKind(summarizeWithIntervals(*trace, late), FindingKind::AnomalousIntervals));
        // Fewer than 8 intervals with a spread: no quartiles to trust, no finding.
        CaptureSummaryOptions coarse;
        coarse.intervalNs = 4 * kL; // 5 intervals
        QVERIFY(!findKind(summarizeCapture(*trace, coarse), FindingKind::AnomalousIntervals));
    }

    void copyStallsOnEveryRankAtOnceAreNamed()
    {
        const auto both = stallCapture(2, { 0, 1 });
        const auto s = summarizeWithIntervals(*both);
        QCOMPARE(findingText(s, FindingKind::SimultaneousCopyStalls),
            QStringLiteral(
                "simultaneous copy stalls on both ranks at 6-7 us (copies starting in it ran 300 ns on each rank)"));
        QVERIFY(!findKind(s, FindingKind::AnomalousIntervals)); // one kernel per interval: no spread

        // Three ranks, the third without the stall: not on all ranks; ranks 0 and 1 selected: yes.
        const auto three = stallCapture(3, { 0, 1 });
        QVERIFY(!findKind(summarizeWithIntervals(*three), FindingKind::SimultaneousCopyStalls));
        CaptureSummaryOptions two;
        two.ranks = RankSelection::only({ 0, 1 });
        QVERIFY(findKind(summarizeWithIntervals(*three, two), FindingKind::SimultaneousCopyStalls));
        const auto all = stallCapture(3, { 0, 1, 2 });
        QCOMPARE(
            QString::fromStdString(findKind(summarizeWithIntervals(*all), FindingKind::SimultaneousCopyStalls)->text),
            QStringLiteral(
                "simultaneous copy stalls on all 3 ranks at 6-7 us (copies starting in it ran 300 ns on each rank)"));
        // Two intervals are listed with the copy time per interval and rank.
        const auto twice = stallCapture(2, { 0, 1 }, { 6, 8 });
        QCOMPARE(
            QString::fromStdString(findKind(summarizeWithIntervals(*twice), FindingKind::SimultaneousCopyStalls)->text),
            QStringLiteral("simultaneous copy stalls on both ranks in 2 intervals of 1 us, at 6 and 8 us (copies "
                           "starting in them ran 300 ns per interval and rank)"));
        // Different copy times: the lowest and the highest.
        const auto uneven = stallCapture(2, { 0, 1 }, { 6 }, 150);
        QCOMPARE(QString::fromStdString(
                     findKind(summarizeWithIntervals(*uneven), FindingKind::SimultaneousCopyStalls)->text),
            QStringLiteral(
                "simultaneous copy stalls on both ranks at 6-7 us (copies starting in it ran 300 ns to 450 ns "
                "on each rank)"));
        // One rank alone has nothing to be simultaneous with.
        CaptureSummaryOptions one;
        one.ranks = RankSelection::only({ 0 });
        QVERIFY(!findKind(summarizeWithIntervals(*both, one), FindingKind::SimultaneousCopyStalls));
    }

    void alternatingHtoDAndDtoHCopiesAreCalledPingPong()
    {
        const auto trace = pingPongCapture(20);
        const auto s = summarizeWithIntervals(*trace);
        QCOMPARE(findingText(s, FindingKind::PingPong),
            QStringLiteral("HtoD/DtoH ping-pong on rank 0: 20 of its 20 HtoD and DtoH copies alternate direction in "
                           "runs of 4 or more (median 4.0 KiB): batch them"));
        QCOMPARE(findKind(s, FindingKind::PingPong)->rank, 0u);
        // 15 copies are too few to call a pattern; so are the first 10 of 20 in a window.
        QVERIFY(!findKind(summarizeWithIntervals(*pingPongCapture(15)), FindingKind::PingPong));
        CaptureSummaryOptions window;
        window.window = TimeRange { T0, T0 + 1000 };
        QVERIFY(!findKind(summarizeWithIntervals(*trace, window), FindingKind::PingPong));
        CaptureSummaryOptions most;
        most.window = TimeRange { T0, T0 + 1700 }; // copies 0-16
        QCOMPARE(QString::fromStdString(findKind(summarizeWithIntervals(*trace, most), FindingKind::PingPong)->text),
            QStringLiteral("HtoD/DtoH ping-pong on rank 0: 17 of its 17 HtoD and DtoH copies alternate direction in "
                           "runs of 4 or more (median 4.0 KiB): batch them"));
    }

    void ratiosReadAsMultiples()
    {
        QCOMPARE(formatRatio(3.2), std::string("3x"));
        QCOMPARE(formatRatio(1.84), std::string("1.8x"));
    }
};

QTEST_APPLESS_MAIN(TestFindings)
#include "tst_findings.moc"
