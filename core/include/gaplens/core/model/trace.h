// SPDX-License-Identifier: MIT
#pragma once
// The in-memory model of a capture: one or many Nsight Systems reports, their ranks,
// GPUs, streams and CPU threads. Columnar per track, times absolute int64 ns, strings
// interned once in TraceSet::strings. Immutable after loadTraceSet() returns.
#include "gaplens/core/model/callchains.h"
#include "gaplens/core/model/column.h"
#include "gaplens/core/model/copy_lanes.h"
#include "gaplens/core/model/nesting.h"
#include "gaplens/core/model/string_pool.h"
#include "gaplens/core/model/time.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

inline constexpr std::uint32_t kNoIndex = 0xFFFFFFFFu;

// Kernels of one stream, sorted by start. They rarely overlap (programmatic dependent
// launch can make the next kernel start before the previous ends: LoadNotes counts it), so
// end is sorted too except at those few places.
// A kernel launch's shape as CUPTI records it.
struct LaunchConfig
{
    std::uint32_t gridX = 0, gridY = 0, gridZ = 0;
    std::uint16_t blockX = 0, blockY = 0, blockZ = 0;
    std::uint16_t registersPerThread = 0;
    std::uint32_t staticSharedMemory = 0, dynamicSharedMemory = 0;
    friend bool operator==(const LaunchConfig &, const LaunchConfig &) = default;
};

struct KernelColumns
{
    Column<TimeNs> start, end;
    std::vector<StringId> shortName, demangledName;
    Column<std::uint32_t> correlationId;
    // A stream launches few distinct shapes (a step repeats the same kernels), so each is kept
    // once in launchConfigs and a kernel holds its index: 4 bytes instead of 28.
    Column<std::uint32_t> launchConfig;
    std::vector<LaunchConfig> launchConfigs;
    const LaunchConfig &launchConfigOf(std::size_t i) const { return launchConfigs[launchConfig[i]]; }
    std::size_t size() const { return start.size(); }
};

// A copy's kind: the value of the export's copyKind column, which is CUPTI's
// CUpti_ActivityMemcpyKind (0-10) extended by nsys with unified-memory migrations (11-13),
// as ENUM_CUDA_MEMCPY_OPER lists them. "Array" is a CUDA array (texture memory).
enum class CopyKind : std::uint8_t {
    Unknown = 0,
    HostToDevice = 1,
    DeviceToHost = 2,
    HostToArray = 3,
    ArrayToHost = 4,
    ArrayToArray = 5,
    ArrayToDevice = 6,
    DeviceToArray = 7,
    DeviceToDevice = 8,
    HostToHost = 9,
    PeerToPeer = 10,
    UnifiedHostToDevice = 11,
    UnifiedDeviceToHost = 12,
    UnifiedDeviceToDevice = 13,
    Memset = 250, // memsets share the copy lane
};
// The kind a copyKind column value stands for; Unknown for values no export defines.
CopyKind copyKindFromExport(std::int64_t value);
// "HtoD", "Unified DtoH", "memset", ...; "unknown" for Unknown.
std::string_view copyKindName(CopyKind kind);
// CUDA memory kinds of a copy's source and destination (ENUM_CUDA_MEM_KIND).
enum class MemKind : std::uint8_t { Pageable = 0, Pinned = 1, Device = 2, Array = 3, Managed = 4, Unknown = 255 };

// Copies and memsets of one GPU, all streams, sorted by (start, end desc); they can overlap
// across streams, so each has a depth (row) and a nesting index.
struct CopyColumns
{
    Column<TimeNs> start, end;
    Column<std::uint64_t> bytes;
    Column<std::uint32_t> correlationId;
    Column<std::uint32_t> pid;
    Column<std::uint32_t> streamId;
    Column<CopyKind> kind;
    Column<MemKind> srcKind, dstKind;
    Column<std::uint8_t> depth;
    NestingIndex nesting;
    CopyLanes lanes; // the timeline's lane per (process, stream); set by finalize
    std::size_t size() const { return start.size(); }
};

// A synchronisation record's syncType (ENUM_CUPTI_SYNC_TYPE, CUpti_ActivitySynchronizationType).
enum class SyncType : std::uint8_t {
    Unknown = 0,
    EventSynchronize = 1, // cudaEventSynchronize / cuEventSynchronize: the host waited for an event
    StreamWaitEvent = 2, // cudaStreamWaitEvent: later work of the stream waits for an event
    StreamSynchronize = 3, // the host waited for a stream to drain
    ContextSynchronize = 4, // cudaDeviceSynchronize / cuCtxSynchronize: the host waited for the GPU
};
// The kind a syncType value stands for; Unknown for values the enum does not define.
SyncType syncTypeFromExport(std::int64_t value);

// Synchronisation records of one GPU (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), all processes
// (records of a device with no kernel, copy or memset are not kept),
// sorted by (start, end desc). start/end are the host's synchronisation call (a stream wait
// event returns at once; a synchronize returns when what it waited for finished).
// correlationId is the call's (the process's issue order), eventId the CUDA event's.
struct SyncColumns
{
    Column<TimeNs> start, end;
    Column<std::uint32_t> pid;
    Column<std::int64_t> streamId;
    Column<std::uint32_t> contextId;
    Column<std::uint32_t> correlationId;
    Column<std::uint32_t> eventId;
    Column<SyncType> type;
    std::size_t size() const { return start.size(); }
};

// A row's memoryOperationType in CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage=true):
// 0 memory was allocated, 1 it was freed (the table's DDL comment and ENUM_CUDA_DEV_MEM_EVENT_OPER).
enum class MemoryOperation : std::uint8_t { Allocation = 0, Free = 1 };

// GPU memory allocations and frees of one GPU (CUDA_GPU_MEMORY_USAGE_EVENTS), all processes,
// sorted by time (stable: rows of one instant keep the export's order). memKind is the
// export's value (ENUM_CUDA_MEM_KIND: 0 pageable, 1 pinned, 2 device, 3 array, 4 managed,
// 5 device static, 6 managed static). Rows of a device with no kernel, copy or memset are not kept.
struct MemoryUsageColumns
{
    Column<TimeNs> time;
    Column<std::uint64_t> bytes;
    Column<std::uint64_t> address;
    Column<std::uint32_t> pid;
    Column<std::uint8_t> memKind;
    Column<MemoryOperation> operation;
    std::size_t size() const { return time.size(); }
};

// One CUDA stream of one process on one GPU: correlation and stream ids are unique per
// process only, so the lane key is (process, device, stream).
struct Stream
{
    std::uint32_t pid = 0;
    std::int64_t streamId = 0;
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    KernelColumns kernels;
};

// A GPU is identified by (report, deviceId): two processes of one report on device 0 share it.
struct Gpu
{
    std::uint32_t report = 0;
    std::int32_t deviceId = 0;
    std::string name; // from TARGET_INFO_GPU when present, else empty
    std::vector<Stream> streams;
    CopyColumns copies;
    SyncColumns syncs;
    MemoryUsageColumns memory;
    std::vector<std::uint32_t> ranks; // ranks with work on this GPU, ascending
    std::size_t kernelCount() const;
};

// CUDA runtime/driver calls of one thread, sorted by (start, end desc). Driver calls nest
// inside runtime calls, hence depth and a nesting index.
struct ApiColumns
{
    Column<TimeNs> start, end;
    std::vector<StringId> name; // without the _vNNNN suffix
    Column<std::uint32_t> correlationId;
    Column<std::uint8_t> depth;
    NestingIndex nesting;
    // Set by finalize: correlation ids never decrease (and none is 0) in start order, as in
    // every real export, so a launch is found by binary search in correlationId itself.
    bool correlationAscending = true;
    // The calls with a backtrace (eventClass 67 rows, or a callchainId on the call's own row):
    // (correlationId, chain id in the report's Callchains), sorted by correlationId. Sparse,
    // since few calls have one; calls with correlation id 0 cannot be named and keep none.
    struct CallchainRef
    {
        std::uint32_t correlationId = 0;
        std::uint32_t chain = 0;
    };
    std::vector<CallchainRef> callchains;
    // The chain of the call with this correlation id, 0 when none.
    std::uint32_t callchainOf(std::uint32_t correlationId) const;
    std::size_t size() const { return start.size(); }
};

enum class NvtxKind : std::uint8_t { PushPop = 0, StartEnd = 1 };

// NVTX ranges that started on one thread, sorted by (start, end desc), with nesting depth.
struct NvtxColumns
{
    Column<TimeNs> start, end;
    std::vector<StringId> name;
    // Each range's domain, kEmptyString for the default one; empty when every range of the
    // thread is in the default domain (most captures), so they pay nothing for it.
    std::vector<StringId> domain;
    StringId domainOf(std::size_t i) const { return domain.empty() ? kEmptyString : domain[i]; }
    Column<NvtxKind> kind;
    Column<std::uint8_t> depth;
    NestingIndex nesting;
    // The NVTX payload (the first non-NULL of int64Value, uint64Value, doubleValue, int32Value,
    // uint32Value, floatValue) as a double, NaN for a range without one. Empty when no range
    // of the thread has a payload, so captures without payloads pay nothing for it.
    Column<double> payload;
    std::size_t size() const { return start.size(); }
    bool hasPayload(std::size_t i) const { return i < payload.size() && payload[i] == payload[i]; }
};

struct MarkColumns
{
    Column<TimeNs> time;
    std::vector<StringId> name;
    std::vector<StringId> domain;
    std::size_t size() const { return time.size(); }
};

// OS runtime library calls of one thread (nsys -t osrt, table OSRT_API: pthread_cond_wait,
// read, poll, ...), sorted by (start, end desc). Names are the export's, unchanged. Calls can
// nest (fopen calling open64), hence depth and a nesting index. callchainId is the export's
// OSRT_CALLCHAINS id of the call's stack as stored (0: none), kept for resolving it later.
// Not part of Rank::span or TraceSet::span: they stay the span of the CUDA and NVTX activity.
struct OsrtColumns
{
    Column<TimeNs> start, end;
    std::vector<StringId> name;
    Column<std::int64_t> callchainId;
    Column<std::uint8_t> depth;
    NestingIndex nesting;
    std::size_t size() const { return start.size(); }
};

// A CPU thread with CUDA API or NVTX activity, or with OS runtime calls in a process that has
// CUDA or NVTX activity (other threads are not kept).
struct Thread
{
    std::uint32_t report = 0;
    std::uint32_t pid = 0;
    std::uint32_t tid = 0;
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    StringId name = kEmptyString; // from ThreadNames
    ApiColumns api;
    NvtxColumns nvtx;
    MarkColumns marks;
    OsrtColumns osrt;
};

// Data problems are counted per report, never fatal.
struct DataProblems
{
    std::uint64_t nullEnd = 0; // a range or activity with NULL end (open range)
    std::uint64_t endBeforeStart = 0; // end < start: row skipped
    std::uint64_t nullStart = 0; // NULL start: row skipped
    std::uint64_t unknownStringId = 0; // an id missing from StringIds: name shown as "<unknown #id>"
    // start or end is TEXT, a BLOB or a REAL with a fraction (SQLite would read '123abc' as
    // 123, a BLOB as 0): row skipped. An integer-valued REAL reads as that integer.
    std::uint64_t timeNotInteger = 0;
    // start or end lies outside +-2^62 ns (+-146 years around 1970) once the report's time
    // offset is added, so that the difference of any two times fits in 64 bits: row skipped.
    std::uint64_t timeOutOfRange = 0;
    // a deviceId outside the 32-bit range of Gpu::deviceId (it would become another GPU):
    // row skipped.
    std::uint64_t deviceIdOutOfRange = 0;
    // a synchronisation record with NULL deviceId, streamId, syncType, correlationId or
    // eventId: row skipped.
    std::uint64_t nullSyncColumn = 0;
    // a CUDA_CALLCHAINS / OSRT_CALLCHAINS frame with NULL id, stackDepth, symbol or module (or
    // a stackDepth beyond 65535): frame skipped.
    std::uint64_t nullCallchainColumn = 0;
    // a CUDA call's callchainId naming no chain of CUDA_CALLCHAINS: the call keeps no stack.
    std::uint64_t unknownCallchainId = 0;
    // a CUDA_GPU_MEMORY_USAGE_EVENTS row with a NULL or non-integer deviceId, bytes, address or
    // memoryOperationType, negative bytes, or an operation other than 0 (alloc) and 1 (free):
    // row skipped.
    std::uint64_t badMemoryEvent = 0;
    std::uint64_t total() const
    {
        return nullEnd + endBeforeStart + nullStart + unknownStringId + timeNotInteger + timeOutOfRange
            + deviceIdOutOfRange + nullSyncColumn + nullCallchainColumn + unknownCallchainId + badMemoryEvent;
    }
    DataProblems &operator+=(const DataProblems &other)
    {
        nullEnd += other.nullEnd;
        endBeforeStart += other.endBeforeStart;
        nullStart += other.nullStart;
        unknownStringId += other.unknownStringId;
        timeNotInteger += other.timeNotInteger;
        timeOutOfRange += other.timeOutOfRange;
        deviceIdOutOfRange += other.deviceIdOutOfRange;
        nullSyncColumn += other.nullSyncColumn;
        nullCallchainColumn += other.nullCallchainColumn;
        unknownCallchainId += other.unknownCallchainId;
        badMemoryEvent += other.badMemoryEvent;
        return *this;
    }
};

// Facts about the reading that are not problems, reported for transparency.
struct LoadNotes
{
    std::uint64_t backtraceDuplicates = 0; // eventClass 67 runtime rows folded into their call
    std::uint64_t overlappingKernels = 0; // kernels starting before the previous one on their stream ended
    std::uint64_t rowsRead = 0;
    // What a CUDA call's callchainId adds to name its CUDA_CALLCHAINS id: 0, or 1 in exports
    // whose runtime ids count from 0 while the chains' count from 1 (schema 2.9.1: the chain
    // id + 1 holds the call's own name in all 38 backtraces, id itself in 17). The reader
    // tries both and keeps the one under which more chains hold their call's name (ties: 0).
    std::uint64_t callchainIdOffset = 0;
};

enum class TimeBase : std::uint8_t {
    SessionRelative, // timestamps from session start, made absolute with utcEpochNs
    AlreadyAbsolute, // time-normalised export (EXPORT_CONFIG_TIME_SHIFT / NORMALIZE)
    Unknown, // no session start time: left session-relative
};

// A program nsys launched, from META_DATA_CAPTURE's "PROCESS_<n>:..." rows: COMMAND,
// ARGUMENT_<i> (i from 0), WORKING_DIR and the count of its ENVIRONMENT_VARIABLE rows. The GPU
// processes of the capture may be this program or processes it started (torchrun, bash -c).
struct LaunchedProgram
{
    std::uint32_t index = 0; // n of PROCESS_<n>
    std::string command; // empty when the export has no COMMAND row for it
    std::vector<std::string> arguments; // ARGUMENT_0, ARGUMENT_1, ... in order
    // false when an ARGUMENT_<i> is missing below the highest one (the rows read are kept in order)
    bool argumentsComplete = true;
    std::string workingDir; // WORKING_DIR, empty when absent
    std::uint32_t environmentCount = 0;
};

struct Report
{
    std::string path;
    std::string schemaVersion; // EXPORT_SCHEMA_VERSION
    std::string productVersion; // EXPORT_PRODUCT_VERSION, when present
    std::string host;
    TimeBase timeBase = TimeBase::Unknown;
    TimeNs timeOffsetNs = 0; // added to every timestamp of this report
    // The session start (TARGET_INFO_SESSION_START_TIME.utcEpochNs, absolute): the time zero nsys
    // shows. nullopt without one; the stored times are then session-relative or already
    // absolute, and timeZero() is timeOffsetNs.
    std::optional<TimeNs> sessionStartNs;
    TimeNs timeZero() const { return sessionStartNs.value_or(timeOffsetNs); }
    DataProblems problems;
    LoadNotes notes;
    std::vector<std::string> warnings; // e.g. a table without a column the reader needs
    bool hasCaptureMetadata = false; // a readable META_DATA_CAPTURE table (schema 3.4 and later)
    std::vector<LaunchedProgram> programs; // by PROCESS_<n> index, ascending
    // CUDA_CALLCHAINS and OSRT_CALLCHAINS; ApiColumns::callchains and the OS runtime calls
    // name chains in it (Callchains::find maps an export id of either table to its chain).
    Callchains callchains;
    // Taken from the report cache (LoadOptions::cache) rather than read from the export.
    bool readFromCache = false;
};

enum class RankSource : std::uint8_t {
    Environment, // OMPI_COMM_WORLD_RANK / PMI_RANK / SLURM_PROCID / RANK in META_DATA_CAPTURE
    FileName, // numbers in the file names are exactly 0..N-1
    FileOrder, // natural sort order of the files
    Process, // several GPU processes in one report: one rank each, in pid order
    Override, // given by the user
};
std::string_view rankSourceName(RankSource source);

struct Rank
{
    std::int32_t rank = 0; // the rank number shown to users
    std::uint32_t report = 0;
    std::uint32_t pid = 0;
    std::string processName;
    std::string host;
    RankSource source = RankSource::FileOrder;
    std::string sourceDetail; // e.g. PMI_RANK="3" or the file-name number
    std::vector<std::uint32_t> gpus; // indices into TraceSet::gpus
    std::vector<std::uint32_t> threads; // indices into TraceSet::threads
    // First to last event of its own (absolute): its threads' calls and ranges, its streams'
    // kernels and its process's copies on its GPUs. Empty when it has none.
    TimeRange span;
};

// A file that could not be loaded, with a message that names the problem.
struct LoadError
{
    std::string path;
    std::string message;
};

// The API call that launched GPU work: a thread and the index of the call in its columns.
struct LaunchRef
{
    std::uint32_t thread = kNoIndex;
    std::uint32_t call = kNoIndex;
};

// A thread of a process, for lookups by process (findLaunch, gap blame).
struct ProcessThreadRef
{
    std::uint64_t key = 0; // (report << 32) | pid
    std::uint32_t thread = kNoIndex;
};

// A call of a thread whose correlation ids are not ascending (no real export has one).
struct UnorderedLaunch
{
    std::uint64_t process = 0; // (report << 32) | pid
    std::uint32_t correlationId = 0;
    LaunchRef call;
};

struct TraceSet
{
    TraceSet() = default;
    // A capture whose names are another's (they share the pool): a staged load's first stage
    // and its full capture (LoadOptions::onFirstStage).
    explicit TraceSet(const StringPool &sharedStrings)
        : strings(StringPool::ShareWith { sharedStrings })
    {
    }

    StringPool strings;
    std::vector<Report> reports;
    std::vector<Rank> ranks; // sorted by rank number
    std::vector<Gpu> gpus; // sorted by (first rank, deviceId)
    std::vector<Thread> threads;
    std::vector<LoadError> errors;
    std::vector<std::string> warnings; // capture-level, e.g. two reports claiming one rank
    // Why the report cache could not be written ("" when it was, or is off): said apart from the
    // warnings, since it is about this machine, not the capture (gaplens-mpi never caches).
    std::string cacheProblem;
    // Launch lookup without a per-call index (it cost 16 bytes per call): threads by process,
    // sorted by (key, thread), and the calls of threads with unordered correlation ids,
    // sorted by (process, correlationId).
    std::vector<ProcessThreadRef> processThreads;
    std::vector<UnorderedLaunch> unorderedLaunches;
    TimeRange span; // first to last event over all ranks (absolute)
    // NVTX name -> the name it is grouped under (nvtxGroupName), indexed by StringId.
    std::vector<StringId> nvtxGroups;
    bool cancelled = false;

    // The call that launched (pid, correlationId) in a report; none for correlation id 0.
    std::optional<LaunchRef> findLaunch(std::uint32_t report, std::uint32_t pid, std::uint32_t correlationId) const;
    // One process's threads (indices into `threads`, ascending).
    std::span<const ProcessThreadRef> threadsOfProcess(std::uint32_t report, std::uint32_t pid) const;
    const std::string &str(StringId id) const { return strings.get(id); }
    StringId nvtxGroup(StringId name) const { return name < nvtxGroups.size() ? nvtxGroups[name] : name; }
    // A range named `name` answers to `wanted` when that is its exact name or its group name.
    bool isInNvtxGroup(StringId name, StringId wanted) const { return name == wanted || nvtxGroup(name) == wanted; }
};

inline std::uint64_t processKey(std::uint32_t report, std::uint32_t pid)
{
    return (std::uint64_t(report) << 32) | pid;
}

inline std::uint64_t launchKey(std::uint32_t pid, std::uint32_t correlationId)
{
    return (std::uint64_t(pid) << 32) | correlationId;
}

} // namespace gaplens::core
