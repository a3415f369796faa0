// SPDX-License-Identifier: MIT
#include "overlap_parts.h"
#include "wire.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

// Every figure is an integer but the hidden percentage, a double CBOR keeps bit for bit.
Json packRow(const core::OverlapRow &row)
{
    Json collectives = Json::array();
    for (const auto &c : row.collectives)
        collectives.push_back({ int(c.type), c.calls, c.totalNs });
    return { row.rank, row.gpu, row.commKernels, row.computeKernels, row.commNs, row.computeNs, row.overlapNs,
        row.exposedCommNs, row.hiddenPercent, std::move(collectives) };
}

core::OverlapRow unpackRow(const Json &packed, std::uint32_t rank, std::uint32_t gpu)
{
    core::OverlapRow row;
    row.rank = rank;
    row.gpu = gpu;
    row.commKernels = packed[2].get<std::uint64_t>();
    row.computeKernels = packed[3].get<std::uint64_t>();
    row.commNs = packed[4].get<core::TimeNs>();
    row.computeNs = packed[5].get<core::TimeNs>();
    row.overlapNs = packed[6].get<core::TimeNs>();
    row.exposedCommNs = packed[7].get<core::TimeNs>();
    row.hiddenPercent = packed[8].get<double>();
    for (const auto &c : packed[9])
        row.collectives.push_back(
            { core::CollectiveType(c[0].get<int>()), c[1].get<std::uint64_t>(), c[2].get<core::TimeNs>() });
    return row;
}

// A rank's communication kernels: their starts, and their names as text (string ids are this
// process's), each name once.
Json packCommunication(const core::TraceSet &trace, const core::RankCommunication &comm)
{
    std::map<core::StringId, std::size_t> nameIndex;
    Json names = Json::array(), starts = Json::array(), nameOf = Json::array();
    for (const auto &kernel : comm.kernels) {
        const auto [it, added] = nameIndex.try_emplace(kernel.name, names.size());
        if (added)
            names.push_back(trace.str(kernel.name));
        starts.push_back(kernel.start);
        nameOf.push_back(it->second);
    }
    return { comm.rank, comm.lastEnd, std::move(names), std::move(starts), std::move(nameOf) };
}

core::RankCommunication unpackCommunication(const Json &packed, std::uint32_t rank, core::StringPool &strings)
{
    core::RankCommunication comm;
    comm.rank = rank;
    comm.lastEnd = packed[1].get<core::TimeNs>();
    std::vector<core::StringId> names;
    for (const auto &name : packed[2])
        names.push_back(strings.intern(name.get<std::string>()));
    const auto &starts = packed[3];
    const auto &nameOf = packed[4];
    for (std::size_t i = 0; i < starts.size(); ++i)
        comm.kernels.push_back({ starts[i].get<core::TimeNs>(), names.at(nameOf[i].get<std::size_t>()) });
    return comm;
}

} // namespace

std::string packOverlapPart(const core::TraceSet &trace, const core::OverlapPart &part)
{
    Json rows = Json::array(), communication = Json::array();
    for (const auto &row : part.rows)
        rows.push_back(packRow(row));
    for (const auto &comm : part.communication)
        communication.push_back(packCommunication(trace, comm));
    return pack(Json { std::move(rows), std::move(communication) });
}

core::OverlapReport finishOverlapParts(const DistributedCapture &capture, const std::vector<std::string> &parts)
{
    auto &skeleton = *capture.skeleton;
    core::OverlapPart whole;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const auto part = unpack(parts[p]);
        for (const auto &row : part[0]) {
            const auto rank = row[0].get<std::uint32_t>();
            whole.rows.push_back(unpackRow(row, rank == core::kNoIndex ? rank : capture.globalRank[p].at(rank),
                capture.globalGpu[p].at(row[1].get<std::uint32_t>())));
        }
        for (const auto &comm : part[1])
            whole.communication.push_back(
                unpackCommunication(comm, capture.globalRank[p].at(comm[0].get<std::uint32_t>()), skeleton.strings));
    }
    // The whole capture's order: by rank (work of no rank last), then GPU.
    std::sort(whole.rows.begin(), whole.rows.end(),
        [](const auto &a, const auto &b) { return std::tie(a.rank, a.gpu) < std::tie(b.rank, b.gpu); });
    return core::finishOverlap(std::move(whole), skeleton.ranks.size(), skeleton.strings);
}

} // namespace gaplens::mpi
