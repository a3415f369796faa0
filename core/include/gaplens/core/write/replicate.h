// SPDX-License-Identifier: MIT
#pragma once
// Scale tests from a real export: copy it and append shifted copies of its activity, so a
// big capture keeps a real file's shape (kernel mix, nesting, gaps, string table).
#include "gaplens/core/model/time.h"

#include <cstdint>
#include <string>

namespace gaplens::core {

struct ReplicateOptions
{
    int repeat = 2; // copies of the activity in the result (1 = a plain copy), >= 1
    TimeNs gapNs = 0; // idle time between the end of one copy and the start of the next
};

struct ReplicateResult
{
    TimeNs periodNs = 0; // time shift between consecutive copies (span + gap)
    std::uint32_t correlationPeriod = 0; // correlation-id offset between consecutive copies
    std::uint64_t rowsPerCopy = 0; // activity rows of the source
    std::uint64_t rowsAdded = 0; // (repeat - 1) * rowsPerCopy
};

// Copies `source` to `target` (replacing it; the copy is writable even if the source is not)
// and appends repeat - 1 copies of the rows of CUPTI_ACTIVITY_KIND_{KERNEL,RUNTIME,MEMCPY,
// MEMSET} and NVTX_EVENTS (domain creation/destruction excepted: a domain exists once), copy
// k shifted by k * periodNs in time and k * correlationPeriod in correlationId, so launch
// joins stay unique. periodNs = first start to last end over those tables + gapNs, so copies
// never overlap. Other tables (strings, threads, processes, metadata) are kept as they are.
// Throws std::runtime_error naming the file on I/O or SQLite errors, or when shifted
// correlation ids would not fit in 32 bits.
ReplicateResult replicateExport(const std::string &source, const std::string &target, const ReplicateOptions &options);

} // namespace gaplens::core
