// SPDX-License-Identifier: MIT
#pragma once
// The columns the reader reads from each table of an nsys export, by name (named_columns.h).
// Required columns come first: the first one missing is the one the warning names.
// Not to be confused with the model's KernelColumns etc. (trace.h), which store the rows.
#include "named_columns.h"

namespace gaplens::core::detail {

inline constexpr auto kRequired = ColumnNeed::Required;
inline constexpr auto kOptional = ColumnNeed::Optional;
inline constexpr auto kText = ColumnKind::Text;
inline constexpr auto kReal = ColumnKind::Real;

// META_DATA_EXPORT, EXPORT_META_DATA and META_DATA_CAPTURE.
enum class NameValueColumn { Name, Value, Count };
template <>
inline constexpr ColumnList<NameValueColumn> kColumnNames<NameValueColumn> = { {
    { NameValueColumn::Name, "name", kRequired, kText },
    { NameValueColumn::Value, "value", kRequired, kText },
} };

// TARGET_INFO_SESSION_START_TIME.
enum class SessionStartColumn { UtcEpochNs, Count };
template <>
inline constexpr ColumnList<SessionStartColumn> kColumnNames<SessionStartColumn> = { {
    { SessionStartColumn::UtcEpochNs, "utcEpochNs" },
} };

// StringIds.
enum class StringColumn { Id, Value, Count };
template <>
inline constexpr ColumnList<StringColumn> kColumnNames<StringColumn> = { {
    { StringColumn::Id, "id" },
    { StringColumn::Value, "value", kRequired, kText },
} };

// CUPTI_ACTIVITY_KIND_KERNEL.
enum class KernelColumn {
    Start,
    End,
    DeviceId,
    StreamId,
    ShortName,
    CorrelationId,
    GlobalPid,
    DemangledName,
    GridX,
    GridY,
    GridZ,
    BlockX,
    BlockY,
    BlockZ,
    RegistersPerThread,
    StaticSharedMemory,
    DynamicSharedMemory,
    Count
};
template <>
inline constexpr ColumnList<KernelColumn> kColumnNames<KernelColumn> = { {
    { KernelColumn::Start, "start" },
    { KernelColumn::End, "end" },
    { KernelColumn::DeviceId, "deviceId" },
    { KernelColumn::StreamId, "streamId" },
    { KernelColumn::ShortName, "shortName" },
    { KernelColumn::CorrelationId, "correlationId", kOptional },
    { KernelColumn::GlobalPid, "globalPid", kOptional },
    { KernelColumn::DemangledName, "demangledName", kOptional },
    { KernelColumn::GridX, "gridX", kOptional },
    { KernelColumn::GridY, "gridY", kOptional },
    { KernelColumn::GridZ, "gridZ", kOptional },
    { KernelColumn::BlockX, "blockX", kOptional },
    { KernelColumn::BlockY, "blockY", kOptional },
    { KernelColumn::BlockZ, "blockZ", kOptional },
    { KernelColumn::RegistersPerThread, "registersPerThread", kOptional },
    { KernelColumn::StaticSharedMemory, "staticSharedMemory", kOptional },
    { KernelColumn::DynamicSharedMemory, "dynamicSharedMemory", kOptional },
} };

// CUPTI_ACTIVITY_KIND_MEMCPY and CUPTI_ACTIVITY_KIND_MEMSET (which has no copy or memory
// kinds: those read as NULL).
enum class CopyColumn {
    Start,
    End,
    DeviceId,
    StreamId,
    CorrelationId,
    GlobalPid,
    Bytes,
    CopyKind,
    SrcKind,
    DstKind,
    Count
};
template <>
inline constexpr ColumnList<CopyColumn> kColumnNames<CopyColumn> = { {
    { CopyColumn::Start, "start" },
    { CopyColumn::End, "end" },
    { CopyColumn::DeviceId, "deviceId" },
    { CopyColumn::StreamId, "streamId", kOptional },
    { CopyColumn::CorrelationId, "correlationId", kOptional },
    { CopyColumn::GlobalPid, "globalPid", kOptional },
    { CopyColumn::Bytes, "bytes", kOptional },
    { CopyColumn::CopyKind, "copyKind", kOptional },
    { CopyColumn::SrcKind, "srcKind", kOptional },
    { CopyColumn::DstKind, "dstKind", kOptional },
} };

// CUPTI_ACTIVITY_KIND_RUNTIME.
enum class RuntimeColumn { Start, End, NameId, EventClass, GlobalTid, CorrelationId, CallchainId, Count };
template <>
inline constexpr ColumnList<RuntimeColumn> kColumnNames<RuntimeColumn> = { {
    { RuntimeColumn::Start, "start" }, { RuntimeColumn::End, "end" }, { RuntimeColumn::NameId, "nameId" },
    { RuntimeColumn::EventClass, "eventClass", kOptional }, { RuntimeColumn::GlobalTid, "globalTid", kOptional },
    { RuntimeColumn::CorrelationId, "correlationId", kOptional },
    { RuntimeColumn::CallchainId, "callchainId", kOptional }, // set on eventClass 67 rows
} };

// CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (every schema from 2.9.1 to 3.25 has these columns).
enum class SyncColumn { Start, End, DeviceId, StreamId, SyncType, EventId, ContextId, CorrelationId, GlobalPid, Count };
template <>
inline constexpr ColumnList<SyncColumn> kColumnNames<SyncColumn> = { {
    { SyncColumn::Start, "start" },
    { SyncColumn::End, "end" },
    { SyncColumn::DeviceId, "deviceId" },
    { SyncColumn::StreamId, "streamId" },
    { SyncColumn::SyncType, "syncType" },
    { SyncColumn::EventId, "eventId", kOptional },
    { SyncColumn::ContextId, "contextId", kOptional },
    { SyncColumn::CorrelationId, "correlationId", kOptional },
    { SyncColumn::GlobalPid, "globalPid", kOptional },
} };

// CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage=true; the same columns from 2.9.1 on,
// 3.x adds streamId and the memory-pool columns, which gaplens does not read).
enum class MemoryUsageColumn { Start, DeviceId, Bytes, Address, MemoryOperationType, GlobalPid, MemKind, Count };
template <>
inline constexpr ColumnList<MemoryUsageColumn> kColumnNames<MemoryUsageColumn> = { {
    { MemoryUsageColumn::Start, "start" },
    { MemoryUsageColumn::DeviceId, "deviceId" },
    { MemoryUsageColumn::Bytes, "bytes" },
    { MemoryUsageColumn::Address, "address" },
    { MemoryUsageColumn::MemoryOperationType, "memoryOperationType" },
    { MemoryUsageColumn::GlobalPid, "globalPid", kOptional },
    { MemoryUsageColumn::MemKind, "memKind", kOptional },
} };

// CUDA_CALLCHAINS and OSRT_CALLCHAINS (one row per frame).
enum class CallchainColumn { Id, StackDepth, Symbol, Module, Count };
template <>
inline constexpr ColumnList<CallchainColumn> kColumnNames<CallchainColumn> = { {
    { CallchainColumn::Id, "id" },
    { CallchainColumn::StackDepth, "stackDepth" },
    { CallchainColumn::Symbol, "symbol" },
    { CallchainColumn::Module, "module" },
} };

// NVTX_EVENTS.
// The payload is one of the union members int64Value ... floatValue (the first non-NULL).
enum class NvtxColumn {
    Start,
    EventType,
    End,
    Text,
    TextId,
    GlobalTid,
    DomainId,
    Int64Value,
    Uint64Value,
    DoubleValue,
    Int32Value,
    Uint32Value,
    FloatValue,
    Count
};
template <>
inline constexpr ColumnList<NvtxColumn> kColumnNames<NvtxColumn> = { {
    { NvtxColumn::Start, "start" },
    { NvtxColumn::EventType, "eventType" },
    { NvtxColumn::End, "end", kOptional },
    { NvtxColumn::Text, "text", kOptional, kText },
    { NvtxColumn::TextId, "textId", kOptional },
    { NvtxColumn::GlobalTid, "globalTid", kOptional },
    { NvtxColumn::DomainId, "domainId", kOptional },
    { NvtxColumn::Int64Value, "int64Value", kOptional },
    { NvtxColumn::Uint64Value, "uint64Value", kOptional },
    { NvtxColumn::DoubleValue, "doubleValue", kOptional, kReal },
    { NvtxColumn::Int32Value, "int32Value", kOptional },
    { NvtxColumn::Uint32Value, "uint32Value", kOptional },
    { NvtxColumn::FloatValue, "floatValue", kOptional, kReal },
} };

// OSRT_API (nsys -t osrt). eventClass tells the calls (27) from the start/finish markers of
// OS runtime tracing (31, 32); callchainId is OSRT_CALLCHAINS' id of the call's stack.
enum class OsrtColumn { Start, End, GlobalTid, NameId, CallchainId, EventClass, Count };
template <>
inline constexpr ColumnList<OsrtColumn> kColumnNames<OsrtColumn> = { {
    { OsrtColumn::Start, "start" },
    { OsrtColumn::End, "end" },
    { OsrtColumn::GlobalTid, "globalTid" },
    { OsrtColumn::NameId, "nameId" },
    { OsrtColumn::CallchainId, "callchainId", kOptional },
    { OsrtColumn::EventClass, "eventClass", kOptional },
} };

// ThreadNames.
enum class ThreadNameColumn { GlobalTid, NameId, Count };
template <>
inline constexpr ColumnList<ThreadNameColumn> kColumnNames<ThreadNameColumn> = { {
    { ThreadNameColumn::GlobalTid, "globalTid" },
    { ThreadNameColumn::NameId, "nameId" },
} };

// PROCESSES.
enum class ProcessColumn { Pid, Name, Count };
template <>
inline constexpr ColumnList<ProcessColumn> kColumnNames<ProcessColumn> = { {
    { ProcessColumn::Pid, "pid" },
    { ProcessColumn::Name, "name", kRequired, kText },
} };

// TARGET_INFO_GPU.
enum class GpuColumn { Id, Name, Count };
template <>
inline constexpr ColumnList<GpuColumn> kColumnNames<GpuColumn> = { {
    { GpuColumn::Id, "id" },
    { GpuColumn::Name, "name", kRequired, kText },
} };

} // namespace gaplens::core::detail
