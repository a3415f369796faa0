// SPDX-License-Identifier: MIT
#include "report_codec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <unordered_map>

namespace gaplens::core::detail {

// The three passes over a report (NameCollector, Writer, Reader) share one list of its fields:
// visitReport below. `Data` is const for the first two.
struct CallchainsCodec
{
    template <typename Io, typename Chains> static void visit(Io &io, Chains &c)
    {
        io.names(c.m_module);
        io.names(c.m_symbol);
        io.column(c.m_depth);
        io.column(c.m_begin);
        io.column(c.m_source);
        for (auto &ids : c.m_ids) {
            io.column(ids.exportId);
            io.column(ids.chain);
        }
    }
};

namespace {

// A field added to the model changes these sizes (on the 64-bit Linux gaplens is built for):
// then store it below, bump kReportCacheVersion and update the size here.
static_assert(sizeof(void *) != 8
        || (sizeof(KernelColumns) == 232 && sizeof(CopyColumns) == 504 && sizeof(SyncColumns) == 320
            && sizeof(MemoryUsageColumns) == 240 && sizeof(Stream) == 256 && sizeof(Gpu) == 1152
            && sizeof(ApiColumns) == 248 && sizeof(NvtxColumns) == 280 && sizeof(MarkColumns) == 88
            && sizeof(OsrtColumns) == 216 && sizeof(Thread) == 856 && sizeof(Report) == 560
            && sizeof(LaunchedProgram) == 112 && sizeof(ReportData) == 920),
    "the model changed: the report cache must store the new field");

template <typename Io, typename K> void visitKernels(Io &io, K &k)
{
    io.column(k.start);
    io.column(k.end);
    io.names(k.shortName);
    io.names(k.demangledName);
    io.column(k.correlationId);
    io.column(k.launchConfig);
    io.column(k.launchConfigs);
}

template <typename Io, typename G> void visitGpu(Io &io, G &gpu)
{
    io.value(gpu.report);
    io.value(gpu.deviceId);
    io.text(gpu.name);
    io.list(gpu.streams, [&](auto &stream) {
        io.value(stream.pid);
        io.value(stream.streamId);
        io.value(stream.rank);
        visitKernels(io, stream.kernels);
    });
    auto &c = gpu.copies;
    io.column(c.start);
    io.column(c.end);
    io.column(c.bytes);
    io.column(c.correlationId);
    io.column(c.pid);
    io.column(c.streamId);
    io.column(c.kind);
    io.column(c.srcKind);
    io.column(c.dstKind);
    auto &s = gpu.syncs;
    io.column(s.start);
    io.column(s.end);
    io.column(s.pid);
    io.column(s.streamId);
    io.column(s.contextId);
    io.column(s.correlationId);
    io.column(s.eventId);
    io.column(s.type);
    auto &m = gpu.memory;
    io.column(m.time);
    io.column(m.bytes);
    io.column(m.address);
    io.column(m.pid);
    io.column(m.memKind);
    io.column(m.operation);
    io.column(gpu.ranks);
}

template <typename Io, typename T> void visitThread(Io &io, T &thread)
{
    io.value(thread.report);
    io.value(thread.pid);
    io.value(thread.tid);
    io.value(thread.rank);
    io.name(thread.name);
    auto &a = thread.api;
    io.column(a.start);
    io.column(a.end);
    io.names(a.name);
    io.column(a.correlationId);
    io.nesting(a.start, a.end, a.depth, a.nesting);
    io.value(a.correlationAscending);
    io.column(a.callchains);
    auto &n = thread.nvtx;
    io.column(n.start);
    io.column(n.end);
    io.names(n.name);
    io.names(n.domain);
    io.column(n.kind);
    io.column(n.payload);
    io.nesting(n.start, n.end, n.depth, n.nesting);
    auto &m = thread.marks;
    io.column(m.time);
    io.names(m.name);
    io.names(m.domain);
    auto &o = thread.osrt;
    io.column(o.start);
    io.column(o.end);
    io.names(o.name);
    io.column(o.callchainId);
    io.nesting(o.start, o.end, o.depth, o.nesting);
}

template <typename Io, typename R> void visitReportHeader(Io &io, R &r)
{
    // The path is not stored: a hit keeps the path it was opened by (the entry's identity
    // includes it).
    io.text(r.schemaVersion);
    io.text(r.productVersion);
    io.text(r.host);
    io.value(r.timeBase);
    io.value(r.timeOffsetNs);
    io.optional(r.sessionStartNs);
    io.value(r.problems);
    io.value(r.notes);
    io.list(r.warnings, [&](auto &warning) { io.text(warning); });
    io.value(r.hasCaptureMetadata);
    io.list(r.programs, [&](auto &program) {
        io.value(program.index);
        io.text(program.command);
        io.list(program.arguments, [&](auto &argument) { io.text(argument); });
        io.value(program.argumentsComplete);
        io.text(program.workingDir);
        io.value(program.environmentCount);
    });
    CallchainsCodec::visit(io, r.callchains);
}

template <typename Io, typename D> void visitReport(Io &io, D &data)
{
    visitReportHeader(io, data.report);
    io.list(data.gpus, [&](auto &gpu) { visitGpu(io, gpu); });
    io.list(data.threads, [&](auto &thread) { visitThread(io, thread); });
    io.map(data.processNames);
    io.column(data.gpuPids);
    io.map(data.activityByPid);
    io.optional(data.environmentRank);
    io.map(data.unknownThreadNameIds);
}

constexpr std::size_t kColumnAlignment = 8;

template <typename T> constexpr bool kPlain = std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>;

// Pass 1: the names a report uses, numbered in the order first met.
class NameCollector
{
public:
    explicit NameCollector(std::size_t poolSize)
        : m_local(poolSize, kUnset)
    {
    }
    template <typename T> void value(const T &) { }
    template <typename T, typename A> void column(const std::vector<T, A> &) { }
    template <typename C> void nesting(const C &, const C &, const Column<std::uint8_t> &, const NestingIndex &) { }
    void text(const std::string &) { }
    template <typename T> void optional(const std::optional<T> &) { }
    template <typename K, typename V> void map(const std::map<K, V> &) { }
    template <typename T, typename F> void list(const std::vector<T> &items, F each)
    {
        for (const auto &item : items)
            each(item);
    }
    void name(StringId id)
    {
        if (id >= m_local.size())
            throw std::logic_error(fmt::format("report cache: name id {} outside the pool", id));
        if (m_local[id] == kUnset) {
            m_local[id] = std::uint32_t(m_used.size());
            m_used.push_back(id);
        }
    }
    void names(const std::vector<StringId> &ids)
    {
        for (auto id : ids)
            name(id);
    }
    const std::vector<std::uint32_t> &localIds() const { return m_local; }
    const std::vector<StringId> &used() const { return m_used; }

private:
    static constexpr std::uint32_t kUnset = 0xFFFFFFFFu;
    std::vector<std::uint32_t> m_local; // pool id -> index in m_used
    std::vector<StringId> m_used;
};

// Pass 2: the bytes.
class Writer
{
public:
    Writer(const ByteSink &sink, const std::vector<std::uint32_t> &localIds)
        : m_sink(sink)
        , m_local(localIds)
    {
    }
    template <typename T> void value(const T &v)
    {
        static_assert(kPlain<T>);
        put(&v, sizeof v);
    }
    template <typename T, typename A> void column(const std::vector<T, A> &c)
    {
        static_assert(kPlain<T>);
        value(std::uint64_t(c.size()));
        alignColumn();
        put(c.data(), c.size() * sizeof(T));
    }
    void text(const std::string &s)
    {
        value(std::uint64_t(s.size()));
        put(s.data(), s.size());
    }
    // A track's nesting (depths and levels), so that a reopen does not build it: only for a
    // track already in its final order (every real export's; finalizeTraceSet then keeps the
    // order), else a reopen builds it after sorting, as a read does. Built into the track, so
    // that finalizeTraceSet keeps it instead of building it again.
    template <typename C> void nesting(const C &start, const C &end, Column<std::uint8_t> &depth, NestingIndex &index)
    {
        const bool kept = !start.empty() && inNestingOrder(start, end);
        value(kept);
        if (!kept)
            return;
        depth = index.build(start, end);
        column(depth);
        value(index.properlyNested());
        value(std::uint64_t(index.levelCount()));
        for (std::size_t d = 0; d < index.levelCount(); ++d)
            column(index.level(d));
    }
    template <typename T> void optional(const std::optional<T> &v)
    {
        value(v.has_value());
        if (v)
            plainOrText(*v);
    }
    template <typename K, typename V> void map(const std::map<K, V> &m)
    {
        value(std::uint64_t(m.size()));
        for (const auto &[key, mapped] : m) {
            value(key);
            plainOrText(mapped);
        }
    }
    // Not const: a track's nesting is built into it (nesting()).
    template <typename T, typename F> void list(std::vector<T> &items, F each)
    {
        value(std::uint64_t(items.size()));
        for (auto &item : items)
            each(item);
    }
    void name(StringId id) { value(m_local[id]); }
    void names(const std::vector<StringId> &ids)
    {
        value(std::uint64_t(ids.size()));
        alignColumn();
        // In blocks: one sink call per block, not per name.
        std::uint32_t block[4096];
        for (std::size_t i = 0; i < ids.size(); i += std::size(block)) {
            const auto n = std::min(std::size(block), ids.size() - i);
            for (std::size_t j = 0; j < n; ++j)
                block[j] = m_local[ids[i + j]];
            put(block, n * sizeof block[0]);
        }
    }

private:
    void put(const void *bytes, std::size_t n)
    {
        if (n == 0)
            return;
        m_sink(bytes, n);
        m_offset += n;
    }
    // A column's data starts at a multiple of 8 bytes from the payload's start (which the
    // cache maps at a page boundary plus the header), so the reader copies it as a T array.
    void alignColumn()
    {
        static constexpr char kZeros[kColumnAlignment] = {};
        put(kZeros, (kColumnAlignment - m_offset % kColumnAlignment) % kColumnAlignment);
    }
    std::uint64_t m_offset = 0;
    template <typename T> void plainOrText(const T &v)
    {
        if constexpr (std::is_same_v<T, std::string>)
            text(v);
        else if constexpr (requires {
                               v.first;
                               v.second;
                           }) {
            value(v.first);
            plainOrText(v.second);
        } else
            value(v);
    }
    const ByteSink &m_sink;
    const std::vector<std::uint32_t> &m_local;
};

// Pass 3: back from the bytes, checking every length against what is left.
class Reader
{
public:
    Reader(std::span<const std::byte> bytes, std::shared_ptr<const void> mapping)
        : m_bytes(bytes)
        , m_mapping(std::move(mapping))
    {
    }
    template <typename T> void value(T &v)
    {
        static_assert(kPlain<T>);
        if constexpr (std::is_same_v<T, bool>) {
            // Only 0 and 1 are bools: any other byte would be undefined behaviour to read as one.
            std::uint8_t byte = 0;
            std::memcpy(&byte, take(1), 1);
            if (byte > 1)
                throw CorruptEntry(fmt::format("a bool of {}", byte));
            v = byte == 1;
        } else {
            std::memcpy(&v, take(sizeof v), sizeof v);
        }
    }
    template <typename T> void column(std::vector<T> &c)
    {
        static_assert(kPlain<T> && alignof(T) <= kColumnAlignment);
        const auto n = count(sizeof(T));
        skipToColumn();
        // Aligned (alignColumn), so the bytes are read as T: one copy, no zero-fill first.
        const auto *first = reinterpret_cast<const T *>(take(n * sizeof(T)));
        c.assign(first, first + n);
    }
    // A model column views the mapped bytes when there is a mapping (model/column.h).
    template <typename T> void column(Column<T> &c)
    {
        static_assert(kPlain<T> && alignof(T) <= kColumnAlignment);
        const auto n = count(sizeof(T));
        skipToColumn();
        const auto *first = reinterpret_cast<const T *>(take(n * sizeof(T)));
        if (m_mapping && n > 0)
            c = viewColumn(first, n, m_mapping);
        else
            c.assign(first, first + n);
    }
    void text(std::string &s)
    {
        const auto n = count(1);
        s.assign(reinterpret_cast<const char *>(take(n)), n);
    }
    // What Writer::nesting wrote, checked to be safe to use on the track: one depth per row,
    // each naming a level, and levels of rows in ascending order, as many as the track has.
    template <typename C> void nesting(const C &start, const C &, Column<std::uint8_t> &depth, NestingIndex &index)
    {
        bool kept = false;
        value(kept);
        if (!kept)
            return;
        column(depth);
        bool properlyNested = true;
        value(properlyNested);
        const auto levelCount = count(8);
        if (depth.empty() || depth.size() != start.size() || levelCount == 0
            || levelCount > NestingIndex::kMaxDepth + 1)
            throw CorruptEntry("a nesting index that does not fit its track");
        std::vector<Column<std::uint32_t>> levels(levelCount);
        for (auto &level : levels)
            column(level);
        if (*std::max_element(depth.begin(), depth.end()) >= levelCount)
            throw CorruptEntry("a depth beyond the nesting index's levels");
        std::size_t rows = 0;
        for (const auto &level : levels) {
            rows += level.size();
            if (!level.empty()
                && (level.back() >= depth.size()
                    || std::adjacent_find(level.begin(), level.end(), std::greater_equal<>()) != level.end()))
                throw CorruptEntry("a nesting level that is not rows of its track in order");
        }
        if (rows != depth.size())
            throw CorruptEntry("a nesting index that does not hold every row once");
        index.restore(std::move(levels), properlyNested);
    }
    template <typename T> void optional(std::optional<T> &v)
    {
        bool has = false;
        value(has);
        if (!has) {
            v.reset();
            return;
        }
        T inner {};
        plainOrText(inner);
        v = std::move(inner);
    }
    template <typename K, typename V> void map(std::map<K, V> &m)
    {
        m.clear();
        const auto n = count(sizeof(K));
        for (std::size_t i = 0; i < n; ++i) {
            K key {};
            value(key);
            plainOrText(m[key]);
        }
    }
    template <typename T, typename F> void list(std::vector<T> &items, F each)
    {
        items.clear();
        // Every item starts with at least 8 bytes (a count or a length, or values as long), and
        // grows the list only once decoded: a damaged count cannot make a huge allocation.
        const auto n = count(8);
        for (std::uint64_t i = 0; i < n; ++i)
            each(items.emplace_back());
    }
    void name(StringId &id)
    {
        std::uint32_t local = 0;
        value(local);
        id = global(local);
    }
    void names(std::vector<StringId> &ids)
    {
        column(ids);
        for (auto &id : ids)
            id = global(id);
    }
    // The entry's names, once read: local index -> id in the reading process's pool.
    void setNames(std::vector<StringId> globalIds) { m_global = std::move(globalIds); }
    bool atEnd() const { return m_bytes.empty(); }
    std::uint64_t count(std::size_t bytesPerItem)
    {
        std::uint64_t n = 0;
        value(n);
        if (n > m_bytes.size() / bytesPerItem)
            throw CorruptEntry(fmt::format("a count of {} items overruns the {} bytes left", n, m_bytes.size()));
        return n;
    }

private:
    const std::byte *take(std::size_t n)
    {
        if (n > m_bytes.size())
            throw CorruptEntry(fmt::format("{} bytes wanted, {} left", n, m_bytes.size()));
        const auto *p = m_bytes.data();
        m_bytes = m_bytes.subspan(n);
        m_offset += n;
        return p;
    }
    void skipToColumn()
    {
        take((kColumnAlignment - m_offset % kColumnAlignment) % kColumnAlignment);
        if (reinterpret_cast<std::uintptr_t>(m_bytes.data()) % kColumnAlignment != 0)
            throw CorruptEntry("a column that is not aligned in memory");
    }
    std::uint64_t m_offset = 0;
    StringId global(std::uint32_t local) const
    {
        if (local >= m_global.size())
            throw CorruptEntry(fmt::format("name {} outside the entry's {} names", local, m_global.size()));
        return m_global[local];
    }
    template <typename T> void plainOrText(T &v)
    {
        if constexpr (std::is_same_v<T, std::string>)
            text(v);
        else if constexpr (requires {
                               v.first;
                               v.second;
                           }) {
            value(v.first);
            plainOrText(v.second);
        } else
            value(v);
    }
    std::span<const std::byte> m_bytes;
    std::shared_ptr<const void> m_mapping;
    std::vector<StringId> m_global;
};

} // namespace

void writeReportPayload(const ByteSink &sink, ReportData &data, const StringPool &strings)
{
    NameCollector collector(strings.size());
    visitReport(collector, data);
    Writer writer(sink, collector.localIds());
    writer.value(std::uint64_t(collector.used().size()));
    for (auto id : collector.used())
        writer.text(strings.get(id));
    visitReport(writer, data);
}

ReportData readReportPayload(
    std::span<const std::byte> payload, StringPool &strings, std::shared_ptr<const void> mapping)
{
    Reader reader(payload, std::move(mapping));
    const auto nameCount = reader.count(sizeof(std::uint64_t));
    std::vector<StringId> global;
    global.reserve(nameCount);
    std::string text;
    for (std::uint64_t i = 0; i < nameCount; ++i) {
        reader.text(text);
        global.push_back(strings.intern(text));
    }
    reader.setNames(std::move(global));
    ReportData data;
    visitReport(reader, data);
    if (!reader.atEnd())
        throw CorruptEntry("bytes left over after the report");
    return data;
}

bool isCacheable(const ReportData &data)
{
    if (data.error || !data.osrtThreads.empty())
        return false;
    for (const auto &gpu : data.gpus)
        if (gpu.copies.nesting.levelCount() != 0 || !gpu.copies.depth.empty() || gpu.copies.lanes.rowCount() != 0)
            return false;
    for (const auto &thread : data.threads)
        if (thread.api.nesting.levelCount() != 0 || thread.nvtx.nesting.levelCount() != 0
            || thread.osrt.nesting.levelCount() != 0 || !thread.api.depth.empty() || !thread.nvtx.depth.empty()
            || !thread.osrt.depth.empty())
            return false;
    return true;
}

} // namespace gaplens::core::detail
