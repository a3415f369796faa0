// SPDX-License-Identifier: MIT
#pragma once
#include <cstddef>
#include <functional>

namespace gaplens::core {

// Runs task(0) .. task(count - 1) on up to `threads` threads, the calling thread one of them
// (threads 0 or 1: all on the calling thread). Tasks must be independent; each stores its
// result by its index, so results keep their order whichever thread ran them.
// The first exception a task throws stops tasks from starting and is rethrown once the
// tasks already running have returned.
void parallelFor(std::size_t count, unsigned threads, const std::function<void(std::size_t)> &task);

// What a --threads of 0 (the default) means everywhere: every core the machine reports.
unsigned threadsOrEveryCore(unsigned threads);

} // namespace gaplens::core
