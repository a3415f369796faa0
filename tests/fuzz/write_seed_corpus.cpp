// SPDX-License-Identifier: MIT
// Writes the fuzz targets' seed corpus into a folder: small exports built in code, in the
// shapes real files have (tables and columns as in nsys-sqlite-schema.md, schema variants
// from 2.9.1 to 3.25, and the file-format features the direct scan must hand over or
// check), plus two ranks of the synthetic generator's capture. With --real DIR, also a cut
// of every export under DIR: its tables' DDL and first rows, so real schemas' quirks are
// mutated too. Real-derived seeds stay in the output folder (a build folder): never commit
// them. Small pages (512 and 1024 bytes) make even a few rows span a b-tree of several
// pages, so byte mutations reach interior pages, overflow chains and cell pointers.
//
// usage: gaplens-fuzz-seeds OUTPUT_DIR [--real DIR]
#include "gaplens/core/write/synth.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// libFuzzer mutates inputs up to run-fuzzers.sh's -max_len; a larger seed would be cut.
constexpr std::uintmax_t kMaxSeedBytes = 64 * 1024;

class SeedDb
{
public:
    // Creates (replacing) the file; URI names are allowed so ATTACH can open files immutable.
    explicit SeedDb(const fs::path &path)
        : m_path(path.string())
    {
        fs::remove(path);
        constexpr int kFlags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI;
        if (sqlite3_open_v2(m_path.c_str(), &m_db, kFlags, nullptr) != SQLITE_OK)
            fail("cannot create it");
    }
    ~SeedDb() { sqlite3_close(m_db); }
    SeedDb(const SeedDb &) = delete;
    SeedDb &operator=(const SeedDb &) = delete;

    sqlite3 *handle() const { return m_db; }

    void exec(const std::string &sql) const
    {
        char *error = nullptr;
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
            const std::string message = error ? error : sqlite3_errmsg(m_db);
            sqlite3_free(error);
            throw std::runtime_error(fmt::format("{}: {}\n  in: {}", m_path, message, sql.substr(0, 400)));
        }
    }

    std::vector<std::string> texts(const std::string &sql) const
    {
        sqlite3_stmt *stmt = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
            fail(sql);
        std::vector<std::string> out;
        while (sqlite3_step(stmt) == SQLITE_ROW) {
            const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
            out.emplace_back(text ? text : "");
        }
        sqlite3_finalize(stmt);
        return out;
    }

private:
    [[noreturn]] void fail(const std::string &what) const
    {
        throw std::runtime_error(fmt::format("{}: {}: {}", m_path, what, m_db ? sqlite3_errmsg(m_db) : "no memory"));
    }
    std::string m_path;
    sqlite3 *m_db = nullptr;
};

std::string quoted(const std::string &name)
{
    return "\"" + name + "\"";
}

// ---- Building blocks of an export, as SQL. Times are ns from the session start. ----

constexpr std::int64_t kSessionStartNs = 1'700'000'000'000'000'000;

std::string metaExport(const char *table, const char *schemaVersion, const std::string &extraRows = {})
{
    return fmt::format("CREATE TABLE {0} (name TEXT NOT NULL, value TEXT);"
                       "INSERT INTO {0} VALUES ('EXPORT_SCHEMA_VERSION', '{1}'), "
                       "('EXPORT_PRODUCT_VERSION', '2026.2.1.210-32'), ('EXPORT_CONFIG_LAZY', 'true'){2};",
        table, schemaVersion, extraRows);
}

std::string sessionStart()
{
    return fmt::format("CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime "
                       "TEXT, systemClockNs INTEGER);"
                       "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES ({}, '2023-11-14T22:13:20.000Z', "
                       "'2023-11-14T23:13:20.000+01:00', 98765432100);",
        kSessionStartNs);
}

// The launched process's environment, with the rank variables in their order of trust.
std::string capture(int rank, const char *host)
{
    return fmt::format(R"(CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT);
        INSERT INTO META_DATA_CAPTURE VALUES ('DEVICE_DISPLAY_NAME', '{1}'),
            ('PROCESS_0:ENVIRONMENT_VARIABLE', 'PATH="/usr/local/bin:/usr/bin"'),
            ('PROCESS_0:ENVIRONMENT_VARIABLE', 'RANK="{0}"'),
            ('PROCESS_0:ENVIRONMENT_VARIABLE', 'SLURM_PROCID={0}'),
            ('PROCESS_0:ENVIRONMENT_VARIABLE', 'PMI_RANK="{0}"'),
            ('PROCESS_0:ENVIRONMENT_VARIABLE', 'OMPI_COMM_WORLD_RANK="{0}"'),
            ('PROCESS_1:ENVIRONMENT_VARIABLE', 'PMI_RANK="99"'),
            ('CUDA_TRACE', 'true');)",
        rank, host);
}

std::string systemEnv(const char *host)
{
    return fmt::format("CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL, name "
                       "TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);"
                       "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (281474976710656, 'Init', 'Hostname', 1, '{}'), "
                       "(281474976710656, 'Init', 'OS', 2, 'Linux');",
        host);
}

// Ids 1..13; the kernel, API and NVTX rows below name them.
constexpr const char *kStringIds = R"(CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'gemm_kernel'), (2, 'void gemm_kernel<float, 128>(float const*, float*, int)'),
        (3, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)'),
        (4, 'cudaLaunchKernel_v7000'), (5, 'cudaMemcpyAsync_v3020'), (6, 'cudaStreamSynchronize_v3020'),
        (7, 'cuLaunchKernel'), (8, 'train_step'), (9, 'forward'), (10, 'python3'), (11, 'NCCL'),
        (12, 'cudaMemsetAsync_v3020'), (13, 'aten::linear, op_id = 7');)";

std::string pidOf(int pid)
{
    return fmt::format("({} * 16777216)", pid);
}
std::string mainTidOf(int pid)
{
    return fmt::format("({} * 16777216 + {})", pid, pid);
}

// Rows i = 0..count-1 of a recursive CTE, for INSERT ... SELECT.
std::string rowsOf(int count)
{
    return fmt::format("WITH RECURSIVE q(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM q WHERE i < {}) ", count - 1);
}

// The 3.25 kernel table's leading columns (the reader selects by name; later columns elided).
constexpr const char *kKernelTable = R"(CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL,
    end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
    streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
    shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
    registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
    blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
    dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
    gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, graphId INTEGER,
    tensorSizeMinusOneElements TEXT NOT NULL);)";

// Inserts kernel rows with values for every NOT NULL column of kKernelTable; VALUES follow.
constexpr const char *kKernelRowsInsert = R"(
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid,
    demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory,
    dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId, tensorSizeMinusOneElements) VALUES)";

// Every 5th kernel is an NCCL one; kernels alternate over `streams` streams from 7 on.
std::string kernels(int count, int pid, int device, int streams, std::int64_t t0)
{
    return fmt::format(
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL {0} SELECT {1} + i * 10000, {1} + i * 10000 + 6000 + "
        "(i % 3) * 1000, {2}, 1, NULL, 7 + i % {3}, 100 + i, {4}, CASE WHEN i % 5 = 4 THEN 3 ELSE 2 END, "
        "CASE WHEN i % 5 = 4 THEN 3 ELSE 1 END, NULL, 0, 0, 32 + i % 200, 1 + i * 37, 1 + i % 3, 1, "
        "128 * (1 + i % 8), 1, 1, 0, i * 16, 0, 0, 500 + i, NULL, NULL, NULL, '' FROM q;",
        rowsOf(count), t0, device, streams, pidOf(pid));
}

constexpr const char *kRuntimeTable = R"(CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL,
    end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
    nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);)";

// A launch before each kernel; every 3rd with a nested driver call, every 4th with an
// eventClass 67 backtrace duplicate, and a synchronize at the end.
std::string launches(int count, int pid, std::int64_t t0)
{
    return fmt::format(
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME {0} SELECT {1} + i * 10000 - 4000, {1} + i * 10000 - 1000, 0, {2}, "
        "100 + i, 4, 0, NULL FROM q;"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME {0} SELECT {1} + i * 10000 - 3500, {1} + i * 10000 - 1500, 1, {2}, "
        "100 + i, 7, 0, NULL FROM q WHERE i % 3 = 0;"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME {0} SELECT {1} + i * 10000 - 4000, {1} + i * 10000 - 1000, 67, {2}, "
        "100 + i, 4, 0, i FROM q WHERE i % 4 = 1;"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ({1} + {3} * 10000, {1} + {3} * 10000 + 9000, 0, {2}, 100 + "
        "{3}, 6, 0, NULL);",
        rowsOf(count), t0, mainTidOf(pid), count);
}

constexpr const char *kCopyTables = R"(CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL,
    end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
    streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
    copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER,
    srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER,
    virtualAddress INTEGER, copyCount INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
    deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
    correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER,
    memKind INTEGER);)";

// Copies of every kind (pageable, pinned, device, unknown kinds), overlapping on two streams.
std::string copies(int count, int pid, int device, std::int64_t t0)
{
    return fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY {0} SELECT {1} + i * 7000, {1} + i * 7000 + 9000, {2}, "
                       "1, NULL, 20 + i % 2, 900 + i, {3}, 1048576 * (i + 1), CASE i % 6 WHEN 0 THEN 1 WHEN 1 THEN 2 "
                       "WHEN 2 THEN 8 WHEN 3 THEN 10 WHEN 4 THEN 11 ELSE 3 END, NULL, i % 6, (i + 2) % 6, {2}, 1, {2}, "
                       "1, NULL, NULL, NULL, 1 FROM q;"
                       "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET {0} SELECT {1} + i * 13000 + 500, {1} + i * 13000 + "
                       "2500, {2}, 1, NULL, 7, 950 + i, {3}, 0, 4096 * (i + 1), NULL, 2 FROM q WHERE i < 3;",
        rowsOf(count), t0, device, pidOf(pid));
}

constexpr const char *kNvtxTable = R"(CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER,
    eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
    endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER,
    doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT,
    binaryData TEXT);)";

// A domain created before the session (negative start), a thread name, `steps` registered
// train_step ranges each holding text-named forward and op ranges, a start/end range that
// ends on another thread, marks, and a range in the NCCL domain.
std::string nvtxRows(int steps, int pid, std::int64_t t0)
{
    const auto tid = mainTidOf(pid);
    return fmt::format(
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES (-5000, NULL, 75, 'NCCL', "
        "{1}, 1), (-4000, NULL, 39, 'main', {1}, 0);"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, domainId, color) {0} SELECT {2} + i * "
        "100000 - 8000, {2} + i * 100000 + 90000, 59, {1}, 8, 0, 4278190335 FROM q;"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) {0} SELECT {2} + i * 100000 - "
        "6000, {2} + i * 100000 + 50000, 59, 'forward', {1}, NULL FROM q;"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, domainId) {0} SELECT {2} + i * 100000 - "
        "5000, {2} + i * 100000 + 20000, 59, {1}, 13, 0 FROM q;"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, text, globalTid, endGlobalTid) VALUES ({2}, {2} + "
        "{3} * 100000, 60, 1, 'epoch', {1}, {1} + 1);"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, int64Value) {0} SELECT {2} + i * 100000 + "
        "70000, NULL, 34, 'checkpoint', {1}, i FROM q;"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, domainId) VALUES ({2} + 60000, {2} + "
        "80000, "
        "59, {1}, 11, 1), ({2} + 61000, {2} + 79000, 59, {1}, 11, 7);",
        rowsOf(steps), tid, t0, steps);
}

std::string threadsAndProcesses(int pid)
{
    return fmt::format("CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
                       "INSERT INTO ThreadNames VALUES (10, 0, {1}), (9, 0, {1} + 1), (99, 0, {1} + 2);"
                       "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
                       "INSERT INTO PROCESSES VALUES ({0}, {2}, 'python3'), (1 * 16777216, 1, 'systemd');",
        pidOf(pid), mainTidOf(pid), pid);
}

std::string targetInfoGpu(std::initializer_list<int> devices)
{
    std::string sql
        = "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation "
          "TEXT, totalMemory INTEGER, smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER);";
    for (int d : devices)
        sql += fmt::format("INSERT INTO TARGET_INFO_GPU VALUES (281474976710656, {0}, 'NVIDIA H100 80GB HBM3', "
                           "'0000:{0:02x}:00.0', 85045706752, 132, 9, 0);",
            d);
    return sql;
}

constexpr const char *kEnumTables = R"(CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY,
    name TEXT, label TEXT);
    INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device'),
        (2, 'CUDA_MEMCPY_KIND_DTOH', 'Device-to-Host'), (8, 'CUDA_MEMCPY_KIND_DTOD', 'Device-to-Device');
    CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
    INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'),
        (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'), (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device');)";

constexpr std::int64_t kT0 = 1'000'000;

// A complete small 3.25 export of one process on one GPU.
std::string fullExport(int kernelCount = 24, int steps = 3)
{
    return metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + capture(3, "node03") + kStringIds + kEnumTables
        + kKernelTable + kernels(kernelCount, 4242, 0, 2, kT0) + kRuntimeTable + launches(kernelCount, 4242, kT0)
        + kCopyTables + copies(6, 4242, 0, kT0) + kNvtxTable + nvtxRows(steps, 4242, kT0) + threadsAndProcesses(4242)
        + targetInfoGpu({ 0 });
}

struct SqlSeed
{
    const char *name;
    std::string sql; // run after the page size is set
};

std::vector<SqlSeed> sqlSeeds()
{
    const auto absolute = kSessionStartNs + kT0;
    const auto gpuTables = kKernelTable + kernels(12, 4242, 0, 2, kT0) + kRuntimeTable + launches(12, 4242, kT0);
    std::vector<SqlSeed> seeds = {
        { "full_3_25", fullExport() },
        { "no_nvtx",
            metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + gpuTables + kCopyTables
                + copies(4, 4242, 0, kT0) + threadsAndProcesses(4242) + targetInfoGpu({ 0 }) },
        { "nvtx_only",
            metaExport("META_DATA_EXPORT", "3.0.0") + sessionStart() + kStringIds + kNvtxTable + nvtxRows(6, 4242, kT0)
                + threadsAndProcesses(4242) },
        // Names only inline (NVTX text); kernel and API name ids then name no string.
        { "no_string_ids",
            metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + gpuTables + kNvtxTable
                + "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (900000, "
                  "1200000, 59, 'step', 4242 * 16777216 + 4242);" },
        // StringIds alone makes a file an export.
        { "string_ids_only", std::string(kStringIds) + gpuTables },
        { "capture_ranks",
            metaExport("META_DATA_EXPORT", "3.13.2") + sessionStart() + capture(5, "ault44") + kStringIds + gpuTables
                + systemEnv("ault44") },
        { "host_from_system_env",
            metaExport("META_DATA_EXPORT", "3.13.2") + sessionStart() + kStringIds + gpuTables
                + systemEnv("gpu-node-17") },
        // Time-normalised exports: timestamps already absolute.
        { "time_shift",
            metaExport(
                "META_DATA_EXPORT", "3.13.2", fmt::format(", ('EXPORT_CONFIG_TIME_SHIFT', '{}')", kSessionStartNs))
                + sessionStart() + kStringIds + kKernelTable + kernels(12, 4242, 0, 1, absolute) + kRuntimeTable
                + launches(12, 4242, absolute) + kNvtxTable + nvtxRows(2, 4242, absolute) },
        { "time_normalize",
            metaExport("META_DATA_EXPORT", "3.13.2", ", ('EXPORT_PARAM_TIME_NORMALIZE', 'true')") + kStringIds
                + kKernelTable + kernels(12, 4242, 0, 1, absolute) + kNvtxTable + nvtxRows(2, 4242, absolute) },
        { "no_session_start", metaExport("META_DATA_EXPORT", "3.25.0") + kStringIds + gpuTables },
        // 2.9.1: EXPORT_META_DATA, older kernel columns, a tool's trailing name column.
        { "schema_2_9_1",
            metaExport("EXPORT_META_DATA", "2.9.1") + sessionStart() + kStringIds +
                R"(CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
                deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
                globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
                launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
                gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
                blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
                localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
                sharedMemoryExecuted INTEGER, name TEXT);
             INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL WITH RECURSIVE q(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM q
                WHERE i < 9) SELECT 1000000 + i * 10000, 1006000 + i * 10000, 0, 1, 7, 100 + i, 7 * 16777216, 2, 1,
                NULL, 0, 0, 32, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, i, NULL, 'saxpy' FROM q;
             CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
                eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
                returnValue INTEGER NOT NULL, callchainId INTEGER, name TEXT);
             INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME WITH RECURSIVE q(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM q
                WHERE i < 9) SELECT 996000 + i * 10000, 999000 + i * 10000, CASE WHEN i % 2 THEN 67 ELSE 0 END,
                7 * 16777216 + 7, 100 + i / 2 * 2, 4, 0, NULL, NULL FROM q;
             CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
                rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,
                textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL,
                uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
             INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid) VALUES
                (990000, 1100000, 59, NULL, 8, 7 * 16777216 + 7), (995000, 1050000, 59, 'saxpy', NULL, 7 * 16777216 + 7),
                (1200000, 1300000, 35, 'old ended mark', NULL, 7 * 16777216 + 7);)" },
        // Two processes of one report, each on its own GPU: one rank each.
        { "two_processes",
            metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + kKernelTable
                + kernels(10, 4242, 0, 1, kT0) + kernels(10, 4343, 1, 2, kT0 + 3000) + kRuntimeTable
                + launches(10, 4242, kT0) + launches(10, 4343, kT0 + 3000) + kCopyTables + copies(3, 4343, 1, kT0)
                + kNvtxTable + nvtxRows(2, 4242, kT0) + nvtxRows(2, 4343, kT0) + threadsAndProcesses(4242)
                + targetInfoGpu({ 0, 1 }) },
        // Open ranges, ends before starts, NULL starts, names of missing string ids.
        { "data_problems", fullExport(8, 2) + kKernelRowsInsert + R"(
                (5000000, 4000000, 0, 1, 7, 1, 4242 * 16777216, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, ''),
                (6000000, 6100000, 0, 1, 7, 2, 4242 * 16777216, 77, 78, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, '');
             INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (7000000, 6999999, 0, 4242 * 16777216 + 4242, 3, 4, 0, NULL),
                (7100000, 7200000, 0, 4242 * 16777216 + 4242, 0, 79, 0, NULL);
             INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid) VALUES
                (8000000, NULL, 59, 'open range', NULL, 4242 * 16777216 + 4242),
                (8100000, 8000000, 60, 'backwards', NULL, 4242 * 16777216 + 4242),
                (8200000, 8300000, 59, NULL, 80, 4242 * 16777216 + 4242),
                (8300000, 8400000, 59, NULL, NULL, 4242 * 16777216 + 4242);)" },
        // Names longer than a page: overflow chains in StringIds, kernel and NVTX rows.
        { "long_names", fullExport(6, 2) + R"(
             INSERT INTO StringIds VALUES (40, printf('%.*c', 3000, 'k')), (41, printf('%.*c', 10000, 'n'));
             UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 40 WHERE correlationId % 2 = 0;
             UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET tensorSizeMinusOneElements = printf('%.*c', 700, '7')
                WHERE correlationId = 101;
             INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES
                (1300000, 1400000, 59, printf('%.*c', 10000, 'x'), 4242 * 16777216 + 4242);
             UPDATE ThreadNames SET nameId = 41 WHERE nameId = 10;)" },
        // Enough rows for interior pages (two levels at 512-byte pages).
        { "deep_btree",
            metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + kKernelTable
                + kernels(300, 4242, 0, 4, kT0) + kRuntimeTable + launches(300, 4242, kT0) },
        // Enough kernel leaves (64 at 512-byte pages) for the page-range split of a 2- or
        // 3-thread load, so that mutations reach the threads' ranges.
        { "split_btree",
            metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + kKernelTable
                + kernels(600, 4242, 0, 4, kT0) },
        // Rows out of start order, descending correlation ids, ranges nested deeper than 255.
        { "unordered_and_deep",
            metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + kKernelTable
                + kernels(12, 4242, 0, 1, kT0) + R"(
             UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 3000000 - start, end = 3006000 - start;
             CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
                eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
                returnValue INTEGER NOT NULL, callchainId INTEGER);
             INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME WITH RECURSIVE q(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM q
                WHERE i < 11) SELECT 900000 + i * 1000, 900500 + i * 1000, 0, 4242 * 16777216 + 4242, 111 - i, 4, 0,
                NULL FROM q;)"
                + kNvtxTable +
                R"(INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid)
                WITH RECURSIVE q(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM q WHERE i < 299)
                SELECT 1000000 + i, 2000000 - i, 59, 'level', 4242 * 16777216 + 4242 FROM q;)" },
        // The big tables with an INTEGER PRIMARY KEY (the rowid) and a WITHOUT ROWID table.
        { "rowid_alias_and_without_rowid", metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + R"(
             CREATE TABLE NVTX_EVENTS (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER,
                eventType INTEGER NOT NULL, text TEXT, globalTid INTEGER, textId INTEGER, domainId INTEGER);
             INSERT INTO NVTX_EVENTS VALUES (5, 100, 900, 59, 'a', 4242 * 16777216 + 4242, NULL, 0),
                (9, 200, 300, 59, NULL, 4242 * 16777216 + 4242, 9, 0), (1000, 400, NULL, 34, 'm', 4242 * 16777216 + 4242, NULL, 0);
             CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
                deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER NOT NULL, globalPid INTEGER,
                shortName INTEGER NOT NULL, PRIMARY KEY (correlationId, start)) WITHOUT ROWID;
             INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL WITH RECURSIVE q(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM q
                WHERE i < 29) SELECT 1000 * i, 1000 * i + 500, 0, 7, 30 - i, 4242 * 16777216, 1 FROM q;)" },
        // Generated columns: a VIRTUAL one is not in the record, a STORED one is.
        { "generated_columns", metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + R"(
             CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
                durationNs INTEGER GENERATED ALWAYS AS (end - start) VIRTUAL, deviceId INTEGER NOT NULL,
                streamId INTEGER NOT NULL, label TEXT GENERATED ALWAYS AS ('k' || correlationId) STORED,
                correlationId INTEGER, globalPid INTEGER, shortName INTEGER NOT NULL, demangledName INTEGER NOT NULL);
             INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, globalPid,
                shortName, demangledName) WITH RECURSIVE q(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM q WHERE i < 19)
                SELECT 1000 * i, 1000 * i + 700, 0, 7, i, 4242 * 16777216, 1, 2 FROM q;)" },
        // Values of other types than the column's: REAL, TEXT and BLOB times, text ids.
        { "mixed_types", fullExport(8, 1) + kKernelRowsInsert + R"(
                (2000000.5, 2100000, 0, 1, 7, 1, 4242 * 16777216, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, ''),
                ('2200000', '2300000x', '0', 1, 7, 2, 4242 * 16777216, '1', 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, ''),
                (x'0102', 2400000, 0, 1, 7.0, 3, 4242 * 16777216, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, ''),
                (9.9e18, 9.9e18, 0, 1, 7, 4, 4242 * 16777216, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, '');
             INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid) VALUES
                (2500000, 2600000.25, 59, x'41424300', NULL, 4242 * 16777216 + 4242),
                (2700000, 2800000, '59', 12345, NULL, 4242 * 16777216 + 4242);)" },
        // Times near the int64 limits: adding the session start overflows.
        { "time_extremes", fullExport(4, 1) + kKernelRowsInsert + R"(
                (9223372036854775000, 9223372036854775807, 4294967296, 1, 7, 1, 4242 * 16777216, 1, 1, 0, 1, 1, 1,
                 1, 1, 1, 0, 0, 0, 0, 1, ''),
                (-9223372036854775808, -9223372036854775000, -1, 1, 7, 2, -1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0,
                 2, '');)" },
        // Free pages left by dropped and deleted rows, no VACUUM.
        { "freelist", fullExport(40, 3) + R"(
             CREATE TABLE padding (x BLOB); INSERT INTO padding VALUES (zeroblob(6000)), (zeroblob(3000));
             DROP TABLE padding; DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId % 3 = 0;)" },
        { "empty_tables",
            metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + kKernelTable + kRuntimeTable
                + kCopyTables + kNvtxTable
                + "CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);" },
        // Required columns missing (tables skipped with a warning), optional ones missing (NULL).
        { "missing_columns", metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + R"(
             CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, deviceId INTEGER, streamId INTEGER, shortName INTEGER);
             INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 7, 1);
             CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER);
             INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (10, 20, 0), (15, 25, 0);
             CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, nameId INTEGER);
             INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (5, 8, 4);
             CREATE TABLE NVTX_EVENTS (start INTEGER, eventType INTEGER);
             INSERT INTO NVTX_EVENTS VALUES (3, 34), (4, 59);
             CREATE TABLE ThreadNames (globalTid INTEGER);
             CREATE TABLE PROCESSES (pid INTEGER);
             CREATE TABLE TARGET_INFO_GPU (id INTEGER);
             CREATE TABLE TARGET_INFO_SESSION_START_TIME_X (utcEpochNs INTEGER);)" },
        // A view and an index where tables are expected.
        { "views_and_indexes",
            metaExport("META_DATA_EXPORT", "3.25.0") + sessionStart() + kStringIds + kKernelTable
                + kernels(20, 4242, 0, 2, kT0) + R"(
             CREATE INDEX kernel_start ON CUPTI_ACTIVITY_KIND_KERNEL (start);
             CREATE VIEW NVTX_EVENTS AS SELECT start, end, 59 AS eventType, 'view' AS text,
                4242 * 16777216 + 4242 AS globalTid FROM CUPTI_ACTIVITY_KIND_KERNEL;)" },
    };
    return seeds;
}

// ---- File-format variants: the same export with a feature of the file format. ----

struct FormatVariant
{
    const char *name;
    std::string pragmasBefore; // before any table exists (page size, encoding, auto_vacuum)
    int reservedBytes = 0; // bytes at each page's end (checksum or encryption extensions)
    std::string sqlAfter; // after the export is written
};

std::vector<FormatVariant> formatVariants()
{
    return {
        { "utf16le", "PRAGMA encoding = 'UTF-16le';" },
        { "utf16be", "PRAGMA encoding = 'UTF-16be';" },
        { "auto_vacuum_full", "PRAGMA auto_vacuum = FULL;", 0,
            "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId % 2 = 0;" },
        { "auto_vacuum_incremental", "PRAGMA auto_vacuum = INCREMENTAL;", 0,
            "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId % 2 = 1; PRAGMA incremental_vacuum(3);" },
        { "reserved_bytes", "", 32 },
        // The header then says WAL (bytes 18 and 19 are 2) though no -wal file is beside it.
        { "wal_header", "", 0, "PRAGMA journal_mode = WAL;" },
    };
}

void writeSqlSeed(const fs::path &path, int pageSize, const FormatVariant &format, const std::string &sql)
{
    SeedDb db(path);
    db.exec(fmt::format("PRAGMA page_size = {}; {}", pageSize, format.pragmasBefore));
    if (format.reservedBytes > 0) {
        int reserve = format.reservedBytes;
        if (sqlite3_file_control(db.handle(), "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve) != SQLITE_OK)
            throw std::runtime_error(path.string() + ": cannot reserve bytes per page");
    }
    db.exec("BEGIN;" + sql + "COMMIT;");
    if (!format.sqlAfter.empty())
        db.exec(format.sqlAfter);
}

// A copy of `source` with another page size (VACUUM rewrites every page).
void repageCopy(const fs::path &source, const fs::path &target, int pageSize)
{
    fs::copy_file(source, target, fs::copy_options::overwrite_existing);
    sqlite3 *db = nullptr;
    const int opened = sqlite3_open_v2(target.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
    const auto sql = fmt::format("PRAGMA journal_mode = DELETE; PRAGMA page_size = {}; VACUUM;", pageSize);
    const int rc = opened == SQLITE_OK ? sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) : opened;
    const std::string message = db ? sqlite3_errmsg(db) : "no memory";
    sqlite3_close(db);
    if (rc != SQLITE_OK)
        throw std::runtime_error(target.string() + ": " + message);
}

class CorpusWriter
{
public:
    explicit CorpusWriter(fs::path dir)
        : m_dir(std::move(dir))
    {
        fs::create_directories(m_dir);
    }

    void writeAll(const std::optional<fs::path> &realDir)
    {
        const FormatVariant plain { "", "" };
        for (const auto &seed : sqlSeeds())
            for (int pageSize : { 512, 1024 })
                write(fmt::format("{}_p{}.sqlite", seed.name, pageSize),
                    [&](const fs::path &p) { writeSqlSeed(p, pageSize, plain, seed.sql); });
        write("full_3_25_p4096.sqlite", [&](const fs::path &p) { writeSqlSeed(p, 4096, plain, fullExport()); });
        for (const auto &format : formatVariants())
            write(fmt::format("full_3_25_{}_p1024.sqlite", format.name),
                [&](const fs::path &p) { writeSqlSeed(p, 1024, format, fullExport()); });
        writeSynthetic();
        if (realDir)
            writeRealCuts(*realDir);
        std::printf("%zu seeds in %s (largest %ju bytes)\n", m_count, m_dir.c_str(), m_largest);
    }

private:
    template <typename WriteFn> void write(const std::string &name, WriteFn writeFn)
    {
        const auto path = m_dir / name;
        writeFn(path);
        for (const char *suffix : { "-journal", "-wal", "-shm" })
            if (fs::exists(path.string() + suffix))
                throw std::runtime_error(path.string() + ": SQLite left a " + suffix + " file");
        const auto size = fs::file_size(path);
        if (size > kMaxSeedBytes)
            throw std::runtime_error(
                fmt::format("{}: {} bytes, more than the fuzzers' -max_len {}", path.string(), size, kMaxSeedBytes));
        m_largest = std::max(m_largest, size);
        ++m_count;
    }

    // Two ranks of the generator's smallest capture (3.25 DDL verbatim, full metadata).
    void writeSynthetic()
    {
        const auto work = m_dir / ".synth";
        gaplens::core::SynthOptions options;
        options.ranks = 2;
        options.steps = 1;
        options.layers = 1;
        options.stragglerRank = -1;
        const auto result = gaplens::core::writeSyntheticCapture(work.string(), options);
        for (std::size_t r = 0; r < result.files.size(); ++r)
            for (int pageSize : { 512, 1024 })
                write(fmt::format("synth_rank{}_p{}.sqlite", r, pageSize),
                    [&](const fs::path &p) { repageCopy(result.files[r], p, pageSize); });
        fs::remove_all(work);
    }

    // Every export under `realDir`: the reader's tables with their own DDL and first rows,
    // the strings those rows name, and the metadata that decides rank and time base.
    void writeRealCuts(const fs::path &realDir)
    {
        std::vector<fs::path> exports;
        for (const auto &entry : fs::recursive_directory_iterator(realDir))
            if (entry.is_regular_file() && entry.path().extension() == ".sqlite")
                exports.push_back(entry.path());
        std::sort(exports.begin(), exports.end());
        for (const auto &source : exports) {
            auto stem = fs::relative(source, realDir).replace_extension().string();
            std::replace(stem.begin(), stem.end(), '/', '_');
            write("real_" + stem + "_p1024.sqlite", [&](const fs::path &p) { cutRealExport(source, p); });
        }
    }

    static void cutRealExport(const fs::path &source, const fs::path &target)
    {
        constexpr int kRows = 16;
        SeedDb db(target);
        db.exec("PRAGMA page_size = 1024;");
        // immutable: the real files are read-only and nothing may be written beside them.
        db.exec(fmt::format("ATTACH 'file:{}?mode=ro&immutable=1' AS real;", source.string()));
        const std::set<std::string> allRows
            = { "META_DATA_EXPORT", "EXPORT_META_DATA", "TARGET_INFO_SESSION_START_TIME", "TARGET_INFO_GPU" };
        const std::set<std::string> firstRows = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
            "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "PROCESSES" };
        const std::set<std::string> special
            = { "StringIds", "ThreadNames", "META_DATA_CAPTURE", "TARGET_INFO_SYSTEM_ENV" };
        db.exec("BEGIN;");
        std::set<std::string> present;
        for (const auto &name : db.texts("SELECT name FROM real.sqlite_master WHERE type = 'table'")) {
            if (!allRows.count(name) && !firstRows.count(name) && !special.count(name))
                continue;
            const auto ddl = db.texts(fmt::format("SELECT sql FROM real.sqlite_master WHERE name = '{}'", name));
            db.exec(ddl.at(0) + ";");
            present.insert(name);
            if (allRows.count(name))
                db.exec(fmt::format("INSERT INTO main.{0} SELECT * FROM real.{0};", quoted(name)));
            if (firstRows.count(name))
                db.exec(fmt::format("INSERT INTO main.{0} SELECT * FROM real.{0} LIMIT {1};", quoted(name), kRows));
        }
        auto hasColumn = [&](const std::string &table, const std::string &column) {
            return present.count(table)
                && !db.texts(fmt::format("SELECT name FROM pragma_table_info('{}') WHERE name = '{}'", table, column))
                        .empty();
        };
        if (present.count("META_DATA_CAPTURE"))
            db.exec("INSERT INTO main.META_DATA_CAPTURE SELECT * FROM real.META_DATA_CAPTURE WHERE name NOT LIKE "
                    "'%ENVIRONMENT_VARIABLE' OR value LIKE '%RANK=%' OR value LIKE 'SLURM_PROCID=%' LIMIT 40;");
        if (hasColumn("TARGET_INFO_SYSTEM_ENV", "name"))
            db.exec("INSERT INTO main.TARGET_INFO_SYSTEM_ENV SELECT * FROM real.TARGET_INFO_SYSTEM_ENV WHERE name = "
                    "'Hostname';");
        // The threads the kept rows ran on, and every string id the kept rows name.
        std::vector<std::string> threadSources, stringSources;
        for (const char *table : { "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS" })
            if (hasColumn(table, "globalTid"))
                threadSources.push_back(fmt::format("SELECT globalTid FROM main.{}", table));
        if (hasColumn("ThreadNames", "globalTid") && !threadSources.empty()) {
            std::string threads;
            for (const auto &s : threadSources)
                threads += (threads.empty() ? "" : " UNION ") + s;
            db.exec(fmt::format(
                "INSERT INTO main.ThreadNames SELECT * FROM real.ThreadNames WHERE globalTid IN ({});", threads));
        }
        const std::pair<const char *, const char *> nameColumns[] = { { "CUPTI_ACTIVITY_KIND_KERNEL", "shortName" },
            { "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName" }, { "CUPTI_ACTIVITY_KIND_KERNEL", "mangledName" },
            { "CUPTI_ACTIVITY_KIND_RUNTIME", "nameId" }, { "NVTX_EVENTS", "textId" }, { "ThreadNames", "nameId" } };
        for (const auto &[table, column] : nameColumns)
            if (hasColumn(table, column))
                stringSources.push_back(fmt::format("SELECT {} FROM main.{}", column, table));
        if (present.count("StringIds") && !stringSources.empty()) {
            std::string ids;
            for (const auto &s : stringSources)
                ids += (ids.empty() ? "" : " UNION ") + s;
            db.exec(fmt::format("INSERT INTO main.StringIds SELECT * FROM real.StringIds WHERE id IN ({});", ids));
        }
        db.exec("COMMIT; DETACH real;");
    }

    fs::path m_dir;
    std::size_t m_count = 0;
    std::uintmax_t m_largest = 0;
};

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--real")) {
        std::fprintf(stderr, "usage: %s OUTPUT_DIR [--real DIR]\n", argv[0]);
        return 2;
    }
    try {
        std::optional<fs::path> realDir;
        if (argc == 4)
            realDir = argv[3];
        CorpusWriter(argv[1]).writeAll(realDir);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "gaplens-fuzz-seeds: %s\n", e.what());
        return 1;
    }
    return 0;
}
