// SPDX-License-Identifier: MIT
// The derived capture: the same busy time, gaps, blame and totals as computeGpuBusy,
// findIdleGaps and blameGaps (whole capture and scoped by ranks and windows) on hand-built
// fixtures and every real export; threshold-independent parts shared; cancel; keys; step
// tables; gap ids.
#include "blame_compare.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/read/loader.h"
#include "testsupport.h"
#include "trace_fixture.h"

#include <QTest>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

using namespace gaplens::core;
using namespace gaplens::test;

namespace {

std::shared_ptr<const DerivedCapture> derive(const std::shared_ptr<const TraceSet> &trace, TimeNs minGapNs,
    bool includeCopies = false, const DerivedCapture *previous = nullptr)
{
    return DerivedCapture::build(trace, { .minGapNs = minGapNs, .includeCopies = includeCopies }, nullptr, previous);
}

void compareBuckets(const std::vector<BlameBucket> &actual, const std::vector<BlameBucket> &expected)
{
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        QCOMPARE(actual[i].key, expected[i].key);
        QCOMPARE(actual[i].cause, expected[i].cause);
        QCOMPARE(actual[i].name, expected[i].name);
        QCOMPARE(actual[i].count, expected[i].count);
        QCOMPARE(actual[i].totalNs, expected[i].totalNs);
        QCOMPARE(actual[i].longestNs, expected[i].longestNs);
        QCOMPARE(actual[i].osCategory, expected[i].osCategory);
    }
}

void compareTotals(const BlameTotals &actual, const BlameTotals &expected)
{
    QCOMPARE(actual.gapCount, expected.gapCount);
    QCOMPARE(actual.totalGapNs, expected.totalGapNs);
    compareBuckets(actual.byCause, expected.byCause);
    if (QTest::currentTestFailed())
        return;
    compareBuckets(actual.byPhase, expected.byPhase);
    if (QTest::currentTestFailed())
        return;
    compareBuckets(actual.byOsCall, expected.byOsCall);
    if (QTest::currentTestFailed())
        return;
    compareBuckets(actual.byOsCategory, expected.byOsCategory);
}

void compareReports(const GapBlameReport &actual, const GapBlameReport &expected)
{
    QCOMPARE(actual.gaps.size(), expected.gaps.size());
    for (std::size_t i = 0; i < actual.gaps.size(); ++i)
        CHECK(compareGaps(actual.gaps[i], expected.gaps[i]));
    QCOMPARE(actual.perGpu.size(), expected.perGpu.size());
    for (std::size_t i = 0; i < actual.perGpu.size(); ++i) {
        QCOMPARE(actual.perGpu[i].gpu, expected.perGpu[i].gpu);
        CHECK(compareTotals(actual.perGpu[i].totals, expected.perGpu[i].totals));
    }
    QCOMPARE(actual.perRank.size(), expected.perRank.size());
    for (std::size_t i = 0; i < actual.perRank.size(); ++i) {
        QCOMPARE(actual.perRank[i].rank, expected.perRank[i].rank);
        CHECK(compareTotals(actual.perRank[i].totals, expected.perRank[i].totals));
    }
    compareTotals(actual.overall, expected.overall);
}

// The GPU list blameGaps is asked for, as `gaplens-cli blame --ranks` builds it.
std::vector<std::uint32_t> gpuIndicesOf(const TraceSet &trace, const RankSelection &ranks)
{
    std::vector<std::uint32_t> gpus;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
        for (auto r : trace.gpus[g].ranks)
            if (ranks.includes(r)) {
                gpus.push_back(g);
                break;
            }
    return gpus;
}

// Whole-capture figures equal computeGpuBusy / findIdleGaps / blameGaps.
void compareWholeCapture(const DerivedCapture &derived)
{
    const TraceSet &trace = derived.trace();
    const bool copies = derived.options().includeCopies;
    const TimeNs minGap = derived.minGapNs();
    QCOMPARE(derived.gpuCount(), trace.gpus.size());
    QCOMPARE(derived.busyLanes()->gpus.size(), trace.gpus.size());
    const auto allBusy = computeAllGpuBusy(trace, { .includeCopies = copies });
    std::size_t gapCount = 0;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        const GpuBusy &busy = allBusy[g];
        const GpuBusyLane &lane = derived.busy(GpuIndex(g));
        QCOMPARE(lane.gpu, GpuIndex(g));
        QCOMPARE(lane.size(), busy.intervals.size());
        for (std::size_t i = 0; i < lane.size(); ++i)
            QCOMPARE(lane.interval(i), busy.intervals[i]);
        QCOMPARE(lane.busyNs, busy.busyNs);
        QCOMPARE(lane.busyBefore.back(), busy.busyNs);
        QCOMPARE(lane.window, busy.window);
        QVERIFY(lane.busyPercent == busy.busyPercent); // exactly, not fuzzily
        QCOMPARE(lane.streams.size(), busy.streams.size());
        for (std::size_t s = 0; s < lane.streams.size(); ++s) {
            QCOMPARE(lane.streams[s].stream, busy.streams[s].stream);
            QCOMPARE(lane.streams[s].pid, busy.streams[s].pid);
            QCOMPARE(lane.streams[s].streamId, busy.streams[s].streamId);
            QCOMPARE(lane.streams[s].kernelCount, busy.streams[s].kernelCount);
            QCOMPARE(lane.streams[s].busyNs, busy.streams[s].busyNs);
        }
        const GpuGaps holes = findIdleGaps(busy, minGap);
        const GpuGapTable &table = derived.gaps(GpuIndex(g));
        QCOMPARE(table.gpu, GpuIndex(g));
        QCOMPARE(table.size(), holes.count());
        QCOMPARE(table.blame.size(), holes.count());
        for (std::size_t i = 0; i < table.size(); ++i)
            QCOMPARE(table.range(i), holes.gaps[i]);
        QCOMPARE(table.totalNs, holes.totalNs);
        QCOMPARE(table.idleBefore.back(), holes.totalNs);
        const GapFigures figures = derived.gapFiguresIn(GpuIndex(g), std::nullopt);
        QCOMPARE(figures.count, std::uint64_t(holes.count()));
        QCOMPARE(figures.totalNs, holes.totalNs);
        gapCount += holes.count();
    }
    QCOMPARE(derived.gapCount(), gapCount);

    const auto expected = blameGaps(trace, { .minGapNs = minGap, .includeCopies = copies });
    CHECK(compareReports(derived.blameReport(), expected));
    CHECK(compareTotals(derived.overallTotals(), expected.overall));
    QCOMPARE(derived.gpuTotals().size(), expected.perGpu.size());
    for (std::size_t i = 0; i < expected.perGpu.size(); ++i) {
        QCOMPARE(derived.gpuTotals()[i].gpu, expected.perGpu[i].gpu);
        CHECK(compareTotals(derived.totalsOfGpu(GpuIndex(expected.perGpu[i].gpu)), expected.perGpu[i].totals));
    }
    QCOMPARE(derived.rankTotals().size(), expected.perRank.size());
    for (const auto &rank : expected.perRank) {
        const BlameTotals *totals = derived.totalsOfRank(RankIndex(rank.rank));
        QVERIFY(totals);
        CHECK(compareTotals(*totals, rank.totals));
    }
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
        if (std::none_of(expected.perRank.begin(), expected.perRank.end(), [&](const auto &t) { return t.rank == r; }))
            QVERIFY(!derived.totalsOfRank(RankIndex(r)));

    // The keys: each gap's are gapCauseKey / gapPhaseKey, and the key tables hold exactly the
    // totals' keys.
    std::size_t next = 0;
    for (std::uint32_t g = 0; g < derived.gpuCount(); ++g)
        for (std::uint32_t k = 0; k < derived.gaps(GpuIndex(g)).size(); ++k) {
            const GapId id { GpuIndex(g), k };
            const GapBlame &gap = derived.gap(id);
            CHECK(compareGaps(gap, expected.gaps[next++]));
            QCOMPARE(derived.causeKeys()[derived.causeKeyOf(id).value()], std::string(gapCauseKey(trace, gap)));
            QCOMPARE(derived.phaseKeys()[derived.phaseKeyOf(id).value()], std::string(gapPhaseKey(trace, gap)));
            QCOMPARE(derived.findCauseKey(gapCauseKey(trace, gap)), derived.causeKeyOf(id));
            QCOMPARE(derived.findPhaseKey(gapPhaseKey(trace, gap)), derived.phaseKeyOf(id));
        }
    std::set<std::string> causeKeys(derived.causeKeys().begin(), derived.causeKeys().end());
    std::set<std::string> phaseKeys(derived.phaseKeys().begin(), derived.phaseKeys().end());
    QCOMPARE(causeKeys.size(), derived.causeKeys().size()); // each once
    QCOMPARE(phaseKeys.size(), derived.phaseKeys().size());
    std::set<std::string> totalCauseKeys, totalPhaseKeys;
    for (const auto &b : expected.overall.byCause)
        totalCauseKeys.insert(b.key);
    for (const auto &b : expected.overall.byPhase)
        totalPhaseKeys.insert(b.key);
    QCOMPARE(causeKeys, totalCauseKeys);
    QCOMPARE(phaseKeys, totalPhaseKeys);
    QVERIFY(!derived.findCauseKey("no such key, anywhere").isValid());
}

// Scoped answers equal blameGaps / computeGpuBusy with that window and those GPUs, and the
// gaps are exactly the whole-capture gaps lying strictly inside the window.
void compareScoped(const DerivedCapture &derived, const RankSelection &ranks, const TimeWindow &window)
{
    const TraceSet &trace = derived.trace();
    const bool copies = derived.options().includeCopies;
    const TimeNs minGap = derived.minGapNs();
    const auto gpus = gpuIndicesOf(trace, ranks);
    GapBlameReport expected;
    if (ranks.isAll() || !gpus.empty())
        expected = blameGaps(trace,
            { .minGapNs = minGap,
                .includeCopies = copies,
                .window = window,
                .gpus = ranks.isAll() ? std::vector<std::uint32_t> {} : gpus });
    CHECK(compareReports(derived.blameReport(ranks, window), expected));
    CHECK(compareTotals(derived.totalsIn(ranks, window), expected.overall));

    // The characterisation, checked gap by gap without the binary searches.
    std::vector<TimeRange> inside;
    for (std::uint32_t g = 0; g < derived.gpuCount(); ++g) {
        if (!ranks.isAll() && std::find(gpus.begin(), gpus.end(), g) == gpus.end())
            continue;
        const auto &table = derived.gaps(GpuIndex(g));
        for (std::size_t k = 0; k < table.size(); ++k)
            if (!window || (table.start[k] > window->start && table.end[k] < window->end))
                inside.push_back(table.range(k));
    }
    QCOMPARE(inside.size(), expected.gaps.size());
    for (std::size_t i = 0; i < inside.size(); ++i)
        QCOMPARE(inside[i], expected.gaps[i].gap);

    std::size_t listed = 0;
    for (const auto &range : derived.gapsIn(ranks, window))
        listed += range.size();
    QCOMPARE(listed, expected.gaps.size());

    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        const auto busy = computeGpuBusy(trace, g, { .includeCopies = copies, .window = window });
        const BusyFigures figures = derived.busyIn(GpuIndex(g), window);
        QCOMPARE(figures.busyNs, busy.busyNs);
        QCOMPARE(figures.window, busy.window);
        QVERIFY(figures.busyPercent == busy.busyPercent);
        const GpuGaps holes = findIdleGaps(busy, minGap);
        const GapFigures gapFigures = derived.gapFiguresIn(GpuIndex(g), window);
        QCOMPARE(gapFigures.count, std::uint64_t(holes.count()));
        QCOMPARE(gapFigures.totalNs, holes.totalNs);
    }
}

// Windows worth checking: none, the middle third, ones starting or ending exactly on gap and
// busy edges (the boundary cases of "strictly inside"), an empty and an inverted one, and
// seeded random ones.
std::vector<TimeWindow> windowsFor(const DerivedCapture &derived)
{
    const TimeRange span = derived.trace().span;
    const TimeNs third = span.duration() / 3;
    std::vector<TimeWindow> windows { std::nullopt, TimeRange { span.start + third, span.end - third }, span,
        TimeRange { span.start + third, span.start + third }, TimeRange { span.end - third, span.start + third } };
    for (std::uint32_t g = 0; g < derived.gpuCount(); ++g) {
        const auto &table = derived.gaps(GpuIndex(g));
        if (table.size() >= 3) {
            const std::size_t a = table.size() / 3, b = 2 * table.size() / 3;
            windows.push_back(TimeRange { table.start[a], table.end[b] }); // both edges on a gap's edges
            windows.push_back(TimeRange { table.start[a] + 1, table.end[b] - 1 }); // just inside them
            windows.push_back(TimeRange { table.end[a], table.start[b] }); // on busy edges
            windows.push_back(TimeRange { table.start[a] - 1, table.end[b] + 1 }); // just outside
        }
    }
    std::mt19937_64 random(20);
    for (int i = 0; i < 6 && span.duration() > 0; ++i) {
        std::uniform_int_distribution<TimeNs> at(span.start - 1000, span.end + 1000);
        TimeNs a = at(random), b = at(random);
        if (a > b)
            std::swap(a, b);
        windows.push_back(TimeRange { a, b });
    }
    return windows;
}

std::vector<RankSelection> selectionsFor(const TraceSet &trace)
{
    std::vector<RankSelection> selections { RankSelection::all() };
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
        selections.push_back(RankSelection::only({ r }));
    if (trace.ranks.size() >= 3)
        selections.push_back(RankSelection::only({ 0, std::uint32_t(trace.ranks.size() - 1) }));
    return selections;
}

void compareEverything(const std::shared_ptr<const TraceSet> &trace)
{
    for (const TimeNs minGap : { TimeNs(1), TimeNs(10'000), kDefaultMinGapNs })
        for (const bool copies : { false, true }) {
            const auto derived = derive(trace, minGap, copies);
            QVERIFY(derived);
            CHECK(compareWholeCapture(*derived));
            for (const auto &ranks : selectionsFor(*trace))
                for (const auto &window : windowsFor(*derived))
                    CHECK(compareScoped(*derived, ranks, window));
        }
}

// The step table by brute force: every range of that name on the rank's threads, sorted.
std::vector<TimeNs> bruteForceStarts(const TraceSet &trace, std::uint32_t rank, StringId name)
{
    std::vector<TimeNs> starts;
    for (std::uint32_t t = 0; t < trace.threads.size(); ++t) {
        if (trace.threads[t].rank != rank)
            continue;
        const auto &nvtx = trace.threads[t].nvtx;
        for (std::size_t i = 0; i < nvtx.size(); ++i)
            if (nvtx.name[i] == name)
                starts.push_back(nvtx.start[i]);
    }
    std::sort(starts.begin(), starts.end());
    return starts;
}

// Rank 0 (pid 1000) on GPU 0, rank 1 (pid 1001) on GPU 1; times from T0.
//   GPU 0 stream 1: A [0,1000) c1, B [2000,2100) c2, C [2100,2500) c3, D [5000,5200) c4
//         stream 2: E [900,1200) c5, F [6000,6100) no correlation
//         copy [5300,5500)
//   merged [0,1200) [2000,2500) [5000,5200) [6000,6100): busy 2000 in [0,6100)
//   gaps >= 100: [1200,2000) queued (B launched at [1100,1150)), [2500,5000) in
//   cudaLaunchKernel (D's launch [2600,4900)), [5200,6000) no CUDA call (F has no launch).
//   With copies: [5200,6000) becomes [5200,5300) and [5500,6000).
//   GPU 1: [0,100) [10000,10100): gap [100,10000), no CUDA call, no phase.
//   NVTX on rank 0's main thread: step [0,10000), "forward, op_id = 3" [2400,5100) inside it,
//   step [20000,21000); on its second thread step [500,900).
//   OS calls on rank 0's main thread: ioctl [3000,3500) (inside the API call gap: not
//   blamed), pthread_cond_wait [5100,5900) (the no CUDA call gap's midpoint 5600).
struct HandFixture
{
    std::shared_ptr<const TraceSet> trace;
    HandFixture()
    {
        FixtureBuilder b;
        const auto r0 = b.addRank(0);
        const auto r1 = b.addRank(1);
        const GpuRef g0 = b.addGpu(r0, 0);
        const GpuRef g1 = b.addGpu(r1, 0);
        b.kernel(g0, 1, T0 + 0, T0 + 1000, "A", 1);
        b.kernel(g0, 1, T0 + 2000, T0 + 2100, "B", 2);
        b.kernel(g0, 1, T0 + 2100, T0 + 2500, "C", 3);
        b.kernel(g0, 1, T0 + 5000, T0 + 5200, "D", 4);
        b.kernel(g0, 2, T0 + 900, T0 + 1200, "E", 5);
        b.kernel(g0, 2, T0 + 6000, T0 + 6100, "F", 0);
        b.copy(g0, 3, T0 + 5300, T0 + 5500, 0);
        b.kernel(g1, 1, T0 + 0, T0 + 100, "G", 1);
        b.kernel(g1, 1, T0 + 10000, T0 + 10100, "H", 0);
        const auto main = b.addThread(r0);
        const auto second = b.addThread(r0, 2000);
        b.api(main, T0 + 1100, T0 + 1150, "cudaLaunchKernel", 2);
        b.api(main, T0 + 2600, T0 + 4900, "cudaLaunchKernel", 4);
        b.nvtx(main, T0 + 0, T0 + 10000, "step");
        b.nvtx(main, T0 + 2400, T0 + 5100, "forward, op_id = 3");
        b.nvtx(main, T0 + 20000, T0 + 21000, "step");
        b.nvtx(second, T0 + 500, T0 + 900, "step");
        b.osrt(main, T0 + 3000, T0 + 3500, "ioctl");
        b.osrt(main, T0 + 5100, T0 + 5900, "pthread_cond_wait");
        trace = b.finish();
    }
};

std::shared_ptr<const TraceSet> loadReal(const std::string &path)
{
    LoadOptions options;
    options.files = { path };
    return loadTraceSet(options);
}

} // namespace

class TestDerivedCapture : public QObject
{
    Q_OBJECT

    std::vector<std::string> m_realCaptures; // every real export, and the 6-rank folder as one capture

private slots:
    void initTestCase()
    {
        const auto dir = gaplens::test::realDataDir();
        QVERIFY2(!dir.empty(), gaplens::test::kRealDataMissing);
        for (const auto &e : std::filesystem::recursive_directory_iterator(dir))
            if (e.path().extension() == ".sqlite")
                m_realCaptures.push_back(e.path().string());
        std::sort(m_realCaptures.begin(), m_realCaptures.end());
        QCOMPARE(m_realCaptures.size(), std::size_t(14));
        m_realCaptures.push_back((std::filesystem::path(dir) / "ring_6ranks").string());
    }

    void handFixtureHasTheHandComputedFigures()
    {
        const HandFixture f;
        const auto derived = derive(f.trace, 100);
        QVERIFY(derived);
        const auto &lane = derived->busy(GpuIndex(0));
        QCOMPARE(lane.start, (std::vector<TimeNs> { T0, T0 + 2000, T0 + 5000, T0 + 6000 }));
        QCOMPARE(lane.end, (std::vector<TimeNs> { T0 + 1200, T0 + 2500, T0 + 5200, T0 + 6100 }));
        QCOMPARE(lane.busyBefore, (std::vector<TimeNs> { 0, 1200, 1700, 1900, 2000 }));
        QCOMPARE(lane.busyNs, TimeNs(2000));
        QCOMPARE(lane.window, (TimeRange { T0, T0 + 6100 }));
        QVERIFY(lane.busyPercent == 100.0 * 2000.0 / 6100.0);
        QCOMPARE(lane.streams.size(), std::size_t(2));
        QCOMPARE(lane.streams[0].busyNs, TimeNs(1000 + 500 + 200));
        QCOMPARE(lane.streams[0].kernelCount, std::uint64_t(4));
        QCOMPARE(lane.streams[1].busyNs, TimeNs(300 + 100));

        const auto &gaps = derived->gaps(GpuIndex(0));
        QCOMPARE(gaps.start, (std::vector<TimeNs> { T0 + 1200, T0 + 2500, T0 + 5200 }));
        QCOMPARE(gaps.end, (std::vector<TimeNs> { T0 + 2000, T0 + 5000, T0 + 6000 }));
        QCOMPARE(gaps.totalNs, TimeNs(800 + 2500 + 800));
        QCOMPARE(gaps.blame[0].cause, GapCause::QueuedDependencyWait);
        QCOMPARE(gaps.blame[1].cause, GapCause::ApiCall);
        QCOMPARE(gaps.blame[2].cause, GapCause::NoCudaCall);
        QCOMPARE(derived->gaps(GpuIndex(1)).start, (std::vector<TimeNs> { T0 + 100 }));
        QCOMPARE(derived->gaps(GpuIndex(1)).end, (std::vector<TimeNs> { T0 + 10000 }));
        QCOMPARE(derived->gapCount(), std::size_t(4));

        // Keys in the order first seen: GPU 0's gaps, then GPU 1's.
        QCOMPARE(derived->causeKeys(),
            (std::vector<std::string> {
                "queued (dependency wait)", "cudaLaunchKernel", "no CUDA call (host busy elsewhere)" }));
        QCOMPARE(derived->phaseKeys(), (std::vector<std::string> { "step", "forward", "(none)" }));
        QCOMPARE(gaps.causeKey, (std::vector<BlameKeyIndex> { BlameKeyIndex(0), BlameKeyIndex(1), BlameKeyIndex(2) }));
        QCOMPARE(gaps.phaseKey, (std::vector<BlameKeyIndex> { BlameKeyIndex(0), BlameKeyIndex(1), BlameKeyIndex(0) }));
        QCOMPARE(derived->causeKeyOf({ GpuIndex(1), 0 }), BlameKeyIndex(2));
        QCOMPARE(derived->phaseKeyOf({ GpuIndex(1), 0 }), BlameKeyIndex(2));

        const BlameTotals &all = derived->overallTotals();
        QCOMPARE(all.gapCount, std::uint64_t(4));
        QCOMPARE(all.totalGapNs, TimeNs(4100 + 9900));
        QCOMPARE(bucketKeys(all.byCause),
            (std::vector<std::string> {
                "no CUDA call (host busy elsewhere)", "cudaLaunchKernel", "queued (dependency wait)" }));
        QCOMPARE(bucketTotals(all.byCause), (std::vector<TimeNs> { 10700, 2500, 800 }));
        QCOMPARE(all.byCause[0].count, std::uint64_t(2));
        QCOMPARE(all.byCause[0].longestNs, TimeNs(9900));
        QCOMPARE(bucketKeys(all.byPhase), (std::vector<std::string> { "(none)", "forward", "step" }));
        QCOMPARE(all.byPhase[0].totalNs, TimeNs(9900));
        QCOMPARE(f.trace->str(gaps.blame[2].osCall), std::string("pthread_cond_wait"));
        QCOMPARE(gaps.blame[2].osCategory, OsCategory::Wait);
        QCOMPARE(gaps.blame[1].osCall, kEmptyString); // an API call gap: its ioctl is not the cause
        QCOMPARE(bucketKeys(all.byOsCall), (std::vector<std::string> { "(none)", "pthread_cond_wait" }));
        QCOMPARE(bucketTotals(all.byOsCall), (std::vector<TimeNs> { 800 + 2500 + 9900, 800 }));
        QCOMPARE(bucketKeys(all.byOsCategory), (std::vector<std::string> { "(none)", "wait" }));
        QCOMPARE(all.byOsCategory[1].osCategory, OsCategory::Wait);
        QCOMPARE(all.byOsCategory[1].count, std::uint64_t(1));
        QCOMPARE(all.byPhase[2].totalNs, TimeNs(1600));
        QCOMPARE(derived->totalsOfGpu(GpuIndex(0)).totalGapNs, TimeNs(4100));
        QCOMPARE(derived->totalsOfRank(RankIndex(1))->totalGapNs, TimeNs(9900));

        // Windows: a gap touching a window edge is not a gap of the window.
        const TimeWindow edges = TimeRange { T0 + 1200, T0 + 6000 };
        const auto scoped = derived->blameReport(RankSelection::only({ 0 }), edges);
        QCOMPARE(scoped.gaps.size(), std::size_t(1));
        QCOMPARE(scoped.gaps[0].gap, (TimeRange { T0 + 2500, T0 + 5000 }));
        QCOMPARE(scoped.perGpu.size(), std::size_t(1));
        QCOMPARE(scoped.overall.totalGapNs, TimeNs(2500));
        QCOMPARE(blameGaps(*f.trace, { .minGapNs = 100, .window = edges, .gpus = { 0 } }).gaps.size(), std::size_t(1));
        const TimeWindow inside = TimeRange { T0 + 1199, T0 + 6001 };
        QCOMPARE(derived->gapsIn(GpuIndex(0), inside).begin, 0u);
        QCOMPARE(derived->gapsIn(GpuIndex(0), inside).end, 3u);
        const BusyFigures busy = derived->busyIn(GpuIndex(0), TimeRange { T0 + 1100, T0 + 5100 });
        QCOMPARE(busy.busyNs, TimeNs(100 + 500 + 100));
        QCOMPARE(busy.window, (TimeRange { T0 + 1100, T0 + 5100 }));
        QCOMPARE(derived->gapFiguresIn(GpuIndex(0), TimeRange { T0 + 1100, T0 + 5100 }).totalNs, TimeNs(800 + 2500));
        // Rank 1 uses only GPU 1.
        QCOMPARE(derived->blameReport(RankSelection::only({ 1 })).gaps.size(), std::size_t(1));
        QCOMPARE(derived->blameReport(RankSelection::only({ 7 })).perGpu.size(), std::size_t(0));

        const auto withCopies = derive(f.trace, 100, true);
        QCOMPARE(
            withCopies->gaps(GpuIndex(0)).start, (std::vector<TimeNs> { T0 + 1200, T0 + 2500, T0 + 5200, T0 + 5500 }));
        QCOMPARE(
            withCopies->gaps(GpuIndex(0)).end, (std::vector<TimeNs> { T0 + 2000, T0 + 5000, T0 + 5300, T0 + 6000 }));
        QCOMPARE(withCopies->busy(GpuIndex(0)).busyNs, TimeNs(2200));
        QCOMPARE(withCopies->gaps(GpuIndex(0)).blame[2].endKind, GapEndKind::Copy);

        const auto coarse = derive(f.trace, 1000);
        QCOMPARE(coarse->gaps(GpuIndex(0)).start, (std::vector<TimeNs> { T0 + 2500 }));
        QCOMPARE(coarse->gapCount(), std::size_t(2));
    }

    void handFixtureMatchesTheAnalysesEverywhere()
    {
        const HandFixture f;
        compareEverything(f.trace);
    }

    void everyRealCaptureMatchesTheAnalysesEverywhere_data()
    {
        QTest::addColumn<QString>("path");
        for (const auto &p : m_realCaptures)
            QTest::newRow(std::filesystem::path(p).filename().string().c_str()) << QString::fromStdString(p);
    }

    void everyRealCaptureMatchesTheAnalysesEverywhere()
    {
        QFETCH(QString, path);
        const auto trace = loadReal(path.toStdString());
        QVERIFY(trace->errors.empty());
        QVERIFY(!trace->ranks.empty());
        compareEverything(trace);
    }

    // The comparisons above are not vacuous: these are the real captures' gap counts and idle
    // time at 100 us and at 1 ns (the ring captures have no hole between kernels at all).
    void realCapturesHaveTheseGaps_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<qulonglong>("gaps100us");
        QTest::addColumn<qlonglong>("idle100us");
        QTest::addColumn<qulonglong>("gaps1ns");
        QTest::addColumn<qlonglong>("idle1ns");
        QTest::newRow("centerformer") << QStringLiteral("centerformer_nvtx_only.sqlite") << 0ull << 0ll << 0ull << 0ll;
        QTest::newRow("gpu4_streams") << QStringLiteral("gpu4_streams_report2.sqlite") << 9ull << 922865ll << 199ull
                                      << 17259742ll;
        QTest::newRow("h100_2gpu") << QStringLiteral("nsysai_h100_2gpu_1s.sqlite") << 114ull << 1871370751ll << 3440ull
                                   << 1875963150ll;
        QTest::newRow("mfu_after") << QStringLiteral("nsysai_mfu_2gpu_after.sqlite") << 150ull << 48125623ll << 3585ull
                                   << 109622863ll;
        QTest::newRow("mfu_before") << QStringLiteral("nsysai_mfu_2gpu_before.sqlite") << 103ull << 35458174ll
                                    << 4007ull << 63322155ll;
        QTest::newRow("mock") << QStringLiteral("nsysai_mock.sqlite") << 1ull << 18250538ll << 1ull << 18250538ll;
        QTest::newRow("pipit") << QStringLiteral("pipit_saxpy_mpi_cuda_rank0.sqlite") << 4ull << 952000911ll << 4ull
                               << 952000911ll;
        QTest::newRow("sc23") << QStringLiteral("sc23_openmp_offload_report3.sqlite") << 49ull << 25775653353ll << 49ull
                              << 25775653353ll;
        QTest::newRow("ring_6ranks") << QStringLiteral("ring_6ranks") << 0ull << 0ll << 0ull << 0ll;
    }

    void realCapturesHaveTheseGaps()
    {
        QFETCH(QString, name);
        QFETCH(qulonglong, gaps100us);
        QFETCH(qlonglong, idle100us);
        QFETCH(qulonglong, gaps1ns);
        QFETCH(qlonglong, idle1ns);
        const auto trace
            = loadReal((std::filesystem::path(gaplens::test::realDataDir()) / name.toStdString()).string());
        QVERIFY(trace->errors.empty());
        const auto atDefault = derive(trace, kDefaultMinGapNs);
        QCOMPARE(qulonglong(atDefault->gapCount()), gaps100us);
        QCOMPARE(qlonglong(atDefault->overallTotals().totalGapNs), idle100us);
        const auto atOne = derive(trace, 1, false, atDefault.get());
        QCOMPARE(qulonglong(atOne->gapCount()), gaps1ns);
        QCOMPARE(qlonglong(atOne->overallTotals().totalGapNs), idle1ns);
        QCOMPARE(atOne->busyLanes().get(), atDefault->busyLanes().get());
    }

    void thresholdIndependentPartsAreComputedOnceAndShared()
    {
        const HandFixture f;
        const auto first = derive(f.trace, 100);
        QVERIFY(first->foldIndex());
        const auto steps = first->stepTable("step");
        const auto second = derive(f.trace, 1000, false, first.get());
        QCOMPARE(second->busyLanes().get(), first->busyLanes().get());
        QCOMPARE(second->foldIndex().get(), first->foldIndex().get());
        QCOMPARE(second->stepTable("step").get(), steps.get());
        QCOMPARE(second->gapCount(), std::size_t(2)); // but the gaps are the new threshold's
        QCOMPARE(first->gapCount(), std::size_t(4));

        // Copies change the busy union, not the fold index or the step tables.
        const auto copies = derive(f.trace, 100, true, second.get());
        QVERIFY(copies->busyLanes().get() != first->busyLanes().get());
        QCOMPARE(copies->foldIndex().get(), first->foldIndex().get());
        QCOMPARE(copies->stepTable("step").get(), steps.get());
        const auto third = derive(f.trace, 5000, true, copies.get());
        QCOMPARE(third->busyLanes().get(), copies->busyLanes().get());

        // Without a previous one, or a previous one of another trace: nothing is shared.
        const auto fresh = derive(f.trace, 1000);
        QVERIFY(fresh->busyLanes().get() != first->busyLanes().get());
        QVERIFY(fresh->foldIndex().get() != first->foldIndex().get());
        QVERIFY(fresh->stepTable("step").get() != steps.get());
        const HandFixture other;
        const auto otherDerived = derive(other.trace, 1000, false, first.get());
        QVERIFY(otherDerived->busyLanes().get() != first->busyLanes().get());
        QVERIFY(otherDerived->foldIndex().get() != first->foldIndex().get());
        QVERIFY(otherDerived->stepTable("step").get() != steps.get());
        QCOMPARE(&otherDerived->trace(), other.trace.get());

        // Without fold indexes asked for, none is built, but a previous one is still shared.
        const auto noFolds = DerivedCapture::build(other.trace, { .minGapNs = 100, .foldIndexes = false });
        QVERIFY(!noFolds->foldIndex());
        const auto sharedFolds
            = DerivedCapture::build(f.trace, { .minGapNs = 100, .foldIndexes = false }, nullptr, first.get());
        QCOMPARE(sharedFolds->foldIndex().get(), first->foldIndex().get());
    }

    void foldIndexCoversEveryDrawnRow()
    {
        const HandFixture f;
        const auto folds = derive(f.trace, 100)->foldIndex();
        const TraceSet &trace = *f.trace;
        QCOMPARE(folds->streams.size(), trace.gpus.size());
        QCOMPARE(folds->copies.size(), trace.gpus.size());
        QCOMPARE(folds->nvtx.size(), trace.threads.size());
        QCOMPARE(folds->api.size(), trace.threads.size());
        QCOMPARE(folds->streams[0].size(), trace.gpus[0].streams.size());
        QCOMPARE(folds->copies[0].size(), trace.gpus[0].copies.lanes.rowCount());
        QCOMPARE(folds->nvtx[0].size(), std::size_t(2)); // step, and forward inside it
        // The same answers as an index built for the row on its own.
        const auto &k = trace.gpus[0].streams[0].kernels;
        const RowView row { k.start, k.end, {} };
        const FoldIndex own(row);
        for (std::size_t from = 1; from < row.size(); ++from)
            for (const TimeNs minNs : { TimeNs(1), TimeNs(150), TimeNs(1000), TimeNs(5000) })
                QCOMPARE(folds->streams[0][0].nextBreak(row, from, row.size(), minNs),
                    own.nextBreak(row, from, row.size(), minNs));
        CancelToken cancelled;
        cancelled.cancel();
        QVERIFY(!buildCaptureFoldIndex(trace, &cancelled));
    }

    void cancelledBuildReturnsNull()
    {
        const HandFixture f;
        CancelToken cancel;
        cancel.cancel();
        QVERIFY(!DerivedCapture::build(f.trace, {}, &cancel));
        // Also when the busy lanes come from the previous one: the gap search sees it.
        const auto previous = derive(f.trace, 100);
        QVERIFY(!DerivedCapture::build(f.trace, { .minGapNs = 200 }, &cancel, previous.get()));
        // A real capture, cancelled from another thread while it is being derived, gives null
        // or (when it finished first) a complete result, never a partial one.
        const auto trace = loadReal(m_realCaptures.front());
        const auto reference = derive(trace, 1);
        for (int attempt = 0; attempt < 5; ++attempt) {
            CancelToken late;
            std::thread canceller([&] { late.cancel(); });
            const auto result = DerivedCapture::build(trace, { .minGapNs = 1 }, &late);
            canceller.join();
            if (result)
                QCOMPARE(result->gapCount(), reference->gapCount());
        }
        CancelToken untouched;
        QVERIFY(DerivedCapture::build(f.trace, {}, &untouched));
    }

    void stepTablesEqualABruteForceComputation()
    {
        const HandFixture f;
        const TraceSet &trace = *f.trace;
        const auto derived = derive(f.trace, 100);
        const auto table = derived->stepTable("step");
        QCOMPARE(table->name, trace.strings.find("step"));
        QCOMPARE(table->startsByRank.size(), std::size_t(2));
        QCOMPARE(table->startsByRank[0], (std::vector<TimeNs> { T0, T0 + 500, T0 + 20000 }));
        QVERIFY(table->startsByRank[1].empty());
        QCOMPARE(table->occurrenceStart(RankIndex(0), 2).value(), T0 + 500);
        QVERIFY(!table->occurrenceStart(RankIndex(0), 0));
        QVERIFY(!table->occurrenceStart(RankIndex(0), 4));
        QVERIFY(!table->occurrenceStart(RankIndex(1), 1));
        QVERIFY(!table->occurrenceStart(RankIndex(), 1));
        QCOMPARE(table->firstRankOccurrence(3)->rank, RankIndex(0));
        QCOMPARE(table->firstRankOccurrence(3)->start, T0 + 20000);
        QVERIFY(!table->firstRankOccurrence(4));
        // A group name finds its per-call ranges, as pace matches them; an exact name its own.
        QCOMPARE(derived->stepTable("forward")->startsByRank[0], (std::vector<TimeNs> { T0 + 2400 }));
        QCOMPARE(derived->stepTable("forward, op_id = 3")->startsByRank[0], (std::vector<TimeNs> { T0 + 2400 }));
        QVERIFY(derived->stepTable("forward, op_id = 4")->startsByRank[0].empty());
        // Unknown names and "" have no occurrences.
        QVERIFY(derived->stepTable("no such range")->startsByRank[0].empty());
        QVERIFY(derived->stepTable(std::string_view())->startsByRank[0].empty());
        QCOMPARE(derived->stepTable("no such range").get(), derived->stepTable("another unknown").get());

        // Every NVTX name of every real capture.
        for (const auto &p : m_realCaptures) {
            const auto real = derive(loadReal(p), kDefaultMinGapNs);
            const TraceSet &t = real->trace();
            std::set<StringId> names;
            for (const auto &thread : t.threads)
                names.insert(thread.nvtx.name.begin(), thread.nvtx.name.end());
            for (const StringId name : names) {
                const auto memo = real->stepTable(name);
                QCOMPARE(memo.get(), real->stepTable(name).get()); // computed once
                const StepTable pure = computeStepTable(t, name);
                QCOMPARE(memo->startsByRank, pure.startsByRank);
                for (std::uint32_t r = 0; r < t.ranks.size(); ++r)
                    QCOMPARE(memo->startsByRank[r], bruteForceStarts(t, r, name));
            }
        }
    }

    void stepTableIsComputedOnceAcrossThreads()
    {
        const auto trace = loadReal(m_realCaptures.back()); // six ranks
        const auto derived = derive(trace, kDefaultMinGapNs);
        std::set<StringId> names;
        for (const auto &thread : trace->threads)
            names.insert(thread.nvtx.name.begin(), thread.nvtx.name.end());
        QVERIFY(!names.empty());
        const std::vector<StringId> list(names.begin(), names.end());
        std::vector<std::vector<const StepTable *>> seen(4);
        std::vector<std::thread> threads;
        for (std::size_t w = 0; w < seen.size(); ++w)
            threads.emplace_back([&, w] {
                for (std::size_t i = 0; i < list.size(); ++i)
                    seen[w].push_back(derived->stepTable(list[(i + w) % list.size()]).get());
            });
        for (auto &t : threads)
            t.join();
        for (std::size_t w = 0; w < seen.size(); ++w)
            for (std::size_t i = 0; i < list.size(); ++i)
                QCOMPARE(seen[w][i], derived->stepTable(list[(i + w) % list.size()]).get());
    }

    void gapIdLookupRoundTrips()
    {
        for (const auto &p : m_realCaptures) {
            const auto derived = derive(loadReal(p), 1, true);
            for (std::uint32_t g = 0; g < derived->gpuCount(); ++g) {
                const auto &table = derived->gaps(GpuIndex(g));
                for (std::uint32_t k = 0; k < table.size(); ++k) {
                    const GapId id { GpuIndex(g), k };
                    const TimeRange range = derived->gapRange(id);
                    QCOMPARE(derived->findGap(GpuIndex(g), range), std::optional<GapId>(id));
                    QCOMPARE(derived->gap(id).gap, range);
                    QCOMPARE(derived->gapAt(GpuIndex(g), range.start), std::optional<GapId>(id));
                    QCOMPARE(derived->gapAt(GpuIndex(g), range.end - 1), std::optional<GapId>(id));
                    QVERIFY(derived->gapAt(GpuIndex(g), range.end) != std::optional<GapId>(id));
                    QVERIFY(!derived->findGap(GpuIndex(g), { range.start, range.end + 1 }));
                    QVERIFY(!derived->findGap(GpuIndex(g), { range.start + 1, range.end }));
                }
            }
        }
        const HandFixture f;
        const auto derived = derive(f.trace, 100);
        QCOMPARE(
            derived->findGap(GpuIndex(0), { T0 + 2500, T0 + 5000 }), (std::optional<GapId>(GapId { GpuIndex(0), 1 })));
        QVERIFY(!derived->gapAt(GpuIndex(0), T0 + 100)); // busy there
        QVERIFY(!derived->findGap(GpuIndex(9), { T0 + 2500, T0 + 5000 }));
        QVERIFY(!derived->findGap(GpuIndex(), { T0 + 2500, T0 + 5000 }));
        QVERIFY(!GapId {}.isValid());
        QVERIFY((GapId { GpuIndex(0), 1 } < GapId { GpuIndex(1), 0 }));
    }

    void nullTraceDerivesNothing()
    {
        const auto derived = DerivedCapture::build(nullptr, {});
        QVERIFY(derived);
        QCOMPARE(derived->gpuCount(), std::size_t(0));
        QCOMPARE(derived->gapCount(), std::size_t(0));
        QCOMPARE(derived->overallTotals().gapCount, std::uint64_t(0));
        QVERIFY(derived->stepTable("step")->startsByRank.empty());
    }
};

QTEST_APPLESS_MAIN(TestDerivedCapture)
#include "tst_derived_capture.moc"
