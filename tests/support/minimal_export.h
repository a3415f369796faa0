// SPDX-License-Identifier: MIT
#pragma once
// The SQL of small hand-written exports, shared by the reader's tests. Each test keeps what
// it varies (a table's column order, extra rows, a page size) in its own file.
#include "gaplens/core/model/trace.h"

#include <QTemporaryDir>

#include <cstdint>
#include <string>

namespace gaplens::test {

// META_DATA_EXPORT with the schema version and TARGET_INFO_SESSION_START_TIME with the
// session start (utcEpochNs): the two tables that make a file an export.
std::string exportHeadSql(const std::string &schemaVersion = "3.25.0", std::int64_t sessionStartNs = 1000000000);

// exportHeadSql() and the StringIds of the minimal export: 1 'gemm', 2 'cudaLaunchKernel_v7000',
// 3 'step'.
std::string minimalExportHeadSql();

// The minimal export's one runtime call (50 to 60 ns, correlation 5, thread 42 of pid 42,
// name 2) and its one NVTX push/pop range (40 to 300 ns, textId 3) on the same thread.
std::string minimalLaunchAndRangeSql();

// A minimal but valid export: one kernel "gemm" (device 0, stream 7, 100 to 200 ns,
// correlation 5, pid 42) launched by the runtime call under the NVTX range above.
std::string minimalExportSql();

// CUDA_GPU_MEMORY_USAGE_EVENTS as nsys 3.x creates it (schema 3.25: the 2.9.1 columns, then
// the memory-pool columns and streamId), without rows.
std::string memoryUsageTableSql();

// Creates `name` in the temporary folder from `sql`; returns its path.
std::string writeExportIn(const QTemporaryDir &dir, const std::string &name, const std::string &sql);

// For a bad file loaded together with a good one: the trace has exactly one error, for
// `bad`, whose message names it and contains `expectedPhrase`; the good file is the first
// report, with one GPU. A message with a path of thousands of characters is shown shortened.
// Reports with QVERIFY/QCOMPARE: the caller checks QTest::currentTestFailed().
void checkOneErrorBesideGood(
    const core::TraceSet &trace, const std::string &bad, const std::string &good, const char *expectedPhrase);

} // namespace gaplens::test
