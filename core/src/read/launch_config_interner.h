// SPDX-License-Identifier: MIT
#pragma once
// The reader's index of one stream's distinct launch configurations (KernelColumns::launchConfigs).
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace gaplens::core::detail {

class LaunchConfigInterner
{
public:
    // The index of `config` in `configs`, appended when it is new.
    std::uint32_t indexOf(const LaunchConfig &config, std::vector<LaunchConfig> &configs)
    {
        // Launches of one kernel often follow each other: the last one is tried first.
        if (m_last != kNoIndex && configs[m_last] == config)
            return m_last;
        const auto [it, inserted] = m_index.try_emplace(config, std::uint32_t(configs.size()));
        if (inserted)
            configs.push_back(config);
        return m_last = it->second;
    }

private:
    struct Hash
    {
        std::size_t operator()(const LaunchConfig &c) const
        {
            std::uint64_t h = 0;
            for (const std::uint64_t v : { std::uint64_t(c.gridX) << 32 | c.gridY,
                     std::uint64_t(c.gridZ) << 32 | std::uint64_t(c.blockX) << 16 | c.blockY,
                     std::uint64_t(c.blockZ) << 16 | c.registersPerThread,
                     std::uint64_t(c.staticSharedMemory) << 32 | c.dynamicSharedMemory })
                h = (h ^ v) * 0x9E3779B97F4A7C15ull;
            return std::size_t(h ^ (h >> 29));
        }
    };
    std::unordered_map<LaunchConfig, std::uint32_t, Hash> m_index;
    std::uint32_t m_last = kNoIndex;
};

} // namespace gaplens::core::detail
