// SPDX-License-Identifier: MIT
#pragma once
#include <cstddef>
#include <vector>

namespace gaplens::core::detail {

// Maps the pages of [begin, begin + bytes) in one system call before they are written.
// Touching fresh memory page by page costs one page fault per 4 KiB; on virtual machines
// each fault is several microseconds, which made faulting in the columns the largest single
// cost of a load (see docs/PERFORMANCE.md). Small ranges and kernels without
// MADV_POPULATE_WRITE (before Linux 5.14) are left to ordinary faults.
void prefaultForWriting(void *begin, std::size_t bytes);

// Grows `column` to hold `capacity` elements in memory that is already mapped: a new buffer
// is prefaulted before the old elements are copied in, so neither the copy nor later
// push_backs fault page by page.
template <typename T, typename Allocator> void reserveResident(std::vector<T, Allocator> &column, std::size_t capacity)
{
    if (capacity <= column.capacity())
        return;
    std::vector<T, Allocator> grown;
    grown.reserve(capacity);
    prefaultForWriting(grown.data(), capacity * sizeof(T));
    grown.insert(grown.end(), column.begin(), column.end());
    column.swap(grown);
}

} // namespace gaplens::core::detail
