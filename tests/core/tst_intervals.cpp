// SPDX-License-Identifier: MIT
// Fixed-interval statistics on hand-built traces: interval edges, empty intervals, busy time
// clipped at an edge, the origin and its override, the IQR fences (IQR 0, interpolated
// quartiles, ties, pooled against per rank), the transfer mix of the most variable intervals
// and the ping-pong pattern; every figure exact. Sharded answers equal the unsharded one.
#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/intervals.h"
#include "trace_fixture.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;
using gaplens::test::T0;

namespace {

constexpr TimeNs L = 1000;

std::shared_ptr<const DerivedCapture> derive(std::unique_ptr<TraceSet> trace)
{
    DerivedOptions options;
    options.foldIndexes = false;
    return DerivedCapture::build(std::shared_ptr<const TraceSet>(std::move(trace)), options);
}

// Rank 0, stream 7 of device 0 (times after T0):
//   kernels [0,100) [200,500) | [1000,1100) (on the edge: interval 1) [1900,2300) | - | - | [4000,4050)
//   HtoD [600,700) 4096 B in interval 0; DtoH [3000,3010) 1024 B and a memset [3500,3600) 64 B in interval 3.
std::shared_ptr<const DerivedCapture> edgesCapture()
{
    FixtureBuilder b;
    const auto r = b.addRank(0);
    const auto g = b.addGpu(r, 0);
    b.kernel(g, 7, T0, T0 + 100, "a");
    b.kernel(g, 7, T0 + 200, T0 + 500, "b");
    b.kernel(g, 7, T0 + 1000, T0 + 1100, "a");
    b.kernel(g, 7, T0 + 1900, T0 + 2300, "c");
    b.kernel(g, 7, T0 + 4000, T0 + 4050, "a");
    b.copy(g, 7, T0 + 600, T0 + 700, 0, CopyKind::HostToDevice, 4096);
    b.copy(g, 7, T0 + 3000, T0 + 3010, 0, CopyKind::DeviceToHost, 1024);
    b.copy(g, 7, T0 + 3500, T0 + 3600, 0, CopyKind::Memset, 64);
    return derive(b.finish());
}

IntervalOptions withLength(TimeNs length)
{
    IntervalOptions o;
    o.intervalNs = length;
    o.threads = 2;
    return o;
}

// A rank whose interval i (from T0) holds counts[i] kernels of 5 ns, 10 ns apart.
void kernelsPerInterval(FixtureBuilder &b, std::int32_t rankNumber, const std::vector<int> &counts)
{
    const auto r = b.addRank(rankNumber);
    const auto g = b.addGpu(r, 0);
    for (std::size_t i = 0; i < counts.size(); ++i)
        for (int j = 0; j < counts[i]; ++j) {
            const TimeNs s = T0 + TimeNs(i) * L + j * 10;
            b.kernel(g, 1, s, s + 5, "k");
        }
}

const CopyFigures &slot(const IntervalStats &s, CopyKind kind)
{
    return s.copies[copySlot(kind)];
}

} // namespace

class TestIntervals : public QObject
{
    Q_OBJECT
private slots:
    void momentsAreExactAndMergeToTheWhole()
    {
        // Durations near 10^12 ns: a naive double sum of squares would lose the answer (1).
        DurationMoments all, first, second;
        const TimeNs d[] = { 1'000'000'000'000, 1'000'000'000'001, 1'000'000'000'002 };
        for (auto x : d)
            all.add(x);
        first.add(d[0]);
        second.add(d[1]);
        second.add(d[2]);
        first.merge(second);
        QCOMPARE(first, all);
        QCOMPARE(all.sampleStddev(), 1.0);
        QCOMPARE(all.mean(), 1'000'000'000'001.0);
        QCOMPARE(all.min, d[0]);
        QCOMPARE(all.max, d[2]);
        // Merging an empty one changes nothing; into an empty one copies.
        DurationMoments empty;
        empty.merge(all);
        QCOMPARE(empty, all);
        all.merge(DurationMoments {});
        QCOMPARE(all, empty);
        // The same sample standard deviation as the kernel summary's helper.
        std::vector<TimeNs> values { 3, 7, 7, 19, 1000 };
        DurationMoments m;
        for (auto v : values)
            m.add(v);
        const auto stats = computeDurationStats(values);
        QCOMPARE(m.sampleStddev(), stats.stddevNs);
        DurationMoments one;
        one.add(42);
        QCOMPARE(one.sampleStddev(), 0.0);
    }

    void intervalEdgesEmptyIntervalsAndClippedBusyTime()
    {
        const auto derived = edgesCapture();
        const auto report = computeIntervals(*derived, withLength(L));
        QCOMPARE(report.originNs, T0);
        QCOMPARE(report.intervalNs, L);
        QCOMPARE(report.ranks.size(), std::size_t(1));
        const auto &ri = report.ranks[0];
        QCOMPARE(ri.firstIndex, std::int64_t(0));
        QCOMPARE(ri.eventsBeforeOrigin, std::uint64_t(0));
        QCOMPARE(ri.intervals.size(), std::size_t(5));
        const std::uint64_t count[] = { 2, 2, 0, 0, 1 };
        const TimeNs sum[] = { 400, 500, 0, 0, 50 }, mn[] = { 100, 100, 0, 0, 50 }, mx[] = { 300, 400, 0, 0, 50 };
        // The kernel [1900, 2300) is busy 100 ns in interval 1 and 300 ns in interval 2.
        const TimeNs busy[] = { 400, 200, 300, 0, 50 };
        const double stddev[] = { std::sqrt(20000.0), std::sqrt(45000.0), 0, 0, 0 };
        const double mean[] = { 200, 250, 0, 0, 50 };
        for (std::size_t i = 0; i < 5; ++i) {
            const auto &s = ri.intervals[i];
            QCOMPARE(s.kernels.count, count[i]);
            QCOMPARE(TimeNs(s.kernels.sum), sum[i]);
            QCOMPARE(s.kernels.min, mn[i]);
            QCOMPARE(s.kernels.max, mx[i]);
            QCOMPARE(s.kernels.mean(), mean[i]);
            QCOMPARE(s.kernels.sampleStddev(), stddev[i]);
            QCOMPARE(s.busyNs, busy[i]);
        }
        QCOMPARE(slot(ri.intervals[0], CopyKind::HostToDevice), (CopyFigures { 1, 4096, 100 }));
        QCOMPARE(slot(ri.intervals[3], CopyKind::DeviceToHost), (CopyFigures { 1, 1024, 10 }));
        QCOMPARE(slot(ri.intervals[3], CopyKind::Memset), (CopyFigures { 1, 64, 100 }));
        // Stall is the copy time without memsets.
        QCOMPARE(ri.intervals[0].stallNs(), TimeNs(100));
        QCOMPARE(ri.intervals[3].stallNs(), TimeNs(10));
        QCOMPARE(ri.intervals[3].transfers().bytes, std::uint64_t(1024));
        QCOMPARE(ri.intervals[2].stallNs(), TimeNs(0));
        // stddev: only the two intervals with two kernels or more are in the quartiles.
        QCOMPARE(report.anomalies.size(), std::size_t(1));
        QCOMPARE(report.anomalies[0].fences.n, std::size_t(2));
        QCOMPARE(intervalMetricValue(ri.intervals[4], IntervalMetric::Stddev), std::optional<double>());
        QCOMPARE(intervalMetricValue(ri.intervals[3], IntervalMetric::DtoH), std::optional<double>(1024));
        QCOMPARE(intervalMetricValue(ri.intervals[0], IntervalMetric::HtoD), std::optional<double>(4096));
        QCOMPARE(intervalMetricValue(ri.intervals[1], IntervalMetric::KernelNs), std::optional<double>(500));
    }

    void shardedEqualsUnsharded()
    {
        const auto derived = edgesCapture();
        auto one = withLength(L);
        one.shards = 1;
        one.threads = 1;
        const auto whole = computeIntervals(*derived, one);
        for (const TimeNs length : { TimeNs(1), TimeNs(7), TimeNs(300), L }) {
            one.intervalNs = length;
            const auto expected = computeIntervals(*derived, one);
            for (const std::size_t shards : { 0, 2, 3, 5, 7, 10000 }) {
                auto options = withLength(length);
                options.shards = shards;
                const auto sharded = computeIntervals(*derived, options);
                QCOMPARE(sharded.ranks.size(), expected.ranks.size());
                QCOMPARE(sharded.ranks[0].firstIndex, expected.ranks[0].firstIndex);
                QVERIFY(sharded.ranks[0].intervals == expected.ranks[0].intervals);
            }
        }
        // At 1 ns every busy ns is its own interval: the busy total is the union, 900 ns.
        one.intervalNs = 1;
        TimeNs busy = 0;
        const auto fine = computeIntervals(*derived, one);
        for (const auto &s : fine.ranks[0].intervals)
            busy += s.busyNs;
        QCOMPARE(busy, TimeNs(100 + 300 + 100 + 400 + 50));
        QCOMPARE(whole.ranks[0].intervals.size(), std::size_t(5));
    }

    void busyAcrossSeveralIntervalsAndShards()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto g = b.addGpu(r, 0);
        b.kernel(g, 1, T0 + 100, T0 + 3500, "long");
        b.kernel(g, 2, T0 + 3000, T0 + 3200, "inside"); // inside the union: no extra busy time
        const auto derived = derive(b.finish());
        for (const std::size_t shards : { 1, 4 }) {
            auto o = withLength(L);
            o.shards = shards;
            o.originNs = T0; // the first kernel starts 100 ns into interval 0
            const auto report = computeIntervals(*derived, o);
            const auto &iv = report.ranks[0].intervals;
            QCOMPARE(iv.size(), std::size_t(4));
            const TimeNs busy[] = { 900, 1000, 1000, 500 };
            const std::uint64_t count[] = { 1, 0, 0, 1 };
            for (std::size_t i = 0; i < 4; ++i) {
                QCOMPARE(iv[i].busyNs, busy[i]);
                QCOMPARE(iv[i].kernels.count, count[i]);
            }
        }
    }

    void copiesOnAGpuWithoutTheRanksKernelsCountButItsBusyTimeDoesNot()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto g0 = b.addGpu(r, 0);
        const auto g1 = b.addGpu(r, 1);
        b.kernel(g0, 1, T0, T0 + 100, "k");
        b.copy(g1, 3, T0 + 1200, T0 + 1300, 0, CopyKind::PeerToPeer, 512);
        // Another rank of another report runs kernels on its own device 1: not rank 0's busy time.
        const auto other = b.addRank(1);
        b.kernel(b.addGpu(other, 1), 1, T0 + 1000, T0 + 1900, "k");
        const auto derived = derive(b.finish());
        const auto &trace = derived->trace();
        QCOMPARE(trace.ranks[0].gpus, (std::vector<std::uint32_t> { 0 })); // kernels only
        QCOMPARE(copyGpusOfRank(trace, 0), (std::vector<std::uint32_t> { 1 }));
        const auto report = computeIntervals(*derived, withLength(L));
        const auto &iv = report.ranks[0].intervals;
        QCOMPARE(iv.size(), std::size_t(2));
        QCOMPARE(slot(iv[1], CopyKind::PeerToPeer), (CopyFigures { 1, 512, 100 }));
        QCOMPARE(iv[0].busyNs, TimeNs(100));
        QCOMPARE(iv[1].busyNs, TimeNs(0));
        QCOMPARE(report.ranks[1].firstIndex, std::int64_t(1));
        QCOMPARE(report.ranks[1].intervals.size(), std::size_t(1));
        QCOMPARE(report.ranks[1].intervals[0].busyNs, TimeNs(900));
    }

    void originOverride()
    {
        const auto derived = edgesCapture();
        // Later than the first kernels: they are left out and counted, their busy time too.
        auto later = withLength(L);
        later.originNs = T0 + 500;
        const auto a = computeIntervals(*derived, later);
        QCOMPARE(a.originNs, T0 + 500);
        const auto &ri = a.ranks[0];
        QCOMPARE(ri.eventsBeforeOrigin, std::uint64_t(2));
        QCOMPARE(ri.firstIndex, std::int64_t(0));
        QCOMPARE(ri.intervals.size(), std::size_t(4));
        const std::uint64_t count[] = { 1, 1, 0, 1 };
        const TimeNs busy[] = { 100, 400, 0, 50 };
        for (std::size_t i = 0; i < 4; ++i) {
            QCOMPARE(ri.intervals[i].kernels.count, count[i]);
            QCOMPARE(ri.intervals[i].busyNs, busy[i]);
        }
        QCOMPARE(slot(ri.intervals[0], CopyKind::HostToDevice).count, std::uint64_t(1));
        QCOMPARE(slot(ri.intervals[2], CopyKind::DeviceToHost).count, std::uint64_t(1));
        QCOMPARE(slot(ri.intervals[3], CopyKind::Memset).count, std::uint64_t(1));

        // Earlier: interval indices count from the given origin, the same wall time on every rank.
        auto earlier = withLength(L);
        earlier.originNs = T0 - 2500;
        const auto e = computeIntervals(*derived, earlier);
        QCOMPARE(e.ranks[0].firstIndex, std::int64_t(2)); // [T0 - 500, T0 + 500)
        QCOMPARE(e.ranks[0].eventsBeforeOrigin, std::uint64_t(0));
        QCOMPARE(e.ranks[0].intervals[0].kernels.count, std::uint64_t(2));
        QCOMPARE(e.ranks[0].intervals[0].busyNs, TimeNs(400));
        QCOMPARE(e.ranks[0].intervals[1].kernels.count, std::uint64_t(1)); // [T0 + 500, T0 + 1500)
        QCOMPARE(e.ranks[0].intervals.size(), std::size_t(5)); // up to [T0 + 3500, T0 + 4500)
    }

    void singleKernel()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        b.kernel(b.addGpu(r, 0), 1, T0 + 10, T0 + 30, "only");
        const auto derived = derive(b.finish());
        auto o = withLength(L);
        o.metric = IntervalMetric::Kernels;
        const auto report = computeIntervals(*derived, o);
        QCOMPARE(report.originNs, T0 + 10);
        QCOMPARE(report.ranks[0].intervals.size(), std::size_t(1));
        const auto &s = report.ranks[0].intervals[0];
        QCOMPARE(s.kernels.count, std::uint64_t(1));
        QCOMPARE(s.kernels.sampleStddev(), 0.0);
        QCOMPARE(s.busyNs, TimeNs(20));
        const auto &group = report.anomalies[0];
        QCOMPARE(group.fences.n, std::size_t(1));
        QCOMPARE(group.fences.q1, 1.0);
        QCOMPARE(group.fences.q3, 1.0);
        QCOMPARE(group.anomalous, std::uint64_t(0));
        // With stddev, the one interval has too few kernels: nothing to rank, nothing to say.
        const auto byStddev = computeIntervals(*derived, withLength(L));
        QCOMPARE(byStddev.anomalies[0].fences.n, std::size_t(0));
        QCOMPARE(byStddev.variability.pattern, VariabilityPattern::NoIntervals);
    }

    void quartilesInterpolateLinearly()
    {
        QCOMPARE(linearQuantile({ 1, 2, 3, 4, 5, 6, 40 }, 0.25), 2.5);
        QCOMPARE(linearQuantile({ 1, 2, 3, 4, 5, 6, 40 }, 0.75), 5.5);
        QCOMPARE(linearQuantile({ 10, 20 }, 0.25), 12.5);
        QCOMPARE(linearQuantile({ 7 }, 0.75), 7.0);
        const auto f = iqrFences({ 40, 1, 6, 2, 5, 3, 4 });
        QCOMPARE(f.n, std::size_t(7));
        QCOMPARE(f.iqr, 3.0);
        QCOMPARE(f.lower, -2.0);
        QCOMPARE(f.upper, 10.0);
    }

    void fencesWithIqrZeroTiesAndPooling()
    {
        FixtureBuilder b;
        // Rank 0: 13 intervals, ten with one kernel, 3 at 1 and 7, 5 at 4: Q1 = Q3 = 1, so the
        // score is the distance: interval 4 (4), then 1 and 7 (2 each, the earlier first).
        std::vector<int> rank0(13, 1);
        rank0[1] = 3;
        rank0[4] = 5;
        rank0[7] = 3;
        kernelsPerInterval(b, 0, rank0);
        // Rank 1: sorted 1 2 3 4 5 6 40: Q1 2.5, Q3 5.5, IQR 3, upper fence 10; 40 scores 10.
        kernelsPerInterval(b, 1, { 2, 1, 4, 3, 6, 40, 5 });
        const auto derived = derive(b.finish());
        auto o = withLength(L);
        o.metric = IntervalMetric::Kernels;
        o.top = 2;
        const auto perRank = computeIntervals(*derived, o);
        QCOMPARE(perRank.anomalies.size(), std::size_t(2));
        const auto &g0 = perRank.anomalies[0];
        QCOMPARE(g0.rank, std::uint32_t(0));
        QCOMPARE(g0.fences.iqr, 0.0);
        QCOMPARE(g0.fences.upper, 1.0);
        QCOMPARE(g0.anomalous, std::uint64_t(3));
        QCOMPARE(g0.top.size(), std::size_t(2));
        QCOMPARE(g0.top[0].index, std::int64_t(4));
        QCOMPARE(g0.top[0].value, 5.0);
        QCOMPARE(g0.top[0].score, 4.0);
        QCOMPARE(g0.top[0].startNs, T0 + 4 * L);
        QCOMPARE(g0.top[1].index, std::int64_t(1)); // tie with interval 7: the earlier first
        QCOMPARE(g0.top[1].score, 2.0);
        const auto &g1 = perRank.anomalies[1];
        QCOMPARE(g1.rank, std::uint32_t(1));
        QCOMPARE(g1.fences.q1, 2.5);
        QCOMPARE(g1.fences.q3, 5.5);
        QCOMPARE(g1.anomalous, std::uint64_t(1));
        QCOMPARE(g1.top[0].index, std::int64_t(5));
        QCOMPARE(g1.top[0].score, 10.0);

        // Pooled: 20 values, Q1 = 1, Q3 = 3.25 (between the 15th and 16th), IQR 2.25, upper
        // fence 6.625; only rank 1's 40 is beyond it, scoring 33.375 / 2.25.
        o.pool = true;
        o.top = 5;
        const auto pooled = computeIntervals(*derived, o);
        QCOMPARE(pooled.anomalies.size(), std::size_t(1));
        const auto &p = pooled.anomalies[0];
        QCOMPARE(p.rank, kNoIndex);
        QCOMPARE(p.fences.n, std::size_t(20));
        QCOMPARE(p.fences.q1, 1.0);
        QCOMPARE(p.fences.q3, 3.25);
        QCOMPARE(p.fences.upper, 6.625);
        QCOMPARE(p.anomalous, std::uint64_t(1));
        QCOMPARE(p.top[0].rank, std::uint32_t(1));
        QCOMPARE(p.top[0].index, std::int64_t(5));
        QCOMPARE(p.top[0].score, 33.375 / 2.25);
    }

    void tiesAcrossRanksTakeTheEarlierIntervalThenTheLowerRank()
    {
        FixtureBuilder b;
        std::vector<int> counts(9, 1);
        counts[6] = 4;
        kernelsPerInterval(b, 0, counts);
        counts[6] = 1;
        counts[2] = 4;
        kernelsPerInterval(b, 1, counts);
        counts[2] = 1;
        counts[6] = 4;
        kernelsPerInterval(b, 2, counts);
        auto o = withLength(L);
        o.metric = IntervalMetric::Kernels;
        o.pool = true;
        const auto report = computeIntervals(*derive(b.finish()), o);
        const auto &top = report.anomalies[0].top;
        QCOMPARE(top.size(), std::size_t(3));
        QCOMPARE(top[0].rank, std::uint32_t(1)); // interval 2
        QCOMPARE(top[1].rank, std::uint32_t(0)); // interval 6, rank 0 before rank 2
        QCOMPARE(top[2].rank, std::uint32_t(2));
        for (const auto &a : top)
            QCOMPARE(a.score, 3.0);
    }

    void pingPongRuns()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto g = b.addGpu(r, 0);
        b.kernel(g, 1, T0, T0 + 10, "k");
        // H D | memset | H D H D H | DtoD: runs of two (too short) and of five.
        const CopyKind kinds[] = { CopyKind::HostToDevice, CopyKind::DeviceToHost, CopyKind::Memset,
            CopyKind::HostToDevice, CopyKind::DeviceToHost, CopyKind::HostToDevice, CopyKind::DeviceToHost,
            CopyKind::HostToDevice, CopyKind::DeviceToDevice };
        for (std::size_t i = 0; i < std::size(kinds); ++i)
            b.copy(g, 1, T0 + 100 * TimeNs(i), T0 + 100 * TimeNs(i) + 10, 0, kinds[i], 10 * (i + 1));
        const auto trace = b.finish();
        const auto pp = findPingPong(*trace, 0);
        QCOMPARE(pp.runs, std::uint64_t(1));
        QCOMPARE(pp.copies, std::uint64_t(5));
        QCOMPARE(pp.longestRun, std::uint64_t(5));
        QCOMPARE(pp.htodDtohCopies, std::uint64_t(7));
        QCOMPARE(pp.medianBytes, 60.0); // sizes 40 50 60 70 80
        QCOMPARE(pp.starts, (std::vector<TimeNs> { T0 + 300, T0 + 400, T0 + 500, T0 + 600, T0 + 700 }));
    }

    void variabilityNamesPingPongInTheTopIntervals()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto g = b.addGpu(r, 0);
        for (int i = 0; i < 20; ++i)
            for (int j = 0; j < (i == 3 ? 5 : 1); ++j)
                b.kernel(g, 1, T0 + i * L + j * 10, T0 + i * L + j * 10 + 5, "k");
        // Interval 3: H D H D of 100..400 B, 10 ns each; interval 10: one 1 MiB DtoD.
        const CopyKind hd[] = { CopyKind::HostToDevice, CopyKind::DeviceToHost };
        for (int i = 0; i < 4; ++i)
            b.copy(g, 2, T0 + 3 * L + 100 + 100 * i, T0 + 3 * L + 110 + 100 * i, 0, hd[i % 2], 100 * (i + 1));
        b.copy(g, 2, T0 + 10 * L + 100, T0 + 10 * L + 150, 0, CopyKind::DeviceToDevice, 1 << 20);
        const auto derived = derive(b.finish());
        auto o = withLength(L);
        o.metric = IntervalMetric::Kernels;
        const auto report = computeIntervals(*derived, o);
        const auto &v = report.variability;
        QCOMPARE(v.top.intervals, std::uint64_t(1)); // ceil(5% of 20)
        QCOMPARE(v.rest.intervals, std::uint64_t(19));
        QCOMPARE(v.top.copies[copySlot(CopyKind::HostToDevice)], (CopyFigures { 2, 400, 20 }));
        QCOMPARE(v.top.copies[copySlot(CopyKind::DeviceToHost)], (CopyFigures { 2, 600, 20 }));
        QCOMPARE(v.rest.copies[copySlot(CopyKind::DeviceToDevice)], (CopyFigures { 1, 1 << 20, 50 }));
        QCOMPARE(v.top.pingPongCopies, std::uint64_t(4));
        QCOMPARE(v.rest.pingPongCopies, std::uint64_t(0));
        QCOMPARE(v.pattern, VariabilityPattern::PingPong);
        QCOMPARE(v.pingPongMedianBytes, 250.0);
        QCOMPARE(QString::fromStdString(v.finding),
            QStringLiteral("the top 5% of intervals by kernels (1 of 20) are dominated by alternating HtoD/DtoH "
                           "copies (ping-pong): 4 of their 4 copies, median 250 B; copy time per interval 40 ns "
                           "against 3 ns in the rest"));

        // By bytes moved the DtoD interval is the top one: its direction dominates.
        o.metric = IntervalMetric::Bytes;
        const auto byBytes = computeIntervals(*derived, o);
        QCOMPARE(byBytes.variability.pattern, VariabilityPattern::Direction);
        QCOMPARE(byBytes.variability.dominantSlot, copySlot(CopyKind::DeviceToDevice));
        QCOMPARE(byBytes.variability.top.copies[copySlot(CopyKind::DeviceToDevice)].count, std::uint64_t(1));
        // A percent outside (0, 100] clamps to one interval or all of them.
        for (const double percent : { -5.0, 0.0, 100.0, 250.0 }) {
            o.topPercent = percent;
            const auto clamped = computeIntervals(*derived, o).variability;
            QCOMPARE(clamped.top.intervals, std::uint64_t(percent >= 100 ? 20 : 1));
            QCOMPARE(clamped.top.intervals + clamped.rest.intervals, std::uint64_t(20));
        }
        // By busy time interval 3 (five kernels of 5 ns) is the top one again.
        o.metric = IntervalMetric::Busy;
        o.topPercent = 5;
        const auto byBusy = computeIntervals(*derived, o);
        QCOMPARE(byBusy.variability.top.intervals, std::uint64_t(1));
        QCOMPARE(byBusy.variability.pattern, VariabilityPattern::PingPong); // interval 3 is the busiest
    }

    void metricNamesRoundTrip()
    {
        for (const auto *name : { "stddev", "busy", "kernels", "kernel_ns", "stall", "bytes", "htod", "dtoh" }) {
            const auto m = parseIntervalMetric(name);
            QVERIFY(m.has_value());
            QCOMPARE(intervalMetricName(*m), std::string_view(name));
        }
        QVERIFY(!parseIntervalMetric("Stddev"));
        QVERIFY(!parseIntervalMetric(""));
    }

    void badIntervalLengthIsRefused()
    {
        const auto derived = edgesCapture();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, computeIntervals(*derived, withLength(0)));
        auto far = withLength(L);
        far.originNs = std::numeric_limits<TimeNs>::min(); // start - origin would overflow
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, computeIntervals(*derived, far));
        // 4050 ns of work in 1 ns intervals is fine; 10^6 + 1 intervals are not.
        QCOMPARE(computeIntervals(*derived, withLength(1)).ranks[0].intervals.size(), std::size_t(4050));
        FixtureBuilder b;
        const auto r = b.addRank(0);
        b.kernel(b.addGpu(r, 0), 1, T0, T0 + kMaxIntervalsPerRank + 1, "long");
        const auto wide = derive(b.finish());
        try {
            computeIntervals(*wide, withLength(1));
            QFAIL("no exception");
        } catch (const std::invalid_argument &e) {
            QCOMPARE(QString::fromUtf8(e.what()),
                QStringLiteral("intervals of 1 ns give rank 0 1000001 intervals, more than 1000000: choose a longer "
                               "interval"));
        }
        QCOMPARE(computeIntervals(*wide, withLength(2)).ranks[0].intervals.size(), std::size_t(500'001));
    }
    void defaultLengthGivesAtLeastTwentyIntervals()
    {
        // GPU work from T0 to T0 + 4050 ns: 200 ns gives 20 intervals, 500 ns only 8.
        QCOMPARE(defaultIntervalLength(edgesCapture()->trace()), TimeNs(200));
        auto spanning = [](TimeNs span) {
            FixtureBuilder b;
            const auto g = b.addGpu(b.addRank(0), 0);
            b.kernel(g, 1, T0, T0 + 10, "a");
            b.copy(g, 2, T0 + span - 10, T0 + span, 0, CopyKind::HostToDevice, 1); // the copy ends the work
            return defaultIntervalLength(*b.finish());
        };
        QCOMPARE(spanning(25'000'000'000), TimeNs(1'000'000'000));
        QCOMPARE(spanning(20'000'000'000), TimeNs(1'000'000'000));
        QCOMPARE(spanning(19'999'999'999), TimeNs(500'000'000));
        QCOMPARE(spanning(1'200'000'000), TimeNs(50'000'000));
        QCOMPARE(spanning(20), TimeNs(1));
        FixtureBuilder empty;
        empty.addRank(0);
        QCOMPARE(defaultIntervalLength(*empty.finish()), TimeNs(1'000'000'000));
        QCOMPARE(std::string(intervalOffsetUnit(1'000'000'000).name), std::string("s"));
        QCOMPARE(std::string(intervalOffsetUnit(50'000'000).name), std::string("ms"));
        QCOMPARE(std::string(intervalOffsetUnit(500'000).name), std::string("us"));
        QCOMPARE(std::string(intervalOffsetUnit(1500).name), std::string("ns"));
        QCOMPARE(intervalOffsetNumber(500'000, 36), std::string("18000"));
        QCOMPARE(intervalOffsetNumber(50'000'000, 12), std::string("600"));
    }

    void anomaliesOfAnotherMetricEqualComputingWithIt()
    {
        FixtureBuilder b;
        kernelsPerInterval(b, 0, { 3, 3, 4, 3, 12, 3, 3, 0, 3, 1 });
        kernelsPerInterval(b, 1, { 2, 2, 2, 9, 2, 2, 2, 2 });
        const auto derived = derive(b.finish());
        const auto stddev = computeIntervals(*derived, withLength(L));
        for (const bool pool : { false, true })
            for (const auto metric : { IntervalMetric::Kernels, IntervalMetric::KernelNs, IntervalMetric::Busy }) {
                auto options = withLength(L);
                options.metric = metric;
                options.pool = pool;
                const auto direct = computeIntervals(*derived, options).anomalies;
                const auto later = findAnomalies(stddev, metric, pool, options.top);
                QCOMPARE(later.size(), direct.size());
                for (std::size_t g = 0; g < direct.size(); ++g) {
                    QCOMPARE(later[g].rank, direct[g].rank);
                    QCOMPARE(later[g].anomalous, direct[g].anomalous);
                    QCOMPARE(later[g].fences.upper, direct[g].fences.upper);
                    QCOMPARE(later[g].top.size(), direct[g].top.size());
                    for (std::size_t i = 0; i < direct[g].top.size(); ++i) {
                        QCOMPARE(later[g].top[i].index, direct[g].top[i].index);
                        QCOMPARE(later[g].top[i].score, direct[g].top[i].score);
                    }
                }
            }
        // Rank 0's 12-kernel interval stands out by count.
        const auto kernels = findAnomalies(stddev, IntervalMetric::Kernels, false, 5);
        QCOMPARE(kernels[0].top.front().index, std::int64_t(4));
        QCOMPARE(kernels[1].top.front().index, std::int64_t(3));
    }

    void copyStallsPerRankAndOnEveryRank()
    {
        // Ten intervals per rank, a 10 ns copy in each; longer copies: rank 0 300 ns in
        // intervals 3 and 7, rank 1 300 ns in 7, rank 2 40 ns in 7 (above its fence, but under
        // 5% of the interval: no stall).
        FixtureBuilder b;
        const std::vector<std::vector<std::pair<TimeNs, TimeNs>>> longer { { { 3, 300 }, { 7, 300 } }, { { 7, 300 } },
            { { 7, 40 } } };
        for (int r = 0; r < 3; ++r) {
            const auto g = b.addGpu(b.addRank(r), r);
            for (TimeNs i = 0; i < 10; ++i) {
                TimeNs d = 10;
                for (const auto &[k, ns] : longer[std::size_t(r)])
                    if (k == i)
                        d = ns;
                b.copy(g, 1, T0 + i * L, T0 + i * L + d, 0, CopyKind::DeviceToHost, 8);
            }
        }
        const auto report = computeIntervals(*derive(b.finish()), withLength(L));
        QCOMPARE(copyStallIntervals(report, 0), (std::vector<std::int64_t> { 3, 7 }));
        QCOMPARE(copyStallIntervals(report, 1), (std::vector<std::int64_t> { 7 }));
        QVERIFY(copyStallIntervals(report, 2).empty());
        QCOMPARE(simultaneousCopyStalls(report, { 0, 1 }), (std::vector<std::int64_t> { 7 }));
        QVERIFY(simultaneousCopyStalls(report, { 0, 1, 2 }).empty());
        QVERIFY(simultaneousCopyStalls(report, { 0 }).empty()); // one rank: nothing is simultaneous
        QVERIFY(copyStallIntervals(report, 9).empty()); // no such entry
    }
};

QTEST_APPLESS_MAIN(TestIntervals)
#include "tst_intervals.moc"
