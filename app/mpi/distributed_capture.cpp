// SPDX-License-Identifier: MIT
#include "distributed_capture.h"
#include "wire.h"

#include "gaplens/core/analysis/gap_shards.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/read/rank_identity.h"
#include "gaplens/core/read/work_division.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
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
    std::size_t inFile = 0; // its place among its file's candidates
    core::RankCandidate candidate;
    // The processes that read the file (one, or one per block of its time shards), with the
    // candidate's place among each one's candidates.
    std::vector<std::pair<int, std::size_t>> holders;
};

// The input file of each of a process's reports, or of its load errors, in load order: the k-th
// naming a path is the k-th of the process's pieces reading that path (a file given twice is
// two pieces, loaded in piece order, and a file that fails fails as each); an error of no
// piece: files.size().
std::vector<std::size_t> filesInLoadOrder(const std::vector<std::string> &paths,
    const std::vector<core::WorkPiece> &pieces, const std::vector<std::string> &files)
{
    std::map<std::string, std::size_t> named; // path -> how many of `paths` named it so far
    std::vector<std::size_t> out;
    for (const auto &path : paths) {
        const auto k = named[path]++;
        std::size_t seen = 0, file = files.size();
        for (const auto &piece : pieces)
            if (files[piece.file] == path && seen++ == k) {
                file = piece.file;
                break;
            }
        out.push_back(file);
    }
    return out;
}

std::vector<std::size_t> filesOfReports(
    const core::TraceSet &trace, const std::vector<core::WorkPiece> &pieces, const std::vector<std::string> &files)
{
    std::vector<std::string> paths;
    for (const auto &report : trace.reports)
        paths.push_back(report.path);
    return filesInLoadOrder(paths, pieces, files);
}

Json candidateJson(const core::RankCandidate &c, std::size_t file)
{
    Json out { { "file", file }, { "pid", c.pid }, { "several", c.oneOfSeveralProcesses } };
    if (c.environmentRank)
        out["env"] = { c.environmentRank->first, c.environmentRank->second };
    return out;
}

// The decideRanks of LoadOptions: every process's candidates, in the capture's file order,
// go through assignRanks, and each process takes its own assignments back. A file read in
// time shards by several processes is one report: its first shard's process (`primary`)
// speaks for it, and the others, which see the same candidates (a shard's rank candidates are
// a full read's), take the same assignments.
class RankDecision
{
public:
    RankDecision(const World &world, const std::vector<std::string> &files, const std::vector<core::WorkPiece> &pieces,
        const std::vector<int> &primary, const std::vector<core::RankOverride> &overrides)
        : m_world(world)
        , m_files(files)
        , m_pieces(pieces)
        , m_primary(primary)
        , m_overrides(overrides)
    {
    }

    std::vector<core::RankAssignment> decide(
        const std::vector<core::RankCandidate> &local, std::vector<std::string> &warnings)
    {
        m_decided = true;
        // The candidates' reports, in report order, and their files.
        std::map<std::uint32_t, std::size_t> reportPlace;
        std::vector<std::string> reportPaths;
        for (const auto &c : local)
            if (reportPlace.try_emplace(c.report, reportPaths.size()).second)
                reportPaths.push_back(c.path);
        const auto reportFiles = filesInLoadOrder(reportPaths, m_pieces, m_files);
        Json mine = Json::array();
        for (const auto &c : local) {
            const auto file = reportFiles[reportPlace.at(c.report)];
            if (file == m_files.size())
                throw std::logic_error("a rank candidate of a file this process did not load: " + c.path);
            mine.push_back(candidateJson(c, file));
        }
        const auto all = m_world.allGather(pack(mine));
        std::map<std::pair<std::size_t, std::size_t>, GlobalCandidate> byPlace; // (file, inFile)
        std::map<std::pair<std::size_t, int>, std::size_t> seenOfFile; // (file, process) -> candidates
        for (std::size_t p = 0; p < all.size(); ++p) {
            const auto list = unpack(all[p]);
            for (std::size_t i = 0; i < list.size(); ++i) {
                const auto &c = list[i];
                const auto file = c["file"].get<std::size_t>();
                const auto inFile = seenOfFile[{ file, int(p) }]++;
                auto &g = byPlace[{ file, inFile }];
                g.holders.emplace_back(int(p), i);
                if (int(p) != m_primary.at(file))
                    continue;
                g.file = file;
                g.inFile = inFile;
                g.candidate.path = m_files[file];
                g.candidate.report = std::uint32_t(file);
                g.candidate.pid = c["pid"].get<std::uint32_t>();
                g.candidate.oneOfSeveralProcesses = c["several"].get<bool>();
                if (c.contains("env"))
                    g.candidate.environmentRank
                        = std::pair { c["env"][0].get<std::int32_t>(), c["env"][1].get<std::string>() };
            }
        }
        // Every reader of a file must have seen what its first shard's reader saw.
        std::map<std::size_t, std::size_t> primaryCount;
        for (const auto &[key, count] : seenOfFile)
            if (key.second == m_primary.at(key.first))
                primaryCount[key.first] = count;
        for (const auto &[key, count] : seenOfFile)
            if (count != primaryCount[key.first])
                throw std::runtime_error(m_files[key.first] + ": its time shards were read differently (process "
                    + std::to_string(key.second) + " has " + std::to_string(count) + " rank candidates, process "
                    + std::to_string(m_primary.at(key.first)) + " " + std::to_string(primaryCount[key.first])
                    + "); run with another number of processes");
        // gaplens-cli lists candidates by report in input order, then as the report lists them.
        m_candidates.clear();
        for (auto &[place, g] : byPlace)
            m_candidates.push_back(std::move(g));
        std::vector<core::RankCandidate> candidates;
        for (const auto &g : m_candidates)
            candidates.push_back(g.candidate);
        m_global = core::assignRanks(candidates, m_overrides, m_warnings);
        warnings.insert(warnings.end(), m_warnings.begin(), m_warnings.end());

        std::vector<core::RankAssignment> own(local.size());
        for (std::size_t i = 0; i < m_candidates.size(); ++i)
            for (const auto &[process, order] : m_candidates[i].holders)
                if (process == m_world.rank())
                    own[order] = m_global[i];
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
    // For each process, its local rank index -> global rank index (a rank whose file is read in
    // time shards is a local rank of each of their processes).
    std::vector<std::vector<std::uint32_t>> globalRankIndices() const
    {
        const auto order = globalOrder();
        std::vector<std::vector<std::uint32_t>> out(std::size_t(m_world.size()));
        for (std::size_t g = 0; g < order.size(); ++g)
            for (const auto &holder : m_candidates[order[g]].holders)
                out[std::size_t(holder.first)].push_back(std::uint32_t(g));
        return out;
    }

    // The rank numbers in the global rank order.
    std::vector<std::int32_t> globalRankNumbers() const
    {
        std::vector<std::int32_t> numbers;
        for (const auto c : globalOrder())
            numbers.push_back(m_global[c].rank);
        return numbers;
    }

private:
    std::vector<std::size_t> globalOrder() const
    {
        std::vector<std::size_t> order(m_candidates.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return m_global[a].rank < m_global[b].rank; });
        return order;
    }

    const World &m_world;
    const std::vector<std::string> &m_files;
    const std::vector<core::WorkPiece> &m_pieces; // this process's
    const std::vector<int> &m_primary; // file -> the process that reads its first shard
    std::vector<core::RankOverride> m_overrides;
    bool m_decided = false;
    std::vector<GlobalCandidate> m_candidates; // the primaries', in file order
    std::vector<core::RankAssignment> m_global;
    std::vector<std::string> m_warnings;
};

// What the root needs of a process's part to name the whole capture; reports, errors, ranks
// and GPUs name their input file (DistributedCapture::reportFile and errorFile).
Json partJson(const DistributedCapture &capture)
{
    const auto &trace = *capture.local;
    Json reports = Json::array(), errors = Json::array(), ranks = Json::array();
    for (std::size_t i = 0; i < trace.reports.size(); ++i) {
        const auto &r = trace.reports[i];
        reports.push_back({ { "file", capture.reportFile[i] }, { "path", r.path }, { "host", r.host },
            { "schema", r.schemaVersion }, { "product", r.productVersion }, { "time_offset", r.timeOffsetNs },
            { "session_start", r.sessionStartNs ? Json(*r.sessionStartNs) : Json(nullptr) },
            { "warnings", r.warnings } });
    }
    for (std::size_t i = 0; i < trace.errors.size(); ++i)
        errors.push_back({ { "file", capture.errorFile[i] }, { "path", trace.errors[i].path },
            { "message", trace.errors[i].message } });
    for (const auto &r : trace.ranks)
        ranks.push_back({ { "rank", r.rank }, { "file", capture.reportFile[r.report] }, { "pid", r.pid },
            { "process", r.processName }, { "host", r.host }, { "source", int(r.source) }, { "detail", r.sourceDetail },
            { "span", { r.span.start, r.span.end } } });
    // A GPU's streams' ranks: the loader orders GPUs by the first of them, then device id.
    Json gpus = Json::array();
    for (const auto &g : trace.gpus) {
        std::set<std::uint32_t> streamRanks;
        for (const auto &stream : g.streams)
            streamRanks.insert(stream.rank);
        gpus.push_back({ { "device", g.deviceId }, { "name", g.name }, { "file", capture.reportFile[g.report] },
            { "ranks", g.ranks }, { "stream_ranks", streamRanks } });
    }
    return { { "reports", reports }, { "errors", errors }, { "ranks", ranks }, { "gpus", gpus },
        { "span", { trace.span.start, trace.span.end } } };
}

// A GPU of the skeleton, with what orders it as the whole capture's loader does: its first
// rank (global), device id and file; and where it is in the parts (process, local index):
// one place, or one per time shard of its file.
struct SkeletonGpu
{
    std::uint32_t firstRank;
    std::int32_t deviceId;
    std::size_t file;
    std::vector<std::pair<std::size_t, std::size_t>> places;
    core::Gpu gpu;
};

// The shards of one file each name its GPUs: one GPU, with the ranks of them all.
std::vector<SkeletonGpu> mergeShardsOfGpus(std::vector<SkeletonGpu> gpus)
{
    std::stable_sort(gpus.begin(), gpus.end(), [](const SkeletonGpu &a, const SkeletonGpu &b) {
        return std::tie(a.file, a.deviceId) < std::tie(b.file, b.deviceId);
    });
    std::vector<SkeletonGpu> merged;
    for (auto &g : gpus) {
        if (merged.empty() || merged.back().file != g.file || merged.back().deviceId != g.deviceId) {
            merged.push_back(std::move(g));
            continue;
        }
        auto &into = merged.back();
        into.firstRank = std::min(into.firstRank, g.firstRank);
        into.places.insert(into.places.end(), g.places.begin(), g.places.end());
        auto &ranks = into.gpu.ranks;
        ranks.insert(ranks.end(), g.gpu.ranks.begin(), g.gpu.ranks.end());
        std::sort(ranks.begin(), ranks.end());
        ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    }
    return merged;
}

// Every GPU without events (device, name, report, ranks), in the loader's order, and each
// rank's GPUs; and each process's local GPU index -> the skeleton's.
void addGpus(std::vector<SkeletonGpu> gpus, const std::map<std::size_t, std::uint32_t> &reportOfFile,
    core::TraceSet &skeleton, std::vector<std::vector<std::uint32_t>> &globalGpu)
{
    gpus = mergeShardsOfGpus(std::move(gpus));
    std::sort(gpus.begin(), gpus.end(), [](const SkeletonGpu &a, const SkeletonGpu &b) {
        return std::tie(a.firstRank, a.deviceId, a.file) < std::tie(b.firstRank, b.deviceId, b.file);
    });
    for (auto &g : gpus) {
        for (const auto &[process, local] : g.places) {
            if (globalGpu[process].size() <= local)
                globalGpu[process].resize(local + 1, core::kNoIndex);
            globalGpu[process][local] = std::uint32_t(skeleton.gpus.size());
        }
        g.gpu.report = reportOfFile.at(g.file);
        skeleton.gpus.push_back(std::move(g.gpu));
    }
    // Each rank's GPUs, as the trace builder lists them: ascending, from the GPUs' ranks.
    for (std::uint32_t g = 0; g < skeleton.gpus.size(); ++g)
        for (const auto r : skeleton.gpus[g].ranks)
            skeleton.ranks.at(r).gpus.push_back(g);
}

// A rank's span over the time shards of its file (an empty span is a shard without its events).
core::TimeRange unionOfSpans(core::TimeRange a, core::TimeRange b)
{
    if (a == core::TimeRange {})
        return b;
    if (b == core::TimeRange {})
        return a;
    return { std::min(a.start, b.start), std::max(a.end, b.end) };
}

// A shard's edges as the later shards need them: its own launch correlation ranges stay
// with it (its halo).
Json edgesJson(const core::ShardEdges &edges)
{
    auto time = [](const std::optional<core::TimeNs> &t) { return t ? Json(*t) : Json(nullptr); };
    Json gpus = Json::array();
    for (const auto &gpu : edges.gpus) {
        Json streams = Json::array();
        for (const auto &s : gpu.streams)
            streams.push_back({ s.pid, s.streamId, s.lastCorrelation });
        gpus.push_back({ gpu.deviceId, time(gpu.firstStart), time(gpu.busyUntil), std::move(streams) });
    }
    return gpus;
}

core::ShardEdges edgesFromJson(const Json &packed)
{
    auto time = [](const Json &t) { return t.is_null() ? std::nullopt : std::optional(t.get<core::TimeNs>()); };
    core::ShardEdges edges;
    for (const auto &g : packed) {
        auto &gpu = edges.gpus.emplace_back();
        gpu.deviceId = g[0].get<std::int32_t>();
        gpu.firstStart = time(g[1]);
        gpu.busyUntil = time(g[2]);
        for (const auto &s : g[3])
            gpu.streams.push_back({ s[0].get<std::uint32_t>(), s[1].get<std::int64_t>(), s[2].get<std::uint32_t>() });
    }
    return edges;
}

// A time shard of this process: its own edges, and those of its file's earlier shards in
// shard order.
struct ShardCarry
{
    core::WorkPiece piece;
    core::ShardEdges own;
    std::vector<core::ShardEdges> earlier;
};

// Collective (core/analysis/gap_shards.h): the edges of this process's time shards, from
// `read` (its pieces' windows read, in piece order; nullptr when it reads whole files only),
// exchanged between the processes: a few numbers per GPU and stream.
std::vector<ShardCarry> exchangeShardEdges(const World &world, const std::vector<std::string> &files,
    const std::vector<core::WorkPiece> &pieces, const core::TraceSet *read, bool includeCopies)
{
    Json mine = Json::array();
    std::vector<ShardCarry> carries;
    const auto reportFile = read ? filesOfReports(*read, pieces, files) : std::vector<std::size_t> {};
    for (const auto &piece : read ? pieces : std::vector<core::WorkPiece> {}) {
        if (piece.isWholeFile())
            continue;
        ShardCarry &carry = carries.emplace_back();
        carry.piece = piece;
        for (std::uint32_t r = 0; r < read->reports.size(); ++r)
            if (reportFile[r] == piece.file)
                carry.own = core::shardEdges(*read, r, includeCopies);
        mine.push_back({ piece.file, piece.firstShard, edgesJson(carry.own) });
    }
    std::map<std::pair<std::size_t, std::size_t>, core::ShardEdges> byShard; // (file, first shard)
    for (const auto &part : world.allGather(pack(mine)))
        for (const auto &e : unpack(part))
            byShard[{ e[0].get<std::size_t>(), e[1].get<std::size_t>() }] = edgesFromJson(e[2]);
    for (auto &carry : carries)
        for (const auto &[key, edges] : byShard)
            if (key.first == carry.piece.file && key.second < carry.piece.firstShard)
                carry.earlier.push_back(edges);
    return carries;
}

// Gaps and blame in time shards: each process reads its windows' kernels and copies, the
// processes exchange their shards' edges, and each window gets the halo its file's earlier
// shards give it (a whole file's window one that keeps everything).
std::vector<ShardCarry> haloedWindows(const World &world, const cli::Options &options,
    const std::vector<std::string> &files, const std::vector<core::WorkPiece> &pieces,
    std::vector<core::StoredStartWindow> &windows)
{
    std::shared_ptr<core::TraceSet> read;
    if (!windows.empty()) {
        core::LoadOptions first;
        for (const auto &piece : pieces)
            first.files.push_back(files[piece.file]);
        first.windows = windows;
        first.tables = core::TableSet(core::ExportTable::Kernels) | core::ExportTable::Copies;
        first.threads = options.threads;
        first.memoryLimitBytes = options.maxMemoryBytes;
        read = core::loadTraceSet(first); // a file that fails fails again, and is reported, in the full read
    }
    auto carries = exchangeShardEdges(world, files, pieces, read.get(), options.withCopies);
    auto carry = carries.begin(); // one per piece that is not a whole file, in piece order
    for (std::size_t i = 0; i < windows.size(); ++i) {
        if (pieces[i].isWholeFile()) {
            windows[i].halo = core::ShardHalo {};
            continue;
        }
        windows[i].halo = core::shardHalo(carry->earlier, carry->own);
        ++carry;
    }
    return carries;
}

} // namespace

DistributedCapture loadDistributed(const World &world, const cli::Options &options,
    const std::vector<std::string> &inputs, core::TableSet tables, TimeShardUse shards, const char *label)
{
    std::vector<core::LoadError> inputErrors;
    const auto files = core::expandInputs(inputs, inputErrors);
    // Gaps and blame read every table, and divide by the rows time shards split.
    const auto divideBy = shards == TimeShardUse::Gaps ? core::kTimeShardTables : tables;
    const auto rows = rowCounts(world, files, divideBy);
    const bool mayShard
        = shards == TimeShardUse::Gaps || (shards != TimeShardUse::None && core::kTimeShardTables.containsAll(tables));
    const auto division = core::divideWork(rows, std::size_t(world.size()), mayShard);
    const auto &pieces = division[std::size_t(world.rank())];
    // Who reads each file's first shard speaks for the file (its report, errors and ranks).
    std::vector<int> primary(files.size(), -1);
    for (std::size_t p = 0; p < division.size(); ++p)
        for (const auto &piece : division[p])
            if (piece.firstShard == 0)
                primary[piece.file] = int(p);
    RankDecision decision(world, files, pieces, primary, options.rankOverrides);
    core::LoadOptions load;
    DistributedCapture capture;
    capture.files = pieces.size();
    const bool sharded = std::any_of(pieces.begin(), pieces.end(), [](const auto &p) { return !p.isWholeFile(); });
    for (const auto &piece : pieces) {
        load.files.push_back(files[piece.file]);
        capture.rows += rows[piece.file] / piece.shards * (piece.endShard - piece.firstShard);
        // Every reader of a file samples it alike (the same rowids), so their edges agree.
        if (sharded)
            load.windows.push_back(piece.isWholeFile()
                    ? core::StoredStartWindow {}
                    : core::shardBlockWindow(core::sampleTimeShards(files[piece.file], divideBy, piece.shards),
                        piece.firstShard, piece.endShard));
    }
    capture.pieces = pieces;
    capture.inputFiles = files;
    for (const auto &process : division)
        for (const auto &piece : process)
            capture.timeShards = capture.timeShards || !piece.isWholeFile();
    // What the time shards need of their files' earlier shards (the same on every process, so
    // all take part in the exchange).
    std::vector<ShardCarry> carries;
    if (shards == TimeShardUse::Gaps && capture.timeShards)
        carries = haloedWindows(world, options, files, pieces, load.windows);
    load.tables = tables;
    load.threads = options.threads;
    load.memoryLimitBytes = options.maxMemoryBytes;
    load.decideRanks = [&](const std::vector<core::RankCandidate> &local, std::vector<std::string> &warnings) {
        return decision.decide(local, warnings);
    };
    capture.local = core::loadTraceSet(load);
    decision.decideIfNotYet();
    capture.reportFile = filesOfReports(*capture.local, pieces, files);
    std::vector<std::string> errorPaths;
    for (const auto &error : capture.local->errors)
        errorPaths.push_back(error.path);
    capture.errorFile = filesInLoadOrder(errorPaths, pieces, files);
    // Intervals count busy time after the earlier shards' busy end, of kernels alone; check
    // with copies when its baseline counted them.
    const bool busyAfterEarlier
        = shards == TimeShardUse::AddsUpAfterEarlierBusy || shards == TimeShardUse::AddsUpAfterEarlierBusyAndCopies;
    if (busyAfterEarlier && capture.timeShards)
        carries = exchangeShardEdges(world, files, pieces, sharded ? capture.local.get() : nullptr,
            shards == TimeShardUse::AddsUpAfterEarlierBusyAndCopies);
    for (const auto &carry : carries)
        for (std::uint32_t r = 0; r < capture.local->reports.size(); ++r)
            if (capture.reportFile[r] == carry.piece.file)
                core::addEarlierShards(*capture.local, r, carry.earlier, capture.earlierShards);
    for (std::size_t i = 0; i < capture.local->errors.size(); ++i) {
        const auto file = capture.errorFile[i];
        if (file == files.size() || primary[file] == world.rank())
            std::fprintf(stderr, "gaplens-mpi: error: %s%s\n", label, capture.local->errors[i].message.c_str());
    }

    const auto globalRank = decision.globalRankIndices();
    capture.localToGlobalRank = globalRank[std::size_t(world.rank())];
    capture.rankNumbers = decision.globalRankNumbers();

    const auto parts = world.gatherToRoot(pack(partJson(capture)));
    if (!world.isRoot())
        return capture;

    // The skeleton: what gaplens-cli's trace holds, in its order, for everything printed.
    auto skeleton = std::make_shared<core::TraceSet>();
    skeleton->errors = inputErrors;
    skeleton->warnings = decision.warnings(); // also when the root's own load ended before deciding
    std::vector<std::pair<std::size_t, core::Report>> reports;
    std::vector<std::pair<std::size_t, core::LoadError>> errors;
    std::vector<std::pair<std::size_t, core::Rank>> ranks; // (global rank index, rank)
    std::vector<SkeletonGpu> gpus;
    core::TimeNs spanStart = std::numeric_limits<core::TimeNs>::max(),
                 spanEnd = std::numeric_limits<core::TimeNs>::min();
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const auto part = unpack(parts[p]);
        auto speaksFor = [&](std::size_t file) { return file >= files.size() || primary[file] == int(p); };
        for (const auto &r : part["reports"]) {
            const auto file = r["file"].get<std::size_t>();
            if (!speaksFor(file))
                continue;
            core::Report report;
            report.path = r["path"].get<std::string>();
            report.host = r["host"].get<std::string>();
            report.schemaVersion = r["schema"].get<std::string>();
            report.productVersion = r["product"].get<std::string>();
            report.timeOffsetNs = r["time_offset"].get<core::TimeNs>();
            if (!r["session_start"].is_null())
                report.sessionStartNs = r["session_start"].get<core::TimeNs>();
            report.warnings = r["warnings"].get<std::vector<std::string>>();
            reports.emplace_back(file, std::move(report));
        }
        for (const auto &e : part["errors"]) {
            const auto file = e["file"].get<std::size_t>();
            if (!speaksFor(file))
                continue;
            errors.emplace_back(
                file, core::LoadError { e["path"].get<std::string>(), e["message"].get<std::string>() });
        }
        for (std::size_t i = 0; i < part["ranks"].size(); ++i) {
            const auto &r = part["ranks"][i];
            core::Rank rank;
            rank.rank = r["rank"].get<std::int32_t>();
            rank.report = r["file"].get<std::uint32_t>(); // a file index until below
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
            gpus.push_back({ firstRank, gpu.deviceId, g["file"].get<std::size_t>(), { { p, i } }, std::move(gpu) });
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
    std::optional<std::uint32_t> lastIndex;
    for (auto &[index, rank] : ranks) {
        if (lastIndex == index) { // the same rank in another time shard of its file
            auto &span = skeleton->ranks.back().span;
            span = unionOfSpans(span, rank.span);
            continue;
        }
        lastIndex = index;
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
