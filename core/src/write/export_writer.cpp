// SPDX-License-Identifier: MIT
#include "gaplens/core/write/export_writer.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace gaplens::core {

namespace {

// The column lines below are copied verbatim from real Nsight Systems 2026.2 exports (schema
// 3.25.0; TARGET_INFO_GPU from 3.24.14, the newest file that has it), so readers that check
// column order or NOT NULL constraints see exactly what nsys writes. Each block starts with a
// line break; createTableSql() puts the blocks of a table together as nsys lays them out.
// StringIds.
constexpr std::string_view kStringIdsColumns = R"(
    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.)";

// PROCESSES.
constexpr std::string_view kProcessesColumns = R"(
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    pid                         INTEGER,                               -- The process ID.
    name                        TEXT                                   -- The process name.)";

// ThreadNames.
constexpr std::string_view kThreadNamesColumns = R"(
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Thread name
    priority                    INTEGER,                               -- Priority of the thread.
    globalTid                   INTEGER                                -- Serialized GlobalId.)";

// TARGET_INFO_SESSION_START_TIME.
constexpr std::string_view kSessionStartTimeColumns = R"(
    utcEpochNs                  INTEGER,                               -- UTC Epoch timestamp at start of the capture (ns).
    utcTime                     TEXT,                                  -- Start of the capture in UTC.
    localTime                   TEXT,                                  -- Start of the capture in local time of target.
    systemClockNs               INTEGER                                -- Target system clock timestamp at start of the capture (ns).)";

// META_DATA_EXPORT and META_DATA_CAPTURE.
constexpr std::string_view kMetaDataColumns = R"(
    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record)";

// TARGET_INFO_SYSTEM_ENV.
constexpr std::string_view kSystemEnvColumns = R"(
    globalVid                   INTEGER,                               -- Serialized GlobalId.
    devStateName                TEXT      NOT NULL,                    -- Device state name.
    name                        TEXT      NOT NULL,                    -- Property name.
    nameEnum                    INTEGER   NOT NULL,                    -- Property enum value.
    value                       TEXT      NOT NULL                     -- Property value.)";

// TARGET_INFO_GPU.
constexpr std::string_view kTargetInfoGpuColumns = R"(
    vmId                        INTEGER   NOT NULL,                    -- Serialized GlobalId.
    id                          INTEGER   NOT NULL,                    -- Device ID.
    name                        TEXT,                                  -- Device name.
    busLocation                 TEXT,                                  -- PCI bus location.
    isDiscrete                  INTEGER,                               -- True if discrete, false if integrated.
    l2CacheSize                 INTEGER,                               -- Size of L2 cache (B).
    totalMemory                 INTEGER,                               -- Total amount of memory on the device (B).
    memoryBandwidth             INTEGER,                               -- Amount of memory transferred (B).
    clockRate                   INTEGER,                               -- Clock frequency (Hz).
    smCount                     INTEGER,                               -- Number of multiprocessors on the device.
    pwGpuId                     INTEGER,                               -- PerfWorks GPU ID.
    uuid                        TEXT,                                  -- Device UUID.
    luid                        INTEGER,                               -- Device LUID.
    chipName                    TEXT,                                  -- Chip name.
    cuDevice                    INTEGER,                               -- CUDA device ID.
    ctxswDevPath                TEXT,                                  -- GPU context switch device node path.
    ctrlDevPath                 TEXT,                                  -- GPU control device node path.
    revision                    INTEGER,                               -- Revision number.
    nodeMask                    INTEGER,                               -- Device node mask.
    constantMemory              INTEGER,                               -- Memory available on device for __constant__ variables (B).
    maxIPC                      INTEGER,                               -- Maximum instructions per count.
    maxRegistersPerBlock        INTEGER,                               -- Maximum number of 32-bit registers available per block.
    maxShmemPerBlock            INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerBlockOptin       INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerSm               INTEGER,                               -- Maximum shared memory available per multiprocessor (B).
    maxRegistersPerSm           INTEGER,                               -- Maximum number of 32-bit registers available per multiprocessor.
    threadsPerWarp              INTEGER,                               -- Warp size in threads.
    asyncEngines                INTEGER,                               -- Number of asynchronous engines.
    maxWarpsPerSm               INTEGER,                               -- Maximum number of warps per multiprocessor.
    maxBlocksPerSm              INTEGER,                               -- Maximum number of blocks per multiprocessor.
    maxThreadsPerBlock          INTEGER,                               -- Maximum number of threads per block.
    maxBlockDimX                INTEGER,                               -- Maximum X-dimension of a block.
    maxBlockDimY                INTEGER,                               -- Maximum Y-dimension of a block.
    maxBlockDimZ                INTEGER,                               -- Maximum Z-dimension of a block.
    maxGridDimX                 INTEGER,                               -- Maximum X-dimension of a grid.
    maxGridDimY                 INTEGER,                               -- Maximum Y-dimension of a grid.
    maxGridDimZ                 INTEGER,                               -- Maximum Z-dimension of a grid.
    computeMajor                INTEGER,                               -- Major compute capability version number.
    computeMinor                INTEGER,                               -- Minor compute capability version number.
    smMajor                     INTEGER,                               -- Major multiprocessor version number.
    smMinor                     INTEGER                                -- Minor multiprocessor version number.)";

// Every ENUM_* table.
constexpr std::string_view kEnumColumns = R"(
    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.)";

// The columns CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and _MEMSET all start with.
constexpr std::string_view kDeviceActivityColumns = R"(
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.)";

// CUPTI_ACTIVITY_KIND_KERNEL after the device activity columns.
constexpr std::string_view kKernelColumns = R"(
    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates
    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name
    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name
    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)
    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)
    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.
    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.
    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.
    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.
    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.
    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.
    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.
    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).
    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).
    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).
    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).
    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.
    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    sharedMemoryLimitConfig     INTEGER,                               -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
    qmdBulkReleaseDone          INTEGER,                               -- QMD bulk release done timestamp from CWD events.
    qmdPreexitDone              INTEGER,                               -- QMD pre-exit done timestamp from CWD events.
    qmdLastCtaDone              INTEGER,                               -- QMD last CTA done timestamp from CWD events.
    graphId                     INTEGER,                               -- Kernel graph ID.
    clusterX                    INTEGER,                               -- Cluster X dimension.
    clusterY                    INTEGER,                               -- Cluster Y dimension.
    clusterZ                    INTEGER,                               -- Cluster Z dimension.
    clusterSchedulingPolicy     INTEGER,                               -- Cluster scheduling policy.
    maxPotentialClusterSize     INTEGER,                               -- Maximum potential cluster size.
    maxActiveClusters           INTEGER,                               -- Maximum active clusters.
    sharedMemoryRequestedPercentage   INTEGER,                         -- Shared memory requested percentage.
    tensorSizeMinusOneElements   TEXT      NOT NULL                    -- TMA descriptor tensor size minus one elements array.)";

// CUPTI_ACTIVITY_KIND_MEMCPY after the device activity columns.
constexpr std::string_view kMemcpyColumns = R"(
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).
    copyKind                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUDA_MEMCPY_OPER(id)
    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.
    srcKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    dstKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    srcDeviceId                 INTEGER,                               -- Source device ID.
    srcContextId                INTEGER,                               -- Source context ID.
    dstDeviceId                 INTEGER,                               -- Destination device ID.
    dstContextId                INTEGER,                               -- Destination context ID.
    migrationCause              INTEGER,                               -- REFERENCES ENUM_CUDA_UNIF_MEM_MIGRATION(id)
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    virtualAddress              INTEGER,                               -- Virtual base address of the page/s being transferred.
    copyCount                   INTEGER                                -- The total number of memcopy operations traced in this record. In CUDA MemcpyBatchAsync APIs, multiple memcpy operations may be batched together for optimization purposes based on certain heuristics.)";

// CUPTI_ACTIVITY_KIND_MEMSET after the device activity columns.
constexpr std::string_view kMemsetColumns = R"(
    value                       INTEGER   NOT NULL,                    -- Value assigned to memory.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes set (B).
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    memKind                     INTEGER                                -- REFERENCES ENUM_CUDA_MEM_KIND(id))";

// CUPTI_ACTIVITY_KIND_RUNTIME.
constexpr std::string_view kRuntimeColumns = R"(
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id))";

// NVTX_EVENTS.
constexpr std::string_view kNvtxEventsColumns = R"(
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Explicit name/text (non-registered string)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId.
    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain/string
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT,                                  -- One of possible payload value union members.
    binaryData                  TEXT                                   -- Binary payload. See docs for format.)";

// The CREATE TABLE text nsys writes (and sqlite_master keeps): the table's comment, if it has
// one, then a blank line and the column blocks.
std::string createTableSql(
    std::string_view table, std::string_view comment, std::initializer_list<std::string_view> columnBlocks)
{
    std::string sql = fmt::format("CREATE TABLE {} (", table);
    if (!comment.empty())
        sql += fmt::format("\n    -- {}\n", comment);
    for (const auto block : columnBlocks)
        sql += block;
    return sql + "\n)";
}

constexpr std::int64_t kVmId = 281474976710656; // globalVid of the local machine in real files

} // namespace

struct ExportWriter::StringIndex
{
    // Transparent hashing: lookups by string_view never allocate.
    struct Hash
    {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const { return std::hash<std::string_view> {}(text); }
    };
    std::unordered_map<std::string, std::int64_t, Hash, std::equal_to<>> ids;
};

struct ExportWriter::Statements
{
    sqlite3_stmt *kernel = nullptr, *runtime = nullptr, *memcpy = nullptr, *memset = nullptr, *nvtx = nullptr;
    sqlite3_stmt *process = nullptr, *threadName = nullptr;
    ~Statements()
    {
        for (auto *stmt : { kernel, runtime, memcpy, memset, nvtx, process, threadName })
            sqlite3_finalize(stmt);
    }
};

namespace {

sqlite3_stmt *prepare(sqlite3 *db, const std::string &path, std::string_view sql)
{
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_prepare_v3(db, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK)
        throw std::runtime_error(fmt::format("{}: cannot prepare statement: {}", path, sqlite3_errmsg(db)));
    return stmt;
}

// A statement used for a few rows only, finalized however the scope is left.
struct Finalize
{
    void operator()(sqlite3_stmt *stmt) const { sqlite3_finalize(stmt); }
};
using OneOffStatement = std::unique_ptr<sqlite3_stmt, Finalize>;

std::string formatUtc(TimeNs epochNs)
{
    const std::time_t seconds = static_cast<std::time_t>(epochNs / 1'000'000'000);
    std::tm tm {};
    gmtime_r(&seconds, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &tm);
    return buffer;
}

inline void bindInt(sqlite3_stmt *stmt, int index, std::int64_t value)
{
    sqlite3_bind_int64(stmt, index, value);
}

inline void bindText(sqlite3_stmt *stmt, int index, std::string_view text)
{
    sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

// The first six parameters of the kernel, memcpy and memset inserts: where and when the
// activity ran, the same columns in all three tables.
template <typename DeviceActivity> void bindDeviceActivity(sqlite3_stmt *stmt, const DeviceActivity &activity)
{
    bindInt(stmt, 1, activity.start);
    bindInt(stmt, 2, activity.end);
    bindInt(stmt, 3, activity.deviceId);
    bindInt(stmt, 4, activity.streamId);
    bindInt(stmt, 5, activity.correlationId);
    bindInt(stmt, 6, makeGlobalPid(activity.pid));
}

void noteDevice(std::vector<std::int32_t> &devices, std::int32_t deviceId)
{
    // A handful of devices per file: a linear scan beats any set.
    if (std::find(devices.begin(), devices.end(), deviceId) == devices.end())
        devices.push_back(deviceId);
}

} // namespace

ExportWriter::ExportWriter(const std::string &path, const Options &options)
    : m_path(path)
    , m_options(options)
    , m_stmts(std::make_unique<Statements>())
    , m_strings(std::make_unique<StringIndex>())
{
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    std::filesystem::remove(path + "-journal", ignored);
    // NOMUTEX: one writer per connection, never shared across threads.
    constexpr int kFlags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path.c_str(), &m_db, kFlags, nullptr) != SQLITE_OK) {
        const std::string message = m_db ? sqlite3_errmsg(m_db) : "out of memory";
        close();
        throw std::runtime_error(fmt::format("{}: cannot create the export: {}", path, message));
    }
    try {
        // Bulk writer of a throw-away file: no journal, no fsync, one transaction.
        exec("PRAGMA page_size=65536"); // fewer, larger b-tree pages: faster appends
        exec("PRAGMA journal_mode=OFF");
        exec("PRAGMA synchronous=OFF");
        exec("PRAGMA locking_mode=EXCLUSIVE");
        exec("PRAGMA temp_store=MEMORY");
        exec("PRAGMA cache_size=-8192"); // measured: a bigger cache only adds page faults
        exec("BEGIN");
        writeStaticTables();
    } catch (...) {
        close();
        throw;
    }
}

ExportWriter::~ExportWriter()
{
    try {
        if (!m_finished)
            finish();
    } catch (...) {
        // A destructor must not throw; callers who care call finish() themselves.
    }
    close();
}

void ExportWriter::close() noexcept
{
    m_stmts.reset(); // statements must be finalized before the connection closes
    if (m_db) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
    }
}

void ExportWriter::exec(const std::string &sql)
{
    char *error = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        const std::string message = error ? error : sqlite3_errmsg(m_db);
        sqlite3_free(error);
        throw std::runtime_error(fmt::format("{}: {}", m_path, message));
    }
}

void ExportWriter::failWriting(std::string_view table) const
{
    throw std::runtime_error(
        fmt::format("{}: cannot write {}: {}", m_path, table, m_db ? sqlite3_errmsg(m_db) : "file closed"));
}

void ExportWriter::checkOpen() const
{
    if (m_finished || !m_db)
        throw std::runtime_error(fmt::format("{}: the export was already finished", m_path));
}

void ExportWriter::insertRow(sqlite3_stmt *stmt, std::string_view table)
{
    if (sqlite3_step(stmt) != SQLITE_DONE)
        failWriting(table);
    sqlite3_reset(stmt);
}

void ExportWriter::insertNameValueRows(
    std::string_view table, std::span<const std::pair<std::string, std::string>> rows)
{
    const OneOffStatement stmt(prepare(m_db, m_path, fmt::format("INSERT INTO {} VALUES(?,?)", table)));
    for (const auto &[name, value] : rows) {
        bindText(stmt.get(), 1, name);
        bindText(stmt.get(), 2, value);
        insertRow(stmt.get(), table);
    }
}

sqlite3_stmt *ExportWriter::createActivityTable(
    std::string_view table, std::initializer_list<std::string_view> columnBlocks, std::string_view insertTail)
{
    exec(createTableSql(table, {}, columnBlocks));
    return prepare(m_db, m_path, fmt::format("INSERT INTO {} {}", table, insertTail));
}

void ExportWriter::writeStaticTables()
{
    exec(createTableSql("StringIds", "Consolidation of repetitive string values.", { kStringIdsColumns }));
    exec(createTableSql(
        "PROCESSES", "Names and identifiers of processes captured in the report.", { kProcessesColumns }));
    exec(createTableSql("ThreadNames", {}, { kThreadNamesColumns }));
    exec(createTableSql("TARGET_INFO_SESSION_START_TIME", {}, { kSessionStartTimeColumns }));
    exec(createTableSql("META_DATA_EXPORT", "information about nsys export process", { kMetaDataColumns }));
    if (m_options.writeCaptureMetadata)
        exec(createTableSql("META_DATA_CAPTURE", "information about nsys capture parameters", { kMetaDataColumns }));
    exec(createTableSql("TARGET_INFO_SYSTEM_ENV", {}, { kSystemEnvColumns }));
    exec(createTableSql("ENUM_CUDA_MEMCPY_OPER", "CUDA memcpy operation labels", { kEnumColumns }));
    exec(createTableSql("ENUM_CUDA_MEM_KIND", "CUDA memory kind labels", { kEnumColumns }));
    exec(createTableSql("ENUM_NSYS_EVENT_TYPE", "Nsys event type labels", { kEnumColumns }));
    if (m_options.writeTargetInfoGpu)
        exec(createTableSql("TARGET_INFO_GPU", {}, { kTargetInfoGpuColumns }));

    exec(R"(INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES
        (0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown'),(1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device'),
        (2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host'),(3,'CUDA_MEMCPY_KIND_HTOA','Host-to-Array'),
        (4,'CUDA_MEMCPY_KIND_ATOH','Array-to-Host'),(5,'CUDA_MEMCPY_KIND_ATOA','Array-to-Array'),
        (6,'CUDA_MEMCPY_KIND_ATOD','Array-to-Device'),(7,'CUDA_MEMCPY_KIND_DTOA','Device-to-Array'),
        (8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device'),(9,'CUDA_MEMCPY_KIND_HTOH','Host-to-Host'),
        (10,'CUDA_MEMCPY_KIND_PTOP','Peer-to-Peer'),(11,'CUDA_MEMCPY_KIND_UVM_HTOD','Unified Host-to-Device'),
        (12,'CUDA_MEMCPY_KIND_UVM_DTOH','Unified Device-to-Host'),
        (13,'CUDA_MEMCPY_KIND_UVM_DTOD','Unified Device-to-Device'))");
    exec(R"(INSERT INTO ENUM_CUDA_MEM_KIND VALUES
        (0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable'),(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned'),
        (2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device'),(3,'CUDA_MEMOPR_MEMORY_KIND_ARRAY','Array'),
        (4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED','Managed'),(5,'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC','Device Static'),
        (6,'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC','Managed Static'),
        (7,'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN','Unknown'))");
    exec(R"(INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES
        (27,'Command','Command'),(33,'NvtxCategory','NvtxCategory'),(34,'NvtxMark','NvtxMark'),
        (39,'NvtxThread','NvtxThread'),(59,'NvtxPushPopRange','NvtxPushPopRange'),
        (60,'NvtxStartEndRange','NvtxStartEndRange'),(70,'NvtxtPushPopRange','NvtxtPushPopRange'),
        (71,'NvtxtStartEndRange','NvtxtStartEndRange'),(75,'NvtxDomainCreate','NvtxDomainCreate'),
        (76,'NvtxDomainDestroy','NvtxDomainDestroy'))");

    {
        const OneOffStatement stmt(prepare(m_db, m_path, "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(?,?,?,?)"));
        const auto utc = formatUtc(m_options.sessionStartUtcNs);
        bindInt(stmt.get(), 1, m_options.sessionStartUtcNs);
        bindText(stmt.get(), 2, utc);
        bindText(stmt.get(), 3, utc);
        bindInt(stmt.get(), 4, 1'000'000'000); // the target's monotonic clock at start; any value works
        insertRow(stmt.get(), "TARGET_INFO_SESSION_START_TIME");
    }

    const std::pair<std::string, std::string> exportRows[] = {
        { "EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems" }, { "EXPORT_PRODUCT_VERSION", "2026.2.1.210" },
        { "EXPORT_PRODUCT_DATE", "2026.2" }, { "EXPORT_SCHEMA_VERSION", "3.25.0" },
        { "EXPORT_SCHEMA_VERSION_MAJOR", "3" }, { "EXPORT_SCHEMA_VERSION_MINOR", "25" },
        { "EXPORT_SCHEMA_VERSION_MICRO", "0" }, { "EXPORT_PLATFORM", "linux-desktop" }, { "EXPORT_ARCH", "x64" },
        { "EXPORT_HOST", m_options.hostName }, { "EXPORT_PARAM_EXPORT_TYPE", "SQLite" },
        { "EXPORT_PARAM_OUTPUT_FILE", std::filesystem::path(m_path).filename().string() },
        { "EXPORT_PARAM_LAZY", "true" }, { "EXPORT_PARAM_TIME_NORMALIZE", "false" }, { "EXPORT_PARAM_TIME_SHIFT", "0" },
        { "EXPORT_CONFIG_TIME_SHIFT", "0" },
        { "EXPORT_GENERATOR", "gaplens ExportWriter" }, // honest about where the file came from
    };
    insertNameValueRows("META_DATA_EXPORT", exportRows);

    {
        const OneOffStatement env(
            prepare(m_db, m_path, "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES(?,'Local (CLI)',?,?,?)"));
        const std::tuple<const char *, int, std::string> envRows[] = {
            { "CpuArchitecture", 3, "x86_64" },
            { "Hostname", 619, m_options.hostName },
            { "OsDescription", 605, "Ubuntu 22.04.5 LTS" },
            { "HasCudaEvents", 812, "1" },
            { "HasNvtxEvents", 809, "1" },
        };
        for (const auto &[name, nameEnum, value] : envRows) {
            bindInt(env.get(), 1, kVmId);
            bindText(env.get(), 2, name);
            bindInt(env.get(), 3, nameEnum);
            bindText(env.get(), 4, value);
            insertRow(env.get(), "TARGET_INFO_SYSTEM_ENV");
        }
    }

    m_stmts->process = prepare(m_db, m_path, "INSERT INTO PROCESSES VALUES(?,?,?)");
    m_stmts->threadName = prepare(m_db, m_path, "INSERT INTO ThreadNames VALUES(?,20,?)");
}

std::int64_t ExportWriter::stringId(const std::string &text)
{
    auto it = m_strings->ids.find(std::string_view(text));
    if (it != m_strings->ids.end())
        return it->second;
    const std::int64_t id = m_nextStringId++;
    m_strings->ids.emplace(text, id);
    m_pendingStrings.emplace_back(text, id);
    return id;
}

void ExportWriter::addProcess(std::uint32_t pid, const std::string &name)
{
    checkOpen();
    if (m_firstProcessName.empty())
        m_firstProcessName = name;
    sqlite3_stmt *stmt = m_stmts->process;
    bindInt(stmt, 1, makeGlobalPid(pid));
    bindInt(stmt, 2, pid);
    bindText(stmt, 3, name);
    insertRow(stmt, "PROCESSES");
}

void ExportWriter::addThreadName(std::uint32_t pid, std::uint32_t tid, const std::string &name)
{
    checkOpen();
    sqlite3_stmt *stmt = m_stmts->threadName;
    bindInt(stmt, 1, stringId(name));
    bindInt(stmt, 2, makeGlobalTid(pid, tid));
    insertRow(stmt, "ThreadNames");
}

void ExportWriter::addGpu(std::int32_t deviceId, const std::string &name)
{
    checkOpen();
    if (!m_options.writeTargetInfoGpu)
        return;
    if (std::find(m_gpusAdded.begin(), m_gpusAdded.end(), deviceId) != m_gpusAdded.end())
        return; // one row per device, as nsys writes
    m_gpusAdded.push_back(deviceId);
    // The first columns of an H100 SXM row; the rest stay NULL as in cut-down exports.
    const OneOffStatement stmt(prepare(m_db, m_path,
        "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, l2CacheSize, "
        "totalMemory, memoryBandwidth, clockRate, smCount, pwGpuId, uuid, luid, chipName, "
        "cuDevice, threadsPerWarp, asyncEngines, computeMajor, computeMinor, smMajor, "
        "smMinor) "
        "VALUES(?,?,?,?,1,52428800,85520809984,3352320000000,1980000000,132,?,?,0,'GH100',?,"
        "32,5,9,0,9,0)"));
    bindInt(stmt.get(), 1, kVmId);
    bindInt(stmt.get(), 2, deviceId);
    bindText(stmt.get(), 3, name);
    bindText(stmt.get(), 4, fmt::format("0000:{:02x}:00.0", 0x18 + deviceId));
    bindInt(stmt.get(), 5, deviceId);
    bindText(stmt.get(), 6, fmt::format("00000000-0000-0000-0000-{:012x}", 0x6a1e05 + deviceId));
    bindInt(stmt.get(), 7, deviceId);
    insertRow(stmt.get(), "TARGET_INFO_GPU");
}

void ExportWriter::addKernel(const Kernel &kernel)
{
    checkOpen();
    sqlite3_stmt *stmt = m_stmts->kernel;
    if (!stmt) {
        // Lazy like `nsys export --lazy=true`: the table exists only when it has rows.
        // Columns nsys fills with the same value for ordinary kernels are literals, so the hot
        // path binds only what varies.
        stmt = m_stmts->kernel
            = createActivityTable("CUPTI_ACTIVITY_KIND_KERNEL", { kDeviceActivityColumns, kKernelColumns },
                "VALUES(?1,?2,?3,1,0,?4,?5,?6,?7,?8,NULL,1,1,?9,?10,?11,?12,"
                "?13,?14,?15,?16,?17,0,0,?18,?19,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]')");
    }
    noteDevice(m_devicesUsed, kernel.deviceId);
    const std::int64_t shortId = stringId(kernel.shortName);
    const std::int64_t demangledId = kernel.demangledName.empty() ? shortId : stringId(kernel.demangledName);
    bindDeviceActivity(stmt, kernel);
    bindInt(stmt, 7, demangledId);
    bindInt(stmt, 8, shortId);
    bindInt(stmt, 9, kernel.registersPerThread);
    bindInt(stmt, 10, kernel.gridX);
    bindInt(stmt, 11, kernel.gridY);
    bindInt(stmt, 12, kernel.gridZ);
    bindInt(stmt, 13, kernel.blockX);
    bindInt(stmt, 14, kernel.blockY);
    bindInt(stmt, 15, kernel.blockZ);
    bindInt(stmt, 16, kernel.staticSharedMemory);
    bindInt(stmt, 17, kernel.dynamicSharedMemory);
    bindInt(stmt, 18, m_nextGridId++);
    bindInt(stmt, 19, std::int64_t(kernel.staticSharedMemory) + kernel.dynamicSharedMemory);
    insertRow(stmt, "CUPTI_ACTIVITY_KIND_KERNEL");
}

void ExportWriter::addMemcpy(const Memcpy &copy)
{
    checkOpen();
    sqlite3_stmt *stmt = m_stmts->memcpy;
    if (!stmt)
        stmt = m_stmts->memcpy
            = createActivityTable("CUPTI_ACTIVITY_KIND_MEMCPY", { kDeviceActivityColumns, kMemcpyColumns },
                "VALUES(?1,?2,?3,1,0,?4,?5,?6,?7,?8,NULL,?9,?10,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1)");
    noteDevice(m_devicesUsed, copy.deviceId);
    bindDeviceActivity(stmt, copy);
    bindInt(stmt, 7, static_cast<std::int64_t>(copy.bytes));
    bindInt(stmt, 8, copy.copyKind);
    bindInt(stmt, 9, copy.srcKind);
    bindInt(stmt, 10, copy.dstKind);
    insertRow(stmt, "CUPTI_ACTIVITY_KIND_MEMCPY");
}

void ExportWriter::addMemset(const Memset &set)
{
    checkOpen();
    sqlite3_stmt *stmt = m_stmts->memset;
    if (!stmt)
        stmt = m_stmts->memset = createActivityTable("CUPTI_ACTIVITY_KIND_MEMSET",
            { kDeviceActivityColumns, kMemsetColumns }, "VALUES(?1,?2,?3,1,0,?4,?5,?6,0,?7,NULL,2)");
    noteDevice(m_devicesUsed, set.deviceId);
    bindDeviceActivity(stmt, set);
    bindInt(stmt, 7, static_cast<std::int64_t>(set.bytes));
    insertRow(stmt, "CUPTI_ACTIVITY_KIND_MEMSET");
}

void ExportWriter::addRuntime(const RuntimeCall &call)
{
    checkOpen();
    sqlite3_stmt *stmt = m_stmts->runtime;
    if (!stmt)
        stmt = m_stmts->runtime = createActivityTable(
            "CUPTI_ACTIVITY_KIND_RUNTIME", { kRuntimeColumns }, "VALUES(?1,?2,?3,?4,?5,?6,0,NULL)");
    bindInt(stmt, 1, call.start);
    bindInt(stmt, 2, call.end);
    bindInt(stmt, 3, call.eventClass);
    bindInt(stmt, 4, makeGlobalTid(call.pid, call.tid));
    bindInt(stmt, 5, call.correlationId);
    bindInt(stmt, 6, stringId(call.name));
    insertRow(stmt, "CUPTI_ACTIVITY_KIND_RUNTIME");
}

void ExportWriter::addNvtx(const NvtxRange &range)
{
    checkOpen();
    sqlite3_stmt *stmt = m_stmts->nvtx;
    if (!stmt)
        stmt = m_stmts->nvtx = createActivityTable("NVTX_EVENTS", { kNvtxEventsColumns },
            "(start, end, eventType, rangeId, text, globalTid, endGlobalTid, textId, domainId, int64Value, "
            "uint64Value, doubleValue, int32Value, uint32Value, floatValue) "
            "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)");
    const std::int64_t globalTid = makeGlobalTid(range.pid, range.tid);
    const bool isMark = range.eventType == 34;
    const bool isDomainCreate = range.eventType == 75;
    bindInt(stmt, 1, range.start);
    if (range.end && !isMark && !isDomainCreate)
        bindInt(stmt, 2, *range.end);
    else
        sqlite3_bind_null(stmt, 2);
    bindInt(stmt, 3, range.eventType);
    // Start/end ranges carry the id nvtxRangeStart returned and the thread that ended them.
    if (range.eventType == 60) {
        bindInt(stmt, 4, m_nextRangeId++);
        bindInt(stmt, 7, globalTid);
    } else {
        sqlite3_bind_null(stmt, 4);
        sqlite3_bind_null(stmt, 7);
    }
    if (range.registeredString && !isDomainCreate) {
        sqlite3_bind_null(stmt, 5);
        bindInt(stmt, 8, stringId(range.text));
    } else {
        bindText(stmt, 5, range.text);
        sqlite3_bind_null(stmt, 8);
    }
    bindInt(stmt, 6, globalTid);
    bindInt(stmt, 9, range.domainId);
    auto bindOptionalInt = [stmt](int index, std::optional<std::int64_t> value) {
        if (value)
            bindInt(stmt, index, *value);
        else
            sqlite3_bind_null(stmt, index);
    };
    auto bindOptionalReal = [stmt](int index, std::optional<double> value) {
        if (value)
            sqlite3_bind_double(stmt, index, *value);
        else
            sqlite3_bind_null(stmt, index);
    };
    bindOptionalInt(10, range.int64Value);
    // nsys stores the unsigned member in an INTEGER column: its 64-bit pattern, signed.
    bindOptionalInt(11, range.uint64Value ? std::optional(std::int64_t(*range.uint64Value)) : std::nullopt);
    bindOptionalReal(12, range.doubleValue);
    bindOptionalInt(13, range.int32Value);
    bindOptionalInt(14, range.uint32Value);
    bindOptionalReal(15, range.floatValue);
    insertRow(stmt, "NVTX_EVENTS");
}

void ExportWriter::writeFinalTables()
{
    {
        const OneOffStatement strings(prepare(m_db, m_path, "INSERT INTO StringIds VALUES(?,?)"));
        for (const auto &[text, id] : m_pendingStrings) {
            bindInt(strings.get(), 1, id);
            bindText(strings.get(), 2, text);
            insertRow(strings.get(), "StringIds");
        }
    }
    m_pendingStrings.clear();

    if (m_options.writeTargetInfoGpu) {
        std::vector<std::int32_t> missing;
        for (const auto deviceId : m_devicesUsed)
            if (std::find(m_gpusAdded.begin(), m_gpusAdded.end(), deviceId) == m_gpusAdded.end())
                missing.push_back(deviceId);
        std::sort(missing.begin(), missing.end());
        for (const auto deviceId : missing)
            addGpu(deviceId, "NVIDIA H100 80GB HBM3");
    }

    std::vector<std::pair<std::string, std::string>> rows = {
        { "DEVICE_ID", "Local (CLI)" },
        { "CAPTURE_EVENT_TYPE", "NvtxEvents" },
        { "CAPTURE_EVENT_TYPE", "Cuda" },
        { "DEVICE_TYPE", "Unix" },
        { "DEVICE_DISPLAY_NAME", m_options.hostName },
        { "PROCESS_0:HOW_TO_ATTACH", "LaunchAnother" },
        { "PROCESS_0:COMMAND",
            m_options.command ? *m_options.command
                              : (m_firstProcessName.empty() ? std::string("python") : m_firstProcessName) },
    };
    for (std::size_t i = 0; i < m_options.arguments.size(); ++i)
        rows.emplace_back(fmt::format("PROCESS_0:ARGUMENT_{}", i), m_options.arguments[i]);
    if (!m_options.workingDir.empty())
        rows.emplace_back("PROCESS_0:WORKING_DIR", m_options.workingDir);
    rows.insert(rows.end(),
        { { "PROCESS_0:PID", "0" }, { "PROCESS_0:COLLECT_NVTX_TRACE", "true" },
            { "PROCESS_0:COLLECT_CUDA_TRACE", "true" } });
    for (const auto &[name, value] : m_options.environment)
        rows.emplace_back("PROCESS_0:ENVIRONMENT_VARIABLE", fmt::format("{}=\"{}\"", name, value));
    if (m_options.writeCaptureMetadata)
        insertNameValueRows("META_DATA_CAPTURE", rows);
}

void ExportWriter::finish()
{
    if (m_finished)
        return;
    checkOpen();
    try {
        writeFinalTables();
        exec("COMMIT");
    } catch (...) {
        // Not retried by the destructor: the file is left as it is and closed.
        m_finished = true;
        close();
        throw;
    }
    m_finished = true;
    close();
}

} // namespace gaplens::core
