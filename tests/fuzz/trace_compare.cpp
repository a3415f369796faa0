// SPDX-License-Identifier: MIT
#include "trace_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <type_traits>
#include <utility>

namespace gaplens::fuzz {
namespace {

using namespace gaplens::core;

// Every counter of DataProblems and LoadNotes; a field added there fails the build here
// until it is compared too.
constexpr std::pair<const char *, std::uint64_t DataProblems::*> kProblemFields[] = {
    { "nullEnd", &DataProblems::nullEnd },
    { "endBeforeStart", &DataProblems::endBeforeStart },
    { "nullStart", &DataProblems::nullStart },
    { "unknownStringId", &DataProblems::unknownStringId },
    { "timeNotInteger", &DataProblems::timeNotInteger },
    { "timeOutOfRange", &DataProblems::timeOutOfRange },
    { "deviceIdOutOfRange", &DataProblems::deviceIdOutOfRange },
};
static_assert(
    sizeof(DataProblems) == std::size(kProblemFields) * sizeof(std::uint64_t), "a DataProblems field is not compared");
constexpr std::pair<const char *, std::uint64_t LoadNotes::*> kNoteFields[] = {
    { "backtraceDuplicates", &LoadNotes::backtraceDuplicates },
    { "overlappingKernels", &LoadNotes::overlappingKernels },
    { "rowsRead", &LoadNotes::rowsRead },
};
static_assert(sizeof(LoadNotes) == std::size(kNoteFields) * sizeof(std::uint64_t), "a LoadNotes field is not compared");

template <typename T> std::string show(const T &value)
{
    if constexpr (std::is_enum_v<T>) {
        return fmt::format("{}", static_cast<long long>(value));
    } else if constexpr (std::is_same_v<T, std::string>) {
        // Names can be 10k characters long: enough to tell them apart.
        constexpr std::size_t kShown = 120;
        return value.size() <= kShown ? fmt::format("\"{}\"", value)
                                      : fmt::format("\"{}...\" ({} chars)", value.substr(0, kShown), value.size());
    } else {
        return fmt::format("{}", value);
    }
}

class Differ
{
public:
    Differ(const TraceSet &a, const TraceSet &b, std::size_t limit)
        : m_a(a)
        , m_b(b)
        , m_limit(limit)
    {
    }

    std::vector<std::string> run()
    {
        value("cancelled", m_a.cancelled, m_b.cancelled);
        errors();
        column("warnings", m_a.warnings, m_b.warnings);
        reports();
        ranks();
        gpus();
        threads();
        launchIndex();
        value("span.start", m_a.span.start, m_b.span.start);
        value("span.end", m_a.span.end, m_b.span.end);
        if (m_leftOut > 0)
            m_lines.push_back(fmt::format("... and {} more differences", m_leftOut));
        return std::move(m_lines);
    }

private:
    void note(const std::string &where, const std::string &a, const std::string &b)
    {
        if (m_lines.size() >= m_limit) {
            ++m_leftOut;
            return;
        }
        m_lines.push_back(fmt::format("{}: {} | {}", where, a, b));
    }

    template <typename T> bool value(const std::string &where, const T &a, const T &b)
    {
        if (a == b)
            return true;
        note(where, show(a), show(b));
        return false;
    }

    bool name(const std::string &where, StringId a, StringId b) { return value(where, m_a.str(a), m_b.str(b)); }

    bool sameSize(const std::string &where, std::size_t a, std::size_t b) { return value(where + ".size", a, b); }

    template <typename T> void column(const std::string &where, const std::vector<T> &a, const std::vector<T> &b)
    {
        if (!sameSize(where, a.size(), b.size()))
            return;
        const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin());
        if (ia != a.end())
            value(fmt::format("{}[{}]", where, ia - a.begin()), *ia, *ib);
    }

    void names(const std::string &where, const std::vector<StringId> &a, const std::vector<StringId> &b)
    {
        if (!sameSize(where, a.size(), b.size()))
            return;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!name(fmt::format("{}[{}]", where, i), a[i], b[i]))
                return;
    }

    // The name each NVTX range is grouped under (TraceSet::nvtxGroups), by text.
    void nvtxGroups(const std::string &where, const std::vector<StringId> &a, const std::vector<StringId> &b)
    {
        for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
            if (!name(fmt::format("{}[{}]", where, i), m_a.nvtxGroup(a[i]), m_b.nvtxGroup(b[i])))
                return;
    }

    void nesting(const std::string &where, const NestingIndex &a, const NestingIndex &b)
    {
        value(where + ".properlyNested", a.properlyNested(), b.properlyNested());
        if (!value(where + ".levelCount", a.levelCount(), b.levelCount()))
            return;
        for (std::size_t d = 0; d < a.levelCount(); ++d)
            column(fmt::format("{}.level[{}]", where, d), a.level(d), b.level(d));
    }

    void errors()
    {
        if (!sameSize("errors", m_a.errors.size(), m_b.errors.size()))
            return;
        for (std::size_t i = 0; i < m_a.errors.size(); ++i) {
            const auto where = fmt::format("errors[{}]", i);
            value(where + ".path", m_a.errors[i].path, m_b.errors[i].path);
            value(where + ".message", m_a.errors[i].message, m_b.errors[i].message);
        }
    }

    void reports()
    {
        if (!sameSize("reports", m_a.reports.size(), m_b.reports.size()))
            return;
        for (std::size_t i = 0; i < m_a.reports.size(); ++i) {
            const auto &a = m_a.reports[i];
            const auto &b = m_b.reports[i];
            const auto where = fmt::format("reports[{}]", i);
            value(where + ".path", a.path, b.path);
            value(where + ".schemaVersion", a.schemaVersion, b.schemaVersion);
            value(where + ".productVersion", a.productVersion, b.productVersion);
            value(where + ".host", a.host, b.host);
            value(where + ".timeBase", a.timeBase, b.timeBase);
            value(where + ".timeOffsetNs", a.timeOffsetNs, b.timeOffsetNs);
            for (const auto &[field, member] : kProblemFields)
                value(fmt::format("{}.problems.{}", where, field), a.problems.*member, b.problems.*member);
            for (const auto &[field, member] : kNoteFields)
                value(fmt::format("{}.notes.{}", where, field), a.notes.*member, b.notes.*member);
            // A file read as two parts joins the NVTX part's warnings after the others' (see
            // joinParts): what is warned about is the outcome, not the order it was found in.
            auto sortedA = a.warnings, sortedB = b.warnings;
            std::sort(sortedA.begin(), sortedA.end());
            std::sort(sortedB.begin(), sortedB.end());
            column(where + ".warnings (sorted)", sortedA, sortedB);
        }
    }

    void ranks()
    {
        if (!sameSize("ranks", m_a.ranks.size(), m_b.ranks.size()))
            return;
        for (std::size_t i = 0; i < m_a.ranks.size(); ++i) {
            const auto &a = m_a.ranks[i];
            const auto &b = m_b.ranks[i];
            const auto where = fmt::format("ranks[{}]", i);
            value(where + ".rank", a.rank, b.rank);
            value(where + ".report", a.report, b.report);
            value(where + ".pid", a.pid, b.pid);
            value(where + ".processName", a.processName, b.processName);
            value(where + ".host", a.host, b.host);
            value(where + ".source", a.source, b.source);
            value(where + ".sourceDetail", a.sourceDetail, b.sourceDetail);
            column(where + ".gpus", a.gpus, b.gpus);
            column(where + ".threads", a.threads, b.threads);
        }
    }

    void kernels(const std::string &where, const KernelColumns &a, const KernelColumns &b)
    {
        column(where + ".start", a.start, b.start);
        column(where + ".end", a.end, b.end);
        names(where + ".shortName", a.shortName, b.shortName);
        names(where + ".demangledName", a.demangledName, b.demangledName);
        column(where + ".correlationId", a.correlationId, b.correlationId);
        column(where + ".gridX", a.gridX, b.gridX);
        column(where + ".gridY", a.gridY, b.gridY);
        column(where + ".gridZ", a.gridZ, b.gridZ);
        column(where + ".blockX", a.blockX, b.blockX);
        column(where + ".blockY", a.blockY, b.blockY);
        column(where + ".blockZ", a.blockZ, b.blockZ);
        column(where + ".registersPerThread", a.registersPerThread, b.registersPerThread);
        column(where + ".staticSharedMemory", a.staticSharedMemory, b.staticSharedMemory);
        column(where + ".dynamicSharedMemory", a.dynamicSharedMemory, b.dynamicSharedMemory);
    }

    void copies(const std::string &where, const CopyColumns &a, const CopyColumns &b)
    {
        column(where + ".start", a.start, b.start);
        column(where + ".end", a.end, b.end);
        column(where + ".bytes", a.bytes, b.bytes);
        column(where + ".correlationId", a.correlationId, b.correlationId);
        column(where + ".pid", a.pid, b.pid);
        column(where + ".streamId", a.streamId, b.streamId);
        column(where + ".kind", a.kind, b.kind);
        column(where + ".srcKind", a.srcKind, b.srcKind);
        column(where + ".dstKind", a.dstKind, b.dstKind);
        column(where + ".depth", a.depth, b.depth);
        nesting(where + ".nesting", a.nesting, b.nesting);
    }

    void gpus()
    {
        if (!sameSize("gpus", m_a.gpus.size(), m_b.gpus.size()))
            return;
        for (std::size_t i = 0; i < m_a.gpus.size(); ++i) {
            const auto &a = m_a.gpus[i];
            const auto &b = m_b.gpus[i];
            const auto where = fmt::format("gpus[{}]", i);
            value(where + ".report", a.report, b.report);
            value(where + ".deviceId", a.deviceId, b.deviceId);
            value(where + ".name", a.name, b.name);
            column(where + ".ranks", a.ranks, b.ranks);
            if (sameSize(where + ".streams", a.streams.size(), b.streams.size())) {
                for (std::size_t s = 0; s < a.streams.size(); ++s) {
                    const auto stream = fmt::format("{}.streams[{}]", where, s);
                    value(stream + ".pid", a.streams[s].pid, b.streams[s].pid);
                    value(stream + ".streamId", a.streams[s].streamId, b.streams[s].streamId);
                    value(stream + ".rank", a.streams[s].rank, b.streams[s].rank);
                    kernels(stream + ".kernels", a.streams[s].kernels, b.streams[s].kernels);
                }
            }
            copies(where + ".copies", a.copies, b.copies);
        }
    }

    void threads()
    {
        if (!sameSize("threads", m_a.threads.size(), m_b.threads.size()))
            return;
        for (std::size_t i = 0; i < m_a.threads.size(); ++i) {
            const auto &a = m_a.threads[i];
            const auto &b = m_b.threads[i];
            const auto where = fmt::format("threads[{}]", i);
            value(where + ".report", a.report, b.report);
            value(where + ".pid", a.pid, b.pid);
            value(where + ".tid", a.tid, b.tid);
            value(where + ".rank", a.rank, b.rank);
            name(where + ".name", a.name, b.name);

            column(where + ".api.start", a.api.start, b.api.start);
            column(where + ".api.end", a.api.end, b.api.end);
            names(where + ".api.name", a.api.name, b.api.name);
            column(where + ".api.correlationId", a.api.correlationId, b.api.correlationId);
            column(where + ".api.depth", a.api.depth, b.api.depth);
            value(where + ".api.correlationAscending", a.api.correlationAscending, b.api.correlationAscending);
            nesting(where + ".api.nesting", a.api.nesting, b.api.nesting);

            column(where + ".nvtx.start", a.nvtx.start, b.nvtx.start);
            column(where + ".nvtx.end", a.nvtx.end, b.nvtx.end);
            names(where + ".nvtx.name", a.nvtx.name, b.nvtx.name);
            nvtxGroups(where + ".nvtx.group", a.nvtx.name, b.nvtx.name);
            names(where + ".nvtx.domain", a.nvtx.domain, b.nvtx.domain);
            column(where + ".nvtx.kind", a.nvtx.kind, b.nvtx.kind);
            column(where + ".nvtx.depth", a.nvtx.depth, b.nvtx.depth);
            nesting(where + ".nvtx.nesting", a.nvtx.nesting, b.nvtx.nesting);

            column(where + ".marks.time", a.marks.time, b.marks.time);
            names(where + ".marks.name", a.marks.name, b.marks.name);
            names(where + ".marks.domain", a.marks.domain, b.marks.domain);
        }
    }

    void launchIndex()
    {
        if (sameSize("processThreads", m_a.processThreads.size(), m_b.processThreads.size()))
            for (std::size_t i = 0; i < m_a.processThreads.size(); ++i) {
                const auto where = fmt::format("processThreads[{}]", i);
                value(where + ".key", m_a.processThreads[i].key, m_b.processThreads[i].key);
                value(where + ".thread", m_a.processThreads[i].thread, m_b.processThreads[i].thread);
            }
        if (sameSize("unorderedLaunches", m_a.unorderedLaunches.size(), m_b.unorderedLaunches.size()))
            for (std::size_t i = 0; i < m_a.unorderedLaunches.size(); ++i) {
                const auto &a = m_a.unorderedLaunches[i];
                const auto &b = m_b.unorderedLaunches[i];
                const auto where = fmt::format("unorderedLaunches[{}]", i);
                value(where + ".process", a.process, b.process);
                value(where + ".correlationId", a.correlationId, b.correlationId);
                value(where + ".call.thread", a.call.thread, b.call.thread);
                value(where + ".call.call", a.call.call, b.call.call);
            }
    }

    const TraceSet &m_a;
    const TraceSet &m_b;
    std::size_t m_limit;
    std::size_t m_leftOut = 0;
    std::vector<std::string> m_lines;
};

} // namespace

std::vector<std::string> traceDifferences(const TraceSet &a, const TraceSet &b, std::size_t limit)
{
    return Differ(a, b, limit).run();
}

} // namespace gaplens::fuzz
