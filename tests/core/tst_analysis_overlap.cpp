// SPDX-License-Identifier: MIT
// Communication and computation: NCCL time overlapped by compute or exposed, collective types,
// and the start skew of collectives across ranks, on hand-built traces and on real exports
// (against an independent computation over rows read with SQL).
#include "gaplens/core/analysis/overlap.h"
#include "sqltestdb.h"
#include "synth_sample.h"
#include "testsupport.h"
#include "trace_counts.h"
#include "trace_fixture.h"

#include <QTest>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;
using gaplens::test::GpuRef;
using gaplens::test::T0;

Q_DECLARE_METATYPE(gaplens::core::CollectiveType)

namespace {

// One rank, one GPU, two streams (times relative to T0):
//   stream 7: gemm [0,100)  gemm [150,300)  NCCLKernel_AllGather_RING_LL [310,420)
//   stream 9: ncclKernel_AllReduce_RING_LL_Sum_float [50,200)  elementwise [200,260)
//             ncclDevKernel_SendRecv [400,450)
// compute = [0,100) + [150,300) = 250; comm = [50,200) + [310,450) = 290;
// overlap = [50,100) + [150,200) = 100; exposed = 190.
// A second rank on its own GPU has one compute kernel [0,40).
std::unique_ptr<TraceSet> twoStreamFixture()
{
    FixtureBuilder b;
    const auto r0 = b.addRank(0);
    const auto g0 = b.addGpu(r0, 0);
    b.kernel(g0, 7, T0 + 0, T0 + 100, "gemm");
    b.kernel(g0, 7, T0 + 150, T0 + 300, "gemm");
    b.kernel(g0, 7, T0 + 310, T0 + 420, "NCCLKernel_AllGather_RING_LL");
    b.kernel(g0, 9, T0 + 50, T0 + 200, "ncclKernel_AllReduce_RING_LL_Sum_float");
    b.kernel(g0, 9, T0 + 200, T0 + 260, "elementwise");
    b.kernel(g0, 9, T0 + 400, T0 + 450, "ncclDevKernel_SendRecv");
    const auto r1 = b.addRank(1);
    const auto g1 = b.addGpu(r1, 0);
    b.kernel(g1, 7, T0 + 0, T0 + 40, "gemm");
    return b.finish();
}

// Every figure of one row: rank and GPU (indices), kernel counts, the three unions' times; exposed and
// the hidden share follow from them.
void compareRow(const OverlapRow &row, std::uint32_t rank, std::uint32_t gpu, std::uint64_t commKernels,
    std::uint64_t computeKernels, TimeNs commNs, TimeNs computeNs, TimeNs overlapNs)
{
    QCOMPARE(row.rank, rank);
    QCOMPARE(row.gpu, gpu);
    QCOMPARE(row.commKernels, commKernels);
    QCOMPARE(row.computeKernels, computeKernels);
    QCOMPARE(row.commNs, commNs);
    QCOMPARE(row.computeNs, computeNs);
    QCOMPARE(row.overlapNs, overlapNs);
    QCOMPARE(row.exposedCommNs, commNs - overlapNs);
    QCOMPARE(row.hiddenPercent, commNs > 0 ? 100.0 * double(overlapNs) / double(commNs) : 0.0);
}

// A row's collectives, in order: type, calls and total ns of each.
void compareCollectives(const std::vector<CollectiveTotals> &actual, std::initializer_list<CollectiveTotals> expected)
{
    QCOMPARE(actual.size(), expected.size());
    auto e = expected.begin();
    for (std::size_t i = 0; i < actual.size(); ++i, ++e) {
        QCOMPARE(actual[i].type, e->type);
        QCOMPARE(actual[i].calls, e->calls);
        QCOMPARE(actual[i].totalNs, e->totalNs);
    }
}

// Three ranks, 100 ns kernels on one stream each; AllReduce starts (relative to T0):
//   k=0: 1000 1300 1100 -> skews 0 300 100, last rank 1
//   k=1: 2500 2000 2400 -> skews 500 0 400, last rank 0
//   k=2: 3000 3200 3200 -> skews 0 200 200, ranks 1 and 2 tie: no last rank
//   k=3: rank 2 only at 4000 -> no instance
// SendRecv on ranks 0 and 1 only: 5000 5050 -> skews 0 50, last rank 1.
std::unique_ptr<TraceSet> skewFixture()
{
    FixtureBuilder b;
    const char *allReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
    const std::vector<std::vector<TimeNs>> starts
        = { { 1000, 2500, 3000 }, { 1300, 2000, 3200 }, { 1100, 2400, 3200, 4000 } };
    for (std::int32_t r = 0; r < 3; ++r) {
        const auto rank = b.addRank(r);
        const auto gpu = b.addGpu(rank, 0);
        for (const auto start : starts[std::size_t(r)])
            b.kernel(gpu, 7, T0 + start, T0 + start + 100, allReduce);
        if (r < 2)
            b.kernel(gpu, 7, T0 + 5000 + 50 * r, T0 + 5100 + 50 * r, "ncclDevKernel_SendRecv");
        b.kernel(gpu, 7, T0 + 500, T0 + 600, "gemm"); // compute: never matched
    }
    return b.finish();
}

// A rank per entry of `starts`, with an AllReduce at each of its starts (relative to T0).
std::unique_ptr<TraceSet> collectivesStartingAt(const std::vector<std::vector<TimeNs>> &starts)
{
    FixtureBuilder b;
    for (std::int32_t r = 0; r < std::int32_t(starts.size()); ++r) {
        const auto gpu = b.addGpu(b.addRank(r), 0);
        for (const auto start : starts[std::size_t(r)])
            b.kernel(gpu, 7, T0 + start, T0 + start + 100, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    }
    return b.finish();
}

void compareInstance(const TraceSet &trace, const CollectiveInstance &instance, const char *name,
    std::uint32_t occurrence, const std::vector<std::uint32_t> &ranks, const std::vector<TimeNs> &relativeStarts,
    const std::vector<TimeNs> &skews, std::uint32_t lastRank)
{
    QCOMPARE(trace.str(instance.name), std::string(name));
    QCOMPARE(instance.occurrence, occurrence);
    QCOMPARE(instance.ranks, ranks);
    std::vector<TimeNs> starts;
    for (const auto s : relativeStarts)
        starts.push_back(T0 + s);
    QCOMPARE(instance.start, starts);
    QCOMPARE(instance.skewNs, skews);
    QCOMPARE(instance.lastRank, lastRank);
}

// The expected figures of one (pid, device) computed from the export's kernel rows by a sweep
// over start/end events, independent of the merge the analysis uses.
struct SqlOverlap
{
    std::int64_t commKernels = 0, computeKernels = 0;
    std::int64_t commNs = 0, computeNs = 0, overlapNs = 0, commDurationSum = 0;
    std::vector<std::int64_t> commStarts; // in start order, for the skew
};

std::map<std::pair<std::int64_t, std::int64_t>, SqlOverlap> sqlOverlap(const std::string &file)
{
    gaplens::test::SqlTestDb db(file);
    const auto rows = db.rows(R"(
        SELECT (k.globalPid >> 24) & 16777215, k.deviceId, k.start, k."end",
               CASE WHEN lower(substr(s.value, 1, 4)) = 'nccl' THEN 1 ELSE 0 END
        FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName
        ORDER BY k.start, k."end")");
    struct Event
    {
        std::int64_t time;
        int delta; // +1 start, -1 end
        bool comm;
    };
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Event>> events;
    std::map<std::pair<std::int64_t, std::int64_t>, SqlOverlap> result;
    for (const auto &row : rows) {
        const std::pair key { std::stoll(row[0]), std::stoll(row[1]) };
        const auto start = std::stoll(row[2]), end = std::stoll(row[3]);
        const bool comm = row[4] == "1";
        auto &r = result[key];
        (comm ? r.commKernels : r.computeKernels) += 1;
        if (comm) {
            r.commDurationSum += end - start;
            r.commStarts.push_back(start);
        }
        events[key].push_back({ start, +1, comm });
        events[key].push_back({ end, -1, comm });
    }
    for (auto &[key, list] : events) {
        std::sort(list.begin(), list.end(), [](const Event &a, const Event &b) { return a.time < b.time; });
        int comm = 0, compute = 0;
        std::int64_t previous = list.empty() ? 0 : list.front().time;
        auto &r = result[key];
        for (const auto &e : list) {
            const auto span = e.time - previous;
            if (comm > 0)
                r.commNs += span;
            if (compute > 0)
                r.computeNs += span;
            if (comm > 0 && compute > 0)
                r.overlapNs += span;
            (e.comm ? comm : compute) += e.delta;
            previous = e.time;
        }
    }
    return result;
}

} // namespace

class TestAnalysisOverlap : public QObject
{
    Q_OBJECT

private slots:
    void communicationKernelsAreThoseNamedNccl_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("comm");
        QTest::newRow("lower") << QStringLiteral("ncclDevKernel_SendRecv") << true;
        QTest::newRow("upper") << QStringLiteral("NCCL_something") << true;
        QTest::newRow("mixed") << QStringLiteral("NcclFoo") << true;
        QTest::newRow("exactly nccl") << QStringLiteral("nccl") << true;
        QTest::newRow("too short") << QStringLiteral("ncc") << false;
        QTest::newRow("not at the start") << QStringLiteral("gemm_nccl") << false;
        QTest::newRow("empty") << QString() << false;
    }

    void communicationKernelsAreThoseNamedNccl()
    {
        QFETCH(QString, name);
        QFETCH(bool, comm);
        QCOMPARE(isCommunicationKernel(name.toStdString()), comm);
    }

    void collectiveTypeIsTheWordAfterTheFirstUnderscore_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<CollectiveType>("type");
        QTest::addColumn<QString>("typeName");
        const auto row = [](const char *name, CollectiveType type, const char *typeName) {
            QTest::newRow(name) << QString::fromLatin1(name) << type << QString::fromLatin1(typeName);
        };
        row("ncclDevKernel_SendRecv", CollectiveType::SendRecv, "SendRecv");
        row("ncclKernel_AllReduce_RING_LL_Sum_float", CollectiveType::AllReduce, "AllReduce");
        row("ncclDevKernel_AllGather_RING_LL", CollectiveType::AllGather, "AllGather");
        row("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", CollectiveType::ReduceScatter, "ReduceScatter");
        row("ncclDevKernel_Reduce_Sum_f32_RING_LL", CollectiveType::Reduce, "Reduce");
        row("ncclKernel_Broadcast_RING_LL_Sum_int8_t", CollectiveType::Broadcast, "Broadcast");
        row("ncclDevKernel_AllToAll", CollectiveType::AllToAll, "AllToAll");
        row("ncclDevKernel_AlltoAll_RING", CollectiveType::AllToAll, "AllToAll");
        row("ncclKernel_Send_SIMPLE", CollectiveType::Send, "Send");
        row("ncclKernel_Recv_SIMPLE", CollectiveType::Recv, "Recv");
        row("NCCLDEVKERNEL_ALLREDUCE_SUM", CollectiveType::AllReduce, "AllReduce");
        row("ncclDevKernel_Generic", CollectiveType::Other, "Other");
        row("ncclDevKernel_AllReduceX", CollectiveType::Other, "Other");
        row("nccl", CollectiveType::Other, "Other");
        row("gemm_AllReduce", CollectiveType::Other, "Other");
    }

    void collectiveTypeIsTheWordAfterTheFirstUnderscore()
    {
        QFETCH(QString, name);
        QFETCH(CollectiveType, type);
        QFETCH(QString, typeName);
        QCOMPARE(parseCollectiveType(name.toStdString()), type);
        QCOMPARE(QString::fromLatin1(collectiveTypeName(type)), typeName);
    }

    void partialOverlapOnTwoStreamsSplitsCommunicationIntoHiddenAndExposed()
    {
        const auto trace = twoStreamFixture();
        const auto report = computeOverlap(*trace);
        QCOMPARE(report.rows.size(), std::size_t(2));
        const auto &row = report.rows[0];
        CHECK(compareRow(row, 0, 0, 3, 3, 290, 250, 100));
        QCOMPARE(row.exposedCommNs, TimeNs(190));
        QCOMPARE(row.hiddenPercent, 100.0 * 100.0 / 290.0);
        CHECK(compareCollectives(row.collectives,
            { { CollectiveType::AllReduce, 1, 150 }, { CollectiveType::AllGather, 1, 110 },
                { CollectiveType::SendRecv, 1, 50 } }));

        // Compute only: nothing to hide, nothing exposed.
        const auto &other = report.rows[1];
        CHECK(compareRow(other, 1, 1, 0, 1, 0, 40, 0));
        QCOMPARE(other.exposedCommNs, TimeNs(0));
        QVERIFY(other.collectives.empty());
        // One rank: no instance has anyone to wait for.
        QVERIFY(report.instances.empty());
        QCOMPARE(report.ranks.size(), std::size_t(1));
        QCOMPARE(report.ranks[0].instances, std::uint64_t(0));
    }

    void aWindowClipsEveryKernelAndARankSelectionDropsTheOthers()
    {
        const auto trace = twoStreamFixture();
        OverlapOptions options;
        options.window = TimeRange { T0 + 60, T0 + 320 };
        options.ranks = RankSelection::only({ 0 });
        const auto report = computeOverlap(*trace, options);
        QCOMPARE(report.rows.size(), std::size_t(1));
        const auto &row = report.rows[0];
        // compute [60,100) + [150,300); comm [60,200) + [310,320); the SendRecv is outside.
        CHECK(compareRow(row, 0, 0, 2, 3, 150, 190, 90));
        QCOMPARE(row.exposedCommNs, TimeNs(60));
        QCOMPARE(row.hiddenPercent, 100.0 * 90.0 / 150.0);
        CHECK(compareCollectives(
            row.collectives, { { CollectiveType::AllReduce, 1, 140 }, { CollectiveType::AllGather, 1, 10 } }));
    }

    void collectivesAreMatchedByOrderAndTheLastRankToStartIsCounted()
    {
        const auto trace = skewFixture();
        const auto report = computeOverlap(*trace);
        const char *allReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
        QCOMPARE(report.instances.size(), std::size_t(4));
        CHECK(compareInstance(
            *trace, report.instances[0], allReduce, 0, { 0, 1, 2 }, { 1000, 1300, 1100 }, { 0, 300, 100 }, 1));
        CHECK(compareInstance(
            *trace, report.instances[1], allReduce, 1, { 0, 1, 2 }, { 2500, 2000, 2400 }, { 500, 0, 400 }, 0));
        CHECK(compareInstance(
            *trace, report.instances[2], allReduce, 2, { 0, 1, 2 }, { 3000, 3200, 3200 }, { 0, 200, 200 }, kNoIndex));
        CHECK(compareInstance(
            *trace, report.instances[3], "ncclDevKernel_SendRecv", 0, { 0, 1 }, { 5000, 5050 }, { 0, 50 }, 1));
        QCOMPARE(report.instances[0].type, CollectiveType::AllReduce);
        QCOMPARE(report.instances[3].type, CollectiveType::SendRecv);

        QCOMPARE(report.ranks.size(), std::size_t(3));
        // rank 0: skews 0 500 0 0; rank 1: 300 0 200 50; rank 2: 100 400 200.
        const std::uint64_t instances[] = { 4, 4, 3 };
        const double medians[] = { 0, 125, 200 };
        const TimeNs maxima[] = { 500, 300, 400 };
        const std::uint64_t last[] = { 1, 2, 0 };
        for (std::uint32_t r = 0; r < 3; ++r) {
            QCOMPARE(report.ranks[r].rank, r);
            QCOMPARE(report.ranks[r].instances, instances[r]);
            QCOMPARE(report.ranks[r].medianSkewNs, medians[r]);
            QCOMPARE(report.ranks[r].maxSkewNs, maxima[r]);
            QCOMPARE(report.ranks[r].timesLast, last[r]);
        }
        // Each rank: four or five 100 ns NCCL kernels, one gemm apart from them.
        QCOMPARE(report.rows[2].commNs, TimeNs(400));
        QCOMPARE(report.rows[2].computeNs, TimeNs(100));
        QCOMPARE(report.rows[2].overlapNs, TimeNs(0));

        // Without rank 1 the matching is over ranks 0 and 2 only.
        OverlapOptions options;
        options.ranks = RankSelection::only({ 0, 2 });
        const auto two = computeOverlap(*trace, options);
        QCOMPARE(two.instances.size(), std::size_t(3));
        CHECK(compareInstance(*trace, two.instances[0], allReduce, 0, { 0, 2 }, { 1000, 1100 }, { 0, 100 }, 2));
        CHECK(compareInstance(*trace, two.instances[1], allReduce, 1, { 0, 2 }, { 2500, 2400 }, { 100, 0 }, 0));
        CHECK(compareInstance(*trace, two.instances[2], allReduce, 2, { 0, 2 }, { 3000, 3200 }, { 0, 200 }, 2));
        QCOMPARE(two.ranks.size(), std::size_t(2));
        QCOMPARE(two.ranks[0].medianSkewNs, 0.0);
        QCOMPARE(two.ranks[0].timesLast, std::uint64_t(1));
        QCOMPARE(two.ranks[1].medianSkewNs, 100.0);
        QCOMPARE(two.ranks[1].timesLast, std::uint64_t(2));
    }

    // Two runs opened together (ranks 0-1 an hour before ranks 2-3): each run's collectives are
    // matched among its own ranks, so no skew spans the hour between them.
    void runsApartInTimeAreMatchedSeparately()
    {
        constexpr TimeNs kHour = 3'600'000'000'000;
        const auto trace = collectivesStartingAt(
            { { 1000, 2000 }, { 1300, 2100 }, { kHour + 1000, kHour + 2000 }, { kHour + 1000, kHour + 2500 } });
        const auto report = computeOverlap(*trace);
        const char *allReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
        QCOMPARE(report.instances.size(), std::size_t(4));
        CHECK(compareInstance(*trace, report.instances[0], allReduce, 0, { 0, 1 }, { 1000, 1300 }, { 0, 300 }, 1));
        CHECK(compareInstance(*trace, report.instances[1], allReduce, 1, { 0, 1 }, { 2000, 2100 }, { 0, 100 }, 1));
        CHECK(compareInstance(
            *trace, report.instances[2], allReduce, 0, { 2, 3 }, { kHour + 1000, kHour + 1000 }, { 0, 0 }, kNoIndex));
        CHECK(compareInstance(
            *trace, report.instances[3], allReduce, 1, { 2, 3 }, { kHour + 2000, kHour + 2500 }, { 0, 500 }, 3));
        const TimeNs maxima[] = { 0, 300, 0, 500 };
        for (std::uint32_t r = 0; r < 4; ++r)
            QCOMPARE(report.ranks[r].maxSkewNs, maxima[r]);
    }

    // The one the others waited for started last in more than half of its instances, and in at
    // least three; the skew fixture's rank 1 is last in 2 of 4 (half is not more than half).
    void theCollectiveStragglerStartedLastInMostOfItsInstances()
    {
        QVERIFY(!findCollectiveStraggler(computeOverlap(*skewFixture())));

        // Rank 2 last in instances 0, 1 and 3 of 4; rank 0 in instance 2.
        const auto three = collectivesStartingAt(
            { { 1000, 2000, 3300, 4000 }, { 1100, 2100, 3000, 4100 }, { 1200, 2200, 3100, 4200 } });
        const auto report = computeOverlap(*three);
        const auto found = findCollectiveStraggler(report);
        QVERIFY(found);
        QCOMPARE(found->rank, 2u);
        QCOMPARE(found->timesLast, std::uint64_t(3));
        QCOMPARE(found->instances, std::uint64_t(4));
        // Rank 2's skews: 200 200 100 200 -> median 200.
        QCOMPARE(found->medianSkewNs, 200.0);
        QCOMPARE(describeCollectiveStraggler(*found),
            std::string("started last in 3 of 4 collectives (median skew 200 ns): the other ranks waited for it"));

        // Last in both of two instances is not yet evidence.
        const auto two = collectivesStartingAt({ { 1000, 2000 }, { 1100, 2100 }, { 1200, 2200 } });
        QVERIFY(!findCollectiveStraggler(computeOverlap(*two)));

        // Two pairs of ranks, each pair with its own collective: rank 0 last in all three of
        // the first pair's, rank 2 in all three of the second's. A tie names no one.
        FixtureBuilder b;
        for (std::int32_t r = 0; r < 4; ++r) {
            const auto gpu = b.addGpu(b.addRank(r), 0);
            const char *name = r < 2 ? "ncclDevKernel_AllGather_RING_LL" : "ncclDevKernel_ReduceScatter_RING_LL";
            const TimeNs late = (r == 0 || r == 2) ? 50 : 0;
            for (TimeNs k = 0; k < 3; ++k)
                b.kernel(gpu, 7, T0 + 1000 * k + late, T0 + 1000 * k + late + 100, name);
        }
        const auto tie = b.finish();
        const auto tied = computeOverlap(*tie);
        QCOMPARE(tied.ranks.size(), std::size_t(4));
        QCOMPARE(tied.ranks[0].timesLast, std::uint64_t(3));
        QCOMPARE(tied.ranks[2].timesLast, std::uint64_t(3));
        QVERIFY(!findCollectiveStraggler(tied));
    }

    // The mfu pair has NCCL SendRecv kernels on the compute stream of each process; the H100
    // file has no NCCL kernel at all (all its kernel time is compute).
    void realExportsEqualAnIndependentSweepOverTheirKernelRows_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qlonglong>("commKernels");
        for (const char *name :
            { "nsysai_mfu_2gpu_before.sqlite", "nsysai_mfu_2gpu_after.sqlite", "nsysai_h100_2gpu_1s.sqlite" })
            QTest::newRow(name) << QString::fromStdString(gaplens::test::realFile(name))
                                << qlonglong(std::string(name).find("mfu") != std::string::npos ? 1 : 0);
    }

    void realExportsEqualAnIndependentSweepOverTheirKernelRows()
    {
        QFETCH(QString, file);
        QFETCH(qlonglong, commKernels);
        const auto path = file.toStdString();
        QVERIFY(!path.empty());
        const auto trace = gaplens::test::load({ path });
        QVERIFY(trace->errors.empty());
        const auto expected = sqlOverlap(path);
        const auto report = computeOverlap(*trace);
        QCOMPARE(report.rows.size(), expected.size());
        std::int64_t totalComm = 0;
        for (const auto &row : report.rows) {
            QVERIFY(row.rank != kNoIndex);
            const std::pair key { std::int64_t(trace->ranks[row.rank].pid),
                std::int64_t(trace->gpus[row.gpu].deviceId) };
            QVERIFY(expected.count(key));
            const auto &e = expected.at(key);
            QCOMPARE(std::int64_t(row.commKernels), e.commKernels);
            QCOMPARE(std::int64_t(row.computeKernels), e.computeKernels);
            QCOMPARE(row.commNs, e.commNs);
            QCOMPARE(row.computeNs, e.computeNs);
            QCOMPARE(row.overlapNs, e.overlapNs);
            QCOMPARE(row.exposedCommNs, e.commNs - e.overlapNs);
            QVERIFY(row.computeNs > 0);
            std::int64_t typed = 0;
            for (const auto &c : row.collectives)
                typed += c.totalNs;
            QCOMPARE(typed, e.commDurationSum);
            totalComm += std::int64_t(row.commKernels);
        }
        QCOMPARE(totalComm > 0, commKernels != 0);
        if (commKernels == 0) {
            QVERIFY(report.instances.empty());
            return;
        }
        // Each process holds one rank: its k-th SendRecv against the other's k-th.
        QCOMPARE(report.ranks.size(), std::size_t(2));
        const auto offset = trace->reports[0].timeOffsetNs;
        const auto &a
            = expected.at({ std::int64_t(trace->ranks[0].pid), trace->gpus[trace->ranks[0].gpus[0]].deviceId });
        const auto &b
            = expected.at({ std::int64_t(trace->ranks[1].pid), trace->gpus[trace->ranks[1].gpus[0]].deviceId });
        const auto matched = std::min(a.commStarts.size(), b.commStarts.size());
        QCOMPARE(report.instances.size(), matched);
        std::uint64_t lastA = 0, lastB = 0;
        for (std::size_t k = 0; k < matched; ++k) {
            const auto &instance = report.instances[k];
            QCOMPARE(trace->str(instance.name), std::string("ncclDevKernel_SendRecv"));
            QCOMPARE(instance.occurrence, std::uint32_t(k));
            QCOMPARE(instance.start[0] - offset, a.commStarts[k]);
            QCOMPARE(instance.start[1] - offset, b.commStarts[k]);
            const auto earliest = std::min(a.commStarts[k], b.commStarts[k]);
            QCOMPARE(instance.skewNs[0], a.commStarts[k] - earliest);
            QCOMPARE(instance.skewNs[1], b.commStarts[k] - earliest);
            lastA += a.commStarts[k] > b.commStarts[k];
            lastB += b.commStarts[k] > a.commStarts[k];
        }
        QCOMPARE(report.ranks[0].timesLast, lastA);
        QCOMPARE(report.ranks[1].timesLast, lastB);
        QCOMPARE(report.ranks[0].timesLast + report.ranks[1].timesLast > 0, true);
    }

    // The generator's straggler launches every AllReduce late: it alone starts last in each
    // instance, and every other rank never does. Counts from the files' kernel rows.
    void theSyntheticStragglerStartsEveryCollectiveLast()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(4, 6, 2)));
        QCOMPARE(sample.synth.files.size(), std::size_t(4));
        const auto trace = gaplens::test::load(sample.synth.files);
        QVERIFY(trace->errors.empty());
        const auto report = computeOverlap(*trace);
        QCOMPARE(report.ranks.size(), std::size_t(4));
        const char *countNccl = "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                                "k.shortName WHERE s.value LIKE 'nccl%'";
        const auto perRank = gaplens::test::sqlInt(trace->reports[trace->ranks[0].report].path, countNccl);
        QVERIFY(perRank > 0);
        QCOMPARE(std::int64_t(report.instances.size()), perRank);
        for (std::uint32_t r = 0; r < 4; ++r) {
            QCOMPARE(gaplens::test::sqlInt(trace->reports[trace->ranks[r].report].path, countNccl), perRank);
            QCOMPARE(std::int64_t(report.ranks[r].instances), perRank);
            QCOMPARE(std::int64_t(report.ranks[r].timesLast), trace->ranks[r].rank == 2 ? perRank : 0);
        }
        for (const auto &instance : report.instances) {
            QCOMPARE(instance.type, CollectiveType::AllReduce);
            QCOMPARE(trace->ranks[instance.lastRank].rank, 2);
        }
        QVERIFY(report.ranks[2].medianSkewNs > 0);
        const auto straggler = findCollectiveStraggler(report);
        QVERIFY(straggler);
        QCOMPARE(trace->ranks[straggler->rank].rank, 2);
        QCOMPARE(std::int64_t(straggler->timesLast), perRank);
    }

    // Six reports, one rank each (PMI_RANK), one AllReduce per rank: the skews are each
    // rank's start minus the earliest, from each file's kernel row.
    void sixRanksOfOneAllReduceGiveTheSkewOfEachFile()
    {
        std::vector<std::string> files;
        for (const auto &f : gaplens::test::realExportFiles())
            if (f.find("ring_6ranks") != std::string::npos)
                files.push_back(f);
        QCOMPARE(files.size(), std::size_t(6));
        const auto trace = gaplens::test::load(files);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->ranks.size(), std::size_t(6));
        std::vector<TimeNs> starts;
        for (const auto &rank : trace->ranks) {
            const auto &report = trace->reports[rank.report];
            starts.push_back(gaplens::test::sqlInt(report.path,
                                 "SELECT k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                                 "k.shortName WHERE s.value LIKE 'nccl%'")
                + report.timeOffsetNs);
        }
        const auto earliest = *std::min_element(starts.begin(), starts.end());
        const auto latest = std::max_element(starts.begin(), starts.end());
        QCOMPARE(std::count(starts.begin(), starts.end(), *latest), std::ptrdiff_t(1));
        const auto report = computeOverlap(*trace);
        QCOMPARE(report.instances.size(), std::size_t(1));
        const auto &instance = report.instances[0];
        QCOMPARE(instance.type, CollectiveType::AllReduce);
        QCOMPARE(instance.ranks, (std::vector<std::uint32_t> { 0, 1, 2, 3, 4, 5 }));
        QCOMPARE(instance.start, starts);
        QCOMPARE(instance.lastRank, std::uint32_t(latest - starts.begin()));
        QCOMPARE(report.ranks.size(), std::size_t(6));
        for (std::uint32_t r = 0; r < 6; ++r) {
            QCOMPARE(instance.skewNs[r], starts[r] - earliest);
            QCOMPARE(report.ranks[r].medianSkewNs, double(starts[r] - earliest));
            QCOMPARE(report.ranks[r].timesLast, std::uint64_t(r == instance.lastRank ? 1 : 0));
        }
        // One collective is not evidence of a straggler.
        QVERIFY(!findCollectiveStraggler(report));
    }
};

QTEST_APPLESS_MAIN(TestAnalysisOverlap)
#include "tst_analysis_overlap.moc"
