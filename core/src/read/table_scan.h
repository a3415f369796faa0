// SPDX-License-Identifier: MIT
#pragma once
// A full scan of one rowid table that decodes the file's b-tree pages itself.
//
// Why: for the big tables of an export (kernels, CUDA API calls, NVTX) SQLite's virtual
// machine, record decoding and page cache were about half of a load (docs/PERFORMANCE.md).
// A table scan needs none of that machinery: the rows are the cells of the table b-tree's
// leaf pages, read in rowid order, and the SQLite file format is documented and stable.
//
// Exactness first: anything the scan does not decode itself exactly as SQLite would (a WAL
// or journal beside the file, UTF-16 text, WITHOUT ROWID or generated columns, a value whose
// type differs from the column's kind, a page that does not parse) hands the rest of the
// scan to an SQLite statement that continues after the rows returned (`LIMIT -1 OFFSET n`),
// so the rows are the ones `SELECT ... FROM table` returns, in the same order, either way;
// a corrupt file then fails with SQLite's own error, as before. The pages are checked as
// SQLite checks them while reading (cell counts, every cell's place and size as PRAGMA
// cell_size_check does, depth, record header sizes), so that what SQLite rejects is handed to
// SQLite to reject; and only pages SQLite would read are read: none past the database's page
// count (the header's, when valid, not the file size), nor page 0, the lock-byte page, a
// pointer-map page or a page on the freelist (as far as the freelist parses).
//
// Page-range split: with threads > 0 a table whose b-tree has enough leaves is read by that
// many threads beside the caller, each with its own file handle. The interior pages are read
// first, down to the leaves' parents (each checked as above), which lists the leaf pages in
// key order; consecutive runs of them are the page ranges, decoded by whichever thread is
// free into a chunk per range (the rows' values, pointing into the range's own copy of its
// pages). step() hands the chunks' rows out in range order, so the rows and their order
// are the single-threaded scan's. A range that meets anything the scan does not decode
// itself ends its chunk there, and SQLite resumes after the rows handed out, exactly as
// without the split. A bounded window of chunks keeps the memory to a few ranges.
#include "sqlite_db.h"

#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core::detail {

struct ScanColumn
{
    std::string name; // empty: not in the table, reads as NULL
    bool text = false; // read with optionalText/text; otherwise with int64/optionalInt64
    bool real = false; // REAL or INTEGER, read with optionalDouble (NVTX payloads)
};

class TableScan
{
public:
    // Throws SqliteError only where preparing the SQLite statement would. threads: threads
    // that decode page ranges beside the caller (0: the caller decodes every page itself).
    TableScan(const Database &db, std::string_view table, std::vector<ScanColumn> columns, bool direct = true,
        unsigned threads = 0);
    ~TableScan();
    TableScan(const TableScan &) = delete;
    TableScan &operator=(const TableScan &) = delete;

    // Advances to the next row; false when done. Throws SqliteError as Statement::step does.
    bool step();

    [[gnu::always_inline]] bool isNull(int column) const
    {
        if (m_statement)
            return m_statement->isNull(column);
        return m_row[column].type == kNull;
    }
    [[gnu::always_inline]] std::int64_t int64(int column) const
    {
        if (m_statement)
            return m_statement->int64(column);
        return decodeInt(m_row[column]);
    }
    [[gnu::always_inline]] std::optional<std::int64_t> optionalInt64(int column) const
    {
        if (m_statement)
            return m_statement->optionalInt64(column);
        const auto &v = m_row[column];
        if (v.type == kNull)
            return std::nullopt;
        return decodeInt(v);
    }
    // The value by its serial type, without coercion (see ExactInteger). Direct decoding hands
    // a TEXT, BLOB or REAL in an integer column over to SQLite, whose statement then answers;
    // every serial type is still told apart here, so the answer never depends on the path.
    [[gnu::always_inline]] ExactInteger exactInt64(int column) const
    {
        if (m_statement)
            return m_statement->exactInt64(column);
        const auto &v = m_row[column];
        switch (v.type) {
        case kNull: return { IntegerKind::Null, 0 };
        case kRowid: return { IntegerKind::Integer, v.rowid };
        case 7: { // a big-endian IEEE 754 double
            std::uint64_t bits = 0;
            for (int i = 0; i < 8; ++i)
                bits = bits << 8 | v.data[i];
            return exactIntegerFromReal(std::bit_cast<double>(bits));
        }
        default: // 1-6, 8, 9: integers; 12 and up: BLOB or TEXT
            if (v.type < 10)
                return { IntegerKind::Integer, decodeInt(v) };
            return { IntegerKind::NotInteger, 0 };
        }
    }
    [[gnu::always_inline]] std::optional<std::string_view> optionalText(int column) const
    {
        if (m_statement)
            return m_statement->optionalText(column);
        const auto &v = m_row[column];
        if (v.type == kNull)
            return std::nullopt;
        return std::string_view(reinterpret_cast<const char *>(v.data), (v.type - 13) / 2);
    }
    std::string_view text(int column) const { return optionalText(column).value_or(std::string_view()); }
    // A REAL or INTEGER as a double, nullopt for NULL (a column declared `real`).
    // Inlined too: the NVTX reader asks for two payload columns of every row.
    [[gnu::always_inline]] std::optional<double> optionalDouble(int column) const
    {
        if (m_statement)
            return m_statement->optionalDouble(column);
        const auto &v = m_row[column];
        if (v.type == kNull)
            return std::nullopt;
        if (v.type == 7) {
            std::uint64_t bits = 0;
            for (int i = 0; i < 8; ++i)
                bits = bits << 8 | v.data[i];
            return std::bit_cast<double>(bits);
        }
        return double(decodeInt(v));
    }

    // Why the scan is (or became) an SQLite statement; empty while it decodes pages itself.
    // For tests and the benchmark.
    const std::string &fallbackReason() const { return m_fallbackReason; }
    // Rows decoded from pages directly (the rest came from the SQLite statement).
    std::uint64_t directRows() const { return m_directRows; }
    // Page ranges the scan was split into (0: not split). For tests.
    std::size_t pageRanges() const { return m_pageRanges; }

private:
    static constexpr std::uint64_t kNull = 0;
    static constexpr std::uint64_t kRowid = ~std::uint64_t(0); // INTEGER PRIMARY KEY: the rowid

    // 16 bytes: a page-range thread copies one per column of every row it decodes.
    struct Value
    {
        std::uint64_t type = kNull; // SQLite serial type, or kRowid
        union {
            const std::uint8_t *data = nullptr; // the value's bytes in the record (other types)
            std::int64_t rowid; // kRowid
        };
    };
    // Called for every integer column of every row: GCC kept these accessors out of line
    // (8% of a load in the profile) until forced.
    [[gnu::always_inline]] static std::int64_t decodeInt(const Value &v)
    {
        const std::uint8_t *p = v.data;
        auto be = [p](int bytes) {
            std::uint64_t x = 0;
            for (int i = 0; i < bytes; ++i)
                x = x << 8 | p[i];
            return x;
        };
        switch (v.type) {
        case 1: return std::int8_t(p[0]);
        case 2: return std::int16_t(be(2));
        case 3: return std::int64_t(be(3) << 40) >> 40;
        case 4: return std::int32_t(be(4));
        case 5: return std::int64_t(be(6) << 16) >> 16;
        case 6: return std::int64_t(be(8));
        case 9: return 1;
        case kRowid: return v.rowid;
        default: return 0; // NULL and the constant 0; nothing else passes decodeRecord's type check
        }
    }

    class Pages;
    struct Frame;
    class Split;
    struct Chunk;
    enum class Step { Row, Done, Unsupported };

    // A page-range thread's decoder: the owner's table and column mapping, its own pages.
    struct WorkerTag
    {
    };
    TableScan(const TableScan &owner, WorkerTag);

    void prepareDirect();
    void planSplit(unsigned threads);
    bool stepSplit();
    bool resumeWithSqlite(std::string reason);
    Step stepDirect();
    Step nextLeaf();
    Step decodeCell(const std::uint8_t *cell);
    Step decodeRecord(const std::uint8_t *record, std::size_t size, std::int64_t rowid);
    Step unsupported(std::string reason);
    void handOver(const std::string &limitClause);

    const Database &m_db;
    std::string m_table;
    std::vector<ScanColumn> m_columns;
    std::unique_ptr<Statement> m_statement; // set once the scan is SQLite's

    // Direct decoding.
    std::unique_ptr<Pages> m_pages;
    std::vector<Frame> m_stack; // interior pages from the root down to the current leaf
    const std::uint8_t *m_leaf = nullptr; // current leaf page (in Pages' read buffer)
    unsigned m_leafCell = 0, m_leafCells = 0;
    std::uint32_t m_leafHeader = 0; // 100 on page 1 (the file header), else 0
    std::uint64_t m_pagesVisited = 0; // a b-tree visiting more pages than the file has loops
    std::vector<int> m_recordIndex; // per column: its field in the record, or kMissing / kIsRowid
    std::vector<bool> m_nullDefault; // per record field: a short record reads it as NULL
    int m_fieldsNeeded = 0; // fields of the record that are decoded
    std::vector<std::uint64_t> m_fieldType;
    std::vector<std::uint32_t> m_fieldOffset;
    std::vector<Value> m_values;
    const Value *m_row = nullptr; // the current row's values: m_values, or a chunk's
    std::vector<std::uint8_t> m_payload; // a row spilled to overflow pages, reassembled
    std::string m_pendingReason;
    std::size_t m_leafDepth = 0; // interior pages above a leaf, once a leaf was seen
    bool m_done = false;
    bool m_rowInPayload = false; // the last row decoded was reassembled in m_payload
    std::uint32_t m_stackBase = 0; // levels above m_stack's first frame (a range's list of leaves)
    std::unique_ptr<Split> m_split; // set while page ranges are decoded by other threads
    const Chunk *m_chunk = nullptr; // the range whose rows step() hands out
    std::size_t m_chunkRow = 0;
    std::size_t m_pageRanges = 0;
    std::uint64_t m_directRows = 0;
    std::string m_fallbackReason;
};

} // namespace gaplens::core::detail
