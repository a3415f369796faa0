// SPDX-License-Identifier: MIT
#pragma once
// A PartsReduction over threads, one thread per part, for testing analyses computed in parts
// without MPI: each collective call waits for every part, combines their arrays, and waits
// again before the next call may reuse the exchange.
#include "gaplens/core/analysis/parts_reduction.h"

#include <algorithm>
#include <barrier>
#include <functional>
#include <set>
#include <thread>
#include <vector>

namespace gaplens::test {

class ThreadParts
{
public:
    explicit ThreadParts(std::size_t parts)
        : m_barrier(std::ptrdiff_t(parts))
        , m_slots(parts)
    {
    }

    // Runs work(part, reduction) on one thread per part and waits for them all.
    void run(const std::function<void(std::size_t, const core::PartsReduction &)> &work)
    {
        std::vector<Part> parts;
        for (std::size_t p = 0; p < m_slots.size(); ++p)
            parts.emplace_back(*this, p);
        std::vector<std::jthread> threads;
        for (std::size_t p = 0; p < parts.size(); ++p)
            threads.emplace_back([&, p] { work(p, parts[p]); });
    }

private:
    class Part : public core::PartsReduction
    {
    public:
        Part(ThreadParts &all, std::size_t index)
            : m_all(all)
            , m_index(index)
        {
        }
        std::vector<std::string> unionOfKeys(const std::vector<std::string> &keys) const override
        {
            std::vector<std::string> out;
            m_all.combine(m_index, keys, out, [](std::vector<std::string> &acc, const std::vector<std::string> &more) {
                std::set<std::string> all(acc.begin(), acc.end());
                all.insert(more.begin(), more.end());
                acc.assign(all.begin(), all.end());
            });
            return out;
        }
        void sum(std::vector<std::uint64_t> &values) const override { elementWise(values, std::plus<>()); }
        void sum(std::vector<core::UInt128> &values) const override { elementWise(values, std::plus<>()); }
        void min(std::vector<core::TimeNs> &values) const override
        {
            elementWise(values, [](core::TimeNs a, core::TimeNs b) { return std::min(a, b); });
        }
        void max(std::vector<core::TimeNs> &values) const override
        {
            elementWise(values, [](core::TimeNs a, core::TimeNs b) { return std::max(a, b); });
        }

    private:
        template <typename T, typename Op> void elementWise(std::vector<T> &values, Op op) const
        {
            const std::vector<T> mine = values;
            m_all.combine(m_index, mine, values, [&](std::vector<T> &acc, const std::vector<T> &more) {
                for (std::size_t i = 0; i < acc.size(); ++i)
                    acc[i] = op(acc[i], more[i]);
            });
        }
        ThreadParts &m_all;
        std::size_t m_index;
    };

    // Every part publishes its array, reads all of them into `out` (first part's, then the
    // others folded in by `fold`), and waits until all have read.
    template <typename T, typename Fold>
    void combine(std::size_t index, const std::vector<T> &mine, std::vector<T> &out, Fold fold)
    {
        m_slots[index] = &mine;
        m_barrier.arrive_and_wait();
        out = *static_cast<const std::vector<T> *>(m_slots[0]);
        if constexpr (std::is_same_v<T, std::string>)
            fold(out, {}); // sorted and unique even for one part
        for (std::size_t p = 1; p < m_slots.size(); ++p)
            fold(out, *static_cast<const std::vector<T> *>(m_slots[p]));
        m_barrier.arrive_and_wait();
    }

    std::barrier<> m_barrier;
    std::vector<const void *> m_slots;
};

} // namespace gaplens::test
