// SPDX-License-Identifier: MIT
#pragma once
// Writes small or large Nsight Systems SQLite exports with the 3.25 schema (tables and
// columns as `nsys export -t sqlite` makes them, NOT NULL columns filled). Used by the
// synthetic-capture generator, the benchmarks and the tests' fixtures.
#include "gaplens/core/model/time.h"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace gaplens::core {

// Serialized nsys ids: pid in bits 24..47, tid in bits 0..23 (globalPid has tid 0).
inline std::int64_t makeGlobalTid(std::uint32_t pid, std::uint32_t tid)
{
    return (std::int64_t(pid & 0xFFFFFF) << 24) | std::int64_t(tid & 0xFFFFFF);
}
inline std::int64_t makeGlobalPid(std::uint32_t pid)
{
    return makeGlobalTid(pid, 0);
}

class ExportWriter
{
public:
    struct Options
    {
        TimeNs sessionStartUtcNs = 1'700'000'000'000'000'000; // TARGET_INFO_SESSION_START_TIME.utcEpochNs
        std::string hostName = "synth-host";
        // PROCESS_0 environment rows in META_DATA_CAPTURE, e.g. {"PMI_RANK", "3"}.
        std::vector<std::pair<std::string, std::string>> environment;
        bool writeTargetInfoGpu = true;
        // PROCESS_0's COMMAND (default: the first process added, else "python"), its
        // ARGUMENT_<i> rows and WORKING_DIR (written when not empty).
        std::optional<std::string> command;
        std::vector<std::string> arguments;
        std::string workingDir;
        // false: no META_DATA_CAPTURE table at all, as in exports before schema 3.4.
        bool writeCaptureMetadata = true;
    };

    // Creates (truncating) the file and the schema; throws std::runtime_error on failure.
    ExportWriter(const std::string &path, const Options &options);
    ~ExportWriter(); // commits
    ExportWriter(const ExportWriter &) = delete;
    ExportWriter &operator=(const ExportWriter &) = delete;

    // Returns the StringIds id of text, adding it once.
    std::int64_t stringId(const std::string &text);

    void addProcess(std::uint32_t pid, const std::string &name);
    void addThreadName(std::uint32_t pid, std::uint32_t tid, const std::string &name);
    // TARGET_INFO_GPU row; devices used by activity but never added get a default row at finish().
    void addGpu(std::int32_t deviceId, const std::string &name);

    struct Kernel
    {
        TimeNs start = 0, end = 0; // session-relative ns
        std::int32_t deviceId = 0;
        std::int64_t streamId = 7;
        std::uint32_t correlationId = 0;
        std::uint32_t pid = 0;
        std::string shortName, demangledName; // demangledName defaults to shortName
        std::uint32_t gridX = 1, gridY = 1, gridZ = 1, blockX = 128, blockY = 1, blockZ = 1;
        std::uint32_t registersPerThread = 32, staticSharedMemory = 0, dynamicSharedMemory = 0;
    };
    void addKernel(const Kernel &kernel);

    struct Memcpy
    {
        TimeNs start = 0, end = 0;
        std::int32_t deviceId = 0;
        std::int64_t streamId = 7;
        std::uint32_t correlationId = 0;
        std::uint32_t pid = 0;
        std::uint64_t bytes = 0;
        int copyKind = 1; // 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP
        int srcKind = 0, dstKind = 2; // 0 pageable, 1 pinned, 2 device
    };
    void addMemcpy(const Memcpy &copy);

    struct Memset
    {
        TimeNs start = 0, end = 0;
        std::int32_t deviceId = 0;
        std::int64_t streamId = 7;
        std::uint32_t correlationId = 0;
        std::uint32_t pid = 0;
        std::uint64_t bytes = 0;
    };
    void addMemset(const Memset &set);

    struct RuntimeCall
    {
        TimeNs start = 0, end = 0;
        std::uint32_t pid = 0, tid = 0;
        std::uint32_t correlationId = 0;
        std::string name; // as nsys stores it, e.g. "cudaLaunchKernel_v7000"
        int eventClass = 0; // 0 runtime, 1 driver, 67 backtrace duplicate
    };
    void addRuntime(const RuntimeCall &call);

    struct NvtxRange
    {
        TimeNs start = 0;
        std::optional<TimeNs> end; // nullopt for marks or open ranges
        std::uint32_t pid = 0, tid = 0;
        std::string text;
        bool registeredString = false; // true: stored via textId into StringIds
        int eventType = 59; // 59 push/pop, 60 start/end, 34 mark, 75 domain create
        std::int64_t domainId = 0;
        // The payload union's members (nvtxEventAttributes_t payload), NULL when not set.
        std::optional<std::int64_t> int64Value;
        std::optional<std::uint64_t> uint64Value;
        std::optional<double> doubleValue;
        std::optional<std::int32_t> int32Value;
        std::optional<std::uint32_t> uint32Value;
        std::optional<float> floatValue;
    };
    void addNvtx(const NvtxRange &range);

    // Writes StringIds and the metadata tables, commits and closes the file; the destructor
    // calls it too (swallowing errors). Adding rows afterwards throws std::runtime_error.
    void finish();

private:
    void exec(const std::string &sql);
    [[noreturn]] void failWriting(std::string_view table) const;
    void checkOpen() const;
    // Steps a bound INSERT (throwing when it fails) and resets it for the next row.
    void insertRow(sqlite3_stmt *stmt, std::string_view table);
    void insertNameValueRows(std::string_view table, std::span<const std::pair<std::string, std::string>> rows);
    // Creates a table written only when it has rows; returns its prepared
    // `INSERT INTO table insertTail`.
    sqlite3_stmt *createActivityTable(
        std::string_view table, std::initializer_list<std::string_view> columnBlocks, std::string_view insertTail);
    void writeStaticTables();
    void writeFinalTables();
    void close() noexcept;
    struct Statements;
    std::string m_path;
    Options m_options;
    sqlite3 *m_db = nullptr;
    std::unique_ptr<Statements> m_stmts;
    std::int64_t m_nextStringId = 1;
    std::vector<std::pair<std::string, std::int64_t>> m_pendingStrings;
    struct StringIndex;
    std::unique_ptr<StringIndex> m_strings;
    std::vector<std::int32_t> m_gpusAdded, m_devicesUsed; // TARGET_INFO_GPU rows, devices seen in activity
    std::string m_firstProcessName;
    std::int64_t m_nextGridId = 1, m_nextRangeId = 1;
    bool m_finished = false;
};

} // namespace gaplens::core
