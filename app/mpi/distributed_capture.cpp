// SPDX-License-Identifier: MIT
#include "distributed_capture.h"
#include "wire.h"

#include "gaplens/core/read/loader.h"
#include "gaplens/core/read/rank_identity.h"
#include "gaplens/core/read/work_division.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace gaplens::mpi {
namespace {

using Json = nlohmann::json;

// Row counts of every file, each process counting its share (count(*) reads a table's
// pages, so one process counting all of them would read every file once more).
std::vector<std::uint64_t> rowCounts(const World &world, const std::vector<std::string> &files, core::TableSet tables)
{
    Json mine = Json::array();
    for (std::size_t f = std::size_t(world.rank()); f < files.size(); f += std::size_t(world.size()))
        mine.push_back(core::estimateLoad({ files[f] }, tables).rows);
    std::vector<std::uint64_t> rows(files.size(), 0);
    const auto all = world.allGather(pack(mine));
    for (std::size_t p = 0; p < all.size(); ++p) {
        const auto counted = unpack(all[p]);
        for (std::size_t i = 0; i < counted.size(); ++i)
            rows[p + i * all.size()] = counted[i].get<std::uint64_t>();
    }
    return rows;
}

struct GlobalCandidate
{
    std::size_t file = 0; // index into the capture's files
    int process = 0;
    std::size_t localOrder = 0;
    core::RankCandidate candidate;
};

Json candidateJson(const core::RankCandidate &c, std::size_t file)
{
    Json out { { "file", file }, { "pid", c.pid }, { "several", c.oneOfSeveralProcesses } };
    if (c.environmentRank)
        out["env"] = { c.environmentRank->first, c.environmentRank->second };
    return out;
}

// The decideRanks of LoadOptions: every process's candidates, in the capture's file order,
// go through assignRanks, and each process takes its own assignments back.
class RankDecision
{
public:
    RankDecision(const World &world, const std::vector<std::string> &files, const std::vector<std::size_t> &mine,
        const std::vector<core::RankOverride> &overrides)
        : m_world(world)
        , m_files(files)
        , m_mine(mine)
        , m_overrides(overrides)
    {
    }

    std::vector<core::RankAssignment> decide(
        const std::vector<core::RankCandidate> &local, std::vector<std::string> &warnings)
    {
        m_decided = true;
        Json mine = Json::array();
        for (const auto &c : local)
            mine.push_back(candidateJson(c, fileIndex(c.path)));
        std::vector<GlobalCandidate> global;
        const auto all = m_world.allGather(pack(mine));
        for (std::size_t p = 0; p < all.size(); ++p) {
            const auto list = unpack(all[p]);
            for (std::size_t i = 0; i < list.size(); ++i) {
                const auto &c = list[i];
                GlobalCandidate g { c["file"].get<std::size_t>(), int(p), i, {} };
                g.candidate.path = m_files[g.file];
                g.candidate.report = std::uint32_t(g.file);
                g.candidate.pid = c["pid"].get<std::uint32_t>();
                g.candidate.oneOfSeveralProcesses = c["several"].get<bool>();
                if (c.contains("env"))
                    g.candidate.environmentRank
                        = std::pair { c["env"][0].get<std::int32_t>(), c["env"][1].get<std::string>() };
                global.push_back(std::move(g));
            }
        }
        // gaplens-cli lists candidates by report in input order, then as the report lists them.
        std::stable_sort(global.begin(), global.end(),
            [](const GlobalCandidate &a, const GlobalCandidate &b) { return a.file < b.file; });
        std::vector<core::RankCandidate> candidates;
        for (const auto &g : global)
            candidates.push_back(g.candidate);
        m_global = core::assignRanks(candidates, m_overrides, m_warnings);
        warnings.insert(warnings.end(), m_warnings.begin(), m_warnings.end());
        m_candidates = std::move(global);

        std::vector<core::RankAssignment> own(local.size());
        for (std::size_t i = 0; i < m_candidates.size(); ++i)
            if (m_candidates[i].process == m_world.rank())
                own[m_candidates[i].localOrder] = m_global[i];
        return own;
    }

    // A process whose load ended before deciding (no file of its own, or one too large for
    // memory) still takes part, with no candidates, so that no process waits for it.
    void decideIfNotYet()
    {
        if (!m_decided) {
            std::vector<std::string> ignored;
            decide({}, ignored);
        }
    }

    // The whole capture's warnings about its ranks (duplicates, unmatched overrides).
    const std::vector<std::string> &warnings() const { return m_warnings; }

    // Global rank order: the candidates stably sorted by rank number, as the loader sorts ranks.
    // For each process, its local rank index -> global rank index.
    std::vector<std::vector<std::uint32_t>> globalRankIndices() const
    {
        std::vector<std::size_t> order(m_candidates.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return m_global[a].rank < m_global[b].rank; });
        std::vector<std::vector<std::uint32_t>> out(std::size_t(m_world.size()));
        for (std::size_t g = 0; g < order.size(); ++g)
            out[std::size_t(m_candidates[order[g]].process)].push_back(std::uint32_t(g));
        return out;
    }

private:
    std::size_t fileIndex(const std::string &path) const
    {
        for (const auto f : m_mine)
            if (m_files[f] == path)
                return f;
        throw std::logic_error("a rank candidate of a file this process did not load: " + path);
    }

    const World &m_world;
    const std::vector<std::string> &m_files;
    const std::vector<std::size_t> &m_mine;
    std::vector<core::RankOverride> m_overrides;
    bool m_decided = false;
    std::vector<GlobalCandidate> m_candidates;
    std::vector<core::RankAssignment> m_global;
    std::vector<std::string> m_warnings;
};

// What the root needs of a process's part to name the whole capture.
Json partJson(const core::TraceSet &trace)
{
    Json reports = Json::array(), errors = Json::array(), ranks = Json::array();
    for (const auto &r : trace.reports)
        reports.push_back(
            { { "path", r.path }, { "host", r.host }, { "schema", r.schemaVersion }, { "product", r.productVersion } });
    for (const auto &e : trace.errors)
        errors.push_back({ { "path", e.path }, { "message", e.message } });
    for (const auto &r : trace.ranks)
        ranks.push_back({ { "rank", r.rank }, { "report", trace.reports[r.report].path }, { "pid", r.pid },
            { "process", r.processName }, { "host", r.host }, { "source", int(r.source) }, { "detail", r.sourceDetail },
            { "span", { r.span.start, r.span.end } } });
    // A GPU's streams' ranks: the loader orders GPUs by the first of them, then device id.
    Json gpus = Json::array();
    for (const auto &g : trace.gpus) {
        std::set<std::uint32_t> streamRanks;
        for (const auto &stream : g.streams)
            streamRanks.insert(stream.rank);
        gpus.push_back({ { "device", g.deviceId }, { "name", g.name }, { "report", trace.reports[g.report].path },
            { "ranks", g.ranks }, { "stream_ranks", streamRanks } });
    }
    return { { "reports", reports }, { "errors", errors }, { "ranks", ranks }, { "gpus", gpus },
        { "span", { trace.span.start, trace.span.end } } };
}

// A GPU of the skeleton, with what orders it as the whole capture's loader does: its first
// rank (global), device id, file, and its place in its process's part.
struct SkeletonGpu
{
    std::uint32_t firstRank;
    std::int32_t deviceId;
    std::size_t file, process, local;
    core::Gpu gpu;
};

// Every GPU without events (device, name, report, ranks), in the loader's order, and each
// rank's GPUs; and each process's local GPU index -> the skeleton's.
void addGpus(std::vector<SkeletonGpu> gpus, const std::map<std::size_t, std::uint32_t> &reportOfFile,
    core::TraceSet &skeleton, std::vector<std::vector<std::uint32_t>> &globalGpu)
{
    std::sort(gpus.begin(), gpus.end(), [](const SkeletonGpu &a, const SkeletonGpu &b) {
        return std::tie(a.firstRank, a.deviceId, a.file, a.local) < std::tie(b.firstRank, b.deviceId, b.file, b.local);
    });
    for (auto &g : gpus) {
        if (globalGpu[g.process].size() <= g.local)
            globalGpu[g.process].resize(g.local + 1, core::kNoIndex);
        globalGpu[g.process][g.local] = std::uint32_t(skeleton.gpus.size());
        g.gpu.report = reportOfFile.at(g.file);
        skeleton.gpus.push_back(std::move(g.gpu));
    }
    // Each rank's GPUs, as the trace builder lists them: ascending, from the GPUs' ranks.
    for (std::uint32_t g = 0; g < skeleton.gpus.size(); ++g)
        for (const auto r : skeleton.gpus[g].ranks)
            skeleton.ranks.at(r).gpus.push_back(g);
}

} // namespace

DistributedCapture loadDistributed(
    const World &world, const cli::Options &options, const std::vector<std::string> &inputs, core::TableSet tables)
{
    std::vector<core::LoadError> inputErrors;
    const auto files = core::expandInputs(inputs, inputErrors);
    const auto rows = rowCounts(world, files, tables);
    const auto division = core::divideFiles(rows, std::size_t(world.size()));
    const auto &mine = division[std::size_t(world.rank())];

    RankDecision decision(world, files, mine, options.rankOverrides);
    core::LoadOptions load;
    for (const auto f : mine)
        load.files.push_back(files[f]);
    load.tables = tables;
    load.threads = options.threads;
    load.memoryLimitBytes = options.maxMemoryBytes;
    load.decideRanks = [&](const std::vector<core::RankCandidate> &local, std::vector<std::string> &warnings) {
        return decision.decide(local, warnings);
    };
    DistributedCapture capture;
    capture.files = mine.size();
    for (const auto f : mine)
        capture.rows += rows[f];
    capture.local = core::loadTraceSet(load);
    decision.decideIfNotYet();
    for (const auto &error : capture.local->errors)
        std::fprintf(stderr, "gaplens-mpi: error: %s\n", error.message.c_str());

    const auto parts = world.gatherToRoot(pack(partJson(*capture.local)));
    if (!world.isRoot())
        return capture;

    // The skeleton: what gaplens-cli's trace holds, in its order, for everything printed.
    std::map<std::string, std::size_t> fileOf;
    for (std::size_t f = 0; f < files.size(); ++f)
        fileOf.try_emplace(files[f], f);
    auto skeleton = std::make_shared<core::TraceSet>();
    skeleton->errors = inputErrors;
    skeleton->warnings = decision.warnings(); // also when the root's own load ended before deciding
    std::vector<std::pair<std::size_t, core::Report>> reports;
    std::vector<std::pair<std::size_t, core::LoadError>> errors;
    std::vector<std::pair<std::size_t, core::Rank>> ranks; // (global rank index, rank)
    std::vector<SkeletonGpu> gpus;
    const auto globalRank = decision.globalRankIndices();
    core::TimeNs spanStart = std::numeric_limits<core::TimeNs>::max(),
                 spanEnd = std::numeric_limits<core::TimeNs>::min();
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const auto part = unpack(parts[p]);
        for (const auto &r : part["reports"]) {
            core::Report report;
            report.path = r["path"].get<std::string>();
            report.host = r["host"].get<std::string>();
            report.schemaVersion = r["schema"].get<std::string>();
            report.productVersion = r["product"].get<std::string>();
            reports.emplace_back(fileOf.at(report.path), std::move(report));
        }
        for (const auto &e : part["errors"]) {
            core::LoadError error { e["path"].get<std::string>(), e["message"].get<std::string>() };
            const auto it = fileOf.find(error.path);
            errors.emplace_back(it == fileOf.end() ? files.size() : it->second, std::move(error));
        }
        for (std::size_t i = 0; i < part["ranks"].size(); ++i) {
            const auto &r = part["ranks"][i];
            core::Rank rank;
            rank.rank = r["rank"].get<std::int32_t>();
            rank.report = std::uint32_t(fileOf.at(r["report"].get<std::string>())); // a file index until below
            rank.pid = r["pid"].get<std::uint32_t>();
            rank.processName = r["process"].get<std::string>();
            rank.host = r["host"].get<std::string>();
            rank.source = core::RankSource(r["source"].get<int>());
            rank.sourceDetail = r["detail"].get<std::string>();
            rank.span = { r["span"][0].get<core::TimeNs>(), r["span"][1].get<core::TimeNs>() };
            ranks.emplace_back(globalRank[p].at(i), std::move(rank));
        }
        for (std::size_t i = 0; i < part["gpus"].size(); ++i) {
            const auto &g = part["gpus"][i];
            auto global = [&](const Json &local) {
                const auto rank = local.get<std::uint32_t>();
                return rank == core::kNoIndex ? rank : globalRank[p].at(rank);
            };
            std::uint32_t firstRank = core::kNoIndex;
            for (const auto &r : g["stream_ranks"])
                firstRank = std::min(firstRank, global(r));
            core::Gpu gpu;
            gpu.deviceId = g["device"].get<std::int32_t>();
            gpu.name = g["name"].get<std::string>();
            for (const auto &r : g["ranks"])
                gpu.ranks.push_back(global(r));
            std::sort(gpu.ranks.begin(), gpu.ranks.end());
            gpus.push_back(
                { firstRank, gpu.deviceId, fileOf.at(g["report"].get<std::string>()), p, i, std::move(gpu) });
        }
        // An empty part's span is {0, 0}, as TraceSet::span says of a capture without events.
        const core::TimeRange span { part["span"][0].get<core::TimeNs>(), part["span"][1].get<core::TimeNs>() };
        if (span != core::TimeRange {}) {
            spanStart = std::min(spanStart, span.start);
            spanEnd = std::max(spanEnd, span.end);
        }
    }
    auto byFirst = [](const auto &a, const auto &b) { return a.first < b.first; };
    std::stable_sort(reports.begin(), reports.end(), byFirst);
    std::stable_sort(errors.begin(), errors.end(), byFirst);
    std::sort(ranks.begin(), ranks.end(), byFirst);
    std::map<std::size_t, std::uint32_t> reportOfFile;
    for (auto &[file, report] : reports) {
        reportOfFile[file] = std::uint32_t(skeleton->reports.size());
        skeleton->reports.push_back(std::move(report));
    }
    for (auto &[file, error] : errors)
        skeleton->errors.push_back(std::move(error));
    for (auto &[index, rank] : ranks) {
        rank.report = reportOfFile.at(rank.report);
        skeleton->ranks.push_back(std::move(rank));
    }
    capture.globalGpu.resize(parts.size());
    addGpus(std::move(gpus), reportOfFile, *skeleton, capture.globalGpu);
    if (spanStart <= spanEnd)
        skeleton->span = { spanStart, spanEnd };
    capture.skeleton = std::move(skeleton);
    capture.globalRank = globalRank;
    return capture;
}

} // namespace gaplens::mpi
