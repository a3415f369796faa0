// SPDX-License-Identifier: MIT
#include "report_cache_store.h"

#include "report_codec.h"

#include <fmt/format.h>

// xxHash (Debian's libxxhash-dev) as header-only code: the checksums are XXH3, which reads
// gigabytes per second, so checking an entry costs little beside reading it.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gaplens::core {

std::filesystem::path defaultReportCacheDirectory()
{
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        return std::filesystem::path(xdg) / "gaplens";
    if (const char *home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".cache" / "gaplens";
    return {};
}

ReportCacheOptions defaultReportCacheOptions()
{
    ReportCacheOptions options;
    options.directory = defaultReportCacheDirectory();
    if (const char *limit = std::getenv("GAPLENS_CACHE_MAX_GIB")) {
        char *end = nullptr;
        const double gib = std::strtod(limit, &end);
        if (end != limit && *end == '\0' && gib > 0 && gib < 1e9)
            options.maxBytes = std::uint64_t(gib * double(std::uint64_t(1) << 30));
    }
    return options;
}

namespace detail {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = { 'G', 'L', 'C', 'A', 'C', 'H', 'E', '\n' };
constexpr const char *kEntryExtension = ".glcache";

struct EntryHeader
{
    char magic[8];
    std::uint32_t version;
    std::uint32_t tables;
    std::uint64_t key; // names the entry: path and table set
    std::uint64_t identity; // the report's file as it was read
    std::uint64_t payloadSize;
    std::uint64_t payloadHash;
    std::uint64_t reserved[2];
};
static_assert(sizeof(EntryHeader) == 64 && std::is_trivially_copyable_v<EntryHeader>);

class Fd
{
public:
    explicit Fd(int fd)
        : m_fd(fd)
    {
    }
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(Fd &&other) noexcept
        : m_fd(std::exchange(other.m_fd, -1))
    {
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return m_fd; }
    explicit operator bool() const { return m_fd >= 0; }

private:
    int m_fd;
};

// The entry's name: the report's path as given and as absolute, the table set, the version.
std::uint64_t entryKey(const std::string &path, TableSet tables)
{
    std::error_code ec;
    const auto absolute = fs::absolute(path, ec).lexically_normal().string();
    const auto text = fmt::format("{}\n{}\n{}\n{}", kReportCacheVersion, tables.bits(), path, absolute);
    return XXH3_64bits(text.data(), text.size());
}

fs::path entryPath(const ReportCacheOptions &options, std::uint64_t key)
{
    return options.directory / fmt::format("{:016x}{}", key, kEntryExtension);
}

bool isEntry(const fs::path &path)
{
    return path.extension() == kEntryExtension;
}

// An entry mapped for the columns that view it (model/column.h): private, so nothing reaches
// the file, and writable after it is populated, so a write copies the one page it touches.
class Mapping
{
public:
    Mapping(int fd, std::size_t size)
        : m_size(size)
    {
        // Populated at once, read-only: one call maps every page instead of a fault per 4 KiB
        // page (a third of a reopen's time went to those faults). Populating a writable private
        // mapping would copy every page.
        void *p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (p == MAP_FAILED)
            return;
        if (::mprotect(p, size, PROT_READ | PROT_WRITE) != 0) {
            ::munmap(p, size);
            return;
        }
        m_data = static_cast<const std::byte *>(p);
    }
    ~Mapping()
    {
        if (m_data)
            ::munmap(const_cast<std::byte *>(m_data), m_size);
    }
    Mapping(const Mapping &) = delete;
    Mapping &operator=(const Mapping &) = delete;
    std::span<const std::byte> bytes() const { return { m_data, m_data ? m_size : 0 }; }

private:
    const std::byte *m_data = nullptr;
    std::size_t m_size;
};

struct CloseFile
{
    void operator()(std::FILE *file) const { std::fclose(file); }
};

} // namespace

// What tells that a report changed: its inode, size, modification and change times, and the
// bytes of its first and last 64 KiB (SQLite's header, with its change counter, and schema).
std::optional<std::uint64_t> reportIdentity(const std::string &path)
{
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st = {};
    if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    const std::int64_t facts[] = { std::int64_t(st.st_dev), std::int64_t(st.st_ino), std::int64_t(st.st_size),
        st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec };
    XXH3_64bits_update(&state, facts, sizeof facts);
    constexpr std::size_t kEdge = 64 * 1024;
    std::vector<char> bytes(kEdge);
    const std::int64_t lastEdge = std::max<std::int64_t>(0, std::int64_t(st.st_size) - std::int64_t(kEdge));
    for (const std::int64_t offset : { std::int64_t(0), lastEdge }) {
        const auto n = ::pread(fd.get(), bytes.data(), bytes.size(), offset);
        if (n < 0)
            return std::nullopt;
        XXH3_64bits_update(&state, bytes.data(), std::size_t(n));
    }
    return XXH3_64bits_digest(&state);
}

namespace {

// The entry of `path` for `tables`, opened, when its header matches: else an empty Fd.
Fd openEntry(const ReportCacheOptions &options, const std::string &path, TableSet tables,
    std::optional<std::uint64_t> identity, EntryHeader &header, struct stat &st)
{
    if (options.directory.empty() || !identity)
        return Fd(-1);
    const auto key = entryKey(path, tables);
    const auto file = entryPath(options, key);
    Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd || ::fstat(fd.get(), &st) != 0 || std::uint64_t(st.st_size) < sizeof(EntryHeader))
        return Fd(-1);
    if (::pread(fd.get(), &header, sizeof header, 0) != ssize_t(sizeof header))
        return Fd(-1);
    if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0 || header.version != kReportCacheVersion
        || header.tables != tables.bits() || header.key != key || header.identity != *identity
        || header.payloadSize != std::uint64_t(st.st_size) - sizeof(EntryHeader))
        return Fd(-1);
    return fd;
}

} // namespace

bool hasCachedReport(
    const ReportCacheOptions &options, const std::string &path, TableSet tables, std::optional<std::uint64_t> identity)
{
    EntryHeader header = {};
    struct stat st = {};
    return bool(openEntry(options, path, tables, identity, header, st));
}

std::optional<ReportData> loadCachedReport(const ReportCacheOptions &options, const std::string &path, TableSet tables,
    std::optional<std::uint64_t> identity, StringPool &strings)
{
    EntryHeader header = {};
    struct stat st = {};
    const Fd fd = openEntry(options, path, tables, identity, header, st);
    if (!fd)
        return std::nullopt;
    const auto mapping = std::make_shared<const Mapping>(fd.get(), std::size_t(st.st_size));
    const auto payload = mapping->bytes().subspan(std::min(mapping->bytes().size(), sizeof(EntryHeader)));
    if (payload.size() != header.payloadSize || XXH3_64bits(payload.data(), payload.size()) != header.payloadHash)
        return std::nullopt;
    try {
        // The columns view the mapping and keep it (and the file's pages) for as long as they live.
        auto data = readReportPayload(payload, strings, mapping);
        data.report.path = path;
        data.report.readFromCache = true;
        ::futimens(fd.get(), nullptr); // used now, for the eviction's order
        return data;
    } catch (const CorruptEntry &) {
        return std::nullopt;
    }
}

void evictReportCache(const ReportCacheOptions &options)
{
    if (options.directory.empty())
        return;
    struct Entry
    {
        fs::file_time_type used;
        std::uint64_t size;
        fs::path path;
    };
    std::vector<Entry> entries;
    std::uint64_t total = 0;
    std::error_code ec;
    const auto now = fs::file_time_type::clock::now();
    for (const auto &item : fs::directory_iterator(options.directory, ec)) {
        std::error_code timeError, sizeError;
        const auto used = item.last_write_time(timeError);
        const auto size = item.file_size(sizeError);
        if (timeError || sizeError)
            continue; // gone meanwhile (another process evicting), or not a plain file
        std::error_code itemError;
        if (item.path().extension() == ".tmp") {
            if (now - used > std::chrono::hours(24))
                fs::remove(item.path(), itemError);
            continue;
        }
        if (!isEntry(item.path()))
            continue;
        entries.push_back({ used, size, item.path() });
        total += size;
    }
    std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) { return a.used < b.used; });
    for (const auto &entry : entries) {
        if (total <= options.maxBytes)
            break;
        std::error_code removeError;
        if (fs::remove(entry.path, removeError))
            total -= entry.size;
    }
}

std::string storeCachedReport(const ReportCacheOptions &options, const std::string &path, TableSet tables,
    std::optional<std::uint64_t> identity, ReportData &data, const StringPool &strings)
{
    if (options.directory.empty() || !identity || !isCacheable(data))
        return {};
    std::error_code ec;
    fs::create_directories(options.directory, ec);
    if (ec)
        return fmt::format("cannot create the folder: {}", ec.message());
    const auto key = entryKey(path, tables);
    static std::atomic<unsigned> written { 0 };
    const auto temporary = options.directory / fmt::format("{:016x}.{}.{}.tmp", key, ::getpid(), written++);
    const int raw = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (raw < 0)
        return fmt::format("cannot create a file in the folder: {}", std::strerror(errno));
    // The first thing that failed, said with its errno (ENOSPC for a full disk).
    std::string failure;
    auto failed = [&](const char *what) {
        if (failure.empty())
            failure = fmt::format("{}: {}", what, std::strerror(errno));
    };
    std::unique_ptr<std::FILE, CloseFile> out(::fdopen(raw, "wb"));
    if (!out) {
        failed("cannot write an entry");
        ::close(raw);
    } else {
        std::setvbuf(out.get(), nullptr, _IOFBF, 1 << 20);
        EntryHeader header = {};
        std::memcpy(header.magic, kMagic, sizeof kMagic);
        header.version = kReportCacheVersion;
        header.tables = tables.bits();
        header.key = key;
        header.identity = *identity;
        if (std::fwrite(&header, sizeof header, 1, out.get()) != 1)
            failed("cannot write an entry");
        XXH3_state_t state;
        XXH3_64bits_reset(&state);
        std::uint64_t size = 0;
        const ByteSink sink = [&](const void *bytes, std::size_t n) {
            if (!failure.empty() || n == 0)
                return;
            if (std::fwrite(bytes, 1, n, out.get()) != n)
                failed("cannot write an entry");
            XXH3_64bits_update(&state, bytes, n);
            size += n;
        };
        writeReportPayload(sink, data, strings);
        header.payloadSize = size;
        header.payloadHash = XXH3_64bits_digest(&state);
        if (failure.empty()
            && (std::fseek(out.get(), 0, SEEK_SET) != 0 || std::fwrite(&header, sizeof header, 1, out.get()) != 1))
            failed("cannot write an entry");
        if (std::fclose(out.release()) != 0)
            failed("cannot write an entry");
    }
    // A report that changed since its identity was taken (before it was read) gets no entry.
    bool keep = failure.empty() && reportIdentity(path) == identity;
    if (keep) {
        fs::rename(temporary, entryPath(options, key), ec);
        if (ec)
            failure = fmt::format("cannot rename an entry: {}", ec.message());
        keep = !ec;
    }
    if (!keep)
        fs::remove(temporary, ec);
    return failure;
}

} // namespace detail
} // namespace gaplens::core
