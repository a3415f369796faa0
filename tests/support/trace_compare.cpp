// SPDX-License-Identifier: MIT
#include "trace_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <iterator>
#include <type_traits>
#include <utility>

namespace gaplens::test {
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
    { "nullSyncColumn", &DataProblems::nullSyncColumn },
    { "nullCallchainColumn", &DataProblems::nullCallchainColumn },
    { "unknownCallchainId", &DataProblems::unknownCallchainId },
    { "badMemoryEvent", &DataProblems::badMemoryEvent },
};
static_assert(
    sizeof(DataProblems) == std::size(kProblemFields) * sizeof(std::uint64_t), "a DataProblems field is not compared");
constexpr std::pair<const char *, std::uint64_t LoadNotes::*> kNoteFields[] = {
    { "backtraceDuplicates", &LoadNotes::backtraceDuplicates },
    { "overlappingKernels", &LoadNotes::overlappingKernels },
    { "rowsRead", &LoadNotes::rowsRead },
    { "callchainIdOffset", &LoadNotes::callchainIdOffset },
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

// A member of S and how the Differ compares it: as one value, as a column (its first
// differing element), as a column of names or one name (by text), or as a nesting index.
// StringId is a plain integer, so the kind is said here rather than told from the type.
template <typename S, typename M> struct Value
{
    const char *name;
    M S::*member;
};
template <typename S, typename M, typename A = std::allocator<M>> struct Column
{
    const char *name;
    std::vector<M, A> S::*member;
};
template <typename S> struct Names
{
    const char *name;
    std::vector<StringId> S::*member;
};
template <typename S> struct Name
{
    const char *name;
    StringId S::*member;
};
template <typename S> struct Nesting
{
    const char *name;
    NestingIndex S::*member;
};
template <typename S, typename M> Value(const char *, M S::*) -> Value<S, M>;
template <typename S, typename M, typename A> Column(const char *, std::vector<M, A> S::*) -> Column<S, M, A>;
template <typename S> Names(const char *, std::vector<StringId> S::*) -> Names<S>;
template <typename S> Name(const char *, StringId S::*) -> Name<S>;
template <typename S> Nesting(const char *, NestingIndex S::*) -> Nesting<S>;

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
        each("errors", m_a.errors, m_b.errors, [this](const std::string &where, const auto &a, const auto &b) {
            fields(where, a, b, Value { "path", &LoadError::path }, Value { "message", &LoadError::message });
        });
        // A load that failed on one side only: its size alone would not say why.
        if (m_a.errors.size() != m_b.errors.size())
            for (std::size_t i = 0; i < std::max(m_a.errors.size(), m_b.errors.size()); ++i)
                note(fmt::format("errors[{}].message", i), i < m_a.errors.size() ? m_a.errors[i].message : "(none)",
                    i < m_b.errors.size() ? m_b.errors[i].message : "(none)");
        column("warnings", m_a.warnings, m_b.warnings);
        each("reports", m_a.reports, m_b.reports,
            [this](const std::string &where, const auto &a, const auto &b) { report(where, a, b); });
        each("ranks", m_a.ranks, m_b.ranks, [this](const std::string &where, const auto &a, const auto &b) {
            using R = Rank;
            fields(where, a, b, Value { "rank", &R::rank }, Value { "report", &R::report }, Value { "pid", &R::pid },
                Value { "processName", &R::processName }, Value { "host", &R::host }, Value { "source", &R::source },
                Value { "sourceDetail", &R::sourceDetail }, Column { "gpus", &R::gpus },
                Column { "threads", &R::threads });
        });
        each("gpus", m_a.gpus, m_b.gpus,
            [this](const std::string &where, const auto &a, const auto &b) { gpu(where, a, b); });
        each("threads", m_a.threads, m_b.threads,
            [this](const std::string &where, const auto &a, const auto &b) { thread(where, a, b); });
        each("processThreads", m_a.processThreads, m_b.processThreads,
            [this](const std::string &where, const auto &a, const auto &b) {
                fields(where, a, b, Value { "key", &ProcessThreadRef::key },
                    Value { "thread", &ProcessThreadRef::thread });
            });
        each("unorderedLaunches", m_a.unorderedLaunches, m_b.unorderedLaunches,
            [this](const std::string &where, const auto &a, const auto &b) {
                using U = UnorderedLaunch;
                fields(where, a, b, Value { "process", &U::process }, Value { "correlationId", &U::correlationId });
                fields(where + ".call", a.call, b.call, Value { "thread", &LaunchRef::thread },
                    Value { "call", &LaunchRef::call });
            });
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

    template <typename T, typename A>
    void column(const std::string &where, const std::vector<T, A> &a, const std::vector<T, A> &b)
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

    // One member as its kind says (see Value and the others above).
    template <typename S, typename M> void field(const std::string &where, const S &a, const S &b, Value<S, M> f)
    {
        value(where + "." + f.name, a.*f.member, b.*f.member);
    }
    template <typename S, typename M, typename A>
    void field(const std::string &where, const S &a, const S &b, Column<S, M, A> f)
    {
        column(where + "." + f.name, a.*f.member, b.*f.member);
    }
    template <typename S> void field(const std::string &where, const S &a, const S &b, Names<S> f)
    {
        names(where + "." + f.name, a.*f.member, b.*f.member);
    }
    template <typename S> void field(const std::string &where, const S &a, const S &b, Name<S> f)
    {
        name(where + "." + f.name, a.*f.member, b.*f.member);
    }
    template <typename S> void field(const std::string &where, const S &a, const S &b, Nesting<S> f)
    {
        nesting(where + "." + f.name, a.*f.member, b.*f.member);
    }

    // The members of a and b, in the order given, each named "where.member".
    template <typename S, typename... F>
    void fields(const std::string &where, const S &a, const S &b, const F &...members)
    {
        (field(where, a, b, members), ...);
    }

    // Two lists element by element ("where[i]") once their sizes agree.
    template <typename T, typename Compare>
    void each(const std::string &where, const std::vector<T> &a, const std::vector<T> &b, Compare compare)
    {
        if (!sameSize(where, a.size(), b.size()))
            return;
        for (std::size_t i = 0; i < a.size(); ++i)
            compare(fmt::format("{}[{}]", where, i), a[i], b[i]);
    }

    void report(const std::string &where, const Report &a, const Report &b)
    {
        fields(where, a, b, Value { "path", &Report::path }, Value { "schemaVersion", &Report::schemaVersion },
            Value { "productVersion", &Report::productVersion }, Value { "host", &Report::host },
            Value { "timeBase", &Report::timeBase }, Value { "timeOffsetNs", &Report::timeOffsetNs },
            Value { "hasCaptureMetadata", &Report::hasCaptureMetadata });
        each(where + ".programs", a.programs, b.programs,
            [this](const std::string &at, const LaunchedProgram &x, const LaunchedProgram &y) {
                using P = LaunchedProgram;
                fields(at, x, y, Value { "index", &P::index }, Value { "command", &P::command },
                    Column { "arguments", &P::arguments }, Value { "argumentsComplete", &P::argumentsComplete },
                    Value { "workingDir", &P::workingDir }, Value { "environmentCount", &P::environmentCount });
            });
        value(where + ".callchains.chainCount", a.callchains.chainCount(), b.callchains.chainCount());
        for (std::uint32_t chain = 1; chain <= std::min(a.callchains.chainCount(), b.callchains.chainCount());
             ++chain) {
            const auto x = a.callchains.stackOf(chain), y = b.callchains.stackOf(chain);
            const auto at = fmt::format("{}.callchains[{}]", where, chain);
            value(at + ".source", a.callchains.sourceOf(chain), b.callchains.sourceOf(chain));
            if (!sameSize(at, x.size(), y.size()))
                continue;
            for (std::size_t i = 0; i < x.size(); ++i) {
                value(fmt::format("{}[{}].module", at, i), m_a.str(x.module[i]), m_b.str(y.module[i]));
                value(fmt::format("{}[{}].symbol", at, i), m_a.str(x.symbol[i]), m_b.str(y.symbol[i]));
                value(fmt::format("{}[{}].depth", at, i), x.depth[i], y.depth[i]);
            }
        }
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

    void kernels(const std::string &where, const KernelColumns &a, const KernelColumns &b)
    {
        using K = KernelColumns;
        fields(where, a, b, Column { "start", &K::start }, Column { "end", &K::end },
            Names { "shortName", &K::shortName }, Names { "demangledName", &K::demangledName },
            Column { "correlationId", &K::correlationId });
        if (!sameSize(where + ".launchConfig", a.launchConfig.size(), b.launchConfig.size()))
            return;
        // By value: two loads may number a stream's distinct configurations differently.
        auto launchField = [&](const char *name, auto member) {
            auto values = [&](const KernelColumns &k) {
                std::vector<std::uint64_t> v;
                for (std::size_t i = 0; i < k.launchConfig.size(); ++i)
                    v.push_back(k.launchConfigOf(i).*member);
                return v;
            };
            column(where + "." + name, values(a), values(b));
        };
        using L = LaunchConfig;
        launchField("gridX", &L::gridX);
        launchField("gridY", &L::gridY);
        launchField("gridZ", &L::gridZ);
        launchField("blockX", &L::blockX);
        launchField("blockY", &L::blockY);
        launchField("blockZ", &L::blockZ);
        launchField("registersPerThread", &L::registersPerThread);
        launchField("staticSharedMemory", &L::staticSharedMemory);
        launchField("dynamicSharedMemory", &L::dynamicSharedMemory);
    }

    void copies(const std::string &where, const CopyColumns &a, const CopyColumns &b)
    {
        using C = CopyColumns;
        fields(where, a, b, Column { "start", &C::start }, Column { "end", &C::end }, Column { "bytes", &C::bytes },
            Column { "correlationId", &C::correlationId }, Column { "pid", &C::pid },
            Column { "streamId", &C::streamId }, Column { "kind", &C::kind }, Column { "srcKind", &C::srcKind },
            Column { "dstKind", &C::dstKind }, Column { "depth", &C::depth }, Nesting { "nesting", &C::nesting });
    }

    void gpu(const std::string &where, const Gpu &a, const Gpu &b)
    {
        fields(where, a, b, Value { "report", &Gpu::report }, Value { "deviceId", &Gpu::deviceId },
            Value { "name", &Gpu::name }, Column { "ranks", &Gpu::ranks });
        each(where + ".streams", a.streams, b.streams,
            [this](const std::string &stream, const auto &sa, const auto &sb) {
                fields(stream, sa, sb, Value { "pid", &Stream::pid }, Value { "streamId", &Stream::streamId },
                    Value { "rank", &Stream::rank });
                kernels(stream + ".kernels", sa.kernels, sb.kernels);
            });
        copies(where + ".copies", a.copies, b.copies);
        using S = SyncColumns;
        fields(where + ".syncs", a.syncs, b.syncs, Column { "start", &S::start }, Column { "end", &S::end },
            Column { "pid", &S::pid }, Column { "streamId", &S::streamId }, Column { "contextId", &S::contextId },
            Column { "correlationId", &S::correlationId }, Column { "eventId", &S::eventId },
            Column { "type", &S::type });
        using M = MemoryUsageColumns;
        fields(where + ".memory", a.memory, b.memory, Column { "time", &M::time }, Column { "bytes", &M::bytes },
            Column { "address", &M::address }, Column { "pid", &M::pid }, Column { "memKind", &M::memKind },
            Column { "operation", &M::operation });
    }

    void thread(const std::string &where, const Thread &a, const Thread &b)
    {
        fields(where, a, b, Value { "report", &Thread::report }, Value { "pid", &Thread::pid },
            Value { "tid", &Thread::tid }, Value { "rank", &Thread::rank }, Name { "name", &Thread::name });
        using A = ApiColumns;
        fields(where + ".api", a.api, b.api, Column { "start", &A::start }, Column { "end", &A::end },
            Names { "name", &A::name }, Column { "correlationId", &A::correlationId }, Column { "depth", &A::depth },
            Value { "correlationAscending", &A::correlationAscending }, Nesting { "nesting", &A::nesting });
        each(where + ".api.callchains", a.api.callchains, b.api.callchains,
            [this](const std::string &at, const ApiColumns::CallchainRef &x, const ApiColumns::CallchainRef &y) {
                value(at + ".correlationId", x.correlationId, y.correlationId);
                value(at + ".chain", x.chain, y.chain);
            });
        using N = NvtxColumns;
        fields(where + ".nvtx", a.nvtx, b.nvtx, Column { "start", &N::start }, Column { "end", &N::end },
            Names { "name", &N::name });
        nvtxGroups(where + ".nvtx.group", a.nvtx.name, b.nvtx.name);
        // Payloads by bit pattern: NaN (no payload) equals itself there.
        auto bits = [](std::span<const double> values) {
            std::vector<std::uint64_t> out;
            for (const double v : values)
                out.push_back(std::bit_cast<std::uint64_t>(v));
            return out;
        };
        column(where + ".nvtx.payload", bits(a.nvtx.payload), bits(b.nvtx.payload));
        auto domains = [](const NvtxColumns &n) {
            std::vector<StringId> out;
            for (std::size_t i = 0; i < n.size(); ++i)
                out.push_back(n.domainOf(i));
            return out;
        };
        names(where + ".nvtx.domain", domains(a.nvtx), domains(b.nvtx));
        fields(where + ".nvtx", a.nvtx, b.nvtx, Column { "kind", &N::kind }, Column { "depth", &N::depth },
            Nesting { "nesting", &N::nesting });
        using M = MarkColumns;
        fields(where + ".marks", a.marks, b.marks, Column { "time", &M::time }, Names { "name", &M::name },
            Names { "domain", &M::domain });
        using O = OsrtColumns;
        fields(where + ".osrt", a.osrt, b.osrt, Column { "start", &O::start }, Column { "end", &O::end },
            Names { "name", &O::name }, Column { "callchainId", &O::callchainId }, Column { "depth", &O::depth },
            Nesting { "nesting", &O::nesting });
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

} // namespace gaplens::test
