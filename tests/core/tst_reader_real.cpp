// SPDX-License-Identifier: MIT
// Every real export in ../shared/nsys-real loads, and what gaplens reads and computes from
// it equals an independent computation in SQL over the same file.
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/read/loader.h"
#include "sqltestdb.h"
#include "testsupport.h"
#include "trace_compare.h"
#include "trace_counts.h"

#include <QTest>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <regex>

using namespace gaplens::core;

namespace {

using gaplens::test::apiCallCount;
using gaplens::test::copyCount;
using gaplens::test::kernelCount;
using gaplens::test::nvtxRangeCount;
using gaplens::test::sqlInt;

bool hasTable(const std::string &file, const char *table)
{
    return gaplens::test::SqlTestDb(file).hasTable(table);
}

std::int64_t countRows(const std::string &file, const char *table, const char *where = "1")
{
    return hasTable(file, table) ? sqlInt(file, std::string("SELECT count(*) FROM ") + table + " WHERE " + where) : 0;
}

struct SqlBusy
{
    std::int64_t busyNs = 0, firstStart = 0, lastEnd = 0, gapCount = 0, gapNs = 0, kernels = 0;
};

// The union computed a second way: islands of kernels found with window functions in SQL
// (a kernel starts a new island when it starts after every earlier kernel ended).
std::map<std::int64_t, SqlBusy> sqlBusyPerDevice(const std::string &file, std::int64_t minGapNs)
{
    std::map<std::int64_t, SqlBusy> result;
    if (!hasTable(file, "CUPTI_ACTIVITY_KIND_KERNEL"))
        return result;
    const char *sql = R"(
        WITH m AS (
          SELECT deviceId, start, "end",
                 MAX("end") OVER (PARTITION BY deviceId ORDER BY start, "end"
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prevMax
          FROM CUPTI_ACTIVITY_KIND_KERNEL),
        i AS (
          SELECT deviceId, start, "end",
                 SUM(CASE WHEN prevMax IS NULL OR start > prevMax THEN 1 ELSE 0 END)
                   OVER (PARTITION BY deviceId ORDER BY start, "end" ROWS UNBOUNDED PRECEDING) AS island
          FROM m)
        SELECT deviceId, island, MIN(start), MAX("end"), COUNT(*) FROM i
        GROUP BY deviceId, island ORDER BY deviceId, island)";
    sqlite3 *db = nullptr;
    sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
        qFatal("SQL failed: %s", sqlite3_errmsg(db));
    std::map<std::int64_t, std::int64_t> previousEnd;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        const auto device = sqlite3_column_int64(stmt, 0);
        const auto lo = sqlite3_column_int64(stmt, 2), hi = sqlite3_column_int64(stmt, 3);
        auto &b = result[device];
        if (previousEnd.count(device)) {
            const auto hole = lo - previousEnd[device];
            if (hole >= minGapNs) {
                ++b.gapCount;
                b.gapNs += hole;
            }
        } else {
            b.firstStart = lo;
        }
        b.busyNs += hi - lo;
        b.lastEnd = hi;
        b.kernels += sqlite3_column_int64(stmt, 4);
        previousEnd[device] = hi;
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return result;
}

using gaplens::test::load;

// Two loads of one file hold the same capture: reports, ranks, threads with their API
// calls, NVTX ranges and marks, GPUs with their streams' kernels and their copies, every
// field of each (names compared as text: string ids may be assigned in another order; see
// traceDifferences). `a` is the reference.
void sameCapture(const TraceSet &a, const TraceSet &b)
{
    QVERIFY(a.errors.empty());
    QVERIFY(b.errors.empty());
    QCOMPARE(b.reports.size(), std::size_t(1));
    // traceDifferences sorts a report's warnings; here they come in the same order too.
    QCOMPARE(b.reports[0].warnings, a.reports[0].warnings);
    QCOMPARE(kernelCount(b), kernelCount(a));
    QCOMPARE(copyCount(b), copyCount(a));
    const auto differences = gaplens::test::traceDifferences(a, b);
    std::string shown;
    for (const auto &line : differences)
        shown += "\n  " + line;
    QVERIFY2(differences.empty(), shown.c_str());
}

// Loads `file` with one thread and default options (the reference), and again with `vary`
// applied to the options: both loads must hold the same capture.
template <typename Vary> void loadsAgree(const QString &file, Vary vary)
{
    LoadOptions reference;
    reference.files = { file.toStdString() };
    reference.threads = 1;
    LoadOptions varied = reference;
    vary(varied);
    const auto a = loadTraceSet(reference);
    const auto b = loadTraceSet(varied);
    sameCapture(*a, *b);
}

} // namespace

class TestReaderReal : public QObject
{
    Q_OBJECT

    std::vector<std::string> m_files;

private slots:
    void initTestCase() { gaplens::test::listRealExports(m_files, 14); }

    void everyRealFileLoadsWithItsRowsCountedOnce_data() { gaplens::test::addFileRows(m_files); }

    void everyRealFileLoadsWithItsRowsCountedOnce()
    {
        QFETCH(QString, file);
        const auto path = file.toStdString();
        const auto trace = load({ path });
        QVERIFY2(trace->errors.empty(), trace->errors.empty() ? "" : trace->errors[0].message.c_str());
        QVERIFY(!trace->ranks.empty());
        QCOMPARE(trace->reports.size(), std::size_t(1));
        QVERIFY(!trace->reports[0].schemaVersion.empty());

        QCOMPARE(std::int64_t(kernelCount(*trace)), countRows(path, "CUPTI_ACTIVITY_KIND_KERNEL"));
        QCOMPARE(std::int64_t(copyCount(*trace)),
            countRows(path, "CUPTI_ACTIVITY_KIND_MEMCPY") + countRows(path, "CUPTI_ACTIVITY_KIND_MEMSET"));
        // Backtrace rows (eventClass 67) repeat a call that is already there: counted once.
        const auto backtraceDuplicates = hasTable(path, "CUPTI_ACTIVITY_KIND_RUNTIME")
            ? sqlInt(path,
                "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME b WHERE b.eventClass = 67 AND EXISTS "
                "(SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.eventClass <> 67 AND "
                "r.correlationId = b.correlationId AND r.globalTid = b.globalTid)")
            : 0;
        QCOMPARE(
            std::int64_t(apiCallCount(*trace)), countRows(path, "CUPTI_ACTIVITY_KIND_RUNTIME") - backtraceDuplicates);
        QCOMPARE(std::int64_t(trace->reports[0].notes.backtraceDuplicates), backtraceDuplicates);
        QCOMPARE(std::int64_t(nvtxRangeCount(*trace)),
            countRows(path, "NVTX_EVENTS", "eventType IN (35, 59, 60, 70, 71) AND \"end\" IS NOT NULL"));
        QCOMPARE(trace->reports[0].problems.total(), std::uint64_t(0));

        // API names are shown without their _vNNNN suffix.
        // (_v2 in cudaStreamGetCaptureInfo_v2 is part of the name; the version suffix has 4+ digits.)
        const std::regex suffix("_v[0-9]{4,}$");
        for (const auto &th : trace->threads)
            for (auto name : th.api.name)
                QVERIFY2(!std::regex_search(trace->str(name), suffix), trace->str(name).c_str());
    }

    void busyTimeAndGapsEqualAnIndependentSqlUnion_data() { everyRealFileLoadsWithItsRowsCountedOnce_data(); }

    void busyTimeAndGapsEqualAnIndependentSqlUnion()
    {
        QFETCH(QString, file);
        const auto path = file.toStdString();
        const auto trace = load({ path });
        const auto expected = sqlBusyPerDevice(path, kDefaultMinGapNs);
        std::map<std::int64_t, SqlBusy> actual;
        for (std::uint32_t g = 0; g < trace->gpus.size(); ++g) {
            const auto busy = computeGpuBusy(*trace, g);
            const auto gaps = findIdleGaps(busy);
            auto &a = actual[trace->gpus[g].deviceId];
            QCOMPARE(a.kernels, 0); // one GPU per device id in one report
            const auto offset = trace->reports[0].timeOffsetNs;
            a = { busy.busyNs, busy.window.start - offset, busy.window.end - offset, std::int64_t(gaps.count()),
                gaps.totalNs, std::int64_t(trace->gpus[g].kernelCount()) };
        }
        QCOMPARE(actual.size(), expected.size());
        for (const auto &[device, e] : expected) {
            const auto &a = actual[device];
            QCOMPARE(a.busyNs, e.busyNs);
            QCOMPARE(a.firstStart, e.firstStart);
            QCOMPARE(a.lastEnd, e.lastEnd);
            QCOMPARE(a.gapCount, e.gapCount);
            QCOMPARE(a.gapNs, e.gapNs);
            QCOMPARE(a.kernels, e.kernels);
        }
    }

    void launchShapesEqualTheKernelRowsAndAreKeptOncePerStream_data()
    {
        everyRealFileLoadsWithItsRowsCountedOnce_data();
    }

    // Each kernel's grid, block, registers and shared memory as its row has them; a stream
    // keeps each distinct shape once (KernelColumns::launchConfigs).
    void launchShapesEqualTheKernelRowsAndAreKeptOncePerStream()
    {
        QFETCH(QString, file);
        const auto path = file.toStdString();
        const auto trace = load({ path });
        if (!hasTable(path, "CUPTI_ACTIVITY_KIND_KERNEL")) {
            QCOMPARE(kernelCount(*trace), std::size_t(0)); // the NVTX-only capture
            return;
        }
        using Key = std::vector<std::string>; // device, pid, stream, then the nine shape values
        std::map<Key, std::int64_t> expected, actual;
        std::map<Key, std::size_t> shapesPerStream;
        for (const auto &row :
            gaplens::test::SqlTestDb(path).rows(
                "SELECT deviceId, (globalPid >> 24) & 16777215, streamId, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                "registersPerThread, staticSharedMemory, dynamicSharedMemory, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                "GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12")) {
            expected[Key(row.begin(), row.end() - 1)] = std::stoll(row.back());
            ++shapesPerStream[Key(row.begin(), row.begin() + 3)];
        }
        for (const auto &gpu : trace->gpus)
            for (const auto &stream : gpu.streams) {
                const auto &k = stream.kernels;
                const Key where { std::to_string(gpu.deviceId), std::to_string(stream.pid),
                    std::to_string(stream.streamId) };
                QCOMPARE(k.launchConfigs.size(), shapesPerStream[where]);
                for (std::size_t i = 0; i < k.size(); ++i) {
                    const auto &c = k.launchConfigOf(i);
                    auto key = where;
                    for (const std::uint64_t v : { std::uint64_t(c.gridX), std::uint64_t(c.gridY),
                             std::uint64_t(c.gridZ), std::uint64_t(c.blockX), std::uint64_t(c.blockY),
                             std::uint64_t(c.blockZ), std::uint64_t(c.registersPerThread),
                             std::uint64_t(c.staticSharedMemory), std::uint64_t(c.dynamicSharedMemory) })
                        key.push_back(std::to_string(v));
                    ++actual[key];
                }
            }
        QCOMPARE(actual, expected);
    }

    void overlappingStreamsMakeTheUnionSmallerThanTheSumOfDurations()
    {
        const auto path = gaplens::test::realFile("gpu4_streams_report2.sqlite");
        QVERIFY(!path.empty());
        const auto trace = load({ path });
        QCOMPARE(trace->gpus.size(), std::size_t(1));
        QVERIFY(trace->gpus[0].streams.size() >= 4);
        // Copies overlap kernels of other streams: with both counted, the union is smaller than the sum.
        GpuBusyOptions withCopies;
        withCopies.includeCopies = true;
        const auto busy = computeGpuBusy(*trace, 0, withCopies);
        const auto sum = sqlInt(path,
            "SELECT (SELECT SUM(\"end\" - start) FROM CUPTI_ACTIVITY_KIND_KERNEL) + "
            "(SELECT SUM(\"end\" - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY)");
        QVERIFY2(busy.busyNs < sum, "overlap must not count twice");
        QVERIFY(busy.busyNs > computeGpuBusy(*trace, 0).busyNs);
        QCOMPARE(computeGpuBusy(*trace, 0).busyNs, sqlBusyPerDevice(path, kDefaultMinGapNs)[0].busyNs);
    }

    void sixRankRingIsRankedByPmiRankNotByThePidInTheFileName()
    {
        const auto dir = gaplens::test::realFile("ring_6ranks");
        QVERIFY(!dir.empty());
        const auto trace = load({ dir });
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->ranks.size(), std::size_t(6));
        const std::map<std::int32_t, std::string> expected = { { 0, "854730" }, { 1, "854723" }, { 2, "854727" },
            { 3, "1004542" }, { 4, "1004534" }, { 5, "1004539" } };
        for (std::size_t i = 0; i < 6; ++i) {
            const auto &rank = trace->ranks[i];
            QCOMPARE(rank.rank, std::int32_t(i));
            QCOMPARE(rank.source, RankSource::Environment);
            QCOMPARE(rank.sourceDetail, "PMI_RANK=\"" + std::to_string(i) + "\"");
            QVERIFY(trace->reports[rank.report].path.find(expected.at(std::int32_t(i))) != std::string::npos);
            QCOMPARE(std::to_string(rank.pid), expected.at(std::int32_t(i)));
        }
        QCOMPARE(trace->ranks[3].host, std::string("ault44.cscs.ch"));
        // Time-normalised export: timestamps are absolute already, no offset added.
        QCOMPARE(trace->reports[0].timeBase, TimeBase::AlreadyAbsolute);
        QCOMPARE(trace->reports[0].timeOffsetNs, TimeNs(0));
        QVERIFY(trace->span.start > TimeNs(1'700'000'000'000'000'000));
    }

    void twoProcessesInOneFileAreTwoRanks()
    {
        const auto path = gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY(!path.empty());
        const auto trace = load({ path });
        QCOMPARE(trace->ranks.size(), std::size_t(2));
        QCOMPARE(trace->ranks[0].source, RankSource::Process);
        QVERIFY(trace->ranks[0].pid < trace->ranks[1].pid);
        QCOMPARE(trace->ranks[0].gpus.size(), std::size_t(1));
        QCOMPARE(trace->ranks[1].gpus.size(), std::size_t(1));
        QVERIFY(trace->ranks[0].gpus[0] != trace->ranks[1].gpus[0]);
        // Session-relative timestamps become absolute with the session's UTC start.
        QCOMPARE(trace->reports[0].timeBase, TimeBase::SessionRelative);
        QCOMPARE(trace->reports[0].timeOffsetNs,
            TimeNs(sqlInt(path, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME")));
        // Kernels find their launch through (pid, correlationId), although ids repeat across
        // processes; this 1 s cut lacks the launch rows of some kernels, as SQL confirms.
        std::size_t found = 0, total = 0;
        for (const auto &gpu : trace->gpus)
            for (const auto &s : gpu.streams)
                for (auto corr : s.kernels.correlationId) {
                    ++total;
                    if (const auto l = trace->findLaunch(gpu.report, s.pid, corr))
                        found += trace->threads[l->thread].pid == s.pid;
                }
        QCOMPARE(total, std::size_t(3442));
        QCOMPARE(std::int64_t(found),
            sqlInt(path,
                "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS (SELECT 1 FROM "
                "CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId AND "
                "(r.globalTid >> 24) = (k.globalPid >> 24))"));
    }

    void nvtxNamesComeFromTextOrTextIdAndDomainsAreNamed()
    {
        const auto path = gaplens::test::realFile("nsysai_mfu_2gpu_before.sqlite");
        QVERIFY(!path.empty());
        const auto trace = load({ path });
        const auto byTextId = sqlInt(
            path, "SELECT count(*) FROM NVTX_EVENTS WHERE text IS NULL AND textId IS NOT NULL AND eventType = 59");
        QVERIFY(byTextId > 0);
        std::size_t unnamed = 0, inNamedDomain = 0;
        for (const auto &th : trace->threads)
            for (std::size_t i = 0; i < th.nvtx.size(); ++i) {
                unnamed += th.nvtx.name[i] == kEmptyString;
                inNamedDomain += th.nvtx.domainOf(i) != kEmptyString;
            }
        QCOMPARE(unnamed, std::size_t(0));
        QVERIFY(inNamedDomain > 0);
    }

    void nvtxOnlyCaptureIsOneRankWithoutGpus()
    {
        const auto path = gaplens::test::realFile("centerformer_nvtx_only.sqlite");
        QVERIFY(!path.empty());
        const auto trace = load({ path });
        QCOMPARE(trace->ranks.size(), std::size_t(1));
        QVERIFY(trace->gpus.empty());
        QVERIFY(trace->ranks[0].threads.size() >= 1);
        std::size_t startEnd = 0;
        for (const auto &th : trace->threads)
            for (auto k : th.nvtx.kind)
                startEnd += k == NvtxKind::StartEnd;
        QCOMPARE(std::int64_t(startEnd), sqlInt(path, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 60"));
    }

    void driverOnlyCallsAreRead()
    {
        const auto path = gaplens::test::realFile("sc23_openmp_offload_report3.sqlite");
        QVERIFY(!path.empty());
        const auto trace = load({ path });
        QCOMPARE(std::int64_t(apiCallCount(*trace)),
            sqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"));
        QCOMPARE(trace->ranks[0].source, RankSource::Environment); // SLURM_PROCID="0"
    }

    void wholeFolderLoadsAsOneCaptureInParallel()
    {
        LoadOptions options;
        options.files = m_files;
        options.threads = 2;
        int calls = 0;
        int lastPermille = 0;
        const auto trace = loadTraceSet(options, [&](const LoadProgress &p) {
            ++calls;
            lastPermille = p.permille;
        });
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->reports.size(), m_files.size());
        QVERIFY(calls > int(m_files.size()));
        QCOMPARE(lastPermille, 1000);
        // Not every report names its rank, so all fall back to file order: 17 distinct ranks
        // (11 one-rank files, and h100 plus the mfu pair hold two GPU processes each).
        QCOMPARE(trace->ranks.size(), std::size_t(17));
        for (std::size_t i = 0; i < trace->ranks.size(); ++i)
            QCOMPARE(trace->ranks[i].rank, std::int32_t(i));
        QVERIFY(trace->warnings.empty());
    }

    void fileReadAsTwoPartsEqualsFileReadWhole_data() { everyRealFileLoadsWithItsRowsCountedOnce_data(); }

    // With more cores than files, a file is read as two parts on two connections (GPU + API
    // tables, NVTX table) and joined; the joined capture must be the one read in one pass.
    void fileReadAsTwoPartsEqualsFileReadWhole()
    {
        QFETCH(QString, file);
        loadsAgree(file, [](LoadOptions &parts) { parts.threads = 2; });
    }

    void directScanEqualsSqliteScan_data() { everyRealFileLoadsWithItsRowsCountedOnce_data(); }

    // The big tables are read by decoding the file's pages directly (core/src/table_scan.h);
    // the capture must be the one read through SQLite statements alone.
    void directScanEqualsSqliteScan()
    {
        QFETCH(QString, file);
        loadsAgree(file, [](LoadOptions &sqlite) { sqlite.directTableScan = false; });
    }

    void cancelledLoadReturnsNoData()
    {
        CancelToken cancel;
        cancel.cancel();
        LoadOptions options;
        options.files = m_files;
        const auto trace = loadTraceSet(options, {}, &cancel);
        QVERIFY(trace->cancelled);
        QVERIFY(trace->ranks.empty());
    }
};

QTEST_APPLESS_MAIN(TestReaderReal)
#include "tst_reader_real.moc"
