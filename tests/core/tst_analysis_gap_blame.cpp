// SPDX-License-Identifier: MIT
// Gap blame: one fixture per rule. The GPU is idle in [1000, 2000) (midpoint 1500) between
// kernel A [0, 1000) and kernel B [2000, 2100) unless a test says otherwise.
#include "blame_compare.h"
#include "gap_islands_sql.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/synth.h"
#include "sqltestdb.h"
#include "synth_sample.h"
#include "testsupport.h"
#include "trace_fixture.h"

#include <QTemporaryDir>
#include <QTest>
#include <fmt/format.h>

#include <map>
#include <numeric>
#include <tuple>

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
            std::vector<TimeNs> starts(trace.gpus[g].copies.start.begin(), trace.gpus[g].copies.start.end());
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

    // Copy coverage: the union of the GPU's copies and memsets clipped to the gap [1000, 2000).
    void copyCoverageIsTheUnionOfCopiesClippedToTheGap()
    {
        struct Case
        {
            const char *what;
            std::vector<std::tuple<TimeNs, TimeNs, CopyKind>> copies; // from T0
            TimeNs copyNs;
            GapCause cause;
        };
        const Case cases[] = {
            { "none", {}, 0, GapCause::ApiCall },
            { "partial, clipped at the gap start", { { 800, 1300, CopyKind::HostToDevice } }, 300, GapCause::ApiCall },
            { "one ns under half", { { 1500, 1999, CopyKind::DeviceToHost } }, 499, GapCause::ApiCall },
            { "exactly half", { { 1500, 2000, CopyKind::DeviceToHost } }, 500, GapCause::Copy },
            { "full, clipped both sides", { { 500, 2500, CopyKind::DeviceToDevice } }, 1000, GapCause::Copy },
            { "two overlapping: the union, not the sum",
                { { 1100, 1400, CopyKind::HostToDevice }, { 1300, 1700, CopyKind::DeviceToHost },
                    { 1800, 1850, CopyKind::HostToDevice } },
                650, GapCause::Copy },
            { "a memset", { { 1200, 1800, CopyKind::Memset } }, 600, GapCause::Copy },
            { "outside the gap", { { 100, 900, CopyKind::HostToDevice }, { 2000, 2050, CopyKind::Memset } }, 0,
                GapCause::ApiCall },
        };
        for (const auto &c : cases) {
            GapFixture f;
            const auto t = f.b.addThread(f.rank);
            f.b.api(t, T0 + 1100, T0 + 1700, "cudaStreamSynchronize");
            f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
            std::uint32_t corr = 100;
            for (const auto &[start, end, kind] : c.copies)
                f.b.copy(f.gpu, 7, T0 + start, T0 + end, ++corr, kind);
            const auto trace = f.b.finish();
            const auto g = blameOnlyGap(*trace);
            QVERIFY2(g.copyNs == c.copyNs, c.what);
            QVERIFY2(g.cause == c.cause, c.what);
            // The host's call is still known; its kind is told only for an ApiCall gap.
            QVERIFY2(trace->str(g.apiName) == "cudaStreamSynchronize", c.what);
            QVERIFY2(g.apiKind == (c.cause == GapCause::ApiCall ? ApiKind::Sync : ApiKind::None), c.what);

            // With copies counted as busy, no copy runs inside a gap and none is a Copy gap.
            for (const auto &withCopies : blameGaps(*trace, { .minGapNs = 100, .includeCopies = true }).gaps) {
                QCOMPARE(withCopies.copyNs, TimeNs(0));
                QVERIFY(withCopies.cause != GapCause::Copy);
            }

            // Totals keep copy time apart: all of it, and the Copy gaps' own time.
            const auto totals = totalBlame(*trace, { g });
            QCOMPARE(totals.totalGapNs, TimeNs(1000));
            QCOMPARE(totals.copyNs, c.copyNs);
            QCOMPARE(totals.copyCauseNs, c.cause == GapCause::Copy ? TimeNs(1000) : TimeNs(0));
            QCOMPARE(totals.byCause.size(), std::size_t(1));
            QCOMPARE(totals.byCause[0].copyNs, c.copyNs);
            QCOMPARE(totals.byPhase[0].copyNs, c.copyNs);
            QCOMPARE(totals.byCause[0].key,
                std::string(c.cause == GapCause::Copy ? "copy (GPU moving data)" : "cudaStreamSynchronize"));
        }
        QCOMPARE(gapCauseLabel(GapCause::Copy), std::string_view("copy (GPU moving data)"));
    }

    void copiesOfAnotherGpuDoNotCover()
    {
        GapFixture f;
        const auto other = f.b.addGpu(f.rank, 1);
        f.b.kernel(other, 1, T0 + 0, T0 + 3000, "busy");
        f.b.copy(other, 7, T0 + 1000, T0 + 2000);
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.gpu, f.gpu.gpu);
        QCOMPARE(g.copyNs, TimeNs(0));
        QCOMPARE(g.cause, GapCause::NoCudaCall);
    }

    void launchTidIsTheLaunchingThreadsOsId()
    {
        GapFixture f;
        const auto main = f.b.addThread(f.rank);
        const auto worker = f.b.addThread(f.rank, 4242);
        f.b.api(main, T0 + 1100, T0 + 1900, "cudaStreamSynchronize");
        f.b.api(worker, T0 + 500, T0 + 600, "cudaLaunchKernel", kCorrB);
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.launchThread, worker);
        QCOMPARE(g.launchTid, 4242u);
        QCOMPARE(g.cause, GapCause::QueuedDependencyWait);
        QCOMPARE(g.apiKind, ApiKind::None);

        // No launch with that correlation id: 0, although a thread was in a call.
        GapFixture unknown(/*corrB*/ 77);
        const auto t = unknown.b.addThread(unknown.rank, 5151);
        unknown.b.api(t, T0 + 1100, T0 + 1900, "cudaStreamSynchronize");
        const auto trace2 = unknown.b.finish();
        const auto u = blameOnlyGap(*trace2);
        QCOMPARE(u.launchThread, kNoIndex);
        QCOMPARE(u.launchTid, 0u);
        QCOMPARE(u.cause, GapCause::ApiCall);
        QCOMPARE(u.apiKind, ApiKind::Sync);
    }

    void apiKindOfEachCall_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("kind");
        const std::pair<const char *, ApiKind> rows[] = {
            { "cudaStreamSynchronize", ApiKind::Sync },
            { "cudaDeviceSynchronize", ApiKind::Sync },
            { "cudaEventSynchronize", ApiKind::Sync },
            { "cuStreamSynchronize", ApiKind::Sync },
            { "cuCtxSynchronize", ApiKind::Sync },
            { "cudaMemcpy", ApiKind::Sync },
            { "cudaMemcpy2D", ApiKind::Sync },
            { "cuMemcpyDtoH_v2", ApiKind::Sync },
            { "cudaLaunchKernel", ApiKind::Launch },
            { "cudaLaunchKernelExC", ApiKind::Launch },
            { "cuLaunchKernel", ApiKind::Launch },
            { "cudaGraphLaunch", ApiKind::Launch },
            { "cudaMemcpyAsync", ApiKind::Memory },
            { "cuMemcpyHtoDAsync_v2", ApiKind::Memory },
            { "cudaMemsetAsync", ApiKind::Memory },
            { "cudaMemset", ApiKind::Memory },
            { "cudaMalloc", ApiKind::Alloc },
            { "cudaFree", ApiKind::Alloc },
            { "cudaMallocHost", ApiKind::Alloc },
            { "cudaHostAlloc", ApiKind::Alloc },
            { "cudaFreeHost", ApiKind::Alloc },
            { "cudaHostRegister", ApiKind::Alloc },
            { "cudaHostUnregister", ApiKind::Alloc },
            { "cuMemAlloc_v2", ApiKind::Alloc },
            { "cuMemAllocManaged", ApiKind::Alloc },
            { "cudaStreamWaitEvent", ApiKind::Other },
            { "cudaEventRecordWithFlags", ApiKind::Other },
            { "cudaStreamIsCapturing", ApiKind::Other },
            { "cuModuleLoadDataEx", ApiKind::Other },
            { "ncclAllReduce", ApiKind::Other },
        };
        for (const auto &[name, kind] : rows)
            QTest::newRow(name) << QString::fromLatin1(name) << int(kind);
    }

    void apiKindOfEachCall()
    {
        QFETCH(QString, name);
        QFETCH(int, kind);
        QCOMPARE(int(apiKindOf(name.toStdString())), kind);
        // And through a blamed gap: the call in progress at the midpoint.
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 1100, T0 + 1700, name.toStdString());
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.cause, GapCause::ApiCall);
        QCOMPARE(int(g.apiKind), kind);
    }

    void apiKindIdsAreTheJsonNames()
    {
        QCOMPARE(apiKindId(ApiKind::None), std::string_view(""));
        QCOMPARE(apiKindId(ApiKind::Sync), std::string_view("sync"));
        QCOMPARE(apiKindId(ApiKind::Launch), std::string_view("launch"));
        QCOMPARE(apiKindId(ApiKind::Memory), std::string_view("memory"));
        QCOMPARE(apiKindId(ApiKind::Alloc), std::string_view("alloc"));
        QCOMPARE(apiKindId(ApiKind::Other), std::string_view("other"));
    }

    // OS runtime calls: the category of each name, by the one table (osCategoryOf).
    void osCategoryOfEachCall_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("category");
        const std::pair<const char *, OsCategory> rows[] = {
            { "pthread_cond_wait", OsCategory::Wait },
            { "pthread_cond_timedwait", OsCategory::Wait },
            { "pthread_cond_clockwait", OsCategory::Wait },
            { "pthread_mutex_lock", OsCategory::Wait },
            { "pthread_mutex_timedlock", OsCategory::Wait },
            { "pthread_rwlock_rdlock", OsCategory::Wait },
            { "pthread_rwlock_wrlock", OsCategory::Wait },
            { "pthread_spin_lock", OsCategory::Wait },
            { "futex", OsCategory::Wait },
            { "sem_wait", OsCategory::Wait },
            { "sem_timedwait", OsCategory::Wait },
            { "sem_clockwait", OsCategory::Wait },
            { "pthread_join", OsCategory::Wait },
            { "pthread_timedjoin_np", OsCategory::Wait },
            { "pthread_barrier_wait", OsCategory::Wait },
            { "waitpid", OsCategory::Wait },
            { "wait4", OsCategory::Wait },
            { "sigwait", OsCategory::Wait },
            { "read", OsCategory::Io },
            { "write", OsCategory::Io },
            { "pread", OsCategory::Io },
            { "pread64", OsCategory::Io },
            { "preadv", OsCategory::Io },
            { "preadv2", OsCategory::Io },
            { "pwrite", OsCategory::Io },
            { "pwrite64", OsCategory::Io },
            { "pwritev", OsCategory::Io },
            { "pwritev2", OsCategory::Io },
            { "readv", OsCategory::Io },
            { "writev", OsCategory::Io },
            { "open", OsCategory::Io },
            { "open64", OsCategory::Io },
            { "openat", OsCategory::Io },
            { "openat64", OsCategory::Io },
            { "close", OsCategory::Io },
            { "fread", OsCategory::Io },
            { "fwrite", OsCategory::Io },
            { "fopen", OsCategory::Io },
            { "fopen64", OsCategory::Io },
            { "fclose", OsCategory::Io },
            { "fgets", OsCategory::Io },
            { "fflush", OsCategory::Io },
            { "fsync", OsCategory::Io },
            { "recv", OsCategory::Io },
            { "recvfrom", OsCategory::Io },
            { "recvmsg", OsCategory::Io },
            { "send", OsCategory::Io },
            { "sendto", OsCategory::Io },
            { "sendmsg", OsCategory::Io },
            { "accept", OsCategory::Io },
            { "connect", OsCategory::Io },
            { "poll", OsCategory::Poll },
            { "ppoll", OsCategory::Poll },
            { "select", OsCategory::Poll },
            { "pselect", OsCategory::Poll },
            { "pselect6", OsCategory::Poll },
            { "epoll_wait", OsCategory::Poll },
            { "epoll_pwait", OsCategory::Poll },
            { "epoll_pwait2", OsCategory::Poll },
            { "nanosleep", OsCategory::Sleep },
            { "clock_nanosleep", OsCategory::Sleep },
            { "usleep", OsCategory::Sleep },
            { "sleep", OsCategory::Sleep },
            // ioctl is the CUDA driver talking to /dev/nvidia* on a GPU host, not I/O.
            { "ioctl", OsCategory::Other },
            { "mmap", OsCategory::Other },
            { "mmap64", OsCategory::Other },
            { "munmap", OsCategory::Other },
            { "fcntl", OsCategory::Other },
            { "pthread_create", OsCategory::Other },
            { "pthread_cond_broadcast", OsCategory::Other },
            { "pthread_cond_signal", OsCategory::Other },
            { "pthread_mutex_unlock", OsCategory::Other },
            { "socket", OsCategory::Other },
            { "pipe2", OsCategory::Other },
            { "dup", OsCategory::Other },
            // Exact names only: a prefix, a different case or a versioned symbol is another call.
            { "reader", OsCategory::Other },
            { "Read", OsCategory::Other },
            { "pthread_cond_wait@GLIBC_2.3.2", OsCategory::Other },
            { "", OsCategory::Other },
        };
        for (const auto &[name, category] : rows)
            QTest::newRow(*name ? name : "(empty name)") << QString::fromLatin1(name) << int(category);
    }

    void osCategoryOfEachCall()
    {
        QFETCH(QString, name);
        QFETCH(int, category);
        QCOMPARE(int(osCategoryOf(name.toStdString())), category);
        // And through a blamed gap: the OS call in progress at the midpoint on the launching
        // thread, whose launch comes after the midpoint (so no CUDA call was in progress).
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        f.b.osrt(t, T0 + 1100, T0 + 1700, name.toStdString());
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.cause, GapCause::NoCudaCall);
        QCOMPARE(g.launchThread, t);
        QCOMPARE(trace->str(g.osCall), name.toStdString());
        QCOMPARE(int(g.osCategory), category);
        QCOMPARE(std::string(gapOsCategoryKey(g)), std::string(osCategoryId(OsCategory(category))));
    }

    void osCategoryIdsAreTheJsonNames()
    {
        QCOMPARE(osCategoryId(OsCategory::None), std::string_view(""));
        QCOMPARE(osCategoryId(OsCategory::Wait), std::string_view("wait"));
        QCOMPARE(osCategoryId(OsCategory::Io), std::string_view("io"));
        QCOMPARE(osCategoryId(OsCategory::Poll), std::string_view("poll"));
        QCOMPARE(osCategoryId(OsCategory::Sleep), std::string_view("sleep"));
        QCOMPARE(osCategoryId(OsCategory::Other), std::string_view("other"));
    }

    void nestedOsCallsBlameTheOutermost()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        f.b.osrt(t, T0 + 1400, T0 + 1600, "open64", 7); // inside fopen, given first
        f.b.osrt(t, T0 + 1100, T0 + 1700, "fopen", 6);
        f.b.osrt(t, T0 + 1450, T0 + 1550, "read"); // deeper still
        f.b.osrt(t, T0 + 1000, T0 + 1090, "poll"); // ended before fopen and the midpoint
        const auto trace = f.b.finish();
        QCOMPARE(trace->threads[t].osrt.depth, (std::vector<std::uint8_t> { 0, 0, 1, 2 }));
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.cause, GapCause::NoCudaCall);
        QCOMPARE(trace->str(g.osCall), std::string("fopen"));
        QCOMPARE(g.osCategory, OsCategory::Io);
        QCOMPARE(std::string(gapOsCallKey(*trace, g)), std::string("fopen"));
        QCOMPARE(g.osCallchain, 0u); // no OSRT_CALLCHAINS chain 6 in this report
    }

    // The OS call's stack is OSRT_CALLCHAINS' chain named by its callchainId, as exported
    // (gpu4's 213 chains each name their own call); callchainId 0 names none.
    void osCallCarriesItsOwnStack()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        f.b.osrt(t, T0 + 1100, T0 + 1700, "pthread_cond_wait", 2);
        f.b.osrt(t, T0 + 1000, T0 + 1050, "poll", 1);
        f.b.addChain(t, CallchainSource::Osrt, 1, { { "libc.so.6", "__clone" }, { "libc.so.6", "__poll" } });
        const auto chain = f.b.addChain(t, CallchainSource::Osrt, 2,
            { { "libc.so.6", "__clone" }, { "train", "loader_loop" }, { "libpthread.so.0", "pthread_cond_wait" } });
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.cause, GapCause::NoCudaCall);
        QCOMPARE(trace->str(g.osCall), std::string("pthread_cond_wait"));
        QCOMPARE(g.osCallchain, chain);
        const auto stack = trace->reports[trace->threads[t].report].callchains.stackOf(g.osCallchain);
        QCOMPARE(stack.size(), std::size_t(3));
        QCOMPARE(trace->str(stack.symbol[1]), std::string("loader_loop"));
        QCOMPARE(trace->str(stack.symbol[2]), std::string("pthread_cond_wait"));
    }

    void osCallEndingAtTheMidpointIsNotInProgress()
    {
        GapFixture f;
        const auto t = f.b.addThread(f.rank);
        f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
        f.b.osrt(t, T0 + 1100, T0 + 1500, "nanosleep"); // [start, end): over at 1500
        f.b.osrt(t, T0 + 1500, T0 + 1600, "usleep"); // starts at the midpoint: in progress
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(trace->str(g.osCall), std::string("usleep"));
        QCOMPARE(g.osCategory, OsCategory::Sleep);
    }

    // With the launch unknown, the OS call is read where the phase is: the main thread
    // (tid == pid), which here has nothing but OS calls.
    void unknownLaunchTakesTheOsCallOfThePhaseThread()
    {
        GapFixture f(/*corrB*/ 99);
        const auto worker = f.b.addThread(f.rank, 1001);
        const auto main = f.b.addThread(f.rank);
        f.b.api(worker, T0 + 100, T0 + 200, "cudaMalloc");
        f.b.osrt(worker, T0 + 1000, T0 + 2000, "read"); // not the phase thread
        f.b.osrt(main, T0 + 1200, T0 + 1800, "pthread_mutex_lock");
        const auto trace = f.b.finish();
        const auto g = blameOnlyGap(*trace);
        QCOMPARE(g.launchThread, kNoIndex);
        QCOMPARE(g.cause, GapCause::NoCudaCall);
        QCOMPARE(g.phaseThread, main);
        QCOMPARE(trace->str(g.osCall), std::string("pthread_mutex_lock"));
        QCOMPARE(g.osCategory, OsCategory::Wait);
    }

    void osCallIsEmptyWithoutOsDataOrForOtherCauses()
    {
        { // no OS runtime data at all
            GapFixture f;
            const auto t = f.b.addThread(f.rank);
            f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
            const auto trace = f.b.finish();
            const auto g = blameOnlyGap(*trace);
            QCOMPARE(g.cause, GapCause::NoCudaCall);
            QCOMPARE(g.osCall, kEmptyString);
            QCOMPARE(g.osCategory, OsCategory::None);
            QCOMPARE(std::string(gapOsCallKey(*trace, g)), std::string("(none)"));
            QCOMPARE(std::string(gapOsCategoryKey(g)), std::string("(none)"));
        }
        { // an OS call on another thread of the process only
            GapFixture f;
            const auto t = f.b.addThread(f.rank);
            const auto other = f.b.addThread(f.rank, 1234);
            f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
            f.b.osrt(other, T0 + 1000, T0 + 2000, "poll");
            const auto trace = f.b.finish();
            const auto g = blameOnlyGap(*trace);
            QCOMPARE(g.cause, GapCause::NoCudaCall);
            QCOMPARE(g.osCall, kEmptyString);
            QCOMPARE(g.osCategory, OsCategory::None);
        }
        { // a CUDA call in progress: the cause is the API call, its ioctl is no OS blame
            GapFixture f;
            const auto t = f.b.addThread(f.rank);
            f.b.api(t, T0 + 1100, T0 + 1900, "cudaStreamSynchronize");
            f.b.api(t, T0 + 1950, T0 + 1990, "cudaLaunchKernel", kCorrB);
            f.b.osrt(t, T0 + 1200, T0 + 1800, "ioctl");
            const auto trace = f.b.finish();
            const auto g = blameOnlyGap(*trace);
            QCOMPARE(g.cause, GapCause::ApiCall);
            QCOMPARE(g.osCall, kEmptyString);
            QCOMPARE(g.osCategory, OsCategory::None);
        }
        { // a queued launch
            GapFixture f;
            const auto t = f.b.addThread(f.rank);
            f.b.api(t, T0 + 500, T0 + 600, "cudaLaunchKernel", kCorrB);
            f.b.osrt(t, T0 + 1000, T0 + 2000, "read");
            const auto trace = f.b.finish();
            const auto g = blameOnlyGap(*trace);
            QCOMPARE(g.cause, GapCause::QueuedDependencyWait);
            QCOMPARE(g.osCall, kEmptyString);
        }
        { // copies ran for most of the gap: the GPU was moving data
            GapFixture f;
            const auto t = f.b.addThread(f.rank);
            f.b.api(t, T0 + 1800, T0 + 1900, "cudaLaunchKernel", kCorrB);
            f.b.copy(f.gpu, 2, T0 + 1000, T0 + 1800);
            f.b.osrt(t, T0 + 1000, T0 + 2000, "read");
            const auto trace = f.b.finish();
            const auto g = blameOnlyGap(*trace);
            QCOMPARE(g.cause, GapCause::Copy);
            QCOMPARE(g.osCall, kEmptyString);
            QCOMPARE(g.osCategory, OsCategory::None);
        }
    }

    // Rank 0: gaps [1000,2000) in pthread_cond_wait, [3000,3400) in read, [4000,4600) in
    // pthread_mutex_lock, [5000,5200) with no OS call; rank 1: [100,500) in poll.
    void totalsGroupByOsCallAndCategory()
    {
        FixtureBuilder b;
        const auto r0 = b.addRank(0);
        const auto g0 = b.addGpu(r0, 0);
        kernelsK(b, g0, { { 0, 1000 }, { 2000, 3000 }, { 3400, 4000 }, { 4600, 5000 }, { 5200, 5300 } });
        const auto t = b.addThread(r0);
        // Each kernel after a gap launched late in the gap, after its midpoint.
        b.api(t, T0 + 1900, T0 + 1950, "cudaLaunchKernel", 2);
        b.api(t, T0 + 3300, T0 + 3350, "cudaLaunchKernel", 3);
        b.api(t, T0 + 4500, T0 + 4550, "cudaLaunchKernel", 4);
        b.api(t, T0 + 5150, T0 + 5190, "cudaLaunchKernel", 5);
        b.osrt(t, T0 + 1000, T0 + 1800, "pthread_cond_wait");
        b.osrt(t, T0 + 3100, T0 + 3250, "read");
        b.osrt(t, T0 + 4100, T0 + 4400, "pthread_mutex_lock");
        const auto r1 = b.addRank(1);
        const auto g1 = b.addGpu(r1, 0);
        kernelsK(b, g1, { { 0, 100 }, { 500, 600 } });
        const auto t1 = b.addThread(r1);
        b.api(t1, T0 + 450, T0 + 460, "cudaLaunchKernel", 2);
        b.osrt(t1, T0 + 200, T0 + 400, "poll");
        const auto trace = b.finish();

        const auto report = blameGaps(*trace, { .minGapNs = 100 });
        QCOMPARE(report.gaps.size(), std::size_t(5));
        for (const auto &g : report.gaps)
            QCOMPARE(g.cause, GapCause::NoCudaCall);
        const auto &all = report.overall;
        QCOMPARE(bucketKeys(all.byOsCall),
            (std::vector<std::string> { "pthread_cond_wait", "pthread_mutex_lock", "poll", "read", "(none)" }));
        QCOMPARE(bucketTotals(all.byOsCall), (std::vector<TimeNs> { 1000, 600, 400, 400, 200 }));
        QCOMPARE(all.byOsCall[0].osCategory, OsCategory::Wait);
        QCOMPARE(trace->str(all.byOsCall[0].name), std::string("pthread_cond_wait"));
        QCOMPARE(all.byOsCall[4].name, kEmptyString);
        QCOMPARE(all.byOsCall[4].osCategory, OsCategory::None);
        QCOMPARE(bucketKeys(all.byOsCategory), (std::vector<std::string> { "wait", "io", "poll", "(none)" }));
        QCOMPARE(bucketTotals(all.byOsCategory), (std::vector<TimeNs> { 1600, 400, 400, 200 }));
        QCOMPARE(all.byOsCategory[0].count, std::uint64_t(2));
        QCOMPARE(all.byOsCategory[0].longestNs, TimeNs(1000));
        QCOMPARE(all.byOsCategory[0].osCategory, OsCategory::Wait);
        QCOMPARE(report.perRank.size(), std::size_t(2));
        QCOMPARE(bucketKeys(report.perRank[1].totals.byOsCall), (std::vector<std::string> { "poll" }));
        QCOMPARE(
            bucketKeys(report.perGpu[0].totals.byOsCategory), (std::vector<std::string> { "wait", "io", "(none)" }));
        QCOMPARE(bucketTotals(report.perGpu[0].totals.byOsCategory), (std::vector<TimeNs> { 1600, 400, 200 }));
        // totalBlame of the same gaps gives the same tables.
        const auto again = totalBlame(*trace, report.gaps);
        QCOMPARE(bucketKeys(again.byOsCall), bucketKeys(all.byOsCall));
        QCOMPARE(bucketTotals(again.byOsCategory), bucketTotals(all.byOsCategory));

        // Blamed with one cursor in any order, the OS calls are the plain answers.
        const GapBlamer blamer(*trace);
        for (const bool reversed : { false, true }) {
            GapBlamer::SearchCursor cursor;
            for (std::size_t k = 0; k < report.gaps.size(); ++k) {
                const auto &g = report.gaps[reversed ? report.gaps.size() - 1 - k : k];
                compareGaps(blamer.blame(g.gpu, g.gap, false, cursor), g);
                if (QTest::currentTestFailed())
                    return;
            }
        }
    }

    // gpu4_streams_report2 traced the OS runtime: every gap's os_call is what SQL finds, the
    // outermost OSRT_API call containing the midpoint on the thread whose runtime call has the
    // correlation id of the work starting at the gap's end, for no-CUDA-call gaps, and empty
    // for the others. In this capture the launching thread is in a CUDA call or between calls
    // at every gap's midpoint (its OS calls are ioctls inside CUDA calls), so SQL finds no call
    // there: the counts below say so, and the built fixtures above cover the found calls.
    void realOsCallsAreWhatSqlFindsAtTheMidpoint_data()
    {
        QTest::addColumn<qint64>("minGapNs");
        QTest::addColumn<bool>("includeCopies");
        QTest::addColumn<int>("gaps");
        QTest::addColumn<int>("noCudaCallGaps");
        QTest::newRow("100 us") << qint64(100'000) << false << 9 << 0;
        QTest::newRow("1 us") << qint64(1'000) << false << 199 << 0;
        QTest::newRow("1 us, copies busy") << qint64(1'000) << true << 204 << 0;
    }

    void realOsCallsAreWhatSqlFindsAtTheMidpoint()
    {
        QFETCH(qint64, minGapNs);
        QFETCH(bool, includeCopies);
        QFETCH(int, gaps);
        QFETCH(int, noCudaCallGaps);
        const auto path = realFile("gpu4_streams_report2.sqlite");
        QVERIFY2(!path.empty(), gaplens::test::kRealDataMissing);
        LoadOptions load;
        load.files = { path };
        const auto trace = loadTraceSet(load);
        QVERIFY(trace->errors.empty());
        const SqlTestDb db(path);
        const auto offset = db.integer("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
        const auto report = blameGaps(*trace, { .minGapNs = minGapNs, .includeCopies = includeCopies });
        QCOMPARE(int(report.gaps.size()), gaps);
        int noCudaCall = 0, sqlFound = 0, launchesFound = 0;
        for (const auto &g : report.gaps) {
            const auto end = g.gap.end - offset, mid = g.midpoint - offset;
            const auto launchSql = [&](const char *table, const char *pidColumn) {
                return fmt::format(
                    "SELECT (r.globalTid >> 24) & 16777215 AS pid, r.globalTid & 16777215 AS tid FROM {} w "
                    "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = w.correlationId "
                    "AND ((r.globalTid >> 24) & 16777215) = ((w.{} >> 24) & 16777215) WHERE w.start = {}",
                    table, pidColumn, end);
            };
            // Kernels end gaps first; copies only when they are busy time.
            const std::string launch = launchSql("CUPTI_ACTIVITY_KIND_KERNEL", "globalPid")
                + (includeCopies ? " UNION ALL " + launchSql("CUPTI_ACTIVITY_KIND_MEMCPY", "globalPid") : "");
            launchesFound += db.integer("SELECT count(*) FROM (" + launch + ")") > 0;
            const auto sqlCall = db.text(
                fmt::format("WITH l AS ({} LIMIT 1) SELECT COALESCE((SELECT s.value FROM OSRT_API o "
                            "JOIN StringIds s ON s.id = o.nameId, l WHERE ((o.globalTid >> 24) & 16777215) = l.pid "
                            "AND (o.globalTid & 16777215) = l.tid AND o.eventClass NOT IN (31, 32) "
                            "AND o.start <= {} AND {} < o.\"end\" ORDER BY o.start, o.\"end\" DESC LIMIT 1), '')",
                    launch, mid, mid));
            sqlFound += !sqlCall.empty();
            const bool blamed = g.cause == GapCause::NoCudaCall;
            noCudaCall += blamed;
            QCOMPARE(g.osCall == kEmptyString ? std::string() : trace->str(g.osCall), blamed ? sqlCall : "");
            QCOMPARE(g.osCategory, blamed && !sqlCall.empty() ? osCategoryOf(sqlCall) : OsCategory::None);
        }
        QCOMPARE(launchesFound, gaps); // every gap's work has its launch
        QCOMPARE(noCudaCall, noCudaCallGaps);
        QCOMPARE(sqlFound, 0);
    }

    // nsys-ai's H100 window: copies ran during nearly all the time no kernel ran. Checked per
    // gap against the same union computed in SQL (islands with window functions).
    void realH100GapsAreMostlyCopies()
    {
        const auto path = realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY(!path.empty());
        const std::string sql = std::string(kGapAndCopyIslandsSql) + R"(
            SELECT g.d, g.gs, g.ge, COALESCE(SUM(MAX(0, MIN(c.e, g.ge) - MAX(c.s, g.gs))), 0)
            FROM gaps g LEFT JOIN cisl c ON c.d = g.d AND c.s < g.ge AND c.e > g.gs
            GROUP BY g.d, g.gs, g.ge ORDER BY g.d, g.gs)";
        const auto expected = SqlTestDb(path).ints(sql);
        std::int64_t expectedHalf = 0, expectedCopyNs = 0, expectedHalfNs = 0;
        for (const auto &row : expected) {
            QCOMPARE(row.size(), std::size_t(4));
            expectedCopyNs += row[3];
            if (2 * row[3] >= row[2] - row[1]) {
                ++expectedHalf;
                expectedHalfNs += row[2] - row[1];
            }
        }
        QCOMPARE(expected.size(), std::size_t(114));
        QCOMPARE(expectedHalf, std::int64_t(112));

        LoadOptions load;
        load.files = { path };
        const auto trace = loadTraceSet(load);
        QVERIFY(trace && trace->errors.empty());
        const auto report = blameGaps(*trace);
        QCOMPARE(report.gaps.size(), expected.size());
        const auto offset = trace->reports[0].timeOffsetNs;
        // SQL orders by (device, start); blame by (GPU index, start).
        std::vector<const GapBlame *> gaps;
        for (const auto &g : report.gaps)
            gaps.push_back(&g);
        std::stable_sort(gaps.begin(), gaps.end(), [&](const GapBlame *a, const GapBlame *b) {
            return trace->gpus[a->gpu].deviceId < trace->gpus[b->gpu].deviceId;
        });
        std::int64_t copyGaps = 0;
        for (std::size_t i = 0; i < gaps.size(); ++i) {
            const auto &g = *gaps[i];
            QCOMPARE(std::int64_t(trace->gpus[g.gpu].deviceId), expected[i][0]);
            QCOMPARE(g.gap.start - offset, expected[i][1]);
            QCOMPARE(g.gap.end - offset, expected[i][2]);
            QCOMPARE(g.copyNs, expected[i][3]);
            QCOMPARE(g.cause == GapCause::Copy, 2 * expected[i][3] >= expected[i][2] - expected[i][1]);
            copyGaps += g.cause == GapCause::Copy;
        }
        QCOMPARE(copyGaps, std::int64_t(112));
        QCOMPARE(report.overall.copyNs, expectedCopyNs);
        QCOMPARE(report.overall.copyCauseNs, expectedHalfNs);
        const auto copyBucket = std::find_if(report.overall.byCause.begin(), report.overall.byCause.end(),
            [](const BlameBucket &b) { return b.cause == GapCause::Copy; });
        QVERIFY(copyBucket != report.overall.byCause.end());
        QCOMPARE(copyBucket->count, std::uint64_t(112));
        QCOMPARE(copyBucket->totalNs, expectedHalfNs);
        QCOMPARE(report.overall.byCause.front().cause, GapCause::Copy); // the largest cause by far
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
