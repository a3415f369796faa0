// SPDX-License-Identifier: MIT
#pragma once
// A flag a long computation polls to stop early (loading, deriving a capture).
#include <atomic>

namespace gaplens::core {

class CancelToken
{
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return m_cancelled.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled { false };
};

} // namespace gaplens::core
