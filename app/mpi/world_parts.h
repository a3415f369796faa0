// SPDX-License-Identifier: MIT
#pragma once
// core's PartsReduction over the processes of the MPI job: an analysis computed in parts
// (core/analysis/parts_reduction.h) combines its processes' figures through these collectives.
#include "mpi_world.h"
#include "wire.h"

#include "gaplens/core/analysis/parts_reduction.h"

#include <algorithm>
#include <set>

namespace gaplens::mpi {

class WorldParts : public core::PartsReduction
{
public:
    explicit WorldParts(const World &world)
        : m_world(world)
    {
    }
    std::vector<std::string> unionOfKeys(const std::vector<std::string> &keys) const override
    {
        // Through the root, which sends back only the union (not every process's list).
        std::set<std::string> all;
        for (const auto &part : m_world.gatherToRoot(pack(nlohmann::json(keys))))
            for (const auto &key : unpack(part))
                all.insert(key.get<std::string>());
        return unpack(m_world.broadcastFromRoot(pack(nlohmann::json(all)))).get<std::vector<std::string>>();
    }
    void sum(std::vector<std::uint64_t> &values) const override { m_world.allReduceSum(values); }
    void sum(std::vector<core::UInt128> &values) const override { m_world.allReduceSum(values); }
    void min(std::vector<core::TimeNs> &values) const override { m_world.allReduceMin(values); }
    void max(std::vector<core::TimeNs> &values) const override { m_world.allReduceMax(values); }

private:
    const World &m_world;
};

} // namespace gaplens::mpi
