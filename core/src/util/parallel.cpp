// SPDX-License-Identifier: MIT
#include "gaplens/core/util/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace gaplens::core {

unsigned threadsOrEveryCore(unsigned threads)
{
    return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

void parallelFor(std::size_t count, unsigned threads, const std::function<void(std::size_t)> &task)
{
    const auto workers = unsigned(std::min<std::size_t>(std::max(1u, threads), count));
    if (workers <= 1) {
        for (std::size_t i = 0; i < count; ++i)
            task(i);
        return;
    }
    // Each thread takes the next index when it is free: tasks of very different sizes (one
    // big report among small ones) still keep every thread busy.
    std::atomic<std::size_t> next { 0 };
    std::atomic<bool> failed { false };
    std::exception_ptr firstError;
    std::mutex errorMutex;
    auto work = [&] {
        for (std::size_t i = next++; i < count && !failed; i = next++) {
            try {
                task(i);
            } catch (...) {
                std::lock_guard lock(errorMutex);
                if (!firstError)
                    firstError = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    try {
        for (unsigned w = 1; w < workers; ++w)
            pool.emplace_back(work);
    } catch (const std::system_error &) {
        // No more threads to be had: the ones started, and this one, do all the tasks.
    }
    work();
    for (auto &t : pool)
        t.join();
    if (firstError)
        std::rethrow_exception(firstError);
}

} // namespace gaplens::core
