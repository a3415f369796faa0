// SPDX-License-Identifier: MIT
// The direct table scan decodes the file's b-tree pages itself; whatever it returns must be
// what SQLite returns for `SELECT columns FROM table`, row for row and through every
// accessor. Each case scans its table both ways in lock step (direct = false is SQLite's
// statement, the reference) and checks whether the direct path did the work or handed over
// to SQLite, as the case demands. Bad files must end in SqliteError or a finished scan,
// never a crash or a hang.
#include "read/sqlite_db.h"
#include "read/table_scan.h"

#include "sqltestdb.h"
#include "test_files.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace gaplens::core::detail;
using gaplens::test::patchFile;
using gaplens::test::readFile;
using gaplens::test::SqlTestDb;
using gaplens::test::writeFile;

namespace {

// Every width SQLite stores an integer in (serial types 1 to 6, each at both ends of its
// range), the constants 0 and 1 (serial types 8 and 9), and NULL.
const char *const kIntValues[] = { "0", "1", "-1", "2", "127", "128", "-128", "-129", "32767", "32768", "-32768",
    "-32769", "8388607", "8388608", "-8388608", "-8388609", "2147483647", "2147483648", "-2147483648", "-2147483649",
    "140737488355327", "140737488355328", "-140737488355328", "-140737488355329", "9223372036854775807",
    "-9223372036854775808", "NULL" };
constexpr int kIntValueCount = int(std::size(kIntValues));

ScanColumn intColumn(std::string name)
{
    return { std::move(name), false };
}
ScanColumn textColumn(std::string name)
{
    return { std::move(name), true };
}

std::uint32_t be32(const std::string &bytes, std::size_t at)
{
    const auto *p = reinterpret_cast<const std::uint8_t *>(bytes.data()) + at;
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

// From the database header (offset 16, big-endian; 1 means 65536).
std::uint32_t pageSizeOf(const std::string &bytes)
{
    const auto v = std::uint32_t(std::uint8_t(bytes[16])) << 8 | std::uint8_t(bytes[17]);
    return v == 1 ? 65536 : v;
}

std::uint32_t rootPage(const std::string &path, const std::string &table)
{
    const auto sql = "SELECT rootpage FROM sqlite_master WHERE name = '" + table + "'";
    return std::uint32_t(gaplens::test::sqlInt(path, sql));
}

// Levels of a table's b-tree along its right-most children (1: the root is the only leaf).
int btreeDepth(const std::string &path, const std::string &table)
{
    const auto bytes = readFile(path);
    const auto pageSize = pageSizeOf(bytes);
    auto page = rootPage(path, table);
    for (int depth = 1; depth < 64; ++depth) {
        const std::size_t at = std::size_t(page - 1) * pageSize;
        if (page < 2 || at + pageSize > bytes.size())
            return -1;
        if (std::uint8_t(bytes[at]) != 0x05) // not a table interior page: a leaf
            return depth;
        page = be32(bytes, at + 8); // the right-most child pointer
    }
    return -1;
}

// `bytes` bytes of UTF-8 mixing 1- to 4-byte characters, so that page and overflow
// boundaries fall inside characters too; `seed` varies the mix.
std::string makeText(std::size_t bytes, std::size_t seed)
{
    static const char *const kPieces[] = { "a", "Z", "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x9a\x80", "0", " " };
    std::string s;
    s.reserve(bytes);
    for (std::size_t i = seed; s.size() < bytes; ++i) {
        const char *piece = kPieces[i % std::size(kPieces)];
        s += s.size() + std::strlen(piece) <= bytes ? piece : "x";
    }
    return s;
}

// Text lengths whose records sit just around the places where a cell's payload starts to
// spill to overflow pages, and where the local part switches between its two sizes
// (fileformat2 2.3.1: X = U-35, M = (U-12)*32/255-23, K = M+(P-M)%(U-4)).
std::vector<std::size_t> spillBoundaryLengths(std::uint32_t usable)
{
    const std::size_t x = usable - 35, m = (std::size_t(usable) - 12) * 32 / 255 - 23, step = usable - 4;
    std::vector<std::size_t> lengths;
    for (const std::size_t centre : { x, x + step, m + step, m + 2 * step })
        for (std::size_t len = centre - 30; len <= centre + 30; ++len)
            lengths.push_back(len);
    return lengths;
}

// SQL creating `table` (a INTEGER, b INTEGER, s TEXT, n INTEGER) with `rows` rows: a and b
// cycle through kIntValues in two orders, s through empty, ASCII, multi-byte, NULL and
// longer texts (some spill at small page sizes), n counts the rows from 0.
std::string mixedTableSql(const std::string &table, int rows)
{
    std::string values;
    for (int i = 0; i < kIntValueCount; ++i)
        values += (i ? ", (" : "(") + std::to_string(i) + ", " + kIntValues[i] + ")";
    const auto n = std::to_string(kIntValueCount);
    return "CREATE TABLE " + table + " (a INTEGER, b INTEGER, s TEXT, n INTEGER);" + "INSERT INTO " + table
        + " WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < " + std::to_string(rows - 1)
        + "), v(k, x) AS (VALUES " + values + ") SELECT (SELECT x FROM v WHERE k = i % " + n
        + "), (SELECT x FROM v WHERE k = (i * 7 + 3) % " + n
        + "), CASE i % 6 WHEN 0 THEN '' WHEN 1 THEN 'row ' || i "
          "WHEN 2 THEN 'Gr\xc3\xbc\xc3\x9f"
          "e \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80 ' || i WHEN 3 THEN NULL "
          "WHEN 4 THEN printf('%.*c', i % 200, 'x') ELSE printf('%.*c', 600 + i % 50, 'y') END, i FROM seq;";
}

std::vector<ScanColumn> mixedColumns()
{
    return { intColumn("a"), intColumn("b"), textColumn("s"), intColumn("n") };
}

// A writable connection for fixtures that need bound values, file controls or a
// connection kept open; SQL-only fixtures use SqlTestDb.
class Writer : public SqlTestDb
{
public:
    explicit Writer(const std::string &path)
        : SqlTestDb(path, Mode::Create)
    {
        if (!isOpen())
            qFatal("cannot create %s", path.c_str());
    }

    // Runs `sql` once per value, bound to ?1 as text (nullopt: NULL), in one transaction.
    void execEach(const std::string &sql, const std::vector<std::optional<std::string>> &values) const
    {
        exec("BEGIN");
        sqlite3_stmt *stmt = nullptr;
        if (sqlite3_prepare_v2(handle(), sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
            qFatal("fixture SQL failed: %s", sqlite3_errmsg(handle()));
        for (const auto &v : values) {
            if (v)
                sqlite3_bind_text(stmt, 1, v->data(), int(v->size()), SQLITE_TRANSIENT);
            else
                sqlite3_bind_null(stmt, 1);
            if (sqlite3_step(stmt) != SQLITE_DONE)
                qFatal("fixture SQL failed: %s", sqlite3_errmsg(handle()));
            sqlite3_reset(stmt);
        }
        sqlite3_finalize(stmt);
        exec("COMMIT");
    }
};

std::string showInt(std::optional<std::int64_t> v)
{
    return v ? std::to_string(*v) : std::string("NULL");
}

std::string showText(std::optional<std::string_view> v)
{
    if (!v)
        return "NULL";
    std::string s = "'" + std::string(v->substr(0, 40)) + (v->size() > 40 ? "...'" : "'");
    return s + " (" + std::to_string(v->size()) + " bytes)";
}

// What differs between the current rows of two scans through any accessor; empty if nothing.
std::string rowDifference(const TableScan &direct, const TableScan &sqlite, const std::vector<ScanColumn> &columns)
{
    for (int c = 0; c < int(columns.size()); ++c) {
        const auto where = "column " + std::to_string(c) + " '" + columns[std::size_t(c)].name + "' ";
        if (direct.isNull(c) != sqlite.isNull(c))
            return where + "isNull: direct " + std::to_string(direct.isNull(c)) + ", SQLite "
                + std::to_string(sqlite.isNull(c));
        if (columns[std::size_t(c)].text) {
            const auto d = direct.optionalText(c), s = sqlite.optionalText(c);
            if (d != s)
                return where + "optionalText: direct " + showText(d) + ", SQLite " + showText(s);
            if (direct.text(c) != sqlite.text(c))
                return where + "text: direct " + showText(direct.text(c)) + ", SQLite " + showText(sqlite.text(c));
        } else {
            if (direct.int64(c) != sqlite.int64(c))
                return where + "int64: direct " + std::to_string(direct.int64(c)) + ", SQLite "
                    + std::to_string(sqlite.int64(c));
            if (direct.optionalInt64(c) != sqlite.optionalInt64(c))
                return where + "optionalInt64: direct " + showInt(direct.optionalInt64(c)) + ", SQLite "
                    + showInt(sqlite.optionalInt64(c));
        }
    }
    return {};
}

// One row through every accessor, as text (for comparing whole scans of bad files).
std::string renderRow(const TableScan &scan, const std::vector<ScanColumn> &columns)
{
    std::string row;
    for (int c = 0; c < int(columns.size()); ++c) {
        row += scan.isNull(c) ? "N:" : "V:";
        if (columns[std::size_t(c)].text) {
            const auto t = scan.optionalText(c);
            row += (t ? "'" + std::string(*t) + "'" : std::string("NULL")) + "/" + std::string(scan.text(c));
        } else {
            row += std::to_string(scan.int64(c)) + "/" + showInt(scan.optionalInt64(c));
        }
        row += '|';
    }
    return row;
}

struct Scanned
{
    std::uint64_t rows = 0;
    std::uint64_t directRows = 0;
    std::string fallbackReason;
};

// Scans `table` both ways in lock step and compares every accessor of every column of every
// row; fails the test at the first difference. The row count is checked against count(*)
// too, so a reference that lost rows would not pass either.
void compareScans(
    const std::string &path, const std::string &table, const std::vector<ScanColumn> &columns, Scanned &out)
{
    const auto what = path + " table " + table;
    out = Scanned();
    try {
        Database db(path);
        TableScan direct(db, table, columns, true);
        TableScan sqlite(db, table, columns, false);
        for (;;) {
            const bool more = sqlite.step();
            const bool directMore = direct.step();
            const auto state = [&] {
                return " (direct rows so far " + std::to_string(direct.directRows()) + ", fallback '"
                    + direct.fallbackReason() + "')";
            };
            if (directMore != more)
                QFAIL((what + ": after row " + std::to_string(out.rows) + " the direct scan "
                    + (directMore ? "has another row" : "ends") + ", SQLite's " + (more ? "has another row" : "ends")
                    + state())
                          .c_str());
            if (!more)
                break;
            if (const auto diff = rowDifference(direct, sqlite, columns); !diff.empty())
                QFAIL((what + ": row " + std::to_string(out.rows) + " (0-based), " + diff + state()).c_str());
            ++out.rows;
        }
        out.directRows = direct.directRows();
        out.fallbackReason = direct.fallbackReason();
    } catch (const std::exception &e) {
        QFAIL((what + ": exception: " + e.what()).c_str());
    }
    QCOMPARE(std::int64_t(out.rows), gaplens::test::sqlInt(path, "SELECT count(*) FROM \"" + table + "\""));
}

// Equal to SQLite, and every row decoded by the direct path.
void expectDirect(const std::string &path, const std::string &table, const std::vector<ScanColumn> &columns,
    Scanned *result = nullptr)
{
    Scanned s;
    compareScans(path, table, columns, s);
    if (result)
        *result = s;
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(s.fallbackReason.empty(), (path + " " + table + ": " + s.fallbackReason).c_str());
    QCOMPARE(s.directRows, s.rows);
}

// Equal to SQLite, with a hand-over (at most `maxDirectRows` rows decoded directly).
void expectFallback(const std::string &path, const std::string &table, const std::vector<ScanColumn> &columns,
    std::uint64_t maxDirectRows, Scanned *result = nullptr)
{
    Scanned s;
    compareScans(path, table, columns, s);
    if (result)
        *result = s;
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(!s.fallbackReason.empty(), "the direct scan should have handed over to SQLite");
    QVERIFY2(s.directRows <= maxDirectRows, qPrintable(QString("%1 rows decoded directly").arg(s.directRows)));
    qInfo("%s: %llu of %llu rows direct, fallback: %s", table.c_str(), (unsigned long long)s.directRows,
        (unsigned long long)s.rows, s.fallbackReason.c_str());
}

// A whole scan of a possibly bad file: its rows rendered, and whether it ended in SqliteError.
// Any other exception propagates (the caller fails the test with it).
struct Outcome
{
    std::vector<std::string> rows;
    bool threw = false;
    bool runaway = false;
    std::string error;
    std::string fallbackReason; // the scan's, once it was created
    std::uint64_t directRows = 0;
};

Outcome readAll(const std::string &path, const std::string &table, const std::vector<ScanColumn> &columns, bool direct,
    std::size_t rowLimit)
{
    Outcome out;
    try {
        Database db(path);
        TableScan scan(db, table, columns, direct);
        try {
            while (scan.step()) {
                out.rows.push_back(renderRow(scan, columns));
                if (out.rows.size() > rowLimit) { // a cycle in the b-tree must not repeat rows forever
                    out.runaway = true;
                    break;
                }
            }
        } catch (const SqliteError &e) {
            out.threw = true;
            out.error = e.what();
        }
        out.fallbackReason = scan.fallbackReason();
        out.directRows = scan.directRows();
    } catch (const SqliteError &e) {
        out.threw = true;
        out.error = e.what();
    }
    return out;
}

// Reads a bad file both ways: the direct scan must end exactly as SQLite's statement does, with
// the same rows and then the same error or none. `sqlite` is SQLite's outcome, `direct` the
// direct scan's.
void expectSqliteOutcome(const std::string &path, const std::string &table, const std::vector<ScanColumn> &columns,
    Outcome &sqlite, Outcome &direct)
{
    try {
        sqlite = readAll(path, table, columns, false, 1000000);
        direct = readAll(path, table, columns, true, 1000000);
    } catch (const std::exception &e) {
        QFAIL((path + ": not an SqliteError: " + e.what()).c_str());
    }
    QVERIFY2(direct.threw == sqlite.threw,
        (path + ": direct " + (direct.threw ? "throws " + direct.error : "finishes") + ", SQLite "
            + (sqlite.threw ? "throws " + sqlite.error : "finishes") + " (direct fallback: '" + direct.fallbackReason
            + "')")
            .c_str());
    QCOMPARE(direct.error, sqlite.error);
    QCOMPARE(direct.rows.size(), sqlite.rows.size());
    QVERIFY(direct.rows == sqlite.rows);
}

std::string bigEndian32(std::uint32_t v)
{
    return { char(v >> 24), char(v >> 16), char(v >> 8), char(v) };
}

std::string bigEndian16(std::uint32_t v)
{
    return { char(v >> 8), char(v) };
}

std::uint32_t be16(const std::string &bytes, std::size_t at)
{
    return std::uint32_t(std::uint8_t(bytes[at])) << 8 | std::uint8_t(bytes[at + 1]);
}

std::size_t pageOffset(std::uint32_t page, std::uint32_t pageSize)
{
    return std::size_t(page - 1) * pageSize;
}

// The leaf pages of a table b-tree in key order (the fixture's own, well-formed tree).
void collectLeaves(
    const std::string &bytes, std::uint32_t pageSize, std::uint32_t page, std::vector<std::uint32_t> &out)
{
    const std::size_t at = pageOffset(page, pageSize), header = page == 1 ? 100 : 0;
    const auto cells = be16(bytes, at + header + 3);
    if (std::uint8_t(bytes[at + header]) == 0x0d) {
        out.push_back(page);
        return;
    }
    for (std::uint32_t i = 0; i < cells; ++i)
        collectLeaves(bytes, pageSize, be32(bytes, at + be16(bytes, at + header + 12 + 2 * i)), out);
    collectLeaves(bytes, pageSize, be32(bytes, at + header + 8), out);
}

// The interior page whose right-most child is the table's last leaf.
std::uint32_t lastLeafParent(const std::string &bytes, std::uint32_t root)
{
    const auto pageSize = pageSizeOf(bytes);
    std::uint32_t page = root;
    while (true) {
        const auto child = be32(bytes, pageOffset(page, pageSize) + 8);
        if (std::uint8_t(bytes[pageOffset(child, pageSize)]) != 0x05)
            return page;
        page = child;
    }
}

std::vector<std::uint32_t> leafPages(const std::string &path, const std::string &table)
{
    const auto bytes = readFile(path);
    std::vector<std::uint32_t> leaves;
    collectLeaves(bytes, pageSizeOf(bytes), rootPage(path, table), leaves);
    return leaves;
}

// Where the first overflow page number of cell `cell` of a table leaf lies in the file (the
// cell's payload must spill).
std::size_t overflowPointerAt(const std::string &bytes, std::uint32_t page, std::uint32_t cell)
{
    const auto pageSize = pageSizeOf(bytes), usable = pageSize - std::uint8_t(bytes[20]);
    const std::size_t base = pageOffset(page, pageSize);
    std::size_t at = base + be16(bytes, base + 8 + 2 * cell);
    std::uint64_t payload = 0;
    for (int i = 0; i < 9; ++i) { // the fixture's varints are canonical
        payload = payload << 7 | (std::uint8_t(bytes[at]) & 0x7f);
        if (!(std::uint8_t(bytes[at++]) & 0x80))
            break;
    }
    while (std::uint8_t(bytes[at++]) & 0x80) { // the rowid
    }
    const std::uint64_t maxLocal = usable - 35, minLocal = (usable - 12) * 32 / 255 - 23;
    const std::uint64_t k = minLocal + (payload - minLocal) % (usable - 4);
    return at + (k <= maxLocal ? k : minLocal);
}

std::string upper(std::string s)
{
    for (auto &c : s)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// The table's columns declared INTEGER (read as int) or TEXT (read as text); other declared
// types (REAL, untyped) hold values the direct path hands over for.
std::vector<ScanColumn> integerAndTextColumns(const std::string &path, const std::string &table)
{
    std::vector<ScanColumn> columns;
    for (const auto &c : SqlTestDb(path).columns(table)) {
        const auto type = upper(c[1]);
        if (type == "INTEGER" || type == "TEXT")
            columns.push_back({ c[0], type == "TEXT" });
    }
    return columns;
}

} // namespace

class TestTableScan : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const std::string &name) const { return gaplens::test::pathIn(m_dir, name); }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void integersOfEveryWidth_data()
    {
        gaplens::test::addRows<int>("pageSize", { { "512", 512 }, { "4096", 4096 }, { "65536", 65536 } });
    }

    // Every integer serial type, in a tree with interior pages (several levels at 512).
    void integersOfEveryWidth()
    {
        QFETCH(int, pageSize);
        const auto p = path("ints_" + std::to_string(pageSize) + ".sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create)
            .exec("PRAGMA page_size = " + std::to_string(pageSize) + ";" + mixedTableSql("t", 20000));
        QCOMPARE(pageSizeOf(readFile(p)), std::uint32_t(pageSize));
        // The fixture holds what it should: integers only, every value of kIntValues.
        QCOMPARE(gaplens::test::sqlInt(p, "SELECT count(*) FROM t WHERE typeof(a) NOT IN ('integer', 'null')"),
            std::int64_t(0));
        QCOMPARE(gaplens::test::sqlInt(p, "SELECT count(DISTINCT a) FROM t"), std::int64_t(kIntValueCount - 1));
        const int depth = btreeDepth(p, "t");
        QVERIFY2(depth >= (pageSize == 512 ? 3 : 2), qPrintable(QString("b-tree depth %1").arg(depth)));
        CHECK(expectDirect(p, "t", mixedColumns()));
        // Twice the same column, and the columns alone.
        CHECK(expectDirect(p, "t", { intColumn("b"), intColumn("b"), intColumn("a") }));
        CHECK(expectDirect(p, "t", { textColumn("s") }));
    }

    void texts_data() { integersOfEveryWidth_data(); }

    // Empty, ASCII, multi-byte, NULL, embedded NUL, and texts that spill to overflow pages,
    // with lengths on both sides of every spill boundary.
    void texts()
    {
        QFETCH(int, pageSize);
        const auto p = path("texts_" + std::to_string(pageSize) + ".sqlite");
        Writer w(p);
        w.exec("PRAGMA page_size = " + std::to_string(pageSize) + "; CREATE TABLE t (s TEXT, n INTEGER, u TEXT);");
        std::vector<std::optional<std::string>> values = { std::string(), std::string("hello"),
            std::string("Gr\xc3\xbc\xc3\x9f"
                        "e, \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x9a\x80"),
            std::nullopt, std::string("a\0b", 3), makeText(3000, 1), makeText(200000, 2) };
        for (const auto len : spillBoundaryLengths(std::uint32_t(pageSize)))
            values.push_back(makeText(len, len));
        for (int i = 0; i < 3000; ++i)
            values.push_back(
                i % 7 == 0 ? std::nullopt : std::optional<std::string>(makeText(std::size_t(i % 90), std::size_t(i))));
        values.push_back(makeText(3000, 3));
        values.push_back(makeText(200000, 4));
        w.execEach("INSERT INTO t (s, n, u) VALUES (?1, length(?1), CASE WHEN ?1 IS NULL THEN NULL "
                   "ELSE substr(?1, 1, 3) END)",
            values);
        QCOMPARE(gaplens::test::sqlInt(p, "SELECT count(*) FROM t WHERE typeof(s) NOT IN ('text', 'null')"),
            std::int64_t(0));
        QCOMPARE(gaplens::test::sqlInt(p, "SELECT max(length(CAST(s AS BLOB))) FROM t"), std::int64_t(200000));
        CHECK(expectDirect(p, "t", { textColumn("s"), intColumn("n"), textColumn("u") }));
        CHECK(expectDirect(p, "t", { textColumn("u"), textColumn("s") }));
        // A lone column: payload sizes step by one byte, so each boundary is hit exactly.
        std::vector<std::optional<std::string>> edges;
        for (const auto len : spillBoundaryLengths(std::uint32_t(pageSize)))
            edges.push_back(makeText(len, len));
        w.exec("CREATE TABLE edges (s TEXT)");
        w.execEach("INSERT INTO edges VALUES (?1)", edges);
        CHECK(expectDirect(p, "edges", { textColumn("s") }));
    }

    // A column declared real (NVTX payloads' doubleValue, floatValue) takes REAL and INTEGER
    // values without leaving the direct scan, and reads them as SQLite does.
    void realColumnsAreDecodedDirectly()
    {
        const auto p = path("real.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create)
            .exec("CREATE TABLE r (a INTEGER, d REAL);"
                  "INSERT INTO r VALUES (1, 2.5), (2, NULL), (3, 7), (4, -0.125), (5, 1e300);");
        const double expected[] = { 2.5, 0, 7, -0.125, 1e300 };
        for (const bool direct : { true, false }) {
            Database db(p);
            TableScan scan(db, "r", { intColumn("a"), ScanColumn { "d", false, true } }, direct);
            std::size_t row = 0;
            while (scan.step()) {
                QCOMPARE(scan.int64(0), std::int64_t(row + 1));
                const auto d = scan.optionalDouble(1);
                QCOMPARE(d.has_value(), row != 1);
                if (d)
                    QCOMPARE(*d, expected[row]);
                ++row;
            }
            QCOMPARE(row, std::size_t(5));
            if (direct) {
                QVERIFY2(scan.fallbackReason().empty(), scan.fallbackReason().c_str());
                QCOMPARE(scan.directRows(), std::uint64_t(5));
            }
        }
    }

    // Columns not in the table (empty name) read NULL; columns in any order and letter case.
    void missingAndReorderedColumns()
    {
        const auto p = path("columns.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create)
            .exec("PRAGMA page_size = 1024;" + mixedTableSql("m", 5000) + "ALTER TABLE m RENAME COLUMN b TO \"end\";");
        const std::vector<ScanColumn> columns
            = { intColumn("n"), intColumn(""), textColumn("s"), intColumn("end"), textColumn(""), intColumn("A") };
        CHECK(expectDirect(p, "m", columns));
        // Missing columns are NULL through every accessor, on every row.
        Database db(p);
        TableScan scan(db, "m", columns);
        std::size_t rows = 0;
        while (scan.step()) {
            ++rows;
            QVERIFY(scan.isNull(1) && scan.isNull(4));
            QCOMPARE(scan.int64(1), std::int64_t(0));
            QVERIFY(!scan.optionalInt64(1));
            QVERIFY(!scan.optionalText(4));
            QVERIFY(scan.text(4).empty());
        }
        QCOMPARE(rows, std::size_t(5000));
    }

    // A name the table lacks reads as SQLite's statement reads it: with SQLite's
    // double-quoted string literals (on by default) "nope" is the text 'nope', not an error.
    void unknownColumnReadsAsSqliteDoes()
    {
        const auto p = path("unknown_column.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create).exec(mixedTableSql("m", 100));
        Scanned s;
        CHECK(compareScans(p, "m", { intColumn("a"), intColumn("nope"), textColumn("nope") }, s));
        QCOMPARE(s.rows, std::uint64_t(100));
    }

    // An INTEGER PRIMARY KEY is the rowid (not stored in the record); other primary keys
    // are ordinary columns. Rowids with gaps, negative, and at both ends of int64.
    void integerPrimaryKeyIsTheRowid()
    {
        const auto p = path("pk.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create).exec(R"(
            PRAGMA page_size = 512;
            CREATE TABLE alias (id INTEGER PRIMARY KEY, v INTEGER, s TEXT);
            INSERT INTO alias WITH RECURSIVE q(i) AS (SELECT -3000 UNION ALL SELECT i + 1 FROM q WHERE i < 20000)
                SELECT i * 5, i * 1000003, 'r' || i FROM q WHERE i % 3 <> 0;
            INSERT INTO alias VALUES (9223372036854775807, 1, 'max'), (-9223372036854775808, 2, 'min'),
                (1099511627776, 3, '2^40'), (0, 4, 'zero');
            CREATE TABLE aliasLast (v INTEGER, Id integer primary key);
            INSERT INTO aliasLast SELECT v, CASE WHEN id > 0 THEN id - 7 ELSE id + 7 END FROM alias;
            CREATE TABLE aliasByClause (id INTEGER, v INTEGER, PRIMARY KEY (id));
            INSERT INTO aliasByClause SELECT id, v FROM alias;
            CREATE TABLE intKey (id INT PRIMARY KEY, v INTEGER);
            INSERT INTO intKey SELECT v, id FROM alias;
            CREATE TABLE descKey (id INTEGER PRIMARY KEY DESC, v INTEGER);
            INSERT INTO descKey SELECT 1000000 - id, v FROM alias WHERE id BETWEEN -100000 AND 100000;
            CREATE TABLE twoKeys (a INTEGER, b INTEGER, v INTEGER, PRIMARY KEY (a, b));
            INSERT INTO twoKeys SELECT id % 7, id, v FROM alias;
        )");
        QVERIFY(btreeDepth(p, "alias") >= 3);
        CHECK(expectDirect(p, "alias", { intColumn("id"), intColumn("v"), textColumn("s"), intColumn("ID") }));
        CHECK(expectDirect(p, "aliasLast", { intColumn("id"), intColumn("v") }));
        // Independently of both scans: the key column is exactly the rowid, in rowid order.
        {
            const auto expected = SqlTestDb(p).ints("SELECT rowid FROM alias ORDER BY rowid");
            Database db(p);
            TableScan scan(db, "alias", { intColumn("id") });
            std::size_t i = 0;
            while (scan.step()) {
                QVERIFY(i < expected.size());
                QCOMPARE(scan.int64(0), expected[i++][0]);
            }
            QCOMPARE(i, expected.size());
            QCOMPARE(expected.front()[0], std::numeric_limits<std::int64_t>::min());
            QCOMPARE(expected.back()[0], std::numeric_limits<std::int64_t>::max());
        }
        // Not aliases: the key is stored in the record and differs from the rowid.
        for (const char *table : { "aliasByClause", "intKey", "descKey", "twoKeys" }) {
            Scanned s;
            CHECK(
                compareScans(p, table, { intColumn("v"), intColumn(table == std::string("twoKeys") ? "b" : "id") }, s));
            qInfo("%s: %llu of %llu rows direct %s", table, (unsigned long long)s.directRows,
                (unsigned long long)s.rows, s.fallbackReason.c_str());
        }
        CHECK(expectDirect(p, "intKey", { intColumn("id"), intColumn("v") }));
    }

    void realInIntegerColumnHandsOverAtItsRow_data()
    {
        gaplens::test::addRows<int>("row", { { "first", 1 }, { "middle", 5000 }, { "last", 10000 } });
    }

    // A REAL in an INTEGER column: the scan decodes up to that row and SQLite continues at it.
    void realInIntegerColumnHandsOverAtItsRow()
    {
        QFETCH(int, row);
        const auto p = path("real_" + std::to_string(row) + ".sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create)
            .exec(R"(
            PRAGMA page_size = 1024;
            CREATE TABLE r (a INTEGER, b INTEGER, t TEXT);
            INSERT INTO r WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 10000)
                SELECT i, i * 3, 'row ' || i FROM q;
            UPDATE r SET a = 3.5 WHERE rowid = )"
                + std::to_string(row) + ";");
        QCOMPARE(
            SqlTestDb(p).text("SELECT typeof(a) FROM r WHERE rowid = " + std::to_string(row)), std::string("real"));
        Scanned s;
        CHECK(expectFallback(p, "r", { intColumn("a"), intColumn("b"), textColumn("t") }, std::uint64_t(row - 1), &s));
        QCOMPARE(s.directRows, std::uint64_t(row - 1));
        // A REAL column not read does not matter.
        CHECK(expectDirect(p, "r", { intColumn("b"), textColumn("t") }));
    }

    void valueOfAnotherTypeHandsOver_data()
    {
        QTest::addColumn<QString>("update");
        QTest::addColumn<QString>("column");
        QTest::addColumn<bool>("text");
        QTest::newRow("text in int column") << "a = '12abc'"
                                            << "a" << false;
        QTest::newRow("blob in int column") << "a = x'01'"
                                            << "a" << false;
        QTest::newRow("big real in int column") << "a = 1e20"
                                                << "a" << false;
        QTest::newRow("integer in text column") << "u = 42"
                                                << "u" << true;
        QTest::newRow("real in text column") << "u = 2.5"
                                             << "u" << true;
        QTest::newRow("blob in text column") << "t = x'00ff41'"
                                             << "t" << true;
        QTest::newRow("empty blob in text column") << "t = x''"
                                                   << "t" << true;
    }

    // A value whose storage class differs from the column's kind hands over at its row.
    // (u has no declared type: a TEXT column would turn an inserted number into text.)
    void valueOfAnotherTypeHandsOver()
    {
        QFETCH(QString, update);
        QFETCH(QString, column);
        QFETCH(bool, text);
        const auto p = path("types_" + std::string(QTest::currentDataTag()) + ".sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create)
            .exec(R"(
            PRAGMA page_size = 1024;
            CREATE TABLE f (a INTEGER, u, t TEXT);
            INSERT INTO f WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 3000)
                SELECT i, 'u' || i, 't' || i FROM q;
            UPDATE f SET )"
                + update.toStdString() + " WHERE rowid = 1500;");
        Scanned s;
        CHECK(expectFallback(p, "f", { ScanColumn { column.toStdString(), text }, intColumn("a") }, 1499, &s));
        QCOMPARE(s.directRows, std::uint64_t(1499));
    }

    // Rows written before ALTER TABLE ADD COLUMN have short records; they read the
    // column's default as SQLite does.
    void addedColumnsReadTheirDefault()
    {
        const auto p = path("added.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create).exec(R"(
            PRAGMA page_size = 1024;
            CREATE TABLE t (a INTEGER);
            INSERT INTO t WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 3000)
                SELECT i FROM q;
            ALTER TABLE t ADD COLUMN x INTEGER DEFAULT 7;
            ALTER TABLE t ADD COLUMN y TEXT DEFAULT 'dflt';
            ALTER TABLE t ADD COLUMN z INTEGER;
            ALTER TABLE t ADD COLUMN w INTEGER DEFAULT -300000;
            INSERT INTO t WITH RECURSIVE q(i) AS (SELECT 3001 UNION ALL SELECT i + 1 FROM q WHERE i < 6000)
                SELECT i, i * 2, 'y' || i, i * 3, NULL FROM q;
        )");
        const std::vector<ScanColumn> all
            = { intColumn("a"), intColumn("x"), textColumn("y"), intColumn("z"), intColumn("w") };
        Scanned s;
        CHECK(compareScans(p, "t", all, s));
        qInfo("defaults: %llu of %llu rows direct %s", (unsigned long long)s.directRows, (unsigned long long)s.rows,
            s.fallbackReason.c_str());
        CHECK(compareScans(p, "t", { intColumn("z"), intColumn("a") }, s));
        // What old rows read, stated independently of the reference.
        Database db(p);
        TableScan scan(db, "t", all);
        QVERIFY(scan.step());
        QCOMPARE(scan.int64(0), std::int64_t(1));
        QCOMPARE(scan.optionalInt64(1), std::optional<std::int64_t>(7));
        QCOMPARE(scan.optionalText(2), std::optional<std::string_view>("dflt"));
        QVERIFY(scan.isNull(3));
        QCOMPARE(scan.optionalInt64(4), std::optional<std::int64_t>(-300000));
    }

    // WITHOUT ROWID tables are index b-trees: SQLite reads them from the first row.
    void withoutRowidHandsOverFromTheStart()
    {
        const auto p = path("without_rowid.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create).exec(R"(
            CREATE TABLE w (k INTEGER PRIMARY KEY, v TEXT, n INTEGER) WITHOUT ROWID;
            INSERT INTO w WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 5000)
                SELECT i * 7 % 5003, 'v' || i, i FROM q;
        )");
        CHECK(expectFallback(p, "w", { intColumn("k"), textColumn("v"), intColumn("n") }, 0));
    }

    // In WAL mode the file alone is not the database: SQLite reads it, from the first row.
    void walModeHandsOverFromTheStart()
    {
        const auto p = path("wal.sqlite");
        {
            Writer w(p);
            w.exec("PRAGMA journal_mode = WAL;" + mixedTableSql("t", 3000));
        }
        const auto bytes = readFile(p);
        QCOMPARE(int(bytes[18]), 2);
        QCOMPARE(int(bytes[19]), 2);
        CHECK(expectFallback(p, "t", mixedColumns(), 0));

        // With rows still only in the -wal file (a writer holds it open, no checkpoint).
        const auto live = path("wal_live.sqlite");
        Writer w(live);
        w.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;" + mixedTableSql("t", 3000)
            + "UPDATE t SET a = a + 1 WHERE n % 2 = 0; DELETE FROM t WHERE n % 5 = 0;");
        QVERIFY(std::filesystem::exists(live + "-wal"));
        CHECK(expectFallback(live, "t", mixedColumns(), 0));
    }

    // A rollback journal beside the file: the header says it all, but the scan hands over.
    void journalBesideTheFileHandsOver()
    {
        const auto p = path("journal.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create).exec(mixedTableSql("t", 2000));
        writeFile(p + "-journal", "");
        CHECK(expectFallback(p, "t", mixedColumns(), 0));
    }

    // UTF-16 text: SQLite converts it to UTF-8, so SQLite reads it.
    void utf16HandsOverFromTheStart()
    {
        const auto p = path("utf16.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create).exec("PRAGMA encoding = 'UTF-16le';" + mixedTableSql("t", 2000));
        QCOMPARE(SqlTestDb(p).text("PRAGMA encoding"), std::string("UTF-16le"));
        CHECK(expectFallback(p, "t", mixedColumns(), 0));
    }

    void reservedBytesPerPage_data() { gaplens::test::addRows<int>("pageSize", { { "512", 512 }, { "4096", 4096 } }); }

    // Reserved bytes at the end of each page (used by encryption or checksum extensions)
    // shrink the usable size, which moves the overflow thresholds.
    void reservedBytesPerPage()
    {
        QFETCH(int, pageSize);
        const auto p = path("reserved_" + std::to_string(pageSize) + ".sqlite");
        {
            Writer w(p);
            w.exec("PRAGMA page_size = " + std::to_string(pageSize));
            int reserve = 32;
            QCOMPARE(sqlite3_file_control(w.handle(), "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve), SQLITE_OK);
            w.exec(mixedTableSql("t", 20000) + "CREATE TABLE texts (s TEXT, n INTEGER);");
            std::vector<std::optional<std::string>> values;
            for (const auto len : spillBoundaryLengths(std::uint32_t(pageSize - 32)))
                values.push_back(makeText(len, len));
            values.push_back(makeText(3000, 5));
            values.push_back(makeText(200000, 6));
            w.execEach("INSERT INTO texts VALUES (?1, length(?1))", values);
        }
        const auto bytes = readFile(p);
        QCOMPARE(pageSizeOf(bytes), std::uint32_t(pageSize));
        QVERIFY2(std::uint8_t(bytes[20]) == 32, "SQLite did not keep 32 reserved bytes per page");
        CHECK(expectDirect(p, "t", mixedColumns()));
        CHECK(expectDirect(p, "texts", { textColumn("s"), intColumn("n") }));
    }

    void deletedRows_data()
    {
        QTest::addColumn<QString>("pragmas");
        QTest::newRow("512") << "PRAGMA page_size = 512;";
        QTest::newRow("4096") << "PRAGMA page_size = 4096;";
        QTest::newRow("auto_vacuum full") << "PRAGMA page_size = 1024; PRAGMA auto_vacuum = FULL;";
        QTest::newRow("auto_vacuum incremental") << "PRAGMA page_size = 1024; PRAGMA auto_vacuum = INCREMENTAL;";
    }

    // Deleted rows leave free blocks, merged and freed pages (no VACUUM); with auto_vacuum
    // pages are moved and pointer-map pages lie among the table's pages.
    void deletedRows()
    {
        QFETCH(QString, pragmas);
        const auto p = path("deleted_" + std::string(QTest::currentDataTag()) + ".sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create)
            .exec(pragmas.toStdString() + mixedTableSql("t", 20000)
                + "DELETE FROM t WHERE n % 3 = 0; DELETE FROM t WHERE n BETWEEN 5000 AND 9000;"
                  "PRAGMA incremental_vacuum(50);");
        CHECK(expectDirect(p, "t", mixedColumns()));
    }

    void emptyTables()
    {
        const auto p = path("empty.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create)
            .exec("PRAGMA page_size = 512; CREATE TABLE never (a INTEGER, s TEXT);" + mixedTableSql("emptied", 5000)
                + "DELETE FROM emptied;");
        for (const char *table : { "never", "emptied" }) {
            Database db(p);
            for (const bool direct : { true, false }) {
                TableScan scan(db, table, { intColumn("a"), textColumn("s") }, direct);
                QVERIFY(!scan.step());
                QCOMPARE(scan.directRows(), std::uint64_t(0));
            }
            TableScan scan(db, table, { intColumn("a"), textColumn("s") });
            QVERIFY(!scan.step());
            QVERIFY2(scan.fallbackReason().empty(), scan.fallbackReason().c_str());
        }
    }

    // Records with more than 127 columns have a two-byte header size, and at page size 512
    // a record's header itself spills to overflow pages.
    void wideRecords()
    {
        const auto p = path("wide.sqlite");
        std::string create = "PRAGMA page_size = 512; CREATE TABLE wide (", select;
        for (int c = 0; c < 150; ++c) {
            create += "c" + std::to_string(c) + " INTEGER, ";
            select += "(i - 150) * " + std::to_string(c * c + 1) + ", ";
        }
        create += "s TEXT);";
        SqlTestDb(p, SqlTestDb::Mode::Create)
            .exec(create
                + "INSERT INTO wide WITH RECURSIVE q(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM q WHERE i < 299) "
                  "SELECT "
                + select + "printf('%.*c', i * 3, 'w') FROM q;");
        CHECK(expectDirect(
            p, "wide", { intColumn("c0"), intColumn("c75"), intColumn("c149"), textColumn("s"), intColumn("c1") }));
    }

    // Rows inserted in random rowid order: leaves scattered over the file, out of page order,
    // interleaved with another table's pages.
    void scatteredPages()
    {
        const auto p = path("scattered.sqlite");
        SqlTestDb db(p, SqlTestDb::Mode::Create);
        db.exec("PRAGMA page_size = 512; CREATE TABLE t (v INTEGER, s TEXT); CREATE TABLE other (x TEXT);");
        for (int batch = 0; batch < 20; ++batch)
            db.exec("BEGIN; INSERT INTO t (rowid, v, s) WITH RECURSIVE q(i) AS (SELECT " + std::to_string(batch * 1000)
                + " UNION ALL SELECT i + 1 FROM q WHERE i < " + std::to_string(batch * 1000 + 999)
                + ") SELECT (i * 7919) % 20011, i, printf('%.*c', i % 700, 's') FROM q;"
                  "INSERT INTO other VALUES (printf('%.*c', 3000, 'o')); COMMIT;");
        CHECK(expectDirect(p, "t", { intColumn("v"), textColumn("s") }));
    }

    // Bad files end as SQLite ends them, with the same rows and the same error or none: a
    // truncated copy, and copies with a few random bytes overwritten anywhere in the table's
    // pages (all pages after the first two: page 1 holds the schema, the table's root is 2).
    void corruptFilesReadAsSqliteReadsThem()
    {
        const auto source = path("corrupt_source.sqlite");
        SqlTestDb(source, SqlTestDb::Mode::Create)
            .exec("PRAGMA page_size = 1024;" + mixedTableSql("t", 3000)
                + "UPDATE t SET s = printf('%.*c', 2500 + n, 'z') WHERE n % 50 = 7;");
        QCOMPARE(rootPage(source, "t"), std::uint32_t(2));
        const auto original = readFile(source);
        const std::size_t pageSize = pageSizeOf(original), pages = original.size() / pageSize;
        QVERIFY(pages > 100);

        struct Case
        {
            std::string name, bytes;
        };
        std::vector<Case> cases;
        // Cut in the middle of the table's pages, as an interrupted copy leaves it; once
        // as is (the header's page count then exceeds the file), once with the header's page
        // count matching the cut, so SQLite opens the file and fails only at the lost pages.
        auto truncated = original.substr(0, (pages / 2) * pageSize + pageSize / 3);
        cases.push_back({ "truncated", truncated });
        truncated.resize((pages / 2) * pageSize);
        for (int i = 0; i < 4; ++i)
            truncated[std::size_t(28 + i)] = char((pages / 2) >> (8 * (3 - i)));
        cases.push_back({ "truncated, header page count patched", truncated });
        std::mt19937 random(20240611);
        for (int i = 0; i < 200; ++i) {
            auto bytes = original;
            std::string name = "random " + std::to_string(i) + ":";
            const int n = 1 + int(random() % 8);
            for (int k = 0; k < n; ++k) {
                const auto at = 2 * pageSize + random() % (bytes.size() - 2 * pageSize);
                bytes[at] = char(random());
                name += " @" + std::to_string(at);
            }
            cases.push_back({ name, bytes });
        }

        const auto columns = mixedColumns();
        const std::size_t rowLimit = 4 * 3000 + 100;
        int threw = 0, finished = 0;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const auto p = path("corrupt_" + std::to_string(i) + ".sqlite");
            writeFile(p, cases[i].bytes);
            Outcome direct, sqlite;
            try {
                direct = readAll(p, "t", columns, true, rowLimit);
                sqlite = readAll(p, "t", columns, false, rowLimit);
            } catch (const std::exception &e) {
                QFAIL((cases[i].name + ": not an SqliteError: " + e.what()).c_str());
            } catch (...) {
                QFAIL((cases[i].name + ": an exception that is not an SqliteError").c_str());
            }
            QVERIFY2(!direct.runaway, (cases[i].name + ": the direct scan returns rows without end").c_str());
            (direct.threw ? threw : finished) += 1;
            // The direct scan hands whatever it does not trust to SQLite, resuming after the
            // rows it returned: so it returns SQLite's rows and fails where SQLite fails.
            QVERIFY2(direct.threw == sqlite.threw,
                (cases[i].name + ": direct " + (direct.threw ? "throws " + direct.error : "finishes") + ", SQLite "
                    + (sqlite.threw ? "throws " + sqlite.error : "finishes"))
                    .c_str());
            QVERIFY2(direct.rows == sqlite.rows,
                (cases[i].name + ": direct " + std::to_string(direct.rows.size()) + " rows, SQLite "
                    + std::to_string(sqlite.rows.size()))
                    .c_str());
            std::filesystem::remove(p);
        }
        qInfo("corrupt files: %d threw, %d finished, each as SQLite did", threw, finished);
        QVERIFY(threw > 0);
        QVERIFY(finished > 0);
    }

    // A row whose last overflow page is missing (file cut by one page, header patched):
    // SQLite fails at that row, and so must the direct scan, not skip the row.
    void missingOverflowPageFailsAsSqliteDoes()
    {
        // All rows in one leaf; row 101, inserted last, keeps only the minimum local payload
        // (its 20457-byte payload makes K exceed X), so no split follows and its five
        // overflow pages are the file's last pages.
        const auto p = path("overflow_source.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create).exec(R"(
            PRAGMA page_size = 4096;
            CREATE TABLE t (id INTEGER, s TEXT);
            INSERT INTO t (rowid, id, s) WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 200)
                SELECT i, i, 's' || i FROM q WHERE i <> 101;
            INSERT INTO t (rowid, id, s) VALUES (101, 101, printf('%.*c', 20451, 'x'));
        )");
        QCOMPARE(readFile(p).size(), std::size_t(7 * 4096));
        auto bytes = readFile(p);
        const std::size_t pageSize = pageSizeOf(bytes), pages = bytes.size() / pageSize - 1;
        bytes.resize(pages * pageSize);
        for (int i = 0; i < 4; ++i)
            bytes[std::size_t(28 + i)] = char(pages >> (8 * (3 - i)));
        const auto cut = path("overflow_cut.sqlite");
        writeFile(cut, bytes);
        const std::vector<ScanColumn> columns = { intColumn("id"), textColumn("s") };
        Outcome direct, sqlite;
        try {
            sqlite = readAll(cut, "t", columns, false, 1000);
            direct = readAll(cut, "t", columns, true, 1000);
        } catch (const std::exception &e) {
            QFAIL(e.what());
        }
        QVERIFY2(sqlite.threw, "the fixture should make SQLite fail at row 101");
        QCOMPARE(sqlite.rows.size(), std::size_t(100));
        QVERIFY2(direct.threw,
            qPrintable(
                QString("the direct scan finished with %1 rows where SQLite fails after 100").arg(direct.rows.size())));
        QCOMPARE(direct.rows, sqlite.rows);
    }

    // A leaf appended past the header's page count, the table's right-most leaf pointer moved
    // to it: SQLite finds the page number out of range after the rows before it, and so must
    // the direct scan, never reading the page. When SQLite does not trust the header's count
    // (its version-valid-for number differs from the change counter, or it is 0), the file
    // size counts: the page exists, and both read it.
    void pagesPastTheHeaderPageCount()
    {
        const auto source = path("past_count_source.sqlite");
        SqlTestDb(source, SqlTestDb::Mode::Create).exec("PRAGMA page_size = 1024;" + mixedTableSql("t", 3000));
        const auto original = readFile(source);
        const auto pageSize = pageSizeOf(original);
        const auto pages = std::uint32_t(original.size() / pageSize);
        QCOMPARE(be32(original, 28), pages);
        QCOMPARE(be32(original, 92), be32(original, 24)); // so SQLite trusts the header's count
        const auto leaves = leafPages(source, "t");
        const auto parent = lastLeafParent(original, rootPage(source, "t"));
        const auto lastLeaf = original.substr(pageOffset(leaves.back(), pageSize), pageSize);
        const auto rowsBefore = 3000 - be16(lastLeaf, 3);
        QVERIFY(leaves.size() > 10);

        const std::vector<ScanColumn> columns = mixedColumns();
        auto appended = [&](const std::string &name) {
            const auto p = path(name);
            writeFile(p, original + lastLeaf);
            patchFile(p, pageOffset(parent, pageSize) + 8, bigEndian32(pages + 1));
            return p;
        };
        Outcome sqlite, direct;
        const auto past = appended("past_count.sqlite");
        CHECK(expectSqliteOutcome(past, "t", columns, sqlite, direct));
        QVERIFY(sqlite.threw);
        QCOMPARE(sqlite.error, std::string("database disk image is malformed"));
        QCOMPARE(sqlite.rows.size(), std::size_t(rowsBefore));
        QCOMPARE(direct.fallbackReason,
            "a b-tree page pointer leads to page " + std::to_string(pages + 1) + ", past the database's page count");
        QCOMPARE(direct.directRows, std::uint64_t(rowsBefore));

        const auto untrusted = appended("past_count_untrusted.sqlite");
        patchFile(untrusted, 92, bigEndian32(be32(original, 24) + 1));
        const auto zero = appended("past_count_zero.sqlite");
        patchFile(zero, 28, bigEndian32(0));
        for (const auto &p : { untrusted, zero }) {
            Scanned s;
            CHECK(expectDirect(p, "t", columns, &s));
            QCOMPARE(s.rows, std::uint64_t(3000));
        }
    }

    // An overflow page number past the header's page count: SQLite fails at that row
    // (accessPayload), and so must the direct scan, though the file holds the page.
    void overflowPagePastTheHeaderPageCount()
    {
        const auto source = path("overflow_past_source.sqlite");
        SqlTestDb(source, SqlTestDb::Mode::Create).exec(R"(
            PRAGMA page_size = 1024;
            CREATE TABLE o (id INTEGER, s TEXT);
            INSERT INTO o WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 20)
                SELECT i, printf('%.*c', 3000, char(64 + i)) FROM q;
        )");
        const auto original = readFile(source);
        const auto pageSize = pageSizeOf(original);
        const auto pages = std::uint32_t(original.size() / pageSize);
        const auto leaves = leafPages(source, "o");
        QCOMPARE(leaves.size(), std::size_t(20)); // one row per leaf: row 10 is the only cell of leaf 9
        const auto pointerAt = overflowPointerAt(original, leaves[9], 0);
        const auto overflow = be32(original, pointerAt);
        const auto p = path("overflow_past.sqlite");
        writeFile(p, original + original.substr(pageOffset(overflow, pageSize), pageSize));
        patchFile(p, pointerAt, bigEndian32(pages + 1));
        Outcome sqlite, direct;
        CHECK(expectSqliteOutcome(p, "o", { intColumn("id"), textColumn("s") }, sqlite, direct));
        QVERIFY(sqlite.threw);
        QCOMPARE(sqlite.error, std::string("database disk image is malformed"));
        QCOMPARE(sqlite.rows.size(), std::size_t(9));
        QCOMPARE(direct.fallbackReason, "overflow page " + std::to_string(pages + 1) + " cannot be read");
    }

    // The lock-byte page (the one holding byte 2^30) is never a database page: SQLite's pager
    // refuses to read it, so a b-tree pointer to it fails, however good a leaf it holds. The
    // file is sparse: 1 GiB long, a few pages on disk.
    void lockBytePageIsNeverRead()
    {
        const auto source = path("lock_source.sqlite");
        SqlTestDb(source, SqlTestDb::Mode::Create).exec("PRAGMA page_size = 4096;" + mixedTableSql("t", 3000));
        const auto original = readFile(source);
        const auto pageSize = pageSizeOf(original);
        const std::uint32_t lockPage = (1u << 30) / pageSize + 1;
        const auto leaves = leafPages(source, "t");
        const auto parent = lastLeafParent(original, rootPage(source, "t"));
        const auto lastLeaf = original.substr(pageOffset(leaves.back(), pageSize), pageSize);
        const auto rowsBefore = 3000 - be16(lastLeaf, 3);
        const auto p = path("lock.sqlite");
        writeFile(p, original);
        patchFile(p, pageOffset(lockPage, pageSize), lastLeaf);
        patchFile(p, 28, bigEndian32(lockPage)); // the header's page count: up to the lock-byte page
        patchFile(p, pageOffset(parent, pageSize) + 8, bigEndian32(lockPage));
        QCOMPARE(std::filesystem::file_size(p), std::uintmax_t(lockPage) * pageSize);
        Outcome sqlite, direct;
        CHECK(expectSqliteOutcome(p, "t", mixedColumns(), sqlite, direct));
        std::filesystem::remove(p);
        QVERIFY(sqlite.threw);
        QCOMPARE(sqlite.error, std::string("database disk image is malformed"));
        QCOMPARE(sqlite.rows.size(), std::size_t(rowsBefore));
        QCOMPARE(direct.fallbackReason,
            "a b-tree page pointer leads to page " + std::to_string(lockPage) + ", the lock-byte page");
    }

    // A b-tree pointer to a pointer-map page of an auto-vacuum database, or to a page on the
    // freelist: SQLite reads it as whatever it holds (here: a copy of the last leaf, so the
    // rows are all there); the direct scan hands such pages over, and the rows are SQLite's.
    void pointerMapAndFreePagesAreHandedOver_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("pointer-map page") << "pointer-map";
        QTest::newRow("freelist leaf page") << "freelist leaf";
        QTest::newRow("freelist trunk page") << "freelist trunk";
    }

    void pointerMapAndFreePagesAreHandedOver()
    {
        QFETCH(QString, kind);
        const bool pointerMap = kind == "pointer-map";
        const auto source = path("special_source_" + std::string(QTest::currentDataTag()) + ".sqlite");
        SqlTestDb(source, SqlTestDb::Mode::Create)
            .exec(std::string("PRAGMA page_size = 1024;") + (pointerMap ? "PRAGMA auto_vacuum = FULL;" : "")
                + mixedTableSql("t", 3000)
                + (pointerMap ? ""
                              : "CREATE TABLE junk (s TEXT); INSERT INTO junk WITH RECURSIVE q(i) AS (SELECT 1 "
                                "UNION ALL SELECT i + 1 FROM q WHERE i < 300) SELECT printf('%.*c', 500, 'j') "
                                "FROM q; DROP TABLE junk;"));
        const auto original = readFile(source);
        const auto pageSize = pageSizeOf(original);
        std::uint32_t target = 0;
        if (pointerMap) {
            QVERIFY(be32(original, 52) != 0);
            target = 2 + (pageSize / 5 + 1); // the second pointer-map page, among the table's pages
        } else {
            const auto trunk = be32(original, 32);
            QVERIFY(trunk != 0 && be32(original, 36) > 10);
            QVERIFY(be32(original, pageOffset(trunk, pageSize) + 4) > 0);
            target = kind == "freelist trunk" ? trunk : be32(original, pageOffset(trunk, pageSize) + 8);
        }
        QVERIFY(target < original.size() / pageSize);
        const auto leaves = leafPages(source, "t");
        const auto parent = lastLeafParent(original, rootPage(source, "t"));
        const auto p = path("special_" + std::string(QTest::currentDataTag()) + ".sqlite");
        writeFile(p, original);
        patchFile(p, pageOffset(target, pageSize), original.substr(pageOffset(leaves.back(), pageSize), pageSize));
        patchFile(p, pageOffset(parent, pageSize) + 8, bigEndian32(target));
        Outcome sqlite, direct;
        CHECK(expectSqliteOutcome(p, "t", mixedColumns(), sqlite, direct));
        QVERIFY(!sqlite.threw);
        QCOMPARE(sqlite.rows.size(), std::size_t(3000));
        QCOMPARE(direct.fallbackReason,
            "a b-tree page pointer leads to page " + std::to_string(target)
                + (pointerMap ? ", a pointer-map page" : ", on the freelist"));
    }

    // In an auto-vacuum database SQLite skips an overflow page it need not read by taking the
    // next one from the pointer map (getOverflowPage). Where the map and the page's own pointer
    // disagree, the rows depend on which SQLite followed: the direct scan hands over. Here
    // row 5's first overflow page points into row 6's chain; the map still names row 5's
    // second page, so SQLite reading `n` (after the text) skips to it and finds row 5's own n.
    void autoVacuumOverflowChainAgainstThePointerMap()
    {
        const auto p = path("pointer_map_chain.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create).exec(R"(
            PRAGMA page_size = 1024; PRAGMA auto_vacuum = FULL;
            CREATE TABLE big (s TEXT, n INTEGER);
            INSERT INTO big WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 10)
                SELECT printf('%.*c', 5000, char(64 + i)), 100 + i FROM q;
        )");
        const auto bytes = readFile(p);
        const auto pageSize = pageSizeOf(bytes);
        const auto leaves = leafPages(p, "big");
        QCOMPARE(leaves.size(), std::size_t(10)); // one row per leaf
        const auto first = be32(bytes, overflowPointerAt(bytes, leaves[4], 0));
        const auto otherFirst = be32(bytes, overflowPointerAt(bytes, leaves[5], 0));
        // The fixture: row 5's chain goes on at the next page, and the pointer map says so
        // (entry type 4, an overflow page after the first, whose predecessor is `first`).
        QCOMPARE(be32(bytes, pageOffset(first, pageSize)), first + 1);
        const std::size_t entry = pageOffset(2, pageSize) + 5 * (first + 1 - 2 - 1);
        QCOMPARE(int(std::uint8_t(bytes[entry])), 4);
        QCOMPARE(be32(bytes, entry + 1), first);
        patchFile(p, pageOffset(first, pageSize), bigEndian32(otherFirst));

        Outcome sqlite, direct;
        CHECK(expectSqliteOutcome(p, "big", { intColumn("n") }, sqlite, direct));
        QVERIFY(!sqlite.threw);
        std::vector<std::string> expected;
        for (int i = 1; i <= 10; ++i)
            expected.push_back("V:" + std::to_string(100 + i) + "/" + std::to_string(100 + i) + "|");
        QCOMPARE(sqlite.rows, expected); // SQLite took the pointer map's word for it
        QCOMPARE(direct.directRows, std::uint64_t(4));
        QCOMPARE(direct.fallbackReason,
            "the pointer map may lead SQLite elsewhere than overflow page " + std::to_string(first)
                + "'s pointer to page " + std::to_string(otherFirst));
        for (const auto &columns : { std::vector<ScanColumn> { intColumn("n"), textColumn("s") },
                 std::vector<ScanColumn> { textColumn("s"), intColumn("n") } }) {
            CHECK(expectSqliteOutcome(p, "big", columns, sqlite, direct));
            QCOMPARE(sqlite.rows.size(), std::size_t(10));
            QCOMPARE(direct.directRows, std::uint64_t(4));
        }
    }

    void cellsAtThePageEnd_data()
    {
        QTest::addColumn<int>("reserved");
        QTest::addColumn<int>("fromEnd"); // the cell's offset: usable size - fromEnd
        QTest::addColumn<QByteArray>("cell");
        QTest::addColumn<QString>("lastRow"); // empty: SQLite's cell size check fails
        const QByteArray fourBytes("\x02\x63\x02\x08", 4); // rowid 99, one column: the constant 0
        const QByteArray threeBytes("\x01\x63\x01", 3); // rowid 99, a record of no column
        const QByteArray spilling("\x81\x00\x63", 3); // a 128-byte payload, past the end
        for (const int reserved : { 0, 32 }) {
            const auto tag = [&](const char *what) { return QString("%1, %2 reserved").arg(what).arg(reserved); };
            QTest::newRow(qPrintable(tag("4 bytes at the last place"))) << reserved << 4 << fourBytes << "V:0/0|";
            QTest::newRow(qPrintable(tag("3 bytes after it"))) << reserved << 3 << threeBytes << QString();
            QTest::newRow(qPrintable(tag("2 bytes before the end")))
                << reserved << 2 << QByteArray("\x01\x63", 2) << QString();
            QTest::newRow(qPrintable(tag("1 byte before the end")))
                << reserved << 1 << QByteArray("\x01", 1) << QString();
            QTest::newRow(qPrintable(tag("at the end"))) << reserved << 0 << QByteArray() << QString();
            QTest::newRow(qPrintable(tag("4 bytes, running past the end"))) << reserved << 4 << spilling << QString();
            // SQLite reads a payload size from 7 bits of each of up to 9 bytes: here 2, where a
            // varint's 8 bits in the 9th byte would make it 130.
            QTest::newRow(qPrintable(tag("a 9-byte payload size")))
                << reserved << 12 << QByteArray("\x80\x80\x80\x80\x80\x80\x80\x80\x82\x63\x02\x08", 12) << "V:0/0|";
        }
    }

    // A leaf cell pointer at or near the end of the usable area: SQLite (with cell_size_check,
    // on in every reader connection) rejects the page unless the cell starts at least 4 bytes
    // before the end and fits; without the check it parsed bytes past the page buffer, and a
    // file loaded in some runs and failed in others. The direct scan must end as SQLite does.
    void cellsAtThePageEnd()
    {
        QFETCH(int, reserved);
        QFETCH(int, fromEnd);
        QFETCH(QByteArray, cell);
        QFETCH(QString, lastRow);
        const auto p = path("cell_at_end.sqlite");
        std::filesystem::remove(p);
        {
            Writer w(p);
            w.exec("PRAGMA page_size = 1024");
            int reserve = reserved; // SQLite answers with the previous value in it
            QCOMPARE(sqlite3_file_control(w.handle(), "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve), SQLITE_OK);
            // Cells fill a page from its end: deleting the first rows leaves its last 20 bytes
            // to the patched cell.
            w.exec("CREATE TABLE t (a INTEGER); INSERT INTO t WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL "
                   "SELECT i + 1 FROM q WHERE i < 20) SELECT i * 3 FROM q; DELETE FROM t WHERE rowid <= 4;");
        }
        auto bytes = readFile(p);
        const auto pageSize = pageSizeOf(bytes);
        const std::uint32_t usable = pageSize - std::uint8_t(bytes[20]);
        QCOMPARE(usable, pageSize - std::uint32_t(reserved));
        const auto root = rootPage(p, "t");
        QCOMPARE(leafPages(p, "t"), std::vector<std::uint32_t> { root });
        const std::size_t base = pageOffset(root, pageSize);
        QCOMPARE(be16(bytes, base + 3), std::uint32_t(16));
        for (std::uint32_t i = 0; i < 16; ++i) // each 5 bytes: a, the rowid and the sizes 1 byte each
            QVERIFY(be16(bytes, base + 8 + 2 * i) + 5 <= usable - 20);
        const std::uint32_t at = usable - std::uint32_t(fromEnd);
        patchFile(p, base + 8 + 2 * 15, bigEndian16(at));
        patchFile(p, base + at, std::string(cell.constData(), std::size_t(cell.size())));

        Outcome sqlite, direct;
        CHECK(expectSqliteOutcome(p, "t", { intColumn("a") }, sqlite, direct));
        if (!lastRow.isEmpty()) {
            QVERIFY(!sqlite.threw);
            QCOMPARE(sqlite.rows.size(), std::size_t(16));
            QCOMPARE(sqlite.rows.back(), lastRow.toStdString());
            QVERIFY2(direct.fallbackReason.empty(), direct.fallbackReason.c_str());
            return;
        }
        QVERIFY(sqlite.threw);
        QCOMPARE(sqlite.error, std::string("database disk image is malformed"));
        QCOMPARE(sqlite.rows.size(), std::size_t(0)); // SQLite rejects the whole page before its first row
        QCOMPARE(direct.fallbackReason,
            std::string("a cell of the table's root page lies outside it (SQLite's cell size check)"));
    }

    // A record whose header holds only its own size: SQLite's OP_Column reads one serial type
    // past it and reports the row corrupt; the rows before it are returned.
    void recordWithoutSerialTypes()
    {
        const auto p = path("record_without_types.sqlite");
        SqlTestDb(p, SqlTestDb::Mode::Create)
            .exec("PRAGMA page_size = 1024; CREATE TABLE t (a INTEGER); INSERT INTO t WITH RECURSIVE q(i) AS "
                  "(SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 20) SELECT i * 3 FROM q;");
        const auto bytes = readFile(p);
        const auto pageSize = pageSizeOf(bytes);
        const std::size_t base = pageOffset(rootPage(p, "t"), pageSize);
        QCOMPARE(be16(bytes, base + 3), std::uint32_t(20));
        // The 11th row's cell, 5 bytes (payload size 3, rowid 11, header size 2, type 1, a = 33),
        // becomes payload size 1, rowid 11, header size 1: no serial type; 2 bytes to spare.
        const std::size_t cell = base + be16(bytes, base + 8 + 2 * 10);
        QCOMPARE(bytes.substr(cell, 5), std::string("\x03\x0b\x02\x01\x21", 5));
        patchFile(p, cell, std::string("\x01\x0b\x01", 3));
        for (const auto &columns :
            { std::vector<ScanColumn> { intColumn("a") }, std::vector<ScanColumn> { intColumn("a"), intColumn("") } }) {
            Outcome sqlite, direct;
            CHECK(expectSqliteOutcome(p, "t", columns, sqlite, direct));
            QVERIFY(sqlite.threw);
            QCOMPARE(sqlite.error, std::string("database disk image is malformed"));
            QCOMPARE(sqlite.rows.size(), std::size_t(10));
            QCOMPARE(direct.directRows, std::uint64_t(10));
            QCOMPARE(direct.fallbackReason, std::string("a record header without serial types"));
        }
        // Only the rowid or no column of the record: SQLite never reads the record.
        Outcome sqlite, direct;
        CHECK(expectSqliteOutcome(p, "t", { intColumn("") }, sqlite, direct));
        QVERIFY(!sqlite.threw);
        QCOMPARE(sqlite.rows.size(), std::size_t(20));
    }

    void interiorCellAtThePageEnd_data()
    {
        gaplens::test::addRows<int>("fromEnd", { { "5 bytes before the end", 5 }, { "4 bytes before the end", 4 } });
    }

    // An interior cell takes at least 5 bytes (a child page number and a rowid), so SQLite's
    // cell size check rejects one that starts 4 bytes before the page end, child pointer and
    // all; one byte earlier, the same child pointer with a 1-byte rowid is fine. The cell moved
    // is the one at the page end, whose bytes it overwrites; a scan does not read the rowid.
    void interiorCellAtThePageEnd()
    {
        QFETCH(int, fromEnd);
        const auto p = path("interior_cell_at_end.sqlite");
        std::filesystem::remove(p);
        SqlTestDb(p, SqlTestDb::Mode::Create).exec("PRAGMA page_size = 1024;" + mixedTableSql("t", 3000));
        const auto bytes = readFile(p);
        const auto pageSize = pageSizeOf(bytes);
        const auto root = rootPage(p, "t");
        const std::size_t base = pageOffset(root, pageSize);
        QCOMPARE(std::uint8_t(bytes[base]), std::uint8_t(0x05));
        std::optional<std::uint32_t> last; // the cell whose bytes end the page
        for (std::uint32_t i = 0; i < be16(bytes, base + 3); ++i) {
            std::size_t end = base + be16(bytes, base + 12 + 2 * i) + 4;
            while (std::uint8_t(bytes[end++]) & 0x80) { // its rowid
            }
            if (end == base + pageSize)
                last = i;
        }
        QVERIFY(last);
        const auto cell = be16(bytes, base + 12 + 2 * *last);
        QVERIFY(cell <= pageSize - 5);
        const auto at = pageSize - std::uint32_t(fromEnd);
        patchFile(p, base + 12 + 2 * *last, bigEndian16(at));
        patchFile(p, base + at, bytes.substr(base + cell, 4) + (fromEnd == 5 ? "\x01" : ""));
        Outcome sqlite, direct;
        CHECK(expectSqliteOutcome(p, "t", mixedColumns(), sqlite, direct));
        std::filesystem::remove(p);
        if (fromEnd == 5) {
            QVERIFY(!sqlite.threw);
            QCOMPARE(sqlite.rows.size(), std::size_t(3000));
            QVERIFY2(direct.fallbackReason.empty(), direct.fallbackReason.c_str());
            return;
        }
        QVERIFY(sqlite.threw);
        QCOMPARE(sqlite.error, std::string("database disk image is malformed"));
        QCOMPARE(sqlite.rows.size(), std::size_t(0));
        QCOMPARE(direct.fallbackReason,
            std::string("a cell of the table's root page lies outside it (SQLite's cell size check)"));
    }

    // Bad page and cell pointers, many at random: leaf cell pointers near and past the page
    // end, child page pointers to any page (0, the header's count, one past it that the file
    // holds); each file reads exactly as SQLite reads it.
    void badPointersReadAsSqliteReadsThem()
    {
        const auto source = path("pointers_source.sqlite");
        SqlTestDb(source, SqlTestDb::Mode::Create).exec("PRAGMA page_size = 1024;" + mixedTableSql("t", 3000));
        const auto original = readFile(source);
        const auto pageSize = pageSizeOf(original);
        const auto pages = std::uint32_t(original.size() / pageSize);
        const auto leaves = leafPages(source, "t");
        std::vector<std::uint32_t> interiors;
        for (std::uint32_t page = 2; page <= pages; ++page)
            if (std::uint8_t(original[pageOffset(page, pageSize)]) == 0x05)
                interiors.push_back(page);
        QVERIFY(interiors.size() > 2);
        std::mt19937 random(20240612);
        const auto p = path("pointers.sqlite");
        int threw = 0, finished = 0;
        for (int i = 0; i < 300; ++i) {
            writeFile(p, original + original.substr(pageOffset(leaves[random() % leaves.size()], pageSize), pageSize));
            std::string what;
            for (int k = 1 + int(random() % 2); k > 0; --k) {
                if (random() % 2) { // a leaf cell pointer
                    const auto leaf = leaves[random() % leaves.size()];
                    const auto cells = be16(original, pageOffset(leaf, pageSize) + 3);
                    const auto at = std::uint32_t(pageSize - 24 + random() % 40);
                    patchFile(p, pageOffset(leaf, pageSize) + 8 + 2 * (random() % cells), bigEndian16(at));
                    what += " leaf " + std::to_string(leaf) + " cell at " + std::to_string(at);
                } else { // an interior page's child pointer
                    const auto page = interiors[random() % interiors.size()];
                    const auto cells = be16(original, pageOffset(page, pageSize) + 3);
                    const auto index = std::uint32_t(random() % (cells + 1));
                    const auto cellAt = index == cells
                        ? pageOffset(page, pageSize) + 8
                        : pageOffset(page, pageSize) + be16(original, pageOffset(page, pageSize) + 12 + 2 * index);
                    const auto child = std::uint32_t(random() % (pages + 3));
                    patchFile(p, cellAt, bigEndian32(child));
                    what += " page " + std::to_string(page) + " child " + std::to_string(index) + " -> "
                        + std::to_string(child);
                }
            }
            Outcome sqlite, direct;
            expectSqliteOutcome(p, "t", mixedColumns(), sqlite, direct);
            if (QTest::currentTestFailed())
                QFAIL(("case " + std::to_string(i) + ":" + what).c_str());
            (sqlite.threw ? threw : finished) += 1;
        }
        qInfo("bad pointers: %d threw, %d finished, each as SQLite did", threw, finished);
        QVERIFY(threw > 0);
        QVERIFY(finished > 0);
    }

    void realExports_data()
    {
        const auto files = gaplens::test::realExportFiles();
        gaplens::test::addFileRows(files);
        if (files.empty()) // realExports fails for it
            QTest::newRow("missing") << QString();
    }

    // The big tables of real exports are decoded directly and equal SQLite's reading; every
    // other table of the files equals it too (direct or not).
    void realExports()
    {
        QFETCH(QString, file);
        QVERIFY2(!file.isEmpty(), gaplens::test::kRealDataMissing);
        const auto p = file.toStdString();
        SqlTestDb sql(p);
        int big = 0;
        for (const char *table : { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
                 "CUPTI_ACTIVITY_KIND_MEMCPY" }) {
            if (!sql.hasTable(table))
                continue;
            ++big;
            CHECK(expectDirect(p, table, integerAndTextColumns(p, table)));
        }
        QVERIFY(big > 0);
        for (const auto &row :
            sql.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")) {
            const auto columns = integerAndTextColumns(p, row[0]);
            if (columns.empty())
                continue;
            Scanned s;
            CHECK(compareScans(p, row[0], columns, s));
        }
    }
};

QTEST_APPLESS_MAIN(TestTableScan)
#include "tst_table_scan.moc"
