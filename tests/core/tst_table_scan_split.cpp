// SPDX-License-Identifier: MIT
// The page-range split of TableScan (threads > 0): the table's leaves are decoded by other
// threads in ranges, and the rows must still be SQLite's, in SQLite's order, through every
// accessor, whatever the number of threads; a table too small to split, an empty one and more
// threads than ranges included. A value the scan does not decode, or a corrupt page, in a
// later range must hand over to SQLite exactly where the single-threaded scan would. The
// b-tree's shape is checked independently through SQLite's dbstat table.
#include "read/sqlite_db.h"
#include "read/table_scan.h"

#include "sqltestdb.h"
#include "test_files.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

using namespace gaplens::core::detail;
using gaplens::test::sqlInt;
using gaplens::test::SqlTestDb;

namespace {

std::vector<ScanColumn> columns()
{
    return { { "a", false, false }, { "s", true, false }, { "d", false, true }, { "n", false, false } };
}

// `rows` rows in a file of `pageSize`-byte pages: a cycles through integers of every width
// and NULL, s through short, empty, NULL and (every 97th row) texts longer than a page, which
// spill to overflow pages, d through REALs, integers and NULL, n counts from 0.
void writeTable(const std::string &path, int pageSize, int rows)
{
    SqlTestDb db(path, SqlTestDb::Mode::Create);
    db.exec("PRAGMA page_size = " + std::to_string(pageSize)
        + ";"
          "CREATE TABLE t (a INTEGER, s TEXT, d REAL, n INTEGER);");
    if (rows == 0)
        return;
    db.exec("INSERT INTO t WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < "
        + std::to_string(rows - 1)
        + ") SELECT CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN i WHEN 2 THEN -i * 40503 WHEN 3 THEN i * 9007199254 "
          "ELSE 1 END, CASE WHEN i % 97 = 0 THEN printf('%.*c', 3000 + i % 300, 'x') WHEN i % 7 = 0 THEN NULL "
          "WHEN i % 7 = 1 THEN '' ELSE 'row \xc3\xa9 ' || i END, CASE i % 3 WHEN 0 THEN i * 0.25 WHEN 1 THEN i "
          "ELSE NULL END, i FROM seq;");
}

// Levels of t's b-tree (1: the root is its only page), from dbstat's page paths ("/", "/000/",
// "/000/01f/", ...; overflow pages end in a "+" part and are left out).
std::int64_t depthOf(const std::string &path)
{
    return sqlInt(path,
        "SELECT max(length(path) - length(replace(path, '/', ''))) FROM dbstat WHERE name = 't' AND pagetype <> "
        "'overflow'");
}

std::int64_t leavesOf(const std::string &path)
{
    return sqlInt(path, "SELECT count(*) FROM dbstat WHERE name = 't' AND pagetype = 'leaf'");
}

// How one scan went: its rows as text, and where it ended.
struct Scanned
{
    std::vector<std::string> rows;
    std::optional<std::string> error; // SqliteError's message, if the scan failed
    std::string fallbackReason;
    std::uint64_t directRows = 0;
    std::size_t pageRanges = 0;
};

// Every accessor's answer for every column of every row, as one line per row.
Scanned scan(const std::string &path, bool direct, unsigned threads, std::size_t stopAfter = SIZE_MAX)
{
    Scanned out;
    Database db(path);
    TableScan t(db, "t", columns(), direct, threads);
    out.pageRanges = t.pageRanges();
    try {
        while (out.rows.size() < stopAfter && t.step()) {
            std::string line;
            for (int c = 0; c < 4; ++c) {
                line += t.isNull(c) ? "N" : "-";
                if (c == 1) {
                    line += std::string(t.optionalText(c).value_or("<null>")) + "|";
                    continue;
                }
                const auto exact = t.exactInt64(c);
                line += std::to_string(int(exact.kind)) + ":" + std::to_string(exact.value) + ":";
                if (c == 2) {
                    const auto d = t.optionalDouble(c);
                    line += d ? std::to_string(*d) : "<null>";
                } else {
                    line += std::to_string(t.optionalInt64(c).value_or(-1)) + "/" + std::to_string(t.int64(c));
                }
                line += "|";
            }
            out.rows.push_back(std::move(line));
        }
    } catch (const SqliteError &e) {
        out.error = e.what();
    }
    out.fallbackReason = t.fallbackReason();
    out.directRows = t.directRows();
    return out;
}

// The scan with `threads` returns SQLite's rows (and error, if any), in SQLite's order.
void sameAsSqlite(const Scanned &sqlite, const Scanned &split)
{
    QCOMPARE(split.rows.size(), sqlite.rows.size());
    for (std::size_t i = 0; i < sqlite.rows.size(); ++i)
        if (split.rows[i] != sqlite.rows[i])
            QFAIL(qPrintable(QString("row %1: %2 | %3")
                                 .arg(i)
                                 .arg(QString::fromStdString(split.rows[i]))
                                 .arg(QString::fromStdString(sqlite.rows[i]))));
    QCOMPARE(split.error.has_value(), sqlite.error.has_value());
}

} // namespace

class TestTableScanSplit : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string file(const char *name) const { return m_dir.filePath(name).toStdString(); }

private slots:
    void threads_data()
    {
        QTest::addColumn<unsigned>("threads");
        for (unsigned threads : { 1u, 2u, 3u, 4u })
            QTest::newRow(qPrintable(QString("%1 threads").arg(threads))) << threads;
    }

    // A four-level b-tree (root, two interior levels, leaves) of 512-byte pages, rows with
    // overflow pages among them: split into many ranges, every row decoded directly, and
    // every row SQLite's.
    void multiLevelTreeIsSplitAndReadsAsSqlite_data() { threads_data(); }
    void multiLevelTreeIsSplitAndReadsAsSqlite()
    {
        QFETCH(unsigned, threads);
        const auto path = file("deep.sqlite");
        if (!std::filesystem::exists(path))
            writeTable(path, 512, 60000);
        QCOMPARE(depthOf(path), std::int64_t(4));
        const auto leaves = leavesOf(path);
        const auto sqlite = scan(path, false, 0);
        QCOMPARE(sqlite.rows.size(), std::size_t(60000));
        const auto split = scan(path, true, threads);
        CHECK(sameAsSqlite(sqlite, split));
        QCOMPARE(split.pageRanges, std::size_t((leaves + 15) / 16)); // 16 leaves per range
        QVERIFY(split.fallbackReason.empty());
        QCOMPARE(split.directRows, std::uint64_t(60000));
        // Unsplit, the same rows.
        const auto whole = scan(path, true, 0);
        QCOMPARE(whole.pageRanges, std::size_t(0));
        CHECK(sameAsSqlite(sqlite, whole));
    }

    // Two levels: the root's children are the leaves.
    void twoLevelTreeIsSplit()
    {
        const auto path = file("shallow.sqlite");
        writeTable(path, 4096, 6000);
        QCOMPARE(depthOf(path), std::int64_t(2));
        const auto sqlite = scan(path, false, 0);
        const auto split = scan(path, true, 2);
        QVERIFY(split.pageRanges >= 4);
        CHECK(sameAsSqlite(sqlite, split));
        QCOMPARE(split.directRows, std::uint64_t(6000));
    }

    // A root that is a leaf, and an empty table: nothing to split, the rows as before.
    void tinyAndEmptyTablesAreNotSplit()
    {
        const auto tiny = file("tiny.sqlite");
        writeTable(tiny, 4096, 20);
        QCOMPARE(depthOf(tiny), std::int64_t(1));
        const auto split = scan(tiny, true, 4);
        QCOMPARE(split.pageRanges, std::size_t(0));
        CHECK(sameAsSqlite(scan(tiny, false, 0), split));
        QCOMPARE(split.rows.size(), std::size_t(20));

        const auto empty = file("empty.sqlite");
        writeTable(empty, 4096, 0);
        const auto none = scan(empty, true, 4);
        QCOMPARE(none.pageRanges, std::size_t(0));
        QCOMPARE(none.rows.size(), std::size_t(0));
        QVERIFY(!none.error);
    }

    // Just enough leaves to split, and more threads than ranges: the idle ones do nothing.
    void moreThreadsThanRanges()
    {
        const auto path = file("few.sqlite");
        int rows = 1200;
        for (;; rows += 100) {
            std::filesystem::remove(path);
            writeTable(path, 1024, rows);
            if (leavesOf(path) >= 64) // the fewest leaves that are split
                break;
        }
        const auto split = scan(path, true, 12);
        QVERIFY(split.pageRanges >= 4);
        QVERIFY(split.pageRanges < 12);
        CHECK(sameAsSqlite(scan(path, false, 0), split));
        QCOMPARE(split.directRows, std::uint64_t(rows));
    }

    // A TEXT in an integer column deep in the table: the ranges before it are decoded
    // directly, and SQLite answers from that row on, as without the split.
    void valueOfAnotherTypeInALaterRangeHandsOverAtItsRow_data() { threads_data(); }
    void valueOfAnotherTypeInALaterRangeHandsOverAtItsRow()
    {
        QFETCH(unsigned, threads);
        const auto path = file("odd.sqlite");
        if (!std::filesystem::exists(path)) {
            writeTable(path, 512, 60000);
            gaplens::test::execSql(path, "UPDATE t SET a = 'seven' WHERE n = 41234");
        }
        const auto sqlite = scan(path, false, 0);
        const auto split = scan(path, true, threads);
        QVERIFY(split.pageRanges > 1);
        CHECK(sameAsSqlite(sqlite, split));
        QCOMPARE(split.directRows, std::uint64_t(41234));
        QCOMPARE(split.fallbackReason, scan(path, true, 0).fallbackReason);
        QVERIFY(!split.fallbackReason.empty());
    }

    // A leaf of a later range whose cell count SQLite rejects: the same rows before it, then
    // SQLite's error, with and without the split.
    void corruptLeafInALaterRangeFailsAsSqlite()
    {
        const auto path = file("corrupt.sqlite");
        writeTable(path, 512, 60000);
        const auto leaf = sqlInt(
            path, "SELECT pageno FROM dbstat WHERE name = 't' AND pagetype = 'leaf' ORDER BY path LIMIT 1 OFFSET 2500");
        gaplens::test::patchFile(path, std::size_t(leaf - 1) * 512 + 3, std::string(2, '\0')); // 0 cells
        const auto sqlite = scan(path, false, 0);
        QVERIFY(sqlite.error);
        QVERIFY(sqlite.rows.size() > 30000);
        for (unsigned threads : { 0u, 1u, 3u }) {
            const auto split = scan(path, true, threads);
            CHECK(sameAsSqlite(sqlite, split));
            QCOMPARE(split.directRows, std::uint64_t(sqlite.rows.size()));
        }
    }

    // A scan given up after a few rows (a cancelled load) stops its threads.
    void abandonedScanStops()
    {
        const auto path = file("deep.sqlite");
        if (!std::filesystem::exists(path))
            writeTable(path, 512, 60000);
        const auto sqlite = scan(path, false, 0, 100);
        const auto split = scan(path, true, 3, 100);
        CHECK(sameAsSqlite(sqlite, split));
        QCOMPARE(split.rows.size(), std::size_t(100));
    }
};

QTEST_APPLESS_MAIN(TestTableScanSplit)
#include "tst_table_scan_split.moc"
