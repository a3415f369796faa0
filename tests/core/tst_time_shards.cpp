// SPDX-License-Identifier: MIT
// Time shards of a file (core/read/time_shards.h, gaplens-mpi's division within a file): every
// event of the shardable tables lies in exactly one shard, so the shards' events together are
// the whole file's and the summaries computed over the shards in parts equal the whole file's,
// bit for bit. Each shard still sees what a full read sees of the file: its ranks, GPUs,
// processes and data problems (but unknown string ids, counted per reference kept). The edge cases: a kernel that
// crosses a shard edge, an NVTX range open across several shards, empty shards, more shards than events, a file without
// GPU work. And the division: whole files when they balance, contiguous blocks of shards otherwise.
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/read/time_shards.h"
#include "gaplens/core/read/work_division.h"
#include "minimal_export.h"
#include "shard_windows.h"
#include "sqltestdb.h"
#include "summary_compare.h"
#include "synth_sample.h"
#include "testsupport.h"
#include "thread_parts.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <tuple>

using namespace gaplens::core;
using gaplens::test::compareSummaries;
using gaplens::test::sampledWindows;
using gaplens::test::windowsOf;

namespace {

constexpr TableSet kShardable = kTimeShardTables;

std::shared_ptr<TraceSet> load(const std::string &file, std::vector<StoredStartWindow> windows = {})
{
    LoadOptions options;
    options.files = { file };
    options.windows = std::move(windows);
    options.tables = kShardable;
    options.threads = 1;
    return loadTraceSet(options);
}

// Every event of the shardable tables, by what identifies it, names as text.
struct Events
{
    std::vector<std::tuple<std::int32_t, std::int64_t, TimeNs, TimeNs, std::uint32_t, std::string>> kernels;
    std::vector<std::tuple<std::int32_t, TimeNs, TimeNs, std::uint32_t, std::uint64_t>> copies;
    std::vector<std::tuple<std::uint32_t, TimeNs, TimeNs, std::uint32_t, std::string>> calls;
    std::vector<std::tuple<std::uint32_t, TimeNs, TimeNs, std::string>> ranges;
    std::vector<std::tuple<std::uint32_t, TimeNs, std::string>> marks;

    void add(const TraceSet &trace)
    {
        for (const auto &gpu : trace.gpus) {
            for (const auto &stream : gpu.streams)
                for (std::size_t i = 0; i < stream.kernels.size(); ++i)
                    kernels.emplace_back(gpu.deviceId, stream.streamId, stream.kernels.start[i], stream.kernels.end[i],
                        stream.kernels.correlationId[i], trace.str(stream.kernels.shortName[i]));
            for (std::size_t i = 0; i < gpu.copies.size(); ++i)
                copies.emplace_back(gpu.deviceId, gpu.copies.start[i], gpu.copies.end[i], gpu.copies.correlationId[i],
                    gpu.copies.bytes[i]);
        }
        for (const auto &t : trace.threads) {
            for (std::size_t i = 0; i < t.api.size(); ++i)
                calls.emplace_back(
                    t.tid, t.api.start[i], t.api.end[i], t.api.correlationId[i], trace.str(t.api.name[i]));
            for (std::size_t i = 0; i < t.nvtx.size(); ++i)
                ranges.emplace_back(t.tid, t.nvtx.start[i], t.nvtx.end[i], trace.str(t.nvtx.name[i]));
            for (std::size_t i = 0; i < t.marks.size(); ++i)
                marks.emplace_back(t.tid, t.marks.time[i], trace.str(t.marks.name[i]));
        }
    }

    void sort()
    {
        std::sort(kernels.begin(), kernels.end());
        std::sort(copies.begin(), copies.end());
        std::sort(calls.begin(), calls.end());
        std::sort(ranges.begin(), ranges.end());
        std::sort(marks.begin(), marks.end());
    }

    std::size_t size() const { return kernels.size() + copies.size() + calls.size() + ranges.size() + marks.size(); }

    bool operator==(const Events &) const = default;
};

Events eventsOf(const TraceSet &trace)
{
    Events events;
    events.add(trace);
    events.sort();
    return events;
}

// What a shard must see of the file as a full read sees it.
void compareFileFacts(const TraceSet &whole, const TraceSet &shard, const QByteArray &where)
{
    QVERIFY2(shard.errors.empty(), where);
    QCOMPARE(shard.reports.size(), std::size_t(1));
    const auto &a = whole.reports.front(), &b = shard.reports.front();
    // Every row is read: its time and device problems are the file's. (Unknown string ids are
    // counted per reference, where the row is kept: checkShardsAddUp adds them up.)
    QVERIFY2(a.problems.total() - a.problems.unknownStringId == b.problems.total() - b.problems.unknownStringId, where);
    QVERIFY2(shard.ranks.size() == whole.ranks.size(), where);
    for (std::size_t r = 0; r < whole.ranks.size(); ++r)
        QVERIFY2(shard.ranks[r].rank == whole.ranks[r].rank && shard.ranks[r].pid == whole.ranks[r].pid
                && shard.ranks[r].source == whole.ranks[r].source,
            where + ", rank " + QByteArray::number(qulonglong(r)));
    QVERIFY2(shard.gpus.size() == whole.gpus.size(), where);
    for (std::size_t g = 0; g < whole.gpus.size(); ++g)
        QVERIFY2(shard.gpus[g].deviceId == whole.gpus[g].deviceId, where);
}

// The file read as one shard per window: each shard sees the file's facts, the shards' events
// together are the file's, each once, and the summaries in parts equal the file's. Returns the
// shards for further checks.
std::vector<std::shared_ptr<TraceSet>> checkShardsAddUp(
    const std::string &file, const std::vector<StoredStartWindow> &windows)
{
    const auto whole = load(file);
    std::vector<std::shared_ptr<TraceSet>> shards;
    [&] {
        QVERIFY(whole->errors.empty());
        const auto all = eventsOf(*whole);
        QVERIFY(all.size() > 0);
        Events together;
        std::uint64_t unknownStringIds = 0;
        for (std::size_t s = 0; s < windows.size(); ++s) {
            shards.push_back(load(file, { windows[s] }));
            const QByteArray where = "shard " + QByteArray::number(qulonglong(s));
            CHECK(compareFileFacts(*whole, *shards.back(), where));
            together.add(*shards.back());
            unknownStringIds += shards.back()->reports.front().problems.unknownStringId;
        }
        QCOMPARE(unknownStringIds, whole->reports.front().problems.unknownStringId);
        together.sort();
        QCOMPARE(together.kernels.size(), all.kernels.size());
        QCOMPARE(together.calls.size(), all.calls.size());
        QCOMPARE(together.ranges.size(), all.ranges.size());
        QVERIFY(together == all); // each event once: none lost at an edge, none in two shards

        const auto kernels = summarizeKernels(*whole);
        const auto nvtx = summarizeNvtx(*whole);
        const auto api = summarizeApi(*whole);
        struct Result
        {
            StringPool names;
            KernelSummary kernels;
            NvtxSummary nvtx;
            ApiSummary api;
        };
        std::vector<Result> results(shards.size());
        gaplens::test::ThreadParts(shards.size()).run([&](std::size_t p, const PartsReduction &reduction) {
            results[p].kernels = summarizeKernels(*shards[p], {}, reduction, results[p].names);
            results[p].nvtx = summarizeNvtx(*shards[p], {}, reduction, results[p].names);
            results[p].api = summarizeApi(*shards[p], {}, reduction, results[p].names);
        });
        for (std::size_t p = 0; p < shards.size(); ++p) {
            const QByteArray where = "shard " + QByteArray::number(qulonglong(p));
            const auto &r = results[p];
            CHECK(compareSummaries(whole->strings, kernels, r.names, r.kernels, where + ", kernels"));
            CHECK(compareSummaries(whole->strings, nvtx, r.names, r.nvtx, where + ", nvtx"));
            CHECK(compareSummaries(whole->strings, api, r.names, r.api, where + ", api"));
        }
    }();
    return shards;
}

// Every shard of every file on exactly one process, in order, as one block per file and process.
void checkDivision(const std::vector<std::uint64_t> &rows, std::size_t processes)
{
    const auto work = divideWork(rows, processes, true);
    QCOMPARE(work.size(), processes);
    std::vector<std::size_t> nextShard(rows.size(), 0), lastProcess(rows.size(), 0);
    for (std::size_t p = 0; p < processes; ++p) {
        std::size_t previousFile = std::numeric_limits<std::size_t>::max();
        for (const auto &piece : work[p]) {
            QVERIFY(piece.file < rows.size());
            QVERIFY(previousFile == std::numeric_limits<std::size_t>::max() || piece.file > previousFile);
            previousFile = piece.file;
            QCOMPARE(piece.firstShard, nextShard[piece.file]); // contiguous, in order, once
            QVERIFY(piece.endShard > piece.firstShard && piece.endShard <= piece.shards);
            nextShard[piece.file] = piece.endShard;
            lastProcess[piece.file] = p;
        }
    }
    for (std::size_t f = 0; f < rows.size(); ++f) {
        const auto &pieces = work[lastProcess[f]];
        const auto last = std::find_if(pieces.begin(), pieces.end(), [&](const WorkPiece &w) { return w.file == f; });
        QVERIFY(last != pieces.end());
        QCOMPARE(nextShard[f], last->shards); // every shard given
    }
}

} // namespace

class TestTimeShards : public QObject
{
    Q_OBJECT

    gaplens::test::SynthSample m_single; // one rank in one file

    // The stored starts and ends of the file's rows chosen by `sql` (columns start, end).
    static std::pair<std::int64_t, std::int64_t> storedSpan(const std::string &file, const std::string &sql)
    {
        return { gaplens::test::sqlInt(file, "SELECT start FROM (" + sql + ")"),
            gaplens::test::sqlInt(file, "SELECT end FROM (" + sql + ")") };
    }

private slots:
    void initTestCase()
    {
        auto options = gaplens::test::synthOptions(1, 300);
        options.jitter = 0.2; // distinct durations: the medians take the histogram passes
        options.scaleRuntimePerRank = 12000;
        options.scaleNvtxPerRank = 12000;
        QVERIFY(m_single.write(options));
        QCOMPARE(m_single.synth.files.size(), std::size_t(1));
    }

    void wholeFilesWhenTheyBalance()
    {
        const std::vector<std::uint64_t> rows { 10, 12, 9, 11, 10 };
        QVERIFY(!needsTimeShards(rows, 4, true));
        QVERIFY(!needsTimeShards({ 100 }, 4, false)); // an analysis that cannot add shards up
        QVERIFY(!needsTimeShards({ 100 }, 1, true));
        QVERIFY(!needsTimeShards({ 0, 0 }, 4, true)); // nothing to split
        const auto work = divideWork(rows, 4, true);
        const auto files = divideFiles(rows, 4);
        for (std::size_t p = 0; p < 4; ++p) {
            QCOMPARE(work[p].size(), files[p].size());
            for (std::size_t i = 0; i < files[p].size(); ++i)
                QVERIFY(work[p][i] == (WorkPiece { files[p][i], 0, 1, 1 }));
        }
    }

    void oneFileIsOneShardPerProcess()
    {
        QVERIFY(needsTimeShards({ 1000 }, 3, true));
        const auto work = divideWork({ 1000 }, 3, true);
        for (std::size_t p = 0; p < 3; ++p) {
            QCOMPARE(work[p].size(), std::size_t(1));
            QVERIFY(work[p][0] == (WorkPiece { 0, p, p + 1, 3 }));
        }
    }

    void aFileFarAboveItsShareIsSplit()
    {
        // 100 rows against 1 and 1 on three processes: the big file in three shards of 33.
        QVERIFY(needsTimeShards({ 100, 1, 1 }, 3, true));
        const auto work = divideWork({ 100, 1, 1 }, 3, true);
        QVERIFY(work[0] == (std::vector<WorkPiece> { { 0, 0, 1, 3 } }));
        QVERIFY(work[1] == (std::vector<WorkPiece> { { 0, 1, 2, 3 } }));
        QVERIFY(work[2] == (std::vector<WorkPiece> { { 0, 2, 3, 3 }, { 1, 0, 1, 1 }, { 2, 0, 1, 1 } }));
    }

    void everyShardOnceInContiguousBlocks()
    {
        std::mt19937_64 random(7);
        for (int round = 0; round < 300; ++round) {
            std::vector<std::uint64_t> rows(1 + random() % 9);
            for (auto &r : rows)
                r = random() % 4 == 0 ? random() % 3 : random() % 1000000;
            const auto processes = 1 + random() % 12;
            CHECK(checkDivision(rows, processes));
        }
        CHECK(checkDivision({ 2 }, 8)); // more processes than rows
    }

    void sampledShardsAddUpToTheFile_data()
    {
        QTest::addColumn<int>("shards");
        for (const int shards : { 1, 2, 3, 5 })
            QTest::addRow("%d shards", shards) << shards;
    }

    void sampledShardsAddUpToTheFile()
    {
        QFETCH(int, shards);
        const auto &file = m_single.synth.files.front();
        const auto sampled = sampleTimeShards(file, kShardable, std::size_t(shards));
        QCOMPARE(sampled.edges.size(), std::size_t(shards - 1));
        QVERIFY(std::is_sorted(sampled.edges.begin(), sampled.edges.end()));
        const auto windows = sampledWindows(file, kShardable, std::size_t(shards)); // sampled alike
        double shares = 0;
        for (const auto &window : windows)
            shares += window.share;
        QCOMPARE(shares, 1.0);
        const auto parts = checkShardsAddUp(file, windows);
        if (QTest::currentTestFailed())
            return;
        // The sample balances: no shard holds twice its share of the events.
        const auto all = eventsOf(*load(file)).size();
        for (const auto &part : parts)
            QVERIFY(eventsOf(*part).size() <= 2 * all / std::size_t(shards));
    }

    void aKernelAcrossAShardEdgeIsCountedOnce()
    {
        const auto &file = m_single.synth.files.front();
        // A kernel in the middle of the file; the edge one nanosecond after its start.
        const std::string middle = "SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end - start "
                                   "> 1 ORDER BY rowid LIMIT 1 OFFSET (SELECT count(*) / 2 FROM "
                                   "CUPTI_ACTIVITY_KIND_KERNEL)";
        const auto [start, end] = storedSpan(file, middle);
        const auto correlation
            = std::uint32_t(gaplens::test::sqlInt(file, "SELECT correlationId FROM (" + middle + ")"));
        QVERIFY(end > start + 1);
        const auto shards = checkShardsAddUp(file, windowsOf({ start + 1 }));
        if (QTest::currentTestFailed())
            return;
        auto holds = [&](const TraceSet &shard) {
            const auto events = eventsOf(shard);
            return std::any_of(events.kernels.begin(), events.kernels.end(), [&](const auto &k) {
                return std::get<4>(k) == correlation && std::get<3>(k) - std::get<2>(k) == end - start;
            });
        };
        QVERIFY(holds(*shards[0])); // where it starts
        QVERIFY(!holds(*shards[1])); // not where it ends
        QVERIFY(!eventsOf(*shards[1]).kernels.empty());
    }

    void anNvtxRangeOpenAcrossShardsIsInTheFirst()
    {
        const auto &file = m_single.synth.files.front();
        const auto [start, end] = storedSpan(file,
            "SELECT start, end FROM NVTX_EVENTS WHERE eventType = 59 AND end IS NOT NULL ORDER BY end - start DESC "
            "LIMIT 1");
        QVERIFY(end - start > 3);
        const auto shards = checkShardsAddUp(file, windowsOf({ start + 1, start + (end - start) / 2, end - 1 }));
        if (QTest::currentTestFailed())
            return;
        const auto whole = load(file);
        const auto longest = [](const Events &e) {
            TimeNs most = 0;
            for (const auto &r : e.ranges)
                most = std::max(most, std::get<2>(r) - std::get<1>(r));
            return most;
        };
        const auto wholeLongest = longest(eventsOf(*whole));
        QCOMPARE(longest(eventsOf(*shards[0])), wholeLongest);
        for (std::size_t s = 1; s < shards.size(); ++s)
            QVERIFY(longest(eventsOf(*shards[s])) < wholeLongest);
    }

    void emptyShardsHoldNothingAndStillNameTheFile()
    {
        const auto &file = m_single.synth.files.front();
        const auto sampled = sampleTimeShards(file, kShardable, 3);
        // Equal edges make empty shards; so does a shard before every event.
        const auto edge = sampled.edges[0];
        const auto shards = checkShardsAddUp(
            file, windowsOf({ std::numeric_limits<std::int64_t>::min() + 1, edge, edge, edge, sampled.edges[1] }));
        if (QTest::currentTestFailed())
            return;
        for (const std::size_t empty : { 0, 2, 3 }) {
            QCOMPARE(eventsOf(*shards[empty]).size(), std::size_t(0));
            QCOMPARE(shards[empty]->ranks.size(), std::size_t(1));
        }
    }

    void moreShardsThanEvents()
    {
        QTemporaryDir dir;
        const auto file = gaplens::test::writeExportIn(dir, "minimal.sqlite", gaplens::test::minimalExportSql());
        const auto work = divideWork({ 3 }, 8, true);
        for (std::size_t p = 0; p < 8; ++p)
            QVERIFY(work[p] == (std::vector<WorkPiece> { { 0, p, p + 1, 8 } }));
        const auto shards = checkShardsAddUp(file, sampledWindows(file, kShardable, 8));
        if (QTest::currentTestFailed())
            return;
        std::size_t nonEmpty = 0;
        for (const auto &shard : shards)
            nonEmpty += eventsOf(*shard).size() != 0;
        QVERIFY(nonEmpty >= 1 && nonEmpty <= 3);
    }

    // Rows with unknown names (counted per reference) and broken times (counted by every shard,
    // and named by the first): the shards' counts add up to the file's, each once.
    void unknownNamesAndBrokenTimesCountOnce()
    {
        QTemporaryDir dir;
        const auto file = gaplens::test::writeExportIn(dir, "problems.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO NVTX_EVENTS VALUES (500, 600, 59, NULL, 16777216 * 42 + 42, 999, 0);
            INSERT INTO NVTX_EVENTS VALUES (NULL, 700, 59, NULL, 16777216 * 42 + 42, 998, 0);
            INSERT INTO NVTX_EVENTS VALUES (800, 'x', 59, NULL, 16777216 * 42 + 42, 997, 0);
            INSERT INTO NVTX_EVENTS VALUES (900, NULL, 34, NULL, 16777216 * 42 + 42, 996, 0);
        )");
        const auto whole = load(file);
        QCOMPARE(whole->reports.front().problems.unknownStringId, std::uint64_t(4));
        QCOMPARE(whole->reports.front().problems.nullStart, std::uint64_t(1));
        QCOMPARE(whole->reports.front().problems.timeNotInteger, std::uint64_t(1));
        // Edges between the rows: the unknown names fall in different shards.
        checkShardsAddUp(file, windowsOf({ 100, 550, 850 }));
    }

    // A file without GPU work: its rank is its busiest process, so the first shard keeps all of
    // its calls and ranges (the only one that can tell), and the others none.
    void aFileWithoutGpuWorkIsInItsFirstShard()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        const auto file = gaplens::test::realFile("centerformer_nvtx_only.sqlite");
        const auto shards = checkShardsAddUp(file, sampledWindows(file, kShardable, 3));
        if (QTest::currentTestFailed())
            return;
        QVERIFY(eventsOf(*shards[0]).ranges.size() > 0);
        QCOMPARE(eventsOf(*shards[1]).size(), std::size_t(0));
        QCOMPARE(eventsOf(*shards[2]).size(), std::size_t(0));
    }

    // Every real export in three sampled shards: among them backtrace rows (eventClass 67)
    // whose call starts in another shard than its repeat, two GPUs in one file, NVTX only.
    void realExportsInShards_data()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        gaplens::test::addFileRows(gaplens::test::realExportFiles());
    }

    void realExportsInShards()
    {
        QFETCH(QString, file);
        const auto path = file.toStdString();
        // Edges as each command samples them (its own tables), into two and three shards.
        for (const TableSet sampledTables :
            { kShardable, TableSet(ExportTable::Kernels), TableSet(ExportTable::CudaApi), TableSet(ExportTable::Nvtx) })
            for (const std::size_t count : { 2, 3 })
                CHECK(checkShardsAddUp(path, sampledWindows(path, sampledTables, count)));
    }

    void aFileThatCannotBeReadSamplesNothing()
    {
        QTemporaryDir dir;
        const auto missing = dir.filePath(QStringLiteral("missing.sqlite")).toStdString();
        const auto sampled = sampleTimeShards(missing, kShardable, 4);
        QVERIFY(sampled.edges == (std::vector<std::int64_t> { 0, 0, 0 }));
        const auto window = shardBlockWindow(sampled, 1, 3);
        QCOMPARE(window.share, 0.5); // no sample: the shards' count decides
        const auto trace = load(missing, { window });
        QCOMPARE(trace->errors.size(), std::size_t(1));
        QVERIFY(trace->errors.front().message.find(missing) != std::string::npos);
    }

    void onlyShardableTablesAndOneWindowPerFile()
    {
        LoadOptions options;
        options.files = { m_single.synth.files.front() };
        options.windows = { StoredStartWindow {} };
        options.tables = TableSet::all();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadTraceSet(options));
        options.windows.front().halo = ShardHalo {}; // gaps and blame: the other tables whole
        QVERIFY(loadTraceSet(options)->errors.empty());
        options.tables = kShardable;
        options.windows.push_back({});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadTraceSet(options));
    }
};

QTEST_APPLESS_MAIN(TestTimeShards)
#include "tst_time_shards.moc"
