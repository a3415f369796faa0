// SPDX-License-Identifier: MIT
#include "minimal_export.h"

#include "sqltestdb.h"
#include "test_files.h"

#include <QTest>

namespace gaplens::test {

std::string exportHeadSql(const std::string &schemaVersion, std::int64_t sessionStartNs)
{
    return R"(
    CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', ')"
        + schemaVersion + R"(');
    CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
    INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES ()"
        + std::to_string(sessionStartNs) + R"(, '', '');
)";
}

std::string minimalExportHeadSql()
{
    return exportHeadSql() + R"(
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000'), (3, 'step');
)";
}

std::string minimalLaunchAndRangeSql()
{
    return R"(
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, "end" INTEGER, eventClass INTEGER, globalTid INTEGER,
        correlationId INTEGER, nameId INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (50, 60, 0, 16777216 * 42 + 42, 5, 2);
    CREATE TABLE NVTX_EVENTS (start INTEGER, "end" INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER,
        textId INTEGER, domainId INTEGER);
    INSERT INTO NVTX_EVENTS VALUES (40, 300, 59, NULL, 16777216 * 42 + 42, 3, 0);
)";
}

std::string minimalExportSql()
{
    return minimalExportHeadSql() + R"(
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (shortName INTEGER, deviceId INTEGER, start INTEGER, "end" INTEGER,
        streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 100, 200, 7, 5, 16777216 * 42, 1);
)" + minimalLaunchAndRangeSql();
}

std::string memoryUsageTableSql()
{
    return R"(
    CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,
        deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER NOT NULL,
        bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, memoryOperationType INTEGER NOT NULL, name TEXT,
        correlationId INTEGER, localMemoryPoolAddress INTEGER, localMemoryPoolReleaseThreshold INTEGER,
        localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER, importedMemoryPoolAddress INTEGER,
        importedMemoryPoolProcessId INTEGER, streamId INTEGER);
)";
}

std::string writeExportIn(const QTemporaryDir &dir, const std::string &name, const std::string &sql)
{
    const auto path = pathIn(dir, name);
    execSql(path, sql);
    return path;
}

namespace {

// The message for a failure report, a path of thousands of characters shortened.
std::string shownMessage(std::string message, const std::string &path)
{
    constexpr std::size_t kLongPath = 200;
    if (path.size() <= kLongPath)
        return message;
    const auto shortened = "<the path of " + std::to_string(path.size()) + " characters>";
    for (auto at = message.find(path); at != std::string::npos; at = message.find(path, at + shortened.size()))
        message.replace(at, path.size(), shortened);
    return message.size() <= 2 * kLongPath ? message : message.substr(0, 2 * kLongPath) + "...";
}

} // namespace

void checkOneErrorBesideGood(
    const core::TraceSet &trace, const std::string &bad, const std::string &good, const char *expectedPhrase)
{
    QCOMPARE(trace.errors.size(), std::size_t(1));
    const auto &message = trace.errors[0].message;
    const auto shown = shownMessage(message, bad);
    QVERIFY2(message.find(bad) != std::string::npos, shown.c_str());
    QVERIFY2(message.find(expectedPhrase) != std::string::npos, shown.c_str());
    QCOMPARE(trace.errors[0].path, bad);
    QCOMPARE(trace.reports.empty() ? std::string() : trace.reports[0].path, good);
    QCOMPARE(trace.gpus.size(), std::size_t(1));
}

} // namespace gaplens::test
