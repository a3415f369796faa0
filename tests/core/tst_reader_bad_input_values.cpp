// SPDX-License-Identifier: MIT
// Bad values inside a good file: the reader returns exactly SQLite's rows or counts the
// row as a data problem, never a number SQLite's coercion or a wrapped addition invented.
// Every case runs with the direct table scan on and off, which must agree.
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/read/loader.h"

#include "sqltestdb.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

using namespace gaplens::core;
using gaplens::test::execSql;
using gaplens::test::SqlTestDb;

namespace {

constexpr TimeNs kSessionStart = 1000000000; // utcEpochNs of the fixtures
constexpr std::int64_t kPid = 42; // every row's process (globalPid 42 << 24)

const char *kExportMetadata = R"(
    CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0');
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000'), (3, 'step');
)";

std::string sessionStartTable(const std::string &utcEpochNs)
{
    return "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);"
           "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES ("
        + utcEpochNs + ", '', '');";
}

// `startType` is the declared type of `start`: "INTEGER" as nsys writes it, or "" (no
// affinity) so that a REAL 2.0 stays a REAL on disk.
std::string kernelTable(const std::string &startType = "INTEGER")
{
    return "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start " + startType +
        R"(, "end" INTEGER, deviceId INTEGER, streamId INTEGER,
               correlationId INTEGER, globalPid INTEGER, shortName INTEGER);)";
}

std::string kernelRow(const std::string &start, const std::string &end, const std::string &deviceId = "0")
{
    return "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + start + ", " + end + ", " + deviceId + ", 7, 1, "
        + std::to_string(kPid << 24) + ", 1);";
}

// The CPU tables, and a row of each on the main thread of kPid (values as SQL literals).
const char *kRuntimeTable = R"(
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, "end" INTEGER, eventClass INTEGER,
        globalTid INTEGER, correlationId INTEGER, nameId INTEGER);)";
const char *kNvtxTable = R"(
    CREATE TABLE NVTX_EVENTS (start INTEGER, "end" INTEGER, eventType INTEGER, text TEXT,
        globalTid INTEGER, textId INTEGER, domainId INTEGER);)";

const std::string kMainTid = std::to_string((kPid << 24) + kPid);

// A runtime call named 2 (cudaLaunchKernel_v7000).
std::string runtimeRow(const std::string &start, const std::string &end, const std::string &correlationId)
{
    return "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + start + ", " + end + ", 0, " + kMainTid + ", "
        + correlationId + ", 2);";
}

std::string nvtxRow(const std::string &start, const std::string &end, const std::string &eventType,
    const std::string &text, const std::string &textId)
{
    return "INSERT INTO NVTX_EVENTS VALUES (" + start + ", " + end + ", " + eventType + ", " + text + ", " + kMainTid
        + ", " + textId + ", 0);";
}

// Two good kernels, [100, 200) and [1000, 1100): 200 ns busy in a 1000 ns window.
std::string twoGoodKernels()
{
    return kernelRow("100", "200") + kernelRow("1000", "1100");
}

// The kernel table holding them.
std::string twoGoodKernelsTable()
{
    return kernelTable() + twoGoodKernels();
}

std::vector<TimeNs> kernelStarts(const TraceSet &trace)
{
    std::vector<TimeNs> starts;
    for (const auto &gpu : trace.gpus)
        for (const auto &stream : gpu.streams)
            starts.insert(starts.end(), stream.kernels.start.begin(), stream.kernels.start.end());
    return starts;
}

// The trace has one thread, whose API calls start at `apiStarts` and whose marks are at `marks`.
void expectOneThread(const TraceSet &trace, const std::vector<TimeNs> &apiStarts, const std::vector<TimeNs> &marks)
{
    QCOMPARE(trace.threads.size(), std::size_t(1));
    QCOMPARE(trace.threads[0].api.start, apiStarts);
    QCOMPARE(trace.threads[0].marks.time, marks);
}

} // namespace

class TestReaderBadInputValues : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_files = 0;

    // A fresh file per call: data-driven rows must not share one.
    std::string writeExport(const std::string &sql)
    {
        const auto p
            = (std::filesystem::path(m_dir.path().toStdString()) / ("export" + std::to_string(++m_files) + ".sqlite"))
                  .string();
        execSql(p, kExportMetadata + sql);
        return p;
    }

    static std::shared_ptr<TraceSet> load(const std::string &file, bool direct, unsigned threads = 1)
    {
        LoadOptions options;
        options.files = { file };
        options.directTableScan = direct;
        options.threads = threads;
        return loadTraceSet(options);
    }

    // One row with the direct table scan, one with SQLite statements only.
    static void directAndSqliteRows()
    {
        QTest::addColumn<bool>("direct");
        QTest::newRow("direct") << true;
        QTest::newRow("sqlite") << false;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Issue 16 item 1: a start that is TEXT, a BLOB or a fractional REAL is a counted problem; an
    // integer-valued REAL is that integer. The bad row ends at 5000: read as any number it
    // would stretch the busy time from 200 ns to nearly 5000.
    void nonIntegerStartIsCountedNotCoerced_data()
    {
        QTest::addColumn<QString>("startType");
        QTest::addColumn<QString>("start");
        QTest::addColumn<QString>("storedAs"); // typeof(start) of the row, proving the fixture
        QTest::addColumn<bool>("direct");
        QTest::addColumn<int>("kernels");
        QTest::addColumn<qulonglong>("timeNotInteger");
        QTest::addColumn<qlonglong>("busyNs");
        QTest::addColumn<qlonglong>("windowStart"); // relative to the session start
        QTest::addColumn<qlonglong>("windowEnd");
        struct Case
        {
            const char *tag, *startType, *start, *storedAs;
            int kernels;
            qulonglong timeNotInteger;
            qlonglong busyNs, windowStart, windowEnd;
        };
        const Case cases[] = {
            { "text", "INTEGER", "'123abc'", "text", 2, 1, 200, 100, 1100 },
            { "blob", "INTEGER", "X'31323361'", "blob", 2, 1, 200, 100, 1100 }, // the bytes of "123a"
            { "fractional real", "INTEGER", "1.5", "real", 2, 1, 200, 100, 1100 },
            { "integral real, integer affinity", "INTEGER", "2.0", "integer", 3, 0, 4998, 2, 5000 },
            { "integral real", "", "2.0", "real", 3, 0, 4998, 2, 5000 },
            { "fractional real, no affinity", "", "1.5", "real", 2, 1, 200, 100, 1100 },
            { "negative integral real", "", "-50.0", "real", 3, 0, 5050, -50, 5000 },
            { "real beyond int64", "", "1e19", "real", 2, 1, 200, 100, 1100 },
            { "text of digits, no affinity", "", "'123'", "text", 2, 1, 200, 100, 1100 },
        };
        for (const auto &c : cases)
            for (const bool direct : { true, false })
                QTest::newRow(QStringLiteral("%1, %2").arg(QLatin1String(c.tag), direct ? "direct" : "sqlite").toUtf8())
                    << QString::fromLatin1(c.startType) << QString::fromLatin1(c.start)
                    << QString::fromLatin1(c.storedAs) << direct << c.kernels << c.timeNotInteger << c.busyNs
                    << c.windowStart << c.windowEnd;
    }

    void nonIntegerStartIsCountedNotCoerced()
    {
        QFETCH(QString, startType);
        QFETCH(QString, start);
        QFETCH(QString, storedAs);
        QFETCH(bool, direct);
        QFETCH(int, kernels);
        QFETCH(qulonglong, timeNotInteger);
        QFETCH(qlonglong, busyNs);
        QFETCH(qlonglong, windowStart);
        QFETCH(qlonglong, windowEnd);
        const auto file = writeExport(sessionStartTable(std::to_string(kSessionStart))
            + kernelTable(startType.toStdString()) + twoGoodKernels() + kernelRow(start.toStdString(), "5000"));
        QCOMPARE(SqlTestDb(file).text("SELECT typeof(start) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE \"end\" = 5000"),
            storedAs.toStdString());
        const auto trace = load(file, direct);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->gpus.size(), std::size_t(1));
        QCOMPARE(int(trace->gpus[0].kernelCount()), kernels);
        const auto &problems = trace->reports[0].problems;
        QCOMPARE(qulonglong(problems.timeNotInteger), timeNotInteger);
        QCOMPARE(qulonglong(problems.total()), timeNotInteger);
        const auto busy = computeGpuBusy(*trace, 0);
        QCOMPARE(qlonglong(busy.busyNs), busyNs);
        QCOMPARE(qlonglong(busy.window.start - kSessionStart), windowStart);
        QCOMPARE(qlonglong(busy.window.end - kSessionStart), windowEnd);
    }

    // Issue 16 item 1 in the other tables: an end that is TEXT, a REAL NVTX end with a fraction, a
    // BLOB mark time; read as one report or as two parts joined (threads 2).
    void nonIntegerTimesInEveryTableAreCounted_data()
    {
        QTest::addColumn<bool>("direct");
        QTest::addColumn<unsigned>("threads");
        for (const bool direct : { true, false })
            for (const unsigned threads : { 1u, 2u })
                QTest::newRow(
                    QStringLiteral("%1, %2 thread(s)").arg(direct ? "direct" : "sqlite").arg(threads).toUtf8())
                    << direct << threads;
    }

    void nonIntegerTimesInEveryTableAreCounted()
    {
        QFETCH(bool, direct);
        QFETCH(unsigned, threads);
        const auto file = writeExport(sessionStartTable(std::to_string(kSessionStart)) + kernelTable()
            + kernelRow("100", "'200 ns'") + kernelRow("1000", "1100") + kRuntimeTable + runtimeRow("50", "60", "1")
            + runtimeRow("X'00'", "80", "2") + kNvtxTable + nvtxRow("40", "300", "59", "NULL", "3")
            + nvtxRow("40", "300.5", "59", "NULL", "3") + nvtxRow("70", "NULL", "34", "'mark'", "NULL")
            + nvtxRow("X'01'", "NULL", "34", "'bad mark'", "NULL")
            + nvtxRow("NULL", "NULL", "34", "'no time'", "NULL"));
        const auto trace = load(file, direct, threads);
        QVERIFY(trace->errors.empty());
        const auto &problems = trace->reports[0].problems;
        QCOMPARE(problems.timeNotInteger, std::uint64_t(4)); // kernel end, runtime start, NVTX end, mark
        QCOMPARE(problems.nullStart, std::uint64_t(1)); // the mark without a time
        QCOMPARE(problems.total(), std::uint64_t(5));
        QCOMPARE(kernelStarts(*trace), std::vector<TimeNs> { kSessionStart + 1000 });
        CHECK(expectOneThread(*trace, { kSessionStart + 50 }, { kSessionStart + 70 }));
        QCOMPARE(trace->threads[0].nvtx.end, std::vector<TimeNs> { kSessionStart + 300 });
    }

    // Issue 16 item 5: times that cannot be represented once the offset is added are counted and
    // skipped, never wrapped; what can be represented is exact, even when the offset itself
    // is beyond 64 bits. Absolute times stay within +-(2^62 - 1), so any difference fits.
    void unrepresentableTimesAreCountedNotWrapped_data()
    {
        QTest::addColumn<QString>("utcEpochNs"); // empty: no session start table
        QTest::addColumn<QString>("timeShift"); // EXPORT_CONFIG_TIME_SHIFT, empty: none
        QTest::addColumn<QStringList>("rows"); // start, end, start, end, ...
        QTest::addColumn<bool>("direct");
        QTest::addColumn<std::vector<TimeNs>>("starts");
        QTest::addColumn<qulonglong>("timeOutOfRange");
        QTest::addColumn<qlonglong>("busyNs");
        QTest::addColumn<qlonglong>("windowNs");
        QTest::addColumn<qlonglong>("timeOffsetNs");
        QTest::addColumn<QStringList>("warnings");
        const QString session = QString::number(kSessionStart);
        const QString offsetWarning = QStringLiteral(
            "the time offset (utcEpochNs 1000000000 - EXPORT_CONFIG_TIME_SHIFT -9223372036854775808) does not fit "
            "in 64 bits: rows whose times cannot be represented after it are counted as data problems");
        struct Case
        {
            const char *tag;
            QString utcEpochNs, timeShift;
            QStringList rows;
            std::vector<TimeNs> starts;
            qulonglong timeOutOfRange;
            qlonglong busyNs, windowNs, timeOffsetNs;
            QStringList warnings;
        };
        const Case cases[] = {
            { "start and end near INT64_MAX", session, {},
                { "9223372036854775000", "9223372036854775800", "100", "200" }, { kSessionStart + 100 }, 1, 100, 100,
                kSessionStart, {} },
            { "end near INT64_MAX", session, {}, { "100", "9223372036854775807", "300", "400" },
                { kSessionStart + 300 }, 1, 100, 100, kSessionStart, {} },
            { "start INT64_MIN", session, {}, { "-9223372036854775807 - 1", "100", "300", "400" },
                { kSessionStart + 300 }, 1, 100, 100, kSessionStart, {} },
            // No session start: offset 0. Times of magnitude 2^62 - 1 load, 2^62 does not; the
            // window of the two that load spans 2^63 - 2 ns without overflow.
            { "the +-(2^62 - 1) limit", {}, {},
                { "4611686018427387902", "4611686018427387903", "4611686018427387903", "4611686018427387904",
                    "-4611686018427387903", "-4611686018427387902", "-4611686018427387904", "-4611686018427387903" },
                { -4611686018427387903, 4611686018427387902 }, 2, 2, 9223372036854775806, 0,
                { QStringLiteral("no session start time (TARGET_INFO_SESSION_START_TIME): times are relative to the "
                                 "session start and will not align with other reports") } },
            // The offset is INT64_MAX: only stored times near -INT64_MAX can be represented.
            { "utcEpochNs INT64_MAX", QStringLiteral("9223372036854775807"), {},
                { "100", "200", "-9223372036854774807", "-9223372036854773807" }, { 1000 }, 1, 1000, 1000,
                9223372036854775807, {} },
            // The offset utcEpochNs - INT64_MIN is 2^63 + 1e9: beyond 64 bits, still exact.
            { "EXPORT_CONFIG_TIME_SHIFT INT64_MIN", session, QStringLiteral("-9223372036854775808"),
                { "100", "200", "-9223372036854775807 - 1 + 500", "-9223372036854775807 - 1 + 600" },
                { kSessionStart + 500 }, 1, 100, 100, 0, { offsetWarning } },
        };
        for (const auto &c : cases)
            for (const bool direct : { true, false })
                QTest::newRow(QStringLiteral("%1, %2").arg(QLatin1String(c.tag), direct ? "direct" : "sqlite").toUtf8())
                    << c.utcEpochNs << c.timeShift << c.rows << direct << c.starts << c.timeOutOfRange << c.busyNs
                    << c.windowNs << c.timeOffsetNs << c.warnings;
    }

    void unrepresentableTimesAreCountedNotWrapped()
    {
        QFETCH(QString, utcEpochNs);
        QFETCH(QString, timeShift);
        QFETCH(QStringList, rows);
        QFETCH(bool, direct);
        QFETCH(std::vector<TimeNs>, starts);
        QFETCH(qulonglong, timeOutOfRange);
        QFETCH(qlonglong, busyNs);
        QFETCH(qlonglong, windowNs);
        QFETCH(qlonglong, timeOffsetNs);
        QFETCH(QStringList, warnings);
        std::string sql;
        if (!utcEpochNs.isEmpty())
            sql += sessionStartTable(utcEpochNs.toStdString());
        if (!timeShift.isEmpty())
            sql += "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_CONFIG_TIME_SHIFT', '" + timeShift.toStdString()
                + "');";
        sql += kernelTable();
        for (qsizetype i = 0; i + 1 < rows.size(); i += 2)
            sql += kernelRow(rows[i].toStdString(), rows[i + 1].toStdString());
        const auto file = writeExport(sql);
        QCOMPARE(SqlTestDb(file).integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE typeof(start) = "
                                         "'integer' AND typeof(\"end\") = 'integer'"),
            std::int64_t(rows.size() / 2));
        const auto trace = load(file, direct);
        QVERIFY(trace->errors.empty());
        const auto &report = trace->reports[0];
        QCOMPARE(qulonglong(report.problems.timeOutOfRange), timeOutOfRange);
        QCOMPARE(qulonglong(report.problems.total()), timeOutOfRange);
        QCOMPARE(qlonglong(report.timeOffsetNs), timeOffsetNs);
        QStringList got;
        for (const auto &w : report.warnings)
            got << QString::fromStdString(w);
        QCOMPARE(got, warnings);
        auto sortedStarts = kernelStarts(*trace);
        std::sort(sortedStarts.begin(), sortedStarts.end());
        QCOMPARE(sortedStarts, starts);
        const auto busy = computeGpuBusy(*trace, 0);
        QCOMPARE(qlonglong(busy.busyNs), busyNs);
        QCOMPARE(qlonglong(busy.window.duration()), windowNs);
    }

    // Issue 16 item 5 in the CPU tables: a runtime call ending past INT64_MAX after the offset, and an
    // NVTX range and marks at INT64_MIN and INT64_MAX.
    // A thread with CUDA calls and NVTX ranges whose name id is not in StringIds: one unknown
    // id, however the file is read (two parts on two threads both look the name up).
    void anUnknownThreadNameIsCountedOnce_data() { nonIntegerTimesInEveryTableAreCounted_data(); }

    void anUnknownThreadNameIsCountedOnce()
    {
        QFETCH(bool, direct);
        QFETCH(unsigned, threads);
        const auto file = writeExport(sessionStartTable(std::to_string(kSessionStart)) + kRuntimeTable
            + runtimeRow("50", "60", "1") + kNvtxTable + nvtxRow("40", "300", "59", "'step'", "NULL")
            + "CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);"
            + "INSERT INTO ThreadNames VALUES (987654, 0, " + kMainTid + ");");
        const auto trace = load(file, direct, threads);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->reports[0].problems.unknownStringId, std::uint64_t(1));
        QCOMPARE(trace->threads.size(), std::size_t(1));
        QCOMPARE(trace->str(trace->threads[0].name), std::string("<unknown string #987654>"));
    }

    void unrepresentableCpuTimesAreCounted_data() { directAndSqliteRows(); }

    void unrepresentableCpuTimesAreCounted()
    {
        QFETCH(bool, direct);
        const std::string int64Min = "-9223372036854775807 - 1", int64Max = "9223372036854775807";
        const auto file = writeExport(sessionStartTable(std::to_string(kSessionStart)) + kRuntimeTable
            + runtimeRow("50", "60", "1") + runtimeRow("70", int64Max, "2") + kNvtxTable
            + nvtxRow("40", "300", "59", "NULL", "3") + nvtxRow(int64Min, "300", "59", "NULL", "3")
            + nvtxRow("70", "NULL", "34", "'mark'", "NULL") + nvtxRow(int64Min, "NULL", "34", "'early'", "NULL")
            + nvtxRow(int64Max, "NULL", "34", "'late'", "NULL"));
        const auto trace = load(file, direct);
        QVERIFY(trace->errors.empty());
        const auto &problems = trace->reports[0].problems;
        QCOMPARE(problems.timeOutOfRange, std::uint64_t(4));
        QCOMPARE(problems.total(), std::uint64_t(4));
        CHECK(expectOneThread(*trace, { kSessionStart + 50 }, { kSessionStart + 70 }));
        QCOMPARE(trace->threads[0].nvtx.start, std::vector<TimeNs> { kSessionStart + 40 });
    }

    // Issue 16 items 1 and 5 for the time base itself: a utcEpochNs that is not an integer and an
    // EXPORT_CONFIG_TIME_SHIFT that is not one are said, not read as numbers they are not.
    void badTimeBaseValuesAreSaid()
    {
        {
            const auto file = writeExport(sessionStartTable("'soon'") + twoGoodKernelsTable());
            const auto trace = load(file, true);
            QVERIFY(trace->errors.empty());
            const auto &report = trace->reports[0];
            QCOMPARE(report.timeBase, TimeBase::Unknown);
            QCOMPARE(report.timeOffsetNs, TimeNs(0));
            QCOMPARE(report.warnings,
                std::vector<std::string> { "TARGET_INFO_SESSION_START_TIME.utcEpochNs is not an integer: times "
                                           "are relative to the session start and will not align with other "
                                           "reports" });
            QCOMPARE(kernelStarts(*trace), (std::vector<TimeNs> { 100, 1000 }));
        }
        {
            const auto file = writeExport(sessionStartTable(std::to_string(kSessionStart))
                + "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_CONFIG_TIME_SHIFT', '12abc');" + twoGoodKernelsTable());
            const auto trace = load(file, true);
            QVERIFY(trace->errors.empty());
            const auto &report = trace->reports[0];
            QCOMPARE(report.timeBase, TimeBase::SessionRelative);
            QCOMPARE(report.timeOffsetNs, kSessionStart);
            QCOMPARE(report.warnings,
                std::vector<std::string> { "EXPORT_CONFIG_TIME_SHIFT '12abc' is not an integer: it was ignored" });
            QCOMPARE(kernelStarts(*trace), (std::vector<TimeNs> { kSessionStart + 100, kSessionStart + 1000 }));
        }
    }

    // Issue 16 item 6: optional metadata columns that are missing are a note; the file loads.
    void missingOptionalMetadataColumnsAreNoted()
    {
        const auto file = writeExport(R"(
            CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcTime TEXT, localTime TEXT);
            INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES ('', '');
            CREATE TABLE META_DATA_CAPTURE (name TEXT);
            INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_1:ENVIRONMENT_VARIABLE');
        )" + twoGoodKernelsTable());
        const auto trace = load(file, true);
        QVERIFY(trace->errors.empty());
        const auto &report = trace->reports[0];
        QCOMPARE(report.timeBase, TimeBase::Unknown);
        QCOMPARE(report.warnings,
            (std::vector<std::string> {
                "table TARGET_INFO_SESSION_START_TIME has no column utcEpochNs: times are relative to the "
                "session start and will not align with other reports",
                "table META_DATA_CAPTURE has no column value: its rows were not read" }));
        QCOMPARE(kernelStarts(*trace), (std::vector<TimeNs> { 100, 1000 }));
        QCOMPARE(trace->ranks.size(), std::size_t(1));
        QCOMPARE(trace->ranks[0].source, RankSource::FileOrder);
    }

    void captureMetadataWithoutNameIsNoted()
    {
        const auto file = writeExport(sessionStartTable(std::to_string(kSessionStart)) + R"(
            CREATE TABLE META_DATA_CAPTURE (value TEXT);
            INSERT INTO META_DATA_CAPTURE VALUES ('RANK="3"');
        )" + twoGoodKernelsTable());
        const auto trace = load(file, true);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->reports[0].warnings,
            std::vector<std::string> { "table META_DATA_CAPTURE has no column name: its rows were not read" });
        QCOMPARE(trace->gpus[0].kernelCount(), std::size_t(2));
        QCOMPARE(trace->ranks[0].source, RankSource::FileOrder);
    }

    // Issue 16 item 8: a missing kernel table is said; an empty one is not a problem.
    void missingKernelTableIsSaid()
    {
        const auto file = writeExport(sessionStartTable(std::to_string(kSessionStart)) + kNvtxTable
            + nvtxRow("40", "300", "59", "'step'", "NULL"));
        for (const unsigned threads : { 1u, 2u }) {
            const auto trace = load(file, true, threads);
            QVERIFY(trace->errors.empty());
            QVERIFY(trace->gpus.empty());
            QCOMPARE(trace->reports[0].warnings,
                std::vector<std::string> { "no CUPTI_ACTIVITY_KIND_KERNEL table: the report recorded no kernels" });
            QCOMPARE(trace->threads[0].nvtx.size(), std::size_t(1));
        }
        const auto empty = writeExport(sessionStartTable(std::to_string(kSessionStart)) + kernelTable());
        const auto trace = load(empty, true);
        QVERIFY(trace->errors.empty());
        QVERIFY(trace->gpus.empty());
        QVERIFY(trace->reports[0].warnings.empty());
    }

    // Issue 16 item 8: Gpu::deviceId is 32 bits; a deviceId beyond them is a counted problem, not GPU 0.
    void deviceIdBeyond32BitsIsCounted_data() { directAndSqliteRows(); }

    void deviceIdBeyond32BitsIsCounted()
    {
        QFETCH(bool, direct);
        const auto file = writeExport(sessionStartTable(std::to_string(kSessionStart)) + kernelTable()
            + kernelRow("100", "200") + kernelRow("300", "400", "4294967296") + kernelRow("500", "600", "2147483647")
            + kernelRow("700", "800", "-2147483649") +
            R"(
            CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, "end" INTEGER, deviceId INTEGER, streamId INTEGER,
                correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER,
                dstKind INTEGER);
            INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (210, 220, 0, 7, 3, )"
            + std::to_string(kPid << 24) + R"(, 64, 1, 0, 2);
            INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (230, 240, 4294967296, 7, 4, )"
            + std::to_string(kPid << 24) + R"(, 64, 1, 0, 2);
        )");
        const auto trace = load(file, direct);
        QVERIFY(trace->errors.empty());
        const auto &problems = trace->reports[0].problems;
        QCOMPARE(problems.deviceIdOutOfRange, std::uint64_t(3));
        QCOMPARE(problems.total(), std::uint64_t(3));
        std::vector<std::pair<std::int32_t, std::size_t>> gpus; // (deviceId, kernels + copies)
        for (const auto &gpu : trace->gpus)
            gpus.emplace_back(gpu.deviceId, gpu.kernelCount() + gpu.copies.size());
        std::sort(gpus.begin(), gpus.end());
        QCOMPARE(gpus, (std::vector<std::pair<std::int32_t, std::size_t>> { { 0, 2 }, { 2147483647, 1 } }));
    }
};

QTEST_APPLESS_MAIN(TestReaderBadInputValues)
#include "tst_reader_bad_input_values.moc"
