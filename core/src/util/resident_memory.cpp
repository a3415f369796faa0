// SPDX-License-Identifier: MIT
#include "resident_memory.h"

#include <cstdint>

#include <sys/mman.h>
#include <unistd.h>

namespace gaplens::core::detail {

void prefaultForWriting(void *begin, std::size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    // Below this a few ordinary faults cost less than the system call.
    constexpr std::size_t kMinBytes = 256 * 1024;
    if (bytes < kMinBytes)
        return;
    static const auto pageSize = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const auto first = (reinterpret_cast<std::uintptr_t>(begin) + pageSize - 1) & ~(pageSize - 1);
    const auto last = (reinterpret_cast<std::uintptr_t>(begin) + bytes) & ~(pageSize - 1);
    if (last > first) {
#ifdef MADV_HUGEPAGE
        // 2 MiB pages: one fault and one TLB entry per 512 small pages. Loads measured ~8%
        // faster (fewer faults), and analyses that jump around the columns miss the TLB less.
        madvise(reinterpret_cast<void *>(first), last - first, MADV_HUGEPAGE);
#endif
        madvise(reinterpret_cast<void *>(first), last - first, MADV_POPULATE_WRITE); // a hint: failure is harmless
    }
#else
    (void)begin;
    (void)bytes;
#endif
}

} // namespace gaplens::core::detail
