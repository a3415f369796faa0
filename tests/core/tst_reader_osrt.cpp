// SPDX-License-Identifier: MIT
// OS runtime calls (OSRT_API): which processes keep them, which threads they join, their
// bad rows counted like every other table's, the same rows whether the file is read whole or
// in two parts, with the direct table scan or through SQLite; and on the real export that
// has them, every call loaded equals SQL's row, and the outermost call open at a time is
// the one SQL finds.
#include "gaplens/core/read/loader.h"
#include "minimal_export.h"
#include "sqltestdb.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

using namespace gaplens::core;
using gaplens::test::minimalExportSql;
using gaplens::test::sqlInt;
using gaplens::test::writeExportIn;

namespace {

constexpr TimeNs kSessionStart = 1000000000; // the minimal export's utcEpochNs

// globalTid of thread `tid` of process `pid`.
std::string globalTid(std::int64_t pid, std::int64_t tid)
{
    return std::to_string((pid << 24) + tid);
}

// The minimal export (pid 42: a kernel, a runtime call and an NVTX range on thread 42) with
// OS runtime calls on thread 42, on thread 43 (only OS calls, named "worker" in ThreadNames),
// on thread 7 of pid 99 (no CUDA or NVTX activity) and the start/finish markers on thread 0.
std::string osrtExportSql(const std::string &badRows = "")
{
    return minimalExportSql() + R"(
    INSERT INTO StringIds VALUES (10, 'pthread_cond_wait'), (11, 'fopen'), (12, 'open64'), (13, 'ioctl'),
        (14, 'OS runtime libraries profiling started'), (15, 'worker');
    CREATE TABLE OSRT_API (start INTEGER NOT NULL, "end" INTEGER NOT NULL, eventClass INTEGER NOT NULL,
        globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER,
        callchainId INTEGER NOT NULL);
    CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);
    INSERT INTO ThreadNames VALUES (15, 10, )"
        + globalTid(42, 43) + R"();
    INSERT INTO OSRT_API VALUES (400, 900, 27, )"
        + globalTid(42, 42) + R"(, 11, 0, 0, 3);
    INSERT INTO OSRT_API VALUES (450, 600, 27, )"
        + globalTid(42, 42) + R"(, 12, 0, 1, 4);
    INSERT INTO OSRT_API VALUES (70, 80, 27, )"
        + globalTid(42, 42) + R"(, 13, 0, 0, 0);
    INSERT INTO OSRT_API VALUES (100, 5000, 27, )"
        + globalTid(42, 43) + R"(, 10, 0, 0, 1);
    INSERT INTO OSRT_API VALUES (100, 200, 27, )"
        + globalTid(99, 7) + R"(, 13, 0, 0, 0);
    INSERT INTO OSRT_API VALUES (10, 10, 31, )"
        + globalTid(42, 0) + R"(, 14, 0, NULL, 0);
    INSERT INTO OSRT_API VALUES (6000, 6000, 32, )"
        + globalTid(42, 0) + R"(, 14, 0, NULL, 0);
)" + badRows;
}

// Rows on thread 42 that the reader must count and skip (the table is declared without
// NOT NULL and without affinity for start so that SQLite keeps what is written).
std::string badRowsSql()
{
    const auto tid = globalTid(42, 42);
    return R"(
    DROP TABLE OSRT_API;
    CREATE TABLE OSRT_API (start, "end" INTEGER, eventClass INTEGER, globalTid INTEGER, nameId INTEGER,
        returnValue INTEGER, nestingLevel INTEGER, callchainId INTEGER);
    INSERT INTO OSRT_API VALUES (400, 900, 27, )"
        + tid + R"(, 11, 0, 0, 3);
    INSERT INTO OSRT_API VALUES (NULL, 900, 27, )"
        + tid + R"(, 11, 0, 0, 3);
    INSERT INTO OSRT_API VALUES (1000, NULL, 27, )"
        + tid + R"(, 11, 0, 0, 3);
    INSERT INTO OSRT_API VALUES (1000, 999, 27, )"
        + tid + R"(, 11, 0, 0, 3);
    INSERT INTO OSRT_API VALUES ('12abc', 2000, 27, )"
        + tid + R"(, 11, 0, 0, 3);
    INSERT INTO OSRT_API VALUES (1500.5, 2000, 27, )"
        + tid + R"(, 11, 0, 0, 3);
    INSERT INTO OSRT_API VALUES (3000, 3100, 27, )"
        + tid + R"(, 77, 0, 0, NULL);
)";
}

std::shared_ptr<TraceSet> load(const std::string &path, unsigned threads, bool direct)
{
    LoadOptions options;
    options.files = { path };
    options.threads = threads;
    options.directTableScan = direct;
    return loadTraceSet(options);
}

const Thread *findThread(const TraceSet &trace, std::uint32_t pid, std::uint32_t tid)
{
    for (const auto &t : trace.threads)
        if (t.pid == pid && t.tid == tid)
            return &t;
    return nullptr;
}

std::vector<std::tuple<TimeNs, TimeNs, std::string, std::int64_t, int>> calls(
    const TraceSet &trace, const Thread &thread)
{
    std::vector<std::tuple<TimeNs, TimeNs, std::string, std::int64_t, int>> out;
    for (std::size_t i = 0; i < thread.osrt.size(); ++i)
        out.emplace_back(thread.osrt.start[i] - kSessionStart, thread.osrt.end[i] - kSessionStart,
            trace.str(thread.osrt.name[i]), thread.osrt.callchainId[i], int(thread.osrt.depth[i]));
    return out;
}

// Each way of reading a file: whole on one connection or as two parts, direct scan or SQLite.
void addReadWays()
{
    QTest::addColumn<unsigned>("threads");
    QTest::addColumn<bool>("direct");
    QTest::newRow("whole, direct scan") << 1u << true;
    QTest::newRow("whole, SQLite") << 1u << false;
    QTest::newRow("two parts, direct scan") << 2u << true;
    QTest::newRow("two parts, SQLite") << 2u << false;
}

// One real export's OS calls of one thread as SQL lists them (markers left out), in the
// model's order: (start, end desc), times made absolute by the session start. The thread is
// found by the pid and tid fields of globalTid (its high bits hold more than the pid).
struct SqlCall
{
    std::int64_t start, end;
    std::string name;
    std::int64_t callchainId;
};

std::vector<SqlCall> sqlCalls(const std::string &file, std::uint32_t pid, std::uint32_t tid)
{
    std::vector<SqlCall> out;
    sqlite3 *db = nullptr;
    sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt *stmt = nullptr;
    const char *sql = R"(
        SELECT o.start + t.utcEpochNs, o."end" + t.utcEpochNs, s.value, o.callchainId
        FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId, TARGET_INFO_SESSION_START_TIME t
        WHERE ((o.globalTid >> 24) & 16777215) = ? AND (o.globalTid & 16777215) = ?
          AND o.eventClass NOT IN (31, 32)
        ORDER BY o.start, o."end" DESC, o.rowid)";
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
        qFatal("SQL failed: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(stmt, 1, pid);
    sqlite3_bind_int64(stmt, 2, tid);
    while (sqlite3_step(stmt) == SQLITE_ROW)
        out.push_back({ sqlite3_column_int64(stmt, 0), sqlite3_column_int64(stmt, 1),
            reinterpret_cast<const char *>(sqlite3_column_text(stmt, 2)), sqlite3_column_int64(stmt, 3) });
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return out;
}

} // namespace

class TestReaderOsrt : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_osrt, m_bad; // written once, read in every way

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_osrt = writeExportIn(m_dir, "osrt.sqlite", osrtExportSql());
        m_bad = writeExportIn(m_dir, "osrt_bad.sqlite", osrtExportSql(badRowsSql()));
    }

    void callsJoinTheirThreadOrAThreadOfAnActiveProcess_data() { addReadWays(); }
    void callsJoinTheirThreadOrAThreadOfAnActiveProcess()
    {
        QFETCH(unsigned, threads);
        QFETCH(bool, direct);
        const auto trace = load(m_osrt, threads, direct);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->reports[0].problems.total(), std::uint64_t(0));
        // pid 42's main thread (CUDA call, NVTX range) and its thread 43 with only an OS call;
        // pid 99 has no CUDA or NVTX activity, and the markers on thread 0 are not calls.
        QCOMPARE(trace->threads.size(), std::size_t(2));
        const Thread *main = findThread(*trace, 42, 42);
        const Thread *worker = findThread(*trace, 42, 43);
        QVERIFY(main && worker);
        QVERIFY(!findThread(*trace, 99, 7));
        QVERIFY(!findThread(*trace, 42, 0));
        using Calls = std::vector<std::tuple<TimeNs, TimeNs, std::string, std::int64_t, int>>;
        // Sorted by start, open64 nested in fopen (depth 1), names as exported, callchains kept.
        QCOMPARE(calls(*trace, *main),
            (Calls { { 70, 80, "ioctl", 0, 0 }, { 400, 900, "fopen", 3, 0 }, { 450, 600, "open64", 4, 1 } }));
        QCOMPARE(calls(*trace, *worker), (Calls { { 100, 5000, "pthread_cond_wait", 1, 0 } }));
        QCOMPARE(trace->str(worker->name), std::string("worker"));
        QCOMPARE(worker->rank, main->rank);
        QVERIFY(worker->api.size() == 0 && worker->nvtx.size() == 0);
        // OS calls do not widen the spans: the marker at 6000 ns and the wait to 5000 ns are outside.
        QCOMPARE(trace->span, (TimeRange { kSessionStart + 40, kSessionStart + 300 }));
        std::vector<std::uint32_t> open;
        main->osrt.nesting.openAt(main->osrt.start, main->osrt.end, kSessionStart + 500, open);
        QCOMPARE(open, (std::vector<std::uint32_t> { 1, 2 })); // fopen, then open64 inside it
    }

    void badRowsAreCountedAndSkipped_data() { addReadWays(); }
    void badRowsAreCountedAndSkipped()
    {
        QFETCH(unsigned, threads);
        QFETCH(bool, direct);
        const auto trace = load(m_bad, threads, direct);
        QVERIFY(trace->errors.empty());
        const auto &problems = trace->reports[0].problems;
        QCOMPARE(problems.nullStart, std::uint64_t(1));
        QCOMPARE(problems.nullEnd, std::uint64_t(1));
        QCOMPARE(problems.endBeforeStart, std::uint64_t(1));
        QCOMPARE(problems.timeNotInteger, std::uint64_t(2)); // '12abc' and 1500.5
        QCOMPARE(problems.unknownStringId, std::uint64_t(1)); // nameId 77
        QCOMPARE(problems.total(), std::uint64_t(6));
        const Thread *main = findThread(*trace, 42, 42);
        QVERIFY(main);
        using Calls = std::vector<std::tuple<TimeNs, TimeNs, std::string, std::int64_t, int>>;
        // A NULL callchainId reads as 0 (no stack); the unknown name is shown as such.
        QCOMPARE(calls(*trace, *main),
            (Calls { { 400, 900, "fopen", 3, 0 }, { 3000, 3100, "<unknown string #77>", 0, 0 } }));
    }

    void missingTableIsNoCallsAndMissingColumnIsSaid()
    {
        const auto plain = load(writeExportIn(m_dir, "plain.sqlite", minimalExportSql()), 1, true);
        QVERIFY(plain->errors.empty());
        QCOMPARE(plain->threads.size(), std::size_t(1));
        QCOMPARE(plain->threads[0].osrt.size(), std::size_t(0));
        QVERIFY(plain->reports[0].warnings.empty());

        const auto noName = load(writeExportIn(m_dir, "osrt_no_name.sqlite",
                                     minimalExportSql()
                                         + "CREATE TABLE OSRT_API (start INTEGER, \"end\" INTEGER, globalTid INTEGER);"
                                           "INSERT INTO OSRT_API VALUES (1, 2, "
                                         + globalTid(42, 42) + ");"),
            1, true);
        QVERIFY(noName->errors.empty());
        QCOMPARE(noName->threads[0].osrt.size(), std::size_t(0));
        QCOMPARE(noName->reports[0].warnings,
            (std::vector<std::string> { "table OSRT_API has no column nameId: its rows were not read" }));
    }

    // gpu4_streams_report2.sqlite: 869 OSRT_API rows on four threads of pid 36554 (the one
    // process, which ran the kernels), three of them the start/finish markers on thread 0.
    void realCallsEqualSqlRowByRow()
    {
        const auto path = gaplens::test::realFile("gpu4_streams_report2.sqlite");
        QVERIFY2(!path.empty(), gaplens::test::kRealDataMissing);
        const auto trace = load(path, 1, true);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->reports[0].problems.total(), std::uint64_t(0));
        std::size_t loaded = 0;
        for (const auto &t : trace->threads)
            loaded += t.osrt.size();
        // Calls of processes with kernels, copies, CUDA calls or NVTX, without the markers.
        const auto expected = sqlInt(path,
            "SELECT count(*) FROM OSRT_API WHERE eventClass NOT IN (31, 32) AND ((globalTid >> 24) & 16777215) IN "
            "(SELECT (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL UNION "
            "SELECT (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION "
            "SELECT (globalTid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_RUNTIME)");
        QCOMPARE(std::int64_t(loaded), expected);
        QCOMPARE(expected, std::int64_t(866));

        std::size_t threadsWithCalls = 0;
        for (const auto &t : trace->threads) {
            if (t.osrt.size() == 0)
                continue;
            ++threadsWithCalls;
            const auto rows = sqlCalls(path, t.pid, t.tid);
            QCOMPARE(t.osrt.size(), rows.size());
            for (std::size_t i = 0; i < rows.size(); ++i) {
                QCOMPARE(t.osrt.start[i], rows[i].start);
                QCOMPARE(t.osrt.end[i], rows[i].end);
                QCOMPARE(trace->str(t.osrt.name[i]), rows[i].name);
                QCOMPARE(t.osrt.callchainId[i], rows[i].callchainId);
            }
            // The outermost call open at each call's midpoint is the one SQL finds: the
            // earliest-starting row containing the time (longest first on a tie).
            std::vector<std::uint32_t> open;
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const auto at = rows[i].start + (rows[i].end - rows[i].start) / 2;
                t.osrt.nesting.openAt(t.osrt.start, t.osrt.end, at, open);
                std::size_t outermost = rows.size();
                for (std::size_t k = 0; k < rows.size() && outermost == rows.size(); ++k)
                    if (rows[k].start <= at && at < rows[k].end)
                        outermost = k;
                if (outermost == rows.size()) {
                    QVERIFY(open.empty()); // a zero-length call holds no time
                    continue;
                }
                QVERIFY(!open.empty());
                QCOMPARE(std::size_t(open.front()), outermost);
            }
        }
        QCOMPARE(threadsWithCalls, std::size_t(3)); // threads 36554, 36563 and 36566
    }

    // gpu4's OSRT_CALLCHAINS: a call's callchainId names its own chain as exported (0: none,
    // calls shorter than nsys' backtrace threshold). Each of the 213 calls with a stack gets
    // SQL's frames, and its innermost frame is the call itself (glibc's name for it: __poll,
    // __libc_write, pthread_cond_broadcast@@GLIBC_2).
    void realCallsCarryTheirOwnStack()
    {
        const auto path = gaplens::test::realFile("gpu4_streams_report2.sqlite");
        QVERIFY2(!path.empty(), gaplens::test::kRealDataMissing);
        const auto trace = load(path, 1, true);
        const gaplens::test::SqlTestDb db(path);
        const auto &chains = trace->reports[0].callchains;
        std::size_t withStack = 0;
        for (const auto &t : trace->threads)
            for (std::size_t i = 0; i < t.osrt.size(); ++i) {
                const auto chain = chains.find(CallchainSource::Osrt, t.osrt.callchainId[i]);
                QCOMPARE(chain == 0, t.osrt.callchainId[i] == 0);
                if (chain == 0)
                    continue;
                ++withStack;
                const auto frames = db.rows("SELECT m.value, s.value FROM OSRT_CALLCHAINS c JOIN StringIds s ON "
                                            "s.id = c.symbol JOIN StringIds m ON m.id = c.module WHERE c.id = "
                    + std::to_string(t.osrt.callchainId[i]) + " ORDER BY c.stackDepth DESC");
                const auto stack = chains.stackOf(chain);
                QCOMPARE(stack.size(), frames.size());
                for (std::size_t f = 0; f < frames.size(); ++f) {
                    QCOMPARE(trace->str(stack.module[f]), frames[f][0]);
                    QCOMPARE(trace->str(stack.symbol[f]), frames[f][1]);
                }
                std::string call(trace->str(t.osrt.name[i])), inner(trace->str(stack.symbol[stack.size() - 1]));
                if (call == "mmap64")
                    call = "mmap";
                QVERIFY2(inner.find(call) != std::string::npos, (call + " has the stack of " + inner).c_str());
            }
        QCOMPARE(withStack, std::size_t(213));
    }
};

QTEST_GUILESS_MAIN(TestReaderOsrt)
#include "tst_reader_osrt.moc"
