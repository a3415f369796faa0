// SPDX-License-Identifier: MIT
// Interval statistics of a file read in time shards (gaplens-mpi's intervals and transfers):
// each shard counts the kernels and copies that start in it, and the busy time of its GPUs
// after what the earlier shards of its file already counted (their busy end, exchanged as
// ShardEdges); each rank's shards merged (mergeRankIntervals) and its copy sequences joined in
// shard order (pingPongOf) must be the whole file's statistics and ping-pong runs, exactly.
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/gap_shards.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/read/loader.h"
#include "minimal_export.h"
#include "shard_windows.h"
#include "synth_sample.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace gaplens::core;
using gaplens::test::sampledWindows;
using gaplens::test::windowsOf;

namespace {

std::shared_ptr<TraceSet> load(const std::string &file, std::vector<StoredStartWindow> windows = {})
{
    LoadOptions options;
    options.files = { file };
    options.tables = kIntervalTables;
    options.windows = std::move(windows);
    options.threads = 1;
    return loadTraceSet(options);
}

IntervalReport statistics(std::shared_ptr<const TraceSet> trace, IntervalOptions options)
{
    DerivedOptions derived;
    derived.foldIndexes = false;
    options.threads = 1;
    return computeIntervalStatistics(*DerivedCapture::build(std::move(trace), derived), options);
}

// A rank's figures, by its process id (one rank per process in these files).
struct RankFigures
{
    RankIntervals intervals;
    CopySequence copies;
};

void comparePingPong(const PingPong &a, const PingPong &b)
{
    QCOMPARE(a.runs, b.runs);
    QCOMPARE(a.copies, b.copies);
    QCOMPARE(a.htodDtohCopies, b.htodDtohCopies);
    QCOMPARE(a.medianBytes, b.medianBytes);
    QCOMPARE(a.longestRun, b.longestRun);
    QVERIFY(a.starts == b.starts);
    QVERIFY(a.bytes == b.bytes);
}

void checkSameStatistics(const std::string &file, const std::vector<StoredStartWindow> &windows,
    std::optional<TimeNs> originShift = std::nullopt, TimeNs intervalNs = 1'000'000)
{
    const auto whole = load(file);
    IntervalOptions options;
    options.intervalNs = intervalNs;
    options.originNs = intervalOrigin(*whole).value_or(0) + originShift.value_or(0);
    const auto expected = statistics(whole, options);

    std::vector<std::shared_ptr<TraceSet>> shards;
    std::vector<ShardEdges> edges;
    for (const auto &window : windows) {
        shards.push_back(load(file, { window }));
        edges.push_back(shardEdges(*shards.back(), 0, false));
    }
    std::map<std::uint32_t, RankFigures> byPid;
    for (std::size_t s = 0; s < shards.size(); ++s) {
        const auto &trace = *shards[s];
        auto shardOptions = options;
        addEarlierShards(trace, 0, { edges.begin(), edges.begin() + std::ptrdiff_t(s) }, shardOptions.earlierShards);
        const auto report = statistics(shards[s], shardOptions);
        for (const auto &ri : report.ranks)
            mergeRankIntervals(byPid[trace.ranks[ri.rank].pid].intervals, ri);
        for (std::uint32_t r = 0; r < trace.ranks.size(); ++r)
            byPid[trace.ranks[r].pid].copies.append(copySequence(trace, r));
    }
    for (std::size_t e = 0; e < expected.ranks.size(); ++e) {
        const auto &want = expected.ranks[e];
        const auto pid = whole->ranks[want.rank].pid;
        QVERIFY(byPid.count(pid));
        const auto &got = byPid[pid];
        QCOMPARE(got.intervals.firstIndex, want.firstIndex);
        QCOMPARE(got.intervals.eventsBeforeOrigin, want.eventsBeforeOrigin);
        QCOMPARE(got.intervals.intervals.size(), want.intervals.size());
        for (std::size_t i = 0; i < want.intervals.size(); ++i)
            QVERIFY2(got.intervals.intervals[i] == want.intervals[i], qPrintable(QStringLiteral("interval %1").arg(i)));
        CHECK(comparePingPong(pingPongOf(got.copies), expected.pingPong[e]));
    }
}

} // namespace

class TestIntervalsInShards : public QObject
{
    Q_OBJECT

    gaplens::test::SynthSample m_single;

private slots:
    void initTestCase()
    {
        auto options = gaplens::test::synthOptions(1, 60);
        options.jitter = 0.2;
        QVERIFY(m_single.write(options));
    }

    void sampledShards_data()
    {
        QTest::addColumn<int>("shards");
        for (const int shards : { 1, 2, 3, 5, 9 })
            QTest::addRow("%d shards", shards) << shards;
    }

    void sampledShards()
    {
        QFETCH(int, shards);
        const auto &file = m_single.synth.files.front();
        CHECK(checkSameStatistics(file, sampledWindows(file, kTimeShardTables, std::size_t(shards))));
        // An origin after the first events: those before it are counted, not binned.
        CHECK(checkSameStatistics(file, sampledWindows(file, kTimeShardTables, std::size_t(shards)), 7'000'000));
    }

    // Each edge one nanosecond into a long kernel: its busy time lies in the next shard's
    // intervals, and that shard's own kernels overlap it.
    void kernelsAcrossShardEdges()
    {
        const auto &file = m_single.synth.files.front();
        const auto whole = load(file);
        const auto offset = whole->reports.front().timeOffsetNs;
        std::vector<std::int64_t> edges;
        for (const auto &stream : whole->gpus.front().streams)
            for (std::size_t i = 0; i < stream.kernels.size() && edges.size() < 6; i += stream.kernels.size() / 7 + 1)
                edges.push_back(stream.kernels.start[i] + 1 - offset);
        std::sort(edges.begin(), edges.end());
        QVERIFY(edges.size() >= 3);
        CHECK(checkSameStatistics(file, windowsOf(edges), std::nullopt, 100'000));
    }

    // A kernel across the edge that outlasts the next shard's kernels on another stream: the
    // next shard's busy time lies inside it and must not count twice.
    void aKernelAcrossAnEdgeOverlapsTheNextShard()
    {
        QTemporaryDir dir;
        const auto file = gaplens::test::writeExportIn(dir, "overlap.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 150, 1000, 8, 6, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 500, 700, 7, 7, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 2000, 2100, 7, 8, 16777216 * 42, 1);
        )");
        // Edges in stored times, as the rows above give them.
        CHECK(checkSameStatistics(file, windowsOf({ 300 }), std::nullopt, 100));
        CHECK(checkSameStatistics(file, windowsOf({ 300, 600, 1500 }), std::nullopt, 250));
    }

    // A ping-pong run (HtoD, DtoH, ... alternating) across two shard edges: each shard holds
    // fewer copies than a run needs, their sequences joined hold the run.
    void aPingPongRunAcrossShardEdges()
    {
        QTemporaryDir dir;
        std::string sql = gaplens::test::minimalExportSql() + R"(
            CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, "end" INTEGER, deviceId INTEGER, streamId INTEGER,
                correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER,
                dstKind INTEGER);
        )";
        for (int i = 0; i < 6; ++i)
            sql += "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (" + std::to_string(1000 + 100 * i) + ", "
                + std::to_string(1050 + 100 * i) + ", 0, 9, " + std::to_string(20 + i) + ", 16777216 * 42, "
                + std::to_string(4096 * (i + 1)) + ", " + (i % 2 ? "2" : "1") + ", 0, 0);\n";
        const auto file = gaplens::test::writeExportIn(dir, "ping-pong.sqlite", sql);
        const auto whole = load(file);
        QCOMPARE(findPingPong(*whole, 0).runs, std::uint64_t(1));
        QCOMPARE(findPingPong(*whole, 0).copies, std::uint64_t(6));
        CHECK(checkSameStatistics(file, windowsOf({ 1150, 1350 }), std::nullopt, 100)); // stored times
    }

    void realExports_data()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        gaplens::test::addFileRows(gaplens::test::realExportFiles());
    }

    void realExports()
    {
        QFETCH(QString, file);
        const auto path = file.toStdString();
        for (const std::size_t count : { 2, 3 })
            CHECK(checkSameStatistics(path, sampledWindows(path, kTimeShardTables, count)));
    }
};

QTEST_GUILESS_MAIN(TestIntervalsInShards)
#include "tst_intervals_in_shards.moc"
