// SPDX-License-Identifier: MIT
#pragma once
// A report's columns as bytes and back (the report cache's payload). Every field of ReportData
// is listed once, in visitReport, for the three passes that walk it: collecting the names it
// uses, writing and reading. Columns are written as they are in memory (host byte order: the
// cache never leaves the machine); names as indices into the entry's own string table, mapped
// to the reading process's pool on the way in.
#include "report_reader.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>

namespace gaplens::core::detail {

// A payload that does not decode (it passed its checksum, so only a bug or a collision gets here).
class CorruptEntry : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// Where a payload's bytes go, in order (the cache writes them to its file and its checksum).
using ByteSink = std::function<void(const void *bytes, std::size_t size)>;

// Hands `data`'s payload to `sink`, its names first. The nesting of each of its tracks already
// in final order is built into `data` on the way (finalizeTraceSet keeps it).
void writeReportPayload(const ByteSink &sink, ReportData &data, const StringPool &strings);

// Decodes a payload written by writeReportPayload, interning its names into `strings`.
// `payload` starts at an 8-byte boundary (its columns are aligned from there and read in place).
// With a `mapping` (what keeps `payload` mapped, privately and writable), the model's columns
// (model/column.h) view the payload instead of copying it; names are always copied (they are
// renumbered into `strings`). Throws CorruptEntry when the bytes do not decode.
ReportData readReportPayload(
    std::span<const std::byte> payload, StringPool &strings, std::shared_ptr<const void> mapping = {});

// Whether writeReportPayload can keep `data` exactly: a whole, finished read (no error, the
// OS runtime calls attached, no nesting built yet).
bool isCacheable(const ReportData &data);

} // namespace gaplens::core::detail
