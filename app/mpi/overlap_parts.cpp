// SPDX-License-Identifier: MIT
#include "overlap_parts.h"
#include "wire.h"

#include <algorithm>
#include <map>
#include <optional>
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
    std::vector<core::OverlapPart> unpacked(parts.size());
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const auto part = unpack(parts[p]);
        for (const auto &row : part[0]) {
            const auto rank = row[0].get<std::uint32_t>();
            unpacked[p].rows.push_back(unpackRow(row, rank == core::kNoIndex ? rank : capture.globalRank[p].at(rank),
                capture.globalGpu[p].at(row[1].get<std::uint32_t>())));
        }
        for (const auto &comm : part[1])
            unpacked[p].communication.push_back(
                unpackCommunication(comm, capture.globalRank[p].at(comm[0].get<std::uint32_t>()), skeleton.strings));
    }
    // A file's time shards are on consecutive processes, in shard order.
    return core::finishOverlap(core::joinOverlapParts(std::move(unpacked)), skeleton.ranks.size(), skeleton.strings);
}

core::OverlapCarries exchangeOverlapCarries(const World &world, const DistributedCapture &capture)
{
    if (!capture.timeShards) // the same on every process: all take part in the exchange, or none
        return {};
    const auto &trace = *capture.local;
    auto reportOf = [&](const core::WorkPiece &piece) -> std::optional<std::uint32_t> {
        for (std::uint32_t r = 0; r < trace.reports.size(); ++r)
            if (capture.reportFile[r] == piece.file)
                return r;
        return std::nullopt; // the file failed to load
    };
    auto optionalTime = [](const std::optional<core::TimeNs> &t) { return t ? Json(*t) : Json(nullptr); };
    Json mine = Json::array();
    for (const auto &piece : capture.pieces) {
        const auto report = reportOf(piece);
        if (piece.isWholeFile() || !report)
            continue;
        Json rows = Json::array();
        for (const auto &[row, carry] : core::overlapCarries(trace, *report))
            rows.push_back({ trace.gpus[row.second].deviceId,
                row.first == core::kNoIndex ? row.first : capture.localToGlobalRank.at(row.first),
                optionalTime(carry.commUntil), optionalTime(carry.computeUntil) });
        mine.push_back({ piece.file, piece.firstShard, std::move(rows) });
    }
    auto later = [](std::optional<core::TimeNs> &until, const Json &time) {
        if (!time.is_null())
            until = std::max(until.value_or(time.get<core::TimeNs>()), time.get<core::TimeNs>());
    };
    core::OverlapCarries carries;
    for (const auto &part : world.allGather(pack(mine)))
        for (const auto &shard : unpack(part))
            for (const auto &piece : capture.pieces) {
                const auto report = reportOf(piece);
                if (piece.isWholeFile() || !report || shard[0].get<std::size_t>() != piece.file
                    || shard[1].get<std::size_t>() >= piece.firstShard)
                    continue;
                for (const auto &row : shard[2]) {
                    // The shard's GPU of that device, and its rank of that global rank.
                    std::uint32_t gpu = 0;
                    while (gpu < trace.gpus.size()
                        && (trace.gpus[gpu].report != *report
                            || trace.gpus[gpu].deviceId != row[0].get<std::int32_t>()))
                        ++gpu;
                    auto rank = row[1].get<std::uint32_t>();
                    if (rank != core::kNoIndex) {
                        const auto &global = capture.localToGlobalRank;
                        rank = std::uint32_t(std::find(global.begin(), global.end(), rank) - global.begin());
                    }
                    // Every shard of a file names its GPUs and ranks: a miss would be a row of no shard's.
                    if (gpu == trace.gpus.size()
                        || (rank != core::kNoIndex && rank == capture.localToGlobalRank.size()))
                        continue;
                    auto &carry = carries[{ rank, gpu }];
                    later(carry.commUntil, row[2]);
                    later(carry.computeUntil, row[3]);
                }
            }
    return carries;
}

} // namespace gaplens::mpi
