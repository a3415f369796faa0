// SPDX-License-Identifier: MIT
// Bad input never crashes or hides the good files: each bad file gets one message that
// names it and says what is wrong; data problems inside a good file are counted.
#include "gaplens/core/read/loader.h"

#include "minimal_export.h"
#include "sqltestdb.h"
#include "test_files.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace gaplens::core;
using gaplens::test::execSql;

namespace {

// A minimal but valid export: one kernel launched by one runtime call, one NVTX range.
// Columns in an unusual order with an extra tool column, as real files vary.
const std::string kMinimalExport = gaplens::test::minimalExportHeadSql() + R"(
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (shortName INTEGER, deviceId INTEGER, start INTEGER, "end" INTEGER,
        streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, toolColumn TEXT);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 100, 200, 7, 5, 16777216 * 42, 1, 'x');
)" + gaplens::test::minimalLaunchAndRangeSql();

} // namespace

class TestReaderBadInput : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_good;

    std::string path(const char *name) const { return gaplens::test::pathIn(m_dir, name); }

    std::string writeFile(const char *name, const std::string &bytes) const
    {
        const auto p = path(name);
        gaplens::test::writeFile(p, bytes);
        return p;
    }

    // Loads the bad file together with a good one; the good one must still load.
    void expectError(const std::string &bad, const char *expectedPhrase)
    {
        LoadOptions options;
        options.files = { bad, m_good };
        const auto trace = loadTraceSet(options);
        QCOMPARE(trace->ranks.size(), std::size_t(1));
        gaplens::test::checkOneErrorBesideGood(*trace, bad, m_good, expectedPhrase);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_good = gaplens::test::writeExportIn(m_dir, "good.sqlite", kMinimalExport);
    }

    void minimalExportWithShuffledColumnsLoads()
    {
        LoadOptions options;
        options.files = { m_good };
        const auto trace = loadTraceSet(options);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->gpus[0].kernelCount(), std::size_t(1));
        const auto &k = trace->gpus[0].streams[0].kernels;
        QCOMPARE(k.start[0], TimeNs(1000000100)); // session start added
        QCOMPARE(trace->str(k.shortName[0]), std::string("gemm"));
        QCOMPARE(trace->threads.size(), std::size_t(1));
        QCOMPARE(trace->str(trace->threads[0].api.name[0]), std::string("cudaLaunchKernel"));
        QCOMPARE(trace->str(trace->threads[0].nvtx.name[0]), std::string("step"));
        const auto launch = trace->findLaunch(0, 42, 5);
        QVERIFY(launch);
        QCOMPARE(trace->threads[launch->thread].tid, std::uint32_t(42));
    }

    void notSqliteFileIsNamed()
    {
        expectError(writeFile("notes.sqlite", "this is a text file, not a database\n"), "is not an SQLite database");
    }

    void emptyFileIsNamed() { expectError(writeFile("empty.sqlite", ""), "is empty"); }

    void missingFileIsNamed() { expectError(path("missing.sqlite"), "does not exist"); }

    void directoryIsNamed()
    {
        const auto dir = path("a_folder.sqlite");
        std::filesystem::create_directory(dir);
        expectError(dir + "/", "folder without any .sqlite export");
    }

    void sqliteWithoutExportTablesIsNamed()
    {
        const auto p = path("other.sqlite");
        execSql(p, "CREATE TABLE customers (id INTEGER, name TEXT); INSERT INTO customers VALUES (1, 'x');");
        expectError(p, "not an Nsight Systems export");
    }

    void truncatedExportIsNamed()
    {
        // A real-sized export cut in half, as an interrupted copy leaves it.
        const auto full = path("full.sqlite");
        std::string sql = kMinimalExport;
        sql += "CREATE TABLE padding (x BLOB);";
        for (int i = 0; i < 64; ++i)
            sql += "INSERT INTO padding VALUES (zeroblob(4096));";
        execSql(full, sql);
        auto bytes = gaplens::test::readFile(full);
        QVERIFY(bytes.size() > 100000);
        // Keep the header and schema page but lose half the pages: SQLite finds the
        // database image malformed when the reader reaches them.
        bytes.resize(bytes.size() / 2);
        expectError(writeFile("truncated.sqlite", bytes), "truncated or corrupt");
    }

    void corruptHeaderPageIsNamed()
    {
        auto bytes = gaplens::test::readFile(m_good);
        // Valid magic, garbage where the schema lives.
        for (std::size_t i = 100; i < bytes.size(); ++i)
            bytes[i] = char(0xA5 ^ (i * 31));
        expectError(writeFile("corrupt.sqlite", bytes), "truncated or corrupt");
    }

    void dataProblemsAreCountedNotFatal()
    {
        const auto p = path("problems.sqlite");
        execSql(p, std::string(kMinimalExport) + R"(
            -- end before start, an open NVTX range, a kernel naming a missing string
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 500, 400, 7, 6, 16777216 * 42, 1, 'x');
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (99, 0, 600, 700, 7, 7, 16777216 * 42, 99, 'x');
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, NULL, 700, 7, 8, 16777216 * 42, 1, 'x');
            INSERT INTO NVTX_EVENTS VALUES (40, NULL, 59, 'open', 16777216 * 42 + 42, NULL, 0);
            INSERT INTO NVTX_EVENTS VALUES (50, 70, 34, 'a mark', 16777216 * 42 + 42, NULL, 0);
        )");
        LoadOptions options;
        options.files = { p };
        const auto trace = loadTraceSet(options);
        QVERIFY(trace->errors.empty());
        const auto &problems = trace->reports[0].problems;
        QCOMPARE(problems.endBeforeStart, std::uint64_t(1));
        QCOMPARE(problems.nullEnd, std::uint64_t(1));
        QCOMPARE(problems.nullStart, std::uint64_t(1));
        QCOMPARE(problems.unknownStringId, std::uint64_t(2)); // shortName 99 and demangledName 99
        QCOMPARE(problems.total(), std::uint64_t(5));
        QCOMPARE(trace->gpus[0].kernelCount(), std::size_t(2)); // the good one and the unnamed one
        QCOMPARE(trace->threads[0].marks.size(), std::size_t(1));
    }

    void backtraceDuplicatesAreCountedOnceAndOldMetadataTableIsRead()
    {
        // 2.9.1 style: EXPORT_META_DATA, an appended name column, eventClass 67 duplicates.
        const auto p = path("old.sqlite");
        execSql(p, R"(
            CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT);
            INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_SCHEMA_VERSION', '2.9.1');
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO StringIds VALUES (1, 'cudaMalloc_v3020'), (2, 'cudaMalloc');
            CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, "end" INTEGER, eventClass INTEGER,
                globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER, name TEXT);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 90, 67, 16777216 * 7 + 7, 1, 2, 0, NULL, NULL);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (11, 89, 0, 16777216 * 7 + 7, 1, 1, 0, NULL, NULL);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 190, 67, 16777216 * 7 + 7, 2, 2, 0, NULL, NULL);
        )");
        LoadOptions options;
        options.files = { p };
        const auto trace = loadTraceSet(options);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->reports[0].schemaVersion, std::string("2.9.1"));
        QCOMPARE(trace->reports[0].timeBase, TimeBase::Unknown);
        QVERIFY(!trace->reports[0].warnings.empty()); // no session start: said
        QCOMPARE(trace->reports[0].notes.backtraceDuplicates, std::uint64_t(1));
        // The duplicate is folded; the backtrace row without a call of its own is kept.
        QCOMPARE(trace->threads[0].api.size(), std::size_t(2));
        QCOMPARE(trace->str(trace->threads[0].api.name[0]), std::string("cudaMalloc"));
    }

    void tableWithoutARequiredColumnIsSkippedWithAWarning()
    {
        const auto p = path("nocolumn.sqlite");
        execSql(p, R"(
            CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, deviceId INTEGER);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0);
        )");
        LoadOptions options;
        options.files = { p };
        const auto trace = loadTraceSet(options);
        QVERIFY(trace->errors.empty());
        QVERIFY(trace->gpus.empty());
        const auto &warnings = trace->reports[0].warnings;
        QVERIFY(std::any_of(warnings.begin(), warnings.end(), [](const std::string &w) {
            return w.find("CUPTI_ACTIVITY_KIND_KERNEL has no column end") != std::string::npos;
        }));
    }

    void nothingLoadableGivesOnlyErrors()
    {
        LoadOptions options;
        options.files = { path("missing1.sqlite"), path("missing2.sqlite") };
        const auto trace = loadTraceSet(options);
        QCOMPARE(trace->errors.size(), std::size_t(2));
        QVERIFY(trace->ranks.empty());
        QVERIFY(!trace->cancelled);
    }
};

QTEST_APPLESS_MAIN(TestReaderBadInput)
#include "tst_reader_bad_input.moc"
