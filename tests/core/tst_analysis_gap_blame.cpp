// SPDX-License-Identifier: MIT
// Gap blame: one fixture per rule. The GPU is idle in [1000, 2000) (midpoint 1500) between
// kernel A [0, 1000) and kernel B [2000, 2100) unless a test says otherwise.
#include "blame_compare.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/synth.h"
#include "synth_sample.h"
#include "trace_fixture.h"

#include <QTemporaryDir>
#include <QTest>

#include <numeric>

using namespace gaplens::core;
using namespace gaplens::test;

namespace {

constexpr std::uint32_t kCorrB = 2;

// Rank 0 (pid 1000) with GPU 0 running A then B; B has correlation id `corrB`.
struct GapFixture
{
    FixtureBuilder b;
    std::uint32_t rank = b.addRank(0);
    GpuRef gpu = b.addGpu(rank, 0);
    GapFixture(std::uint32_t corrB = kCorrB)
    {
        b.kernel(gpu, 1, T0 + 0, T0 + 1000, "A", 1);
        b.kernel(gpu, 1, T0 + 2000, T0 + 2100, "B", corrB);
    }
};

// Rank 0 (pid 1000) with GPU 0, nothing on it yet.
struct RankWithGpu
{
    FixtureBuilder b;
    std::uint32_t rank = b.addRank(0);
    GpuRef gpu = b.addGpu(rank, 0);
};

// Kernels "k" on stream 1 of `gpu` at (start, end) from T0, with correlation ids 1, 2, ... in order.
void kernelsK(FixtureBuilder &b, GpuRef gpu, std::initializer_list<std::pair<TimeNs, TimeNs>> ranges)
{
    std::uint32_t correlationId = 0;
    for (const auto &[start, end] : ranges)
        b.kernel(gpu, 1, T0 + start, T0 + end, "k", ++correlationId);
}

GapBlame blameOnlyGap(const TraceSet &trace)
{
    const auto report = blameGaps(trace, { .minGapNs = 100 });
    if (report.gaps.size() != 1)
        qFatal("expected exactly one gap, got %d", int(report.gaps.size()));
    return report.gaps.front();
}

std::vector<std::string> names(const TraceSet &trace, const std::vector<StringId> &ids)
{
    std::vector<std::string> out;
    for (auto id : ids)
        out.push_back(trace.str(id));
    return out;
}

} // namespace

class TestAnalysisGapBlame : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    SynthResult m_synth;
    std::shared_ptr<TraceSet> m_capture; // a generated training job: nested calls and NVTX levels

    static constexpr TimeNs k100us = 100'000;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto options = gaplens::test::eightyFourStepJob();
        options.scaleRuntimePerRank = 2000;
        options.scaleNvtxPerRank = 4000;
        m_synth = writeSyntheticCapture(m_dir.path().toStdString(), options);
        LoadOptions load;
        load.files = m_synth.files;
        m_capture = loadTraceSet(load);
        QVERIFY(m_capture && m_capture->errors.empty());
        QCOMPARE(m_capture->gpus.size(), std::size_t(2));
    }

    void launchThatEndedBeforeTheGapMeansQueuedDependencyWait()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 500, T0 + 600, "cudaLaunchKernel", kCorrB);
        f.b.api(t, T0 + 1100, T0 + 1900, "cudaStreamSynchronize"); // irrelevant: work was queued
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.gap, (TimeRange { T0 + 1000, T0 + 2000 }));
        QCOMPARE(g.midpoint, T0 + 1500);
        QCOMPARE(g.endKind, GapEndKind::Kernel);
        QCOMPARE(g.endCorrelationId, kCorrB);
        QCOMPARE(g.launchThread, t);
        QCOMPARE(g.cause, GapCause::QueuedDependencyWait);
        QCOMPARE(gapCauseLabel(g.cause), std::string_view("queued (dependency wait)"));
        QCOMPARE(g.rank, f.rank);
    }

    void launchEndingExactlyAtTheGapStartIsStillQueued()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 900, T0 + 1000, "cudaLaunchKernel", kCorrB);
        const auto trace = f.b.finish();
        QCOMPARE(blameOnlyGap(*trace).cause, GapCause::QueuedDependencyWait);
    }

    void apiCallInProgressAtTheMidpointIsNamed()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 1100, T0 + 1700, "cudaStreamSynchronize");
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.cause, GapCause::ApiCall);
        QCOMPARE(g.apiThread, t);
        QCOMPARE(trace->str(g.apiName), std::string("cudaStreamSynchronize"));
        QCOMPARE(g.launchCall, 1u); // the launch is the second call by start
    }

    void outermostRuntimeCallIsNamedNotTheDriverCallInsideIt()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 1100, T0 + 1700, "cudaStreamSynchronize");
        f.b.api(t, T0 + 1150, T0 + 1650, "cuStreamSynchronize");
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.cause, GapCause::ApiCall);
        QCOMPARE(trace->str(g.apiName), std::string("cudaStreamSynchronize"));
    }

    void noCallAtTheMidpointMeansHostBusyElsewhere()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 1100, T0 + 1400, "cudaMemcpyAsync"); // ends before the midpoint
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        const auto other = f.b.addThread(f.rank, 1234); // another thread's call does not count
        f.b.api(other, T0 + 1000, T0 + 2000, "cudaEventSynchronize");
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.cause, GapCause::NoCudaCall);
        QCOMPARE(gapCauseLabel(g.cause), std::string_view("no CUDA call (host busy elsewhere)"));
        QCOMPARE(g.apiName, kEmptyString);
        QCOMPARE(g.launchThread, t);
    }

    void unknownLaunchBlamesTheEarliestCallOfTheSameProcess()
    {
        GapFixture f(/*corrB*/ 99); // no call has correlation id 99
        const auto t1 = f.b.addThread(f.rank, 1001);
        const auto t2 = f.b.addThread(f.rank, 1002);
        f.b.api(t1, T0 + 1200, T0 + 1600, "cudaMemcpy");
        f.b.api(t2, T0 + 1100, T0 + 1700, "cudaDeviceSynchronize"); // started first: wins
        f.b.nvtx(t2, T0 + 1000, T0 + 1800, "allreduce");
        // Another process of the same report, with an even earlier call: ignored.
        const auto r1 = f.b.addRank(1, /*report*/ 0, /*pid*/ 2000);
        const auto foreign = f.b.addThread(r1);
        f.b.api(foreign, T0 + 900, T0 + 1900, "cudaStreamSynchronize");
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.launchThread, kNoIndex);
        QCOMPARE(g.cause, GapCause::ApiCall);
        QCOMPARE(g.apiThread, t2);
        QCOMPARE(trace->str(g.apiName), std::string("cudaDeviceSynchronize"));
        QCOMPARE(g.phaseThread, t2); // phase from the thread of the call found
        QCOMPARE(names(*trace, g.phaseStack), (std::vector<std::string> { "allreduce" }));
    }

    void unknownLaunchAndNoCallMeansNoCudaCallWithTheMainThreadPhase()
    {
        GapFixture f(/*corrB*/ 99);
        const auto worker = f.b.addThread(f.rank, 1001);
        const auto main = f.b.addThread(f.rank); // tid == pid
        f.b.api(worker, T0 + 100, T0 + 200, "cudaMalloc");
        f.b.nvtx(worker, T0 + 1000, T0 + 2000, "worker_phase");
        f.b.nvtx(main, T0 + 1400, T0 + 1600, "dataloader");
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.cause, GapCause::NoCudaCall);
        QCOMPARE(g.apiThread, kNoIndex);
        QCOMPARE(g.phaseThread, main);
        QCOMPARE(trace->str(g.phase()), std::string("dataloader"));
    }

    void phaseIsTheInnermostNvtxRangeWithItsStack()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        f.b.nvtx(t, T0 + 0, T0 + 3000, "train_step");
        f.b.nvtx(t, T0 + 100, T0 + 200, "data"); // closed before the midpoint
        f.b.nvtx(t, T0 + 1200, T0 + 1600, "forward");
        f.b.nvtx(t, T0 + 1300, T0 + 1550, "attention");
        f.b.nvtx(t, T0 + 1510, T0 + 1520, "after_midpoint"); // opens after the midpoint
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.phaseThread, t);
        QCOMPARE(names(*trace, g.phaseStack), (std::vector<std::string> { "train_step", "forward", "attention" }));
        QCOMPARE(trace->str(g.phase()), std::string("attention"));
        QCOMPARE(g.phaseRanges.size(), std::size_t(3));
    }

    void copyEndsTheGapOnlyWhenCopiesAreIncluded()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.copy(f.gpu, 3, T0 + 1500, T0 + 1600, /*corr*/ 5);
        f.b.api(t, T0 + 1200, T0 + 1450, "cudaMemcpyAsync", 5); // spans the copy gap's midpoint 1250
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        const auto trace = f.b.finish();

        const auto withCopies = blameGaps(*trace, { .minGapNs = 100, .includeCopies = true });
        QCOMPARE(withCopies.gaps.size(), std::size_t(2)); // [1000,1500) and [1600,2000)
        QCOMPARE(withCopies.gaps[0].gap, (TimeRange { T0 + 1000, T0 + 1500 }));
        QCOMPARE(withCopies.gaps[0].endKind, GapEndKind::Copy);
        QCOMPARE(withCopies.gaps[0].endCorrelationId, 5u);
        QCOMPARE(withCopies.gaps[0].cause, GapCause::ApiCall);
        QCOMPARE(trace->str(withCopies.gaps[0].apiName), std::string("cudaMemcpyAsync"));
        QCOMPARE(withCopies.gaps[1].endKind, GapEndKind::Kernel);

        const auto kernelsOnly = blameGaps(*trace, { .minGapNs = 100 });
        QCOMPARE(kernelsOnly.gaps.size(), std::size_t(1));
        QCOMPARE(kernelsOnly.gaps[0].endKind, GapEndKind::Kernel);
    }

    void totalsGroupByCauseAndPhasePerGpuPerRankAndOverall()
    {
        auto [b, r0, g0] = RankWithGpu();
        // Gaps on GPU 0 (threshold 100): [100,300) 200, [400,1000) 600, [1100,1300) 200.
        kernelsK(b, g0, { { 0, 100 }, { 300, 400 }, { 1000, 1100 }, { 1300, 1400 } });
        const auto t = b.addThread(r0);
        b.api(t, T0 + 50, T0 + 60, "cudaLaunchKernel", 2); // gap 1: queued
        b.api(t, T0 + 420, T0 + 880, "cudaStreamSynchronize"); // gap 2: midpoint 700
        b.api(t, T0 + 900, T0 + 950, "cudaLaunchKernel", 3);
        b.api(t, T0 + 1150, T0 + 1240, "cudaStreamSynchronize"); // gap 3: midpoint 1200
        b.api(t, T0 + 1250, T0 + 1260, "cudaLaunchKernel", 4);
        b.nvtx(t, T0 + 0, T0 + 1500, "step");
        b.nvtx(t, T0 + 350, T0 + 1000, "backward");
        // Rank 1: one gap [100,500) of 400, no CPU threads at all.
        const auto r1 = b.addRank(1);
        const auto g1 = b.addGpu(r1, 0);
        kernelsK(b, g1, { { 0, 100 }, { 500, 600 } });
        const auto trace = b.finish();

        const auto report = blameGaps(*trace, { .minGapNs = 100 });
        QCOMPARE(report.gaps.size(), std::size_t(4));
        QCOMPARE(report.gaps[0].cause, GapCause::QueuedDependencyWait);
        QCOMPARE(report.gaps[1].cause, GapCause::ApiCall);
        QCOMPARE(report.gaps[2].cause, GapCause::ApiCall);
        QCOMPARE(report.gaps[3].cause, GapCause::NoCudaCall);

        const auto &all = report.overall;
        QCOMPARE(all.gapCount, std::uint64_t(4));
        QCOMPARE(all.totalGapNs, TimeNs(1400));
        QCOMPARE(bucketKeys(all.byCause),
            (std::vector<std::string> {
                "cudaStreamSynchronize", "no CUDA call (host busy elsewhere)", "queued (dependency wait)" }));
        QCOMPARE(bucketTotals(all.byCause), (std::vector<TimeNs> { 800, 400, 200 }));
        QCOMPARE(all.byCause[0].count, std::uint64_t(2));
        QCOMPARE(all.byCause[0].longestNs, TimeNs(600));
        QCOMPARE(all.byCause[2].cause, GapCause::QueuedDependencyWait);

        // 400 each: ties ordered by key, "(none)" before "step".
        QCOMPARE(bucketKeys(all.byPhase), (std::vector<std::string> { "backward", "(none)", "step" }));
        QCOMPARE(bucketTotals(all.byPhase), (std::vector<TimeNs> { 600, 400, 400 }));
        QCOMPARE(all.byPhase[2].count, std::uint64_t(2));
        QCOMPARE(all.byPhase[2].longestNs, TimeNs(200));

        QCOMPARE(report.perGpu.size(), std::size_t(2));
        QCOMPARE(report.perGpu[0].gpu, 0u);
        QCOMPARE(report.perGpu[0].totals.totalGapNs, TimeNs(1000));
        QCOMPARE(report.perGpu[1].totals.byCause.size(), std::size_t(1));
        QCOMPARE(report.perRank.size(), std::size_t(2));
        QCOMPARE(report.perRank[0].rank, r0);
        QCOMPARE(report.perRank[0].totals.gapCount, std::uint64_t(3));
        QCOMPARE(report.perRank[1].rank, r1);
        QCOMPARE(report.perRank[1].totals.byPhase[0].key, std::string("(none)"));

        // Restricting to GPU 1 leaves only its gap.
        const auto onlyGpu1 = blameGaps(*trace, { .minGapNs = 100, .gpus = { 1 } });
        QCOMPARE(onlyGpu1.overall.gapCount, std::uint64_t(1));
        QCOMPARE(onlyGpu1.overall.totalGapNs, TimeNs(400));
    }

    void causeAndPhaseBucketsWithTheSameKeyAreOneRow()
    {
        // Totals are keyed by their text: an API call named like a cause label shares that
        // label's row, an NVTX range named "(none)" shares the no-phase row; the row keeps the
        // cause and name of the gap seen first.
        auto [b, r, g] = RankWithGpu();
        // Gaps (threshold 100): [100,300) 200, [400,1000) 600, [1100,1400) 300.
        kernelsK(b, g, { { 0, 100 }, { 300, 400 }, { 1000, 1100 }, { 1400, 1500 } });
        const auto t = b.addThread(r);
        b.api(t, T0 + 250, T0 + 260, "cudaLaunchKernel", 2);
        b.api(t, T0 + 950, T0 + 960, "cudaLaunchKernel", 3);
        b.api(t, T0 + 1200, T0 + 1300, "no CUDA call (host busy elsewhere)"); // gap 3: midpoint 1250
        b.api(t, T0 + 1310, T0 + 1320, "cudaLaunchKernel", 4);
        b.nvtx(t, T0 + 150, T0 + 250, "(none)"); // gap 1: midpoint 200
        b.nvtx(t, T0 + 1000, T0 + 1500, "step"); // gap 3
        const auto trace = b.finish();

        const auto report = blameGaps(*trace, { .minGapNs = 100 });
        QCOMPARE(report.gaps.size(), std::size_t(3));
        QCOMPARE(report.gaps[1].cause, GapCause::NoCudaCall);
        QCOMPARE(report.gaps[2].cause, GapCause::ApiCall);
        const auto &all = report.overall;
        QCOMPARE(all.byCause.size(), std::size_t(1));
        QCOMPARE(all.byCause[0].key, std::string("no CUDA call (host busy elsewhere)"));
        QCOMPARE(all.byCause[0].cause, GapCause::NoCudaCall); // gap 1 came first
        QCOMPARE(all.byCause[0].name, kEmptyString);
        QCOMPARE(all.byCause[0].count, std::uint64_t(3));
        QCOMPARE(all.byCause[0].totalNs, TimeNs(1100));
        QCOMPARE(all.byCause[0].longestNs, TimeNs(600));

        QCOMPARE(all.byPhase.size(), std::size_t(2));
        QCOMPARE(all.byPhase[0].key, std::string("(none)"));
        QCOMPARE(all.byPhase[0].name, trace->strings.find("(none)")); // gap 1's range came first
        QCOMPARE(all.byPhase[0].count, std::uint64_t(2));
        QCOMPARE(all.byPhase[0].totalNs, TimeNs(800));
        QCOMPARE(all.byPhase[0].longestNs, TimeNs(600));
        QCOMPARE(all.byPhase[1].key, std::string("step"));
        QCOMPARE(all.byPhase[1].totalNs, TimeNs(300));
    }

    void gapsAreTheHolesOfTheBusyUnion()
    {
        // blameGaps finds the gaps without computeGpuBusy's vectors; they must be its gaps.
        const auto &trace = *m_capture;
        std::uint64_t holesAtLeast100us = 0;
        for (const auto &truth : m_synth.ranks)
            holesAtLeast100us += truth.idleGapsAtLeast100us;
        const auto report = blameGaps(trace, { .minGapNs = k100us, .includeCopies = true });
        QCOMPARE(report.gaps.size(), std::size_t(holesAtLeast100us));
        QCOMPARE(report.gaps.size(), std::size_t(166));

        const TimeNs third = trace.span.duration() / 3;
        const TimeWindow windows[] = { std::nullopt, TimeRange { trace.span.start + third, trace.span.end - third } };
        for (const TimeWindow &window : windows)
            for (const bool copies : { false, true })
                for (const TimeNs minGap : { TimeNs(1), k100us }) {
                    const auto blamed
                        = blameGaps(trace, { .minGapNs = minGap, .includeCopies = copies, .window = window });
                    std::size_t next = 0;
                    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
                        const auto holes = findIdleGaps(computeGpuBusy(trace, g, { copies, window }), minGap);
                        QVERIFY(holes.count() > 0);
                        for (const auto &hole : holes.gaps) {
                            QVERIFY(next < blamed.gaps.size());
                            QCOMPARE(blamed.gaps[next].gpu, g);
                            QCOMPARE(blamed.gaps[next].gap, hole);
                            ++next;
                        }
                        QCOMPARE(blamed.perGpu[g].totals.totalGapNs, holes.totalNs);
                    }
                    QCOMPARE(next, blamed.gaps.size());
                }
    }

    void searchCursorGivesThePlainAnswerInAnyOrder()
    {
        const auto &trace = *m_capture;
        // The real gaps, then a range ending at every kernel and copy start with lengths from
        // 2 us to 2 ms, so midpoints land inside launches, syncs and every NVTX depth.
        struct Query
        {
            std::uint32_t gpu;
            TimeRange gap;
        };
        std::vector<Query> queries;
        for (const auto &g : blameGaps(trace, { .minGapNs = 1, .includeCopies = true }).gaps)
            queries.push_back({ g.gpu, g.gap });
        QCOMPARE(queries.size(), std::size_t(166));
        std::uint64_t events = 0;
        const TimeNs lengths[] = { 2'000, 20'000, 200'000, 2'000'000 };
        for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
            std::vector<TimeNs> starts = trace.gpus[g].copies.start;
            for (const auto &stream : trace.gpus[g].streams)
                starts.insert(starts.end(), stream.kernels.start.begin(), stream.kernels.start.end());
            events += starts.size();
            std::sort(starts.begin(), starts.end());
            for (std::size_t i = 0; i < starts.size(); ++i)
                queries.push_back({ g, { starts[i] - lengths[i % 4], starts[i] } });
        }
        std::uint64_t expectedEvents = 0;
        for (const auto &truth : m_synth.ranks)
            expectedEvents += truth.kernels + truth.memcpys + truth.memsets;
        QCOMPARE(events, expectedEvents);

        const GapBlamer blamer(trace);
        std::vector<GapBlame> plain;
        for (const auto &q : queries)
            plain.push_back(blamer.blame(q.gpu, q.gap, true));
        // The capture exercises every search: each cause, copies ending gaps, deep NVTX stacks.
        const auto count = [&](auto predicate) { return std::count_if(plain.begin(), plain.end(), predicate); };
        QVERIFY(count([](const GapBlame &g) { return g.cause == GapCause::QueuedDependencyWait; }) > 0);
        QVERIFY(count([](const GapBlame &g) { return g.cause == GapCause::ApiCall; }) > 0);
        QVERIFY(count([](const GapBlame &g) { return g.cause == GapCause::NoCudaCall; }) > 0);
        QVERIFY(count([](const GapBlame &g) { return g.endKind == GapEndKind::Copy; }) > 0);
        QVERIFY(count([](const GapBlame &g) { return g.phaseStack.size() >= 3; }) > 0);

        std::vector<std::size_t> forward(queries.size());
        std::iota(forward.begin(), forward.end(), 0);
        std::vector<std::size_t> backward(forward.rbegin(), forward.rend());
        // Jumps back and forth across both GPUs: 997 is prime and does not divide the count,
        // so i * 997 mod n visits every query once.
        QVERIFY(queries.size() % 997 != 0);
        std::vector<std::size_t> scattered(queries.size());
        for (std::size_t i = 0; i < queries.size(); ++i)
            scattered[i] = i * 997 % queries.size();
        for (const auto *order : { &forward, &backward, &scattered }) {
            GapBlamer::SearchCursor cursor; // a fresh one per order
            for (const auto i : *order) {
                compareGaps(blamer.blame(queries[i].gpu, queries[i].gap, true, cursor), plain[i]);
                if (QTest::currentTestFailed())
                    QFAIL(qPrintable(QStringLiteral("query %1 differs").arg(i)));
            }
        }
        // blameGaps blames with a cursor: its gaps are the plain answers.
        const auto report = blameGaps(trace, { .minGapNs = 1, .includeCopies = true });
        for (std::size_t i = 0; i < report.gaps.size(); ++i)
            compareGaps(report.gaps[i], plain[i]);
        // A range where nothing starts at its end is no gap, with or without a cursor.
        GapBlamer::SearchCursor cursor;
        const TimeRange notAGap { queries[5].gap.start, queries[5].gap.end - 1 };
        QCOMPARE(blamer.blame(queries[5].gpu, notAGap, true, cursor).endKind, GapEndKind::Unknown);
        QCOMPARE(blamer.blame(queries[5].gpu, notAGap, true).endKind, GapEndKind::Unknown);
    }

    void timeWindowLimitsTheGapsBlamed()
    {
        GapFixture f;
        f.b.kernel(f.gpu, 1, T0 + 3000, T0 + 3100, "C", 3); // second gap [2100, 3000)
        const auto trace = f.b.finish();
        QCOMPARE(blameGaps(*trace, { .minGapNs = 100 }).gaps.size(), std::size_t(2));
        const auto windowed = blameGaps(*trace, { .minGapNs = 100, .window = TimeRange { T0 + 1500, T0 + 3050 } });
        QCOMPARE(windowed.gaps.size(), std::size_t(1));
        QCOMPARE(windowed.gaps[0].gap, (TimeRange { T0 + 2100, T0 + 3000 }));
    }
};

QTEST_APPLESS_MAIN(TestAnalysisGapBlame)
#include "tst_analysis_gap_blame.moc"
