// SPDX-License-Identifier: MIT
// The SQLite file format as used here: https://www.sqlite.org/fileformat2.html
// (database header, b-tree pages, cell payload and overflow, record format).
#include "table_scan.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <system_error>
#include <thread>

namespace gaplens::core::detail {
namespace {

constexpr int kMissing = -1; // column not in the table: NULL
constexpr int kIsRowid = -2; // the table's INTEGER PRIMARY KEY: the row's rowid

constexpr std::uint8_t kTableInterior = 0x05;
constexpr std::uint8_t kTableLeaf = 0x0d;
constexpr std::uint8_t kIndexInterior = 0x02;
constexpr std::uint8_t kIndexLeaf = 0x0a;
constexpr unsigned kMaxDepth = 19; // SQLite's BTCURSOR_MAX_DEPTH - 1: deeper is corrupt there
constexpr std::size_t kReadAheadBytes = 1 << 20;
constexpr std::uint64_t kMaxPayload = 1u << 30; // SQLite's SQLITE_MAX_LENGTH is 1e9
constexpr std::uint64_t kPendingByte = 0x40000000; // SQLite's PENDING_BYTE: its page holds the file locks
constexpr std::uint8_t kPointerMapOverflow2 = 4; // PTRMAP_OVERFLOW2: an overflow page after the first
// Page-range split: leaves per range (a few hundred KiB of pages), and the fewest leaves a
// table needs before it is split (below that, starting threads costs more than it saves).
constexpr std::size_t kLeavesPerRange = 16;
constexpr std::size_t kMinLeavesToSplit = 4 * kLeavesPerRange;
constexpr std::size_t kMaxListedLeaves = std::size_t(1) << 24; // the plan's page list stays under 64 MiB

std::uint32_t be16(const std::uint8_t *p)
{
    return std::uint32_t(p[0]) << 8 | p[1];
}
std::uint32_t be32(const std::uint8_t *p)
{
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

// readVarint's out-of-line part: a varint of two or more bytes, or one that runs past `end`.
[[gnu::noinline]] int readLongVarint(const std::uint8_t *p, const std::uint8_t *end, std::uint64_t &value)
{
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
        if (p + i >= end)
            return 0;
        v = (v << 7) | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            value = v;
            return i + 1;
        }
    }
    if (p + 8 >= end)
        return 0;
    value = (v << 8) | p[8];
    return 9;
}

// SQLite's varint: 1 to 9 bytes, big-endian, 7 bits per byte except a 9th of 8 bits.
// Returns the bytes used, or 0 when it would run past `end`. Almost every serial type and
// record header size is one byte: that case is inline even at -O2 (the default
// RelWithDebInfo build did not inline the whole function, and calls to it were 5% of a load).
inline int readVarint(const std::uint8_t *p, const std::uint8_t *end, std::uint64_t &value)
{
    if (p < end && p[0] < 0x80) [[likely]] {
        value = p[0];
        return 1;
    }
    return readLongVarint(p, end, value);
}

// readVarint for a cell's rowid: every rowid past 127 takes two or more bytes, so those below
// 2^28 (up to four bytes) are read inline too (readLongVarint was 2% of a `gaps` run, once per
// row); longer, negative or truncated ones go through readVarint.
inline int readRowidVarint(const std::uint8_t *p, const std::uint8_t *end, std::uint64_t &value)
{
    if (end - p > 3) {
        std::uint64_t v = 0;
        for (int i = 0; i < 4; ++i) {
            v = v << 7 | (p[i] & 0x7f);
            if (p[i] < 0x80) {
                value = v;
                return i + 1;
            }
        }
    }
    return readVarint(p, end, value);
}

// A table leaf cell's payload size and rowid as SQLite's btreeParseCellPtr reads them: the size
// takes 7 bits from each of up to 9 bytes into 32 bits (unlike a varint's 8 in the 9th byte and
// 64 bits), the rowid is a varint. The first byte after them, or nullptr if they run past `end`.
const std::uint8_t *readLeafCellHeader(
    const std::uint8_t *cell, const std::uint8_t *end, std::uint32_t &payloadSize, std::uint64_t &rowid)
{
    const std::uint8_t *p = cell;
    if (p >= end)
        return nullptr;
    std::uint32_t size = *p;
    if (size >= 0x80) {
        const std::uint8_t *last = cell + 8;
        size &= 0x7f;
        do {
            if (++p >= end)
                return nullptr;
            size = size << 7 | (*p & 0x7f);
        } while (*p >= 0x80 && p < last);
    }
    ++p;
    const int n = readRowidVarint(p, end, rowid);
    if (n == 0)
        return nullptr;
    payloadSize = size;
    return p + n;
}

// Bytes a table leaf cell takes on its page, as SQLite's cellSizePtr counts them (the local
// part of a spilled payload and its overflow page number included, at least 4); 0 when its
// header runs past `end` (SQLite's count then exceeds the room left on the page too).
std::uint32_t leafCellSize(const std::uint8_t *cell, const std::uint8_t *end, std::uint32_t usable)
{
    std::uint32_t payloadSize = 0;
    std::uint64_t rowid = 0;
    const std::uint8_t *payload = readLeafCellHeader(cell, end, payloadSize, rowid);
    if (!payload)
        return 0;
    const auto header = std::uint32_t(payload - cell);
    const std::uint32_t maxLocal = usable - 35, minLocal = (usable - 12) * 32 / 255 - 23;
    if (payloadSize <= maxLocal)
        return std::max<std::uint32_t>(payloadSize + header, 4);
    std::uint32_t local = minLocal + (payloadSize - minLocal) % (usable - 4);
    if (local > maxLocal)
        local = minLocal;
    return local + 4 + header;
}

// Bytes of a table interior cell (child page number, rowid varint) as SQLite's
// cellSizePtrNoPayload counts them; 0 when the rowid runs past `end`.
std::uint32_t interiorCellSize(const std::uint8_t *cell, const std::uint8_t *end)
{
    std::uint64_t rowid = 0;
    const int n = cell + 4 < end ? readVarint(cell + 4, end, rowid) : 0;
    return n == 0 ? 0 : std::uint32_t(4 + n);
}

// SQLite's btreeCellSizeCheck, which runs when a b-tree page is first read on connections
// with PRAGMA cell_size_check (every Database): each cell starts after the cell pointer array
// and at most 4 bytes (interior: 5) before the end of the usable area, and fits before that
// end. One cell that does not fails the whole page, before any row of it is returned.
bool cellsFitPage(const std::uint8_t *page, std::uint32_t header, std::uint32_t cells, bool leaf, std::uint32_t usable)
{
    const std::uint32_t pointers = header + (leaf ? 8 : 12);
    const std::uint32_t first = pointers + 2 * cells, last = usable - (leaf ? 4 : 5);
    const std::uint8_t *end = page + usable;
    for (std::uint32_t i = 0; i < cells; ++i) {
        const std::uint32_t at = be16(page + pointers + 2 * i);
        if (at < first || at > last)
            return false;
        const std::uint32_t size = leaf ? leafCellSize(page + at, end, usable) : interiorCellSize(page + at, end);
        if (size == 0 || at + size > usable)
            return false;
    }
    return true;
}

// Bytes of a value of this serial type in the record body (10 and 11 are reserved).
std::uint64_t serialSize(std::uint64_t type)
{
    static constexpr std::uint8_t kSmall[12] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0 };
    return type < 12 ? kSmall[type] : (type - 12) / 2;
}

bool isIntType(std::uint64_t type)
{
    return type <= 6 || type == 8 || type == 9;
}
bool isTextType(std::uint64_t type)
{
    return type == 0 || (type >= 13 && (type & 1));
}

std::string upper(std::string_view s)
{
    std::string out(s);
    for (auto &c : out)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

// An SQL identifier ("...") or string literal ('...') with the quote doubled inside.
std::string sqlQuoted(std::string_view name, char quote = '"')
{
    std::string out(1, quote);
    for (char c : name) {
        out += c;
        if (c == quote)
            out += quote;
    }
    return out + quote;
}

} // namespace

// The file's pages, read with pread: runs of consecutive pages in one call, since a table
// written in rowid order lies mostly in consecutive pages. Only pages SQLite would read as
// b-tree or overflow pages are handed out (see whyUnreadable); the caller hands anything else
// over to SQLite, whose own rows or error then result.
class TableScan::Pages
{
public:
    // nullptr with `whyNot` set when the header asks for something the scan does not decode.
    static std::unique_ptr<Pages> open(const std::string &path, std::string &whyNot)
    {
        std::error_code ec;
        if (std::filesystem::exists(path + "-wal", ec) || std::filesystem::exists(path + "-journal", ec)) {
            whyNot = "a WAL or rollback journal lies beside the file";
            return nullptr;
        }
        auto pages = std::unique_ptr<Pages>(new Pages);
        pages->m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (pages->m_fd < 0) {
            whyNot = fmt::format("cannot open: {}", std::strerror(errno));
            return nullptr;
        }
        struct stat st
        {
        };
        std::uint8_t header[100];
        if (fstat(pages->m_fd, &st) != 0 || !pages->readAt(header, sizeof header, 0)) {
            whyNot = "cannot read the database header";
            return nullptr;
        }
        std::uint32_t pageSize = be16(header + 16);
        if (pageSize == 1)
            pageSize = 65536;
        if (std::memcmp(header, "SQLite format 3", 16) != 0 || pageSize < 512 || pageSize > 65536
            || (pageSize & (pageSize - 1)) != 0) {
            whyNot = "the database header does not parse";
            return nullptr;
        }
        if (header[18] != 1 || header[19] != 1) {
            whyNot = "the database is in WAL mode";
            return nullptr;
        }
        if (be32(header + 56) != 1) {
            whyNot = "text is not UTF-8";
            return nullptr;
        }
        pages->m_pageSize = pageSize;
        pages->m_usable = pageSize - header[20];
        if (pages->m_usable < 480) {
            whyNot = "the pages' usable size is below SQLite's minimum";
            return nullptr;
        }
        // SQLite's page count (lockBtree): the header's, when the version-valid-for number
        // (92) equals the change counter (24) and the count is not 0; else the file size,
        // a partial last page included. Pages past it do not exist, whatever the file holds.
        const auto fileBytes = std::uint64_t(st.st_size);
        const std::uint64_t filePages = (fileBytes + pageSize - 1) / pageSize;
        const std::uint32_t headerPages = be32(header + 28);
        const bool headerCountValid = headerPages != 0 && std::memcmp(header + 24, header + 92, 4) == 0;
        const std::uint64_t pageCount = headerCountValid ? headerPages : filePages;
        if (pageCount > filePages || pageCount > std::numeric_limits<std::uint32_t>::max()) {
            whyNot = "the header's page count exceeds the file"; // SQLite refuses to open it
            return nullptr;
        }
        pages->m_pageCount = std::uint32_t(pageCount);
        pages->m_wholePages = std::uint32_t(std::min(pageCount, fileBytes / pageSize));
        pages->m_lockBytePage = std::uint32_t(kPendingByte / pageSize + 1);
        pages->m_autoVacuum = be32(header + 52) != 0;
        pages->m_maxRun = std::max<std::uint32_t>(1, std::uint32_t(kReadAheadBytes / pageSize));
        pages->findFreePages(be32(header + 32), be32(header + 36));
        return pages;
    }

    ~Pages()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }

    std::uint32_t usable() const { return m_usable; }
    std::uint32_t maxCells() const { return (m_pageSize - 8) / 6; } // SQLite's MX_CELL
    std::uint32_t pageCount() const { return m_pageCount; }
    bool autoVacuum() const { return m_autoVacuum; }
    bool buffered(std::uint32_t page) const { return page >= m_first && page < m_first + m_count; }

    // From now on each run of pages is read into a buffer of its own in `runs` (reusing the
    // ones already there), so that the pages handed out stay valid while `runs` lives: a
    // page-range thread's rows point into them until the reader has taken them.
    void keepRunsIn(std::vector<std::vector<std::uint8_t>> *runs)
    {
        m_runs = runs;
        m_runsUsed = 0;
        m_count = 0;
    }

    // Why page `page` is not read as a b-tree or overflow page here, or nullptr when it is.
    // SQLite fails on the first four (getAndInitPage, the pager), and reads pointer-map and
    // free pages as whatever they hold, which no valid b-tree points at.
    const char *whyUnreadable(std::uint32_t page) const
    {
        if (page == 0)
            return "page 0, which does not exist";
        if (page > m_pageCount)
            return "past the database's page count";
        if (page > m_wholePages)
            return "past the end of the file";
        if (page == m_lockBytePage)
            return "the lock-byte page";
        if (m_autoVacuum && isPointerMapPage(page))
            return "a pointer-map page";
        if (!m_freePages.empty() && m_freePages[page])
            return "on the freelist";
        return nullptr;
    }

    // Page `page`, valid until the next call that reads. Unless it is buffered already, it is
    // read together with the `consecutiveAfter` pages that follow it (the caller's next ones).
    const std::uint8_t *page(std::uint32_t page, std::uint32_t consecutiveAfter = 0)
    {
        if (whyUnreadable(page))
            return nullptr;
        if (buffered(page))
            return m_data + std::size_t(page - m_first) * m_pageSize;
        const std::uint32_t run = std::min({ consecutiveAfter + 1, m_maxRun, m_wholePages - page + 1 });
        std::vector<std::uint8_t> &buffer = m_runs ? nextRun() : m_buffer;
        buffer.resize(std::size_t(run) * m_pageSize);
        m_data = buffer.data();
        if (!readAt(buffer.data(), buffer.size(), std::uint64_t(page - 1) * m_pageSize)) {
            m_count = 0;
            return nullptr;
        }
        m_first = page;
        m_count = run;
        return m_data;
    }

    // A page into its own buffer (interior and overflow pages, which must outlive the run).
    bool copy(std::uint32_t page, std::vector<std::uint8_t> &out)
    {
        if (whyUnreadable(page))
            return false;
        out.resize(m_pageSize);
        if (buffered(page)) {
            std::memcpy(out.data(), m_data + std::size_t(page - m_first) * m_pageSize, m_pageSize);
            return true;
        }
        return readAt(out.data(), m_pageSize, std::uint64_t(page - 1) * m_pageSize);
    }

    // Whether SQLite, skipping over overflow page `page` to reach later bytes of a payload,
    // goes on at `next` (the page's own pointer) as this scan does. In an auto-vacuum database
    // getOverflowPage takes the next page from the pointer map instead of reading `page`, when
    // the page after it is recorded there as the chain's continuation from `page`; and fails
    // when that pointer-map entry does not parse.
    bool overflowSkipReaches(std::uint32_t page, std::uint32_t next)
    {
        if (!m_autoVacuum)
            return true;
        std::uint64_t guess = std::uint64_t(page) + 1;
        while (guess <= m_pageCount && (isPointerMapPage(std::uint32_t(guess)) || guess == m_lockBytePage))
            ++guess;
        if (guess > m_pageCount)
            return true; // SQLite reads `page`
        const std::uint32_t map = pointerMapPageOf(std::uint32_t(guess));
        if (map > m_wholePages)
            return false;
        if (m_pointerMapPage != map) {
            m_pointerMap.resize(m_pageSize);
            if (!readAt(m_pointerMap.data(), m_pageSize, std::uint64_t(map - 1) * m_pageSize)) {
                m_pointerMapPage = 0;
                return false;
            }
            m_pointerMapPage = map;
        }
        const std::uint8_t *entry = m_pointerMap.data() + 5 * (guess - map - 1); // PTRMAP_PTROFFSET
        if (entry[0] < 1 || entry[0] > 5)
            return false; // ptrmapGet: SQLITE_CORRUPT
        return entry[0] != kPointerMapOverflow2 || be32(entry + 1) != page || guess == next;
    }

private:
    Pages() = default;

    std::vector<std::uint8_t> &nextRun()
    {
        if (m_runsUsed == m_runs->size())
            m_runs->emplace_back(); // moving the others keeps their bytes where they are
        return (*m_runs)[m_runsUsed++];
    }

    bool readAt(std::uint8_t *into, std::size_t bytes, std::uint64_t offset) const
    {
        while (bytes > 0) {
            const auto got = ::pread(m_fd, into, bytes, off_t(offset));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                return false;
            into += got;
            bytes -= std::size_t(got);
            offset += std::uint64_t(got);
        }
        return true;
    }

    // The pointer-map page that describes page `page` (SQLite's ptrmapPageno): every
    // usable/5 + 1 pages from page 2 on, moved one on where it would be the lock-byte page.
    std::uint32_t pointerMapPageOf(std::uint32_t page) const
    {
        if (page < 2)
            return 0;
        const std::uint32_t perMap = m_usable / 5 + 1;
        const std::uint32_t map = (page - 2) / perMap * perMap + 2;
        return map == m_lockBytePage ? map + 1 : map;
    }
    bool isPointerMapPage(std::uint32_t page) const { return pointerMapPageOf(page) == page; }

    // Marks the freelist's trunk and leaf pages (fileformat2 1.5): a chain of trunk pages,
    // each listing leaf pages. One read per trunk page, each of which lists up to usable/4 - 2
    // leaves; the walk ends at the first thing that does not parse (SQLite itself never reads
    // the freelist to read a table, so a broken one is not an error here).
    void findFreePages(std::uint32_t trunk, std::uint32_t freePages)
    {
        if (trunk == 0 || freePages == 0)
            return;
        m_freePages.assign(std::size_t(m_pageCount) + 1, false);
        std::vector<std::uint8_t> bytes(m_pageSize);
        std::uint64_t left = freePages;
        while (trunk != 0 && left > 0 && !whyUnreadable(trunk)
            && readAt(bytes.data(), m_pageSize, std::uint64_t(trunk - 1) * m_pageSize)) {
            m_freePages[trunk] = true; // also ends a cycle of trunks
            --left;
            const std::uint32_t leaves = be32(bytes.data() + 4);
            if (leaves > m_usable / 4 - 2)
                return;
            for (std::uint32_t i = 0; i < leaves && left > 0; ++i, --left)
                if (const std::uint32_t leaf = be32(bytes.data() + 8 + 4 * i); leaf >= 1 && leaf <= m_pageCount)
                    m_freePages[leaf] = true;
            trunk = be32(bytes.data());
        }
    }

    int m_fd = -1;
    std::uint32_t m_pageSize = 0, m_usable = 0, m_maxRun = 1;
    std::uint32_t m_pageCount = 0; // SQLite's: pages past it do not exist
    std::uint32_t m_wholePages = 0; // pages of the count that the file holds whole
    std::uint32_t m_lockBytePage = 0;
    bool m_autoVacuum = false; // pointer-map pages lie among the others
    std::vector<bool> m_freePages; // by page number; empty without a freelist
    std::vector<std::uint8_t> m_buffer;
    std::vector<std::vector<std::uint8_t>> *m_runs = nullptr; // see keepRunsIn
    std::size_t m_runsUsed = 0;
    const std::uint8_t *m_data = nullptr; // the buffered run: pages m_first .. m_first + m_count - 1
    std::uint32_t m_first = 0, m_count = 0;
    std::vector<std::uint8_t> m_pointerMap; // the last pointer-map page read
    std::uint32_t m_pointerMapPage = 0;
};

// An interior page on the way down: its bytes and the next child to visit. A page range's
// first frame lists its pages instead (`listed`), standing for the interior pages above them.
struct TableScan::Frame
{
    std::vector<std::uint8_t> bytes;
    std::uint32_t header = 0; // offset of the b-tree page header (100 on page 1)
    std::uint32_t cells = 0;
    std::uint32_t next = 0; // child index; `cells` is the right-most pointer
    std::vector<std::uint32_t> listed; // a page range: its pages, cells + 1 of them

    // Child page `i`, or 0 when the cell pointer leads outside the page.
    std::uint32_t child(std::uint32_t i, std::uint32_t usable) const
    {
        if (!listed.empty())
            return listed[i];
        if (i == cells)
            return be32(bytes.data() + header + 8);
        const std::uint32_t at = be16(bytes.data() + header + 12 + 2 * i);
        return at + 4 <= usable ? be32(bytes.data() + at) : 0;
    }
};

// One page range's rows as a page-range thread decoded them: the values of each row in turn
// (m_columns.size() per row), pointing into `runs` (the range's pages) and `payloads` (rows
// spilled to overflow pages). `unsupported`: why decoding stopped after `rows` rows, empty
// when the range was read to its end.
struct TableScan::Chunk
{
    std::vector<Value> values;
    std::size_t rows = 0;
    std::uint64_t pagesVisited = 0;
    std::string unsupported;
    std::vector<std::vector<std::uint8_t>> runs;
    std::vector<std::vector<std::uint8_t>> payloads;
    std::size_t payloadsUsed = 0;
};

// The threads of a page-range split and the window of chunks between them and the reader:
// range i is decoded into slot i % window once range i - window has been handed out, so at
// most `window` ranges are in memory, and the threads stay busy while the reader works.
// Waiting threads are woken when half the window is free, not at every range handed back:
// a wake-up per range was 4% of a load in context switches.
class TableScan::Split
{
public:
    Split(const TableScan &owner, std::vector<std::uint32_t> leaves, std::uint32_t stackBase, unsigned threads)
        : m_leaves(std::move(leaves))
        , m_ranges((m_leaves.size() + kLeavesPerRange - 1) / kLeavesPerRange)
        , m_stackBase(stackBase)
        , m_slots(4 * (std::size_t(threads) + 1))
    {
        for (unsigned t = 0; t < threads; ++t)
            m_workers.push_back(std::unique_ptr<TableScan>(new TableScan(owner, WorkerTag {})));
        try {
            for (auto &worker : m_workers)
                m_threads.emplace_back([this, w = worker.get()] { work(*w); });
        } catch (...) { // no thread to be had: the ones started stop, and the scan is not split
            stop();
            throw;
        }
    }

    ~Split() { stop(); }
    Split(const Split &) = delete;
    Split &operator=(const Split &) = delete;

    std::size_t ranges() const { return m_ranges; }

    // The next range's chunk in key order, once decoded (the previous one is given back);
    // nullptr after the last.
    const Chunk *next()
    {
        std::unique_lock lock(m_mutex);
        if (m_holding) {
            m_slots[(m_nextToHand - 1) % m_slots.size()].ready = false;
            ++m_handedBack;
            m_holding = false;
            // Free slots only grow here: a range not yet claimed leaves the whole window free.
            if (m_handedBack + m_slots.size() - m_nextToClaim >= m_slots.size() / 2)
                m_slotFree.notify_all();
        }
        if (m_nextToHand == m_ranges)
            return nullptr;
        Slot &slot = m_slots[m_nextToHand % m_slots.size()];
        m_rangeReady.wait(lock, [&] { return slot.ready && slot.range == m_nextToHand; });
        ++m_nextToHand;
        m_holding = true;
        return &slot.chunk;
    }

private:
    void stop()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_slotFree.notify_all();
        for (auto &t : m_threads)
            t.join();
    }

    struct Slot
    {
        Chunk chunk;
        std::size_t range = 0;
        bool ready = false;
    };

    void work(TableScan &worker)
    {
        std::string whyNot;
        worker.m_pages = Pages::open(worker.m_db.path(), whyNot);
        while (true) {
            std::size_t range = 0;
            {
                std::unique_lock lock(m_mutex);
                m_slotFree.wait(lock, [&] {
                    return m_stop || (m_nextToClaim < m_ranges && m_nextToClaim < m_handedBack + m_slots.size());
                });
                if (m_stop)
                    return;
                range = m_nextToClaim++;
            }
            Slot &slot = m_slots[range % m_slots.size()];
            decode(worker, range, slot.chunk, whyNot);
            {
                std::lock_guard lock(m_mutex);
                slot.range = range;
                slot.ready = true;
            }
            m_rangeReady.notify_one(); // only the reader waits for a range
        }
    }

    void decode(TableScan &worker, std::size_t range, Chunk &chunk, const std::string &whyNot)
    {
        chunk.values.clear();
        chunk.rows = 0;
        chunk.payloadsUsed = 0;
        chunk.unsupported.clear();
        chunk.pagesVisited = 0;
        if (!worker.m_pages) {
            chunk.unsupported = whyNot;
            return;
        }
        try {
            const std::size_t first = range * kLeavesPerRange;
            const std::size_t last = std::min(first + kLeavesPerRange, m_leaves.size());
            worker.m_pages->keepRunsIn(&chunk.runs);
            Frame frame;
            frame.listed.assign(m_leaves.begin() + std::ptrdiff_t(first), m_leaves.begin() + std::ptrdiff_t(last));
            frame.cells = std::uint32_t(frame.listed.size() - 1);
            worker.m_stack.clear();
            worker.m_stack.push_back(std::move(frame));
            worker.m_stackBase = m_stackBase;
            worker.m_leaf = nullptr;
            worker.m_leafCell = worker.m_leafCells = 0;
            worker.m_leafDepth = 0;
            worker.m_pagesVisited = 0;
            const std::size_t columns = worker.m_columns.size();
            while (true) {
                const Step step = worker.stepDirect();
                if (step == Step::Done)
                    break;
                if (step == Step::Unsupported) {
                    chunk.unsupported = std::move(worker.m_pendingReason);
                    break;
                }
                const auto at = chunk.values.size();
                chunk.values.insert(chunk.values.end(), worker.m_values.begin(), worker.m_values.end());
                if (worker.m_rowInPayload)
                    keepPayload(worker.m_payload, chunk, at, columns);
                ++chunk.rows;
            }
            chunk.pagesVisited = worker.m_pagesVisited;
        } catch (const std::exception &e) { // out of memory: SQLite takes over from this range
            chunk.unsupported = fmt::format("a page-range thread failed: {}", e.what());
        }
    }

    // A row reassembled from overflow pages points into the worker's m_payload, which the
    // next such row overwrites: the chunk keeps a copy, and the row points into that.
    static void keepPayload(const std::vector<std::uint8_t> &payload, Chunk &chunk, std::size_t at, std::size_t columns)
    {
        if (chunk.payloadsUsed == chunk.payloads.size())
            chunk.payloads.emplace_back();
        auto &copy = chunk.payloads[chunk.payloadsUsed++];
        copy.assign(payload.begin(), payload.end());
        const std::uint8_t *from = payload.data(), *end = payload.data() + payload.size();
        for (std::size_t c = 0; c < columns; ++c) {
            Value &v = chunk.values[at + c];
            if (v.type != kRowid && v.type != kNull && v.data >= from && v.data <= end)
                v.data = copy.data() + (v.data - from);
        }
    }

    const std::vector<std::uint32_t> m_leaves; // every leaf page of the table, in key order
    const std::size_t m_ranges;
    const std::uint32_t m_stackBase; // interior levels above the leaves
    std::vector<Slot> m_slots;
    std::vector<std::unique_ptr<TableScan>> m_workers;
    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_slotFree, m_rangeReady;
    std::size_t m_nextToClaim = 0, m_nextToHand = 0, m_handedBack = 0;
    bool m_holding = false; // the reader holds range m_nextToHand - 1
    bool m_stop = false;
};

TableScan::TableScan(
    const Database &db, std::string_view table, std::vector<ScanColumn> columns, bool direct, unsigned threads)
    : m_db(db)
    , m_table(table)
    , m_columns(std::move(columns))
    , m_values(m_columns.size())
    , m_row(m_values.data())
{
    if (direct)
        prepareDirect();
    else
        handOver({});
    if (threads > 0 && !m_statement && !m_stack.empty())
        planSplit(threads);
}

TableScan::TableScan(const TableScan &owner, WorkerTag)
    : m_db(owner.m_db)
    , m_table(owner.m_table)
    , m_columns(owner.m_columns)
    , m_recordIndex(owner.m_recordIndex)
    , m_nullDefault(owner.m_nullDefault)
    , m_fieldsNeeded(owner.m_fieldsNeeded)
    , m_fieldType(owner.m_fieldType.size())
    , m_fieldOffset(owner.m_fieldOffset.size())
    , m_values(m_columns.size())
    , m_row(m_values.data())
{
}

TableScan::~TableScan() = default;

// Lists the table's leaf pages by reading the interior pages level by level (as the scan
// would enter them, with the same checks), and splits the list into page ranges. Anything
// unexpected on the way leaves the scan unsplit: the single-threaded scan then meets it in
// its place, and acts on it as always.
void TableScan::planSplit(unsigned threads)
{
    const std::uint32_t usable = m_pages->usable();
    const Frame &root = m_stack.front();
    std::vector<std::uint32_t> level;
    for (std::uint32_t i = 0; i <= root.cells; ++i)
        level.push_back(root.child(i, usable));
    std::uint32_t depth = 1; // frames above `level`: the root's
    std::uint64_t visited = m_pagesVisited;
    std::vector<std::uint8_t> bytes;
    while (true) {
        if (level.size() > kMaxListedLeaves || level.front() == 1 || m_pages->whyUnreadable(level.front()))
            return;
        if (!m_pages->copy(level.front(), bytes))
            return;
        if (bytes[0] == kTableLeaf)
            break;
        if (depth + 1 >= kMaxDepth)
            return;
        std::vector<std::uint32_t> below;
        for (const std::uint32_t page : level) {
            if (page == 1 || m_pages->whyUnreadable(page) || !m_pages->copy(page, bytes)
                || ++visited > m_pages->pageCount())
                return;
            const std::uint32_t cells = be16(bytes.data() + 3);
            if (bytes[0] != kTableInterior || cells < 1 || cells > m_pages->maxCells()
                || !cellsFitPage(bytes.data(), 0, cells, false, usable))
                return;
            Frame frame;
            frame.bytes = std::move(bytes);
            frame.cells = cells;
            for (std::uint32_t i = 0; i <= cells; ++i)
                below.push_back(frame.child(i, usable));
            bytes = std::move(frame.bytes);
        }
        level = std::move(below);
        ++depth;
    }
    if (level.size() < kMinLeavesToSplit)
        return;
    try {
        m_split = std::make_unique<Split>(*this, std::move(level), depth - 1, threads);
    } catch (const std::system_error &) {
        return; // the system has no thread to spare: this thread reads every page
    }
    m_pagesVisited = visited;
    m_stack.clear();
    m_pageRanges = m_split->ranges();
}

// The next row of the current range, moving on to the next range when it is done.
bool TableScan::stepSplit()
{
    const std::size_t columns = m_columns.size();
    while (true) {
        if (m_chunk && m_chunkRow < m_chunk->rows) {
            m_row = m_chunk->values.data() + m_chunkRow++ * columns;
            ++m_directRows;
            return true;
        }
        if (m_chunk && !m_chunk->unsupported.empty())
            return resumeWithSqlite(m_chunk->unsupported);
        m_chunk = m_split->next();
        m_chunkRow = 0;
        if (!m_chunk) {
            m_split.reset();
            m_row = m_values.data();
            m_done = true;
            return false;
        }
        // The single-threaded scan's loop guard, over the ranges handed out so far.
        m_pagesVisited += m_chunk->pagesVisited;
        if (m_pagesVisited > m_pages->pageCount())
            return resumeWithSqlite("the b-tree visits more pages than the file has");
    }
}

void TableScan::prepareDirect()
{
    auto notDirect = [&](std::string reason) {
        m_fallbackReason = std::move(reason);
        handOver({});
    };
    std::uint32_t root = 0;
    std::string sql;
    {
        Statement stmt(m_db.handle(),
            fmt::format("SELECT rootpage, sql FROM sqlite_master WHERE type = 'table' "
                        "AND name = {}",
                sqlQuoted(m_table, '\'')));
        if (!stmt.step())
            return notDirect("no such table in sqlite_master");
        const auto rootPage = stmt.int64(0);
        if (rootPage < 1 || rootPage > std::numeric_limits<std::uint32_t>::max())
            return notDirect("the table's root page number is out of range");
        root = std::uint32_t(rootPage);
        sql = upper(stmt.text(1));
    }
    if (sql.find("WITHOUT ROWID") != std::string::npos)
        return notDirect("a WITHOUT ROWID table");

    // Record field of each column: its position in table_xinfo (stored columns only).
    struct Info
    {
        std::string name;
        bool integerKey = false;
        bool nullDefault = true;
    };
    std::vector<Info> fields;
    int keyColumns = 0;
    {
        Statement stmt(m_db.handle(), fmt::format("PRAGMA table_xinfo({})", sqlQuoted(m_table)));
        while (stmt.step()) {
            if (stmt.int64(6) != 0)
                return notDirect("the table has hidden or generated columns");
            Info info { upper(stmt.text(1)), false, stmt.isNull(4) };
            if (info.name == "ROWID" || info.name == "OID" || info.name == "_ROWID_")
                return notDirect("a column is named like the rowid");
            if (stmt.int64(5) > 0) {
                ++keyColumns;
                info.integerKey = upper(stmt.text(2)) == "INTEGER";
            }
            fields.push_back(std::move(info));
        }
    }
    for (auto &f : fields)
        f.integerKey = f.integerKey && keyColumns == 1;
    const bool anyIntegerKey = std::any_of(fields.begin(), fields.end(), [](const Info &f) { return f.integerKey; });
    if (anyIntegerKey && sql.find("DESC") != std::string::npos)
        return notDirect("an INTEGER PRIMARY KEY that may be DESC (not a rowid alias)");

    m_recordIndex.assign(m_columns.size(), kMissing);
    for (std::size_t c = 0; c < m_columns.size(); ++c) {
        if (m_columns[c].name.empty())
            continue;
        const auto name = upper(m_columns[c].name);
        const auto it = std::find_if(fields.begin(), fields.end(), [&](const Info &f) { return f.name == name; });
        if (it == fields.end())
            return notDirect(fmt::format("no column {}", m_columns[c].name));
        if (it->integerKey) {
            m_recordIndex[c] = kIsRowid;
            continue;
        }
        m_recordIndex[c] = int(it - fields.begin());
        m_fieldsNeeded = std::max(m_fieldsNeeded, m_recordIndex[c] + 1);
    }
    m_nullDefault.resize(fields.size());
    for (std::size_t f = 0; f < fields.size(); ++f)
        m_nullDefault[f] = fields[f].nullDefault;
    m_fieldType.resize(std::size_t(m_fieldsNeeded));
    m_fieldOffset.resize(std::size_t(m_fieldsNeeded));

    std::string whyNot;
    m_pages = Pages::open(m_db.path(), whyNot);
    if (!m_pages)
        return notDirect(whyNot);
    // The connection's own answer: its -wal is found through symbolic links, and is read
    // whatever the header says.
    if (m_db.readsWriteAheadLog())
        return notDirect("SQLite reads the file with the write-ahead log beside it");
    if (const char *why = m_pages->whyUnreadable(root))
        return notDirect(fmt::format("the table's root page {} is {}", root, why));
    const auto *page = m_pages->page(root);
    if (!page)
        return notDirect("the table's root page cannot be read");
    const std::uint32_t header = root == 1 ? 100 : 0;
    const auto type = page[header];
    const std::uint32_t cells = be16(page + header + 3);
    if (type == kIndexInterior || type == kIndexLeaf)
        return notDirect("the table is stored as an index b-tree");
    // As SQLite checks a root page: cell count and cell pointers within the page; an
    // interior root has cells (except on page 1).
    if (cells > m_pages->maxCells())
        return notDirect("the table's root page has a cell count SQLite rejects");
    if ((type == kTableLeaf || type == kTableInterior)
        && !cellsFitPage(page, header, cells, type == kTableLeaf, m_pages->usable()))
        return notDirect("a cell of the table's root page lies outside it (SQLite's cell size check)");
    if (type == kTableLeaf) {
        m_leaf = page;
        m_leafHeader = header;
        m_leafCells = cells;
    } else if (type == kTableInterior) {
        if (cells == 0 && root != 1)
            return notDirect("the table's root page does not parse");
        Frame frame;
        if (!m_pages->copy(root, frame.bytes))
            return notDirect("the table's root page cannot be read");
        frame.header = header;
        frame.cells = cells;
        m_stack.push_back(std::move(frame));
    } else {
        return notDirect("the table's root page is not a b-tree page");
    }
    ++m_pagesVisited;
}

void TableScan::handOver(const std::string &limitClause)
{
    std::string list;
    for (const auto &c : m_columns)
        list += fmt::format("{}{}", list.empty() ? "" : ", ", c.name.empty() ? std::string("NULL") : sqlQuoted(c.name));
    m_statement = std::make_unique<Statement>(
        m_db.handle(), fmt::format("SELECT {} FROM {}{}", list, sqlQuoted(m_table), limitClause));
    m_chunk = nullptr;
    m_split.reset();
    m_row = m_values.data();
    m_pages.reset();
    m_stack.clear();
    m_leaf = nullptr;
}

bool TableScan::step()
{
    if (m_statement)
        return m_statement->step();
    if (m_done)
        return false;
    if (m_split)
        return stepSplit();
    switch (stepDirect()) {
    case Step::Row: ++m_directRows; return true;
    case Step::Done: m_done = true; return false;
    case Step::Unsupported: break;
    }
    return resumeWithSqlite(std::move(m_pendingReason));
}

// SQLite continues after the rows returned so far, counted, not looked up by rowid: in a
// corrupt file rowids may be garbage or out of order, and a count still resumes exactly
// where SQLite's own scan of the same cells would be (it then fails, or not, as it would
// have). Skipping rows is a walk over cells, no column is decoded.
bool TableScan::resumeWithSqlite(std::string reason)
{
    m_fallbackReason = std::move(reason);
    handOver(m_directRows > 0 ? fmt::format(" LIMIT -1 OFFSET {}", m_directRows) : std::string());
    return m_statement->step();
}

TableScan::Step TableScan::unsupported(std::string reason)
{
    m_pendingReason = std::move(reason);
    return Step::Unsupported;
}

TableScan::Step TableScan::stepDirect()
{
    while (true) {
        if (m_leaf && m_leafCell < m_leafCells) // cellsFitPage checked every cell pointer
            return decodeCell(m_leaf + be16(m_leaf + m_leafHeader + 8 + 2 * m_leafCell++));
        if (const auto s = nextLeaf(); s != Step::Row)
            return s;
    }
}

// Descends to the next leaf page in key order. Row: a leaf is current.
TableScan::Step TableScan::nextLeaf()
{
    m_leaf = nullptr;
    const std::uint32_t usable = m_pages->usable();
    while (!m_stack.empty()) {
        Frame &frame = m_stack.back();
        if (frame.next > frame.cells) {
            m_stack.pop_back();
            continue;
        }
        const std::uint32_t index = frame.next++;
        const std::uint32_t child = frame.child(index, usable);
        // Leaves stored in consecutive pages are read in one call (not interior pages: only
        // one of them is needed before the leaves below it are read).
        std::uint32_t consecutive = 0;
        const bool readRun = m_leafDepth != 0 && m_stack.size() == m_leafDepth && !m_pages->buffered(child);
        for (std::uint32_t i = index + 1; readRun && i <= frame.cells && consecutive < 256; ++i) {
            if (frame.child(i, usable) != child + consecutive + 1)
                break;
            ++consecutive;
        }
        if (++m_pagesVisited > m_pages->pageCount())
            return unsupported("the b-tree visits more pages than the file has");
        if (const char *why = m_pages->whyUnreadable(child))
            return unsupported(fmt::format("a b-tree page pointer leads to page {}, {}", child, why));
        const auto *page = m_pages->page(child, consecutive);
        if (!page)
            return unsupported(fmt::format("page {} cannot be read", child));
        const std::uint32_t header = child == 1 ? 100 : 0;
        const std::uint32_t cells = be16(page + header + 3);
        // SQLite's own checks when it enters a child page (btreeInitPage, getAndInitPage).
        if (cells < 1 || cells > m_pages->maxCells())
            return unsupported(fmt::format("page {} has a cell count SQLite rejects", child));
        const bool leaf = page[header] == kTableLeaf;
        if (!leaf && page[header] != kTableInterior)
            return unsupported(fmt::format("page {} is not a table b-tree page", child));
        if (!cellsFitPage(page, header, cells, leaf, usable))
            return unsupported(fmt::format("a cell of page {} lies outside it (SQLite's cell size check)", child));
        if (leaf) {
            m_leaf = page;
            m_leafHeader = header;
            m_leafCell = 0;
            m_leafCells = cells;
            m_leafDepth = m_stack.size();
            return Step::Row;
        }
        if (m_stackBase + m_stack.size() >= kMaxDepth)
            return unsupported("the b-tree is deeper than any real one");
        Frame next;
        if (!m_pages->copy(child, next.bytes))
            return unsupported(fmt::format("page {} cannot be read", child));
        next.header = header;
        next.cells = cells;
        m_stack.push_back(std::move(next));
    }
    return Step::Done;
}

TableScan::Step TableScan::decodeCell(const std::uint8_t *cell)
{
    const std::uint32_t usable = m_pages->usable();
    const std::uint8_t *pageEnd = m_leaf + usable;
    std::uint32_t payloadSize = 0;
    std::uint64_t key = 0;
    m_rowInPayload = false;
    cell = readLeafCellHeader(cell, pageEnd, payloadSize, key);
    if (!cell)
        return unsupported("a cell's payload size or rowid does not parse");
    const auto rowid = std::int64_t(key);

    // Payload kept on the leaf page, the rest on a chain of overflow pages (fileformat2 2.3.1).
    const std::uint64_t maxLocal = usable - 35;
    if (payloadSize <= maxLocal) {
        if (cell + payloadSize > pageEnd)
            return unsupported("a cell runs past its page");
        return decodeRecord(cell, payloadSize, rowid);
    }
    if (payloadSize > std::min<std::uint64_t>(std::uint64_t(m_pages->pageCount()) * usable, kMaxPayload))
        return unsupported("a cell's payload is larger than the file or SQLite's maximum");
    const std::uint64_t minLocal = (std::uint64_t(usable) - 12) * 32 / 255 - 23;
    const std::uint64_t k = minLocal + (payloadSize - minLocal) % (usable - 4);
    const std::uint64_t local = k <= maxLocal ? k : minLocal;
    if (cell + local + 4 > pageEnd)
        return unsupported("a cell runs past its page");
    m_payload.assign(cell, cell + local);
    std::uint32_t overflow = be32(cell + local);
    std::vector<std::uint8_t> page;
    while (m_payload.size() < payloadSize) {
        if (!m_pages->copy(overflow, page))
            return unsupported(fmt::format("overflow page {} cannot be read", overflow));
        const auto take = std::min<std::uint64_t>(payloadSize - m_payload.size(), usable - 4);
        m_payload.insert(m_payload.end(), page.begin() + 4, page.begin() + 4 + std::ptrdiff_t(take));
        const std::uint32_t next = be32(page.data());
        if (m_payload.size() < payloadSize && !m_pages->overflowSkipReaches(overflow, next))
            return unsupported(fmt::format("the pointer map may lead SQLite elsewhere than overflow page {}'s "
                                           "pointer to page {}",
                overflow, next));
        overflow = next;
    }
    m_rowInPayload = true;
    return decodeRecord(m_payload.data(), m_payload.size(), rowid);
}

TableScan::Step TableScan::decodeRecord(const std::uint8_t *record, std::size_t size, std::int64_t rowid)
{
    const std::uint8_t *end = record + size;
    std::uint64_t headerSize = 0;
    const int n = readVarint(record, end, headerSize);
    // 98307: the largest header SQLite's OP_Column accepts.
    if (n == 0 || headerSize < std::uint64_t(n) || headerSize > size || headerSize > 98307)
        return unsupported("a record header does not parse");
    const std::uint8_t *types = record + n;
    const std::uint8_t *typesEnd = record + headerSize;
    // A header without serial types: SQLite's first OP_Column of a row reads one type before
    // it compares with the header's end (a do-while), then finds itself past it: corrupt.
    if (types == typesEnd && m_fieldsNeeded > 0)
        return unsupported("a record header without serial types");
    std::uint64_t offset = 0;
    int fields = 0;
    for (; fields < m_fieldsNeeded && types < typesEnd; ++fields) {
        std::uint64_t type = 0;
        const int used = readVarint(types, typesEnd, type);
        if (used == 0 || type == 10 || type == 11)
            return unsupported("a record's serial type does not parse");
        types += used;
        m_fieldType[std::size_t(fields)] = type;
        m_fieldOffset[std::size_t(fields)] = std::uint32_t(offset);
        offset += serialSize(type);
        if (offset > size - headerSize)
            return unsupported("a record's values run past its payload");
    }
    // Where the whole header was read, SQLite's OP_Column requires the values to fill the
    // payload exactly.
    if (types >= typesEnd && offset != size - headerSize)
        return unsupported("a record's values do not fill its payload");
    const std::uint8_t *body = record + headerSize;
    for (std::size_t c = 0; c < m_columns.size(); ++c) {
        Value &v = m_values[c];
        const int field = m_recordIndex[c];
        if (field == kMissing) {
            v.type = kNull;
            continue;
        }
        if (field == kIsRowid) {
            v.type = kRowid;
            v.rowid = rowid;
            continue;
        }
        if (field >= fields) { // a row written before ALTER TABLE ADD COLUMN: the column's default
            if (!m_nullDefault[std::size_t(field)])
                return unsupported("a short record of a column with a default value");
            v.type = kNull;
            continue;
        }
        v.type = m_fieldType[std::size_t(field)];
        const bool typeOk = m_columns[c].text ? isTextType(v.type)
            : m_columns[c].real               ? isIntType(v.type) || v.type == 7
                                              : isIntType(v.type);
        if (!typeOk)
            return unsupported(fmt::format("column {} holds a value of another type", m_columns[c].name));
        v.data = body + m_fieldOffset[std::size_t(field)];
    }
    return Step::Row;
}

} // namespace gaplens::core::detail
