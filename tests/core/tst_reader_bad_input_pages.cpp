// SPDX-License-Identifier: MIT
// Exports with malformed b-tree pages, loaded end to end: the outcome (the error naming the
// file, or the loaded numbers) must be SQLite's, the same with the direct table scan on and
// off, the same with one thread (each file read whole) and two (each file read as two parts on
// two connections), and the same every time.
#include "gaplens/core/read/loader.h"

#include "minimal_export.h"
#include "sqltestdb.h"
#include "test_files.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace gaplens::core;
using gaplens::test::patchFile;
using gaplens::test::readFile;
using gaplens::test::writeFile;

namespace {

constexpr std::uint32_t kPageSize = 4096;
constexpr int kRows = 3000; // per table: each table's b-tree has an interior root and ~20 leaves
constexpr int kRepeats = 10;

// An export whose kernels, CUDA API calls and NVTX ranges each span many leaf pages.
const std::string kExport = "PRAGMA page_size = 4096;" + gaplens::test::minimalExportHeadSql() + R"(
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (shortName INTEGER, deviceId INTEGER, start INTEGER, "end" INTEGER,
        streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q
        WHERE i < 3000) SELECT 1, 0, i * 100, i * 100 + 50, 7, i, 16777216 * 42, 1 FROM q;
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, "end" INTEGER, eventClass INTEGER, globalTid INTEGER,
        correlationId INTEGER, nameId INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q
        WHERE i < 3000) SELECT i * 100 - 20, i * 100 - 10, 0, 16777216 * 42 + 42, i, 2 FROM q;
    CREATE TABLE NVTX_EVENTS (start INTEGER, "end" INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER,
        textId INTEGER, domainId INTEGER);
    INSERT INTO NVTX_EVENTS WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 3000)
        SELECT i * 100 - 30, i * 100 + 60, 59, 'range ' || (i % 10), 16777216 * 42 + 42, NULL, 0 FROM q;
)";

// 200 of the same kernels, with NVTX_EVENTS a view of them (the rank's ranges are its kernels)
// and an index on their starts, as in the fuzz seed where the case was found
// (views_and_indexes in write_seed_corpus.cpp).
const std::string kViewExport = "PRAGMA page_size = 4096;" + gaplens::test::minimalExportHeadSql() + R"(
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (shortName INTEGER, deviceId INTEGER, start INTEGER, "end" INTEGER,
        streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q
        WHERE i < 200) SELECT 1, 0, i * 100, i * 100 + 50, 7, i, 16777216 * 42, 1 FROM q;
    CREATE INDEX kernel_start ON CUPTI_ACTIVITY_KIND_KERNEL (start);
    CREATE VIEW NVTX_EVENTS AS SELECT start, "end", 59 AS eventType, 'view' AS text,
        16777216 * 42 + 42 AS globalTid FROM CUPTI_ACTIVITY_KIND_KERNEL;
)";

std::uint32_t be16(const std::string &bytes, std::size_t at)
{
    return std::uint32_t(std::uint8_t(bytes[at])) << 8 | std::uint8_t(bytes[at + 1]);
}

std::uint32_t be32(const std::string &bytes, std::size_t at)
{
    return be16(bytes, at) << 16 | be16(bytes, at + 2);
}

std::string bigEndian16(std::uint32_t v)
{
    return { char(v >> 8), char(v) };
}
std::string bigEndian32(std::uint32_t v)
{
    return { char(v >> 24), char(v >> 16), char(v >> 8), char(v) };
}

std::size_t pageOffset(std::uint32_t page)
{
    return std::size_t(page - 1) * kPageSize;
}

bool isInterior(const std::string &bytes, std::uint32_t page)
{
    return std::uint8_t(bytes[pageOffset(page)]) == 0x05;
}

// A table b-tree's leaf pages in key order (the fixture's own, well-formed tree; no table's
// root is page 1).
void collectLeaves(const std::string &bytes, std::uint32_t page, std::vector<std::uint32_t> &leaves)
{
    if (!isInterior(bytes, page)) {
        leaves.push_back(page);
        return;
    }
    const std::size_t at = pageOffset(page);
    for (std::uint32_t i = 0; i < be16(bytes, at + 3); ++i)
        collectLeaves(bytes, be32(bytes, at + be16(bytes, at + 12 + 2 * i)), leaves);
    collectLeaves(bytes, be32(bytes, at + 8), leaves);
}

std::uint32_t rootPage(const std::string &path, const std::string &table)
{
    return std::uint32_t(
        gaplens::test::sqlInt(path, "SELECT rootpage FROM sqlite_master WHERE name = '" + table + "'"));
}

// What a load gave, as one comparable line: the errors, or the numbers loaded.
std::string describe(const TraceSet &trace)
{
    if (!trace.errors.empty()) {
        std::string errors;
        for (const auto &e : trace.errors)
            errors += "error [" + e.path + "] " + e.message + "\n";
        return errors;
    }
    // Count, summed starts and summed durations of intervals.
    struct Sums
    {
        std::size_t count = 0;
        TimeNs starts = 0, durations = 0;
        void add(std::span<const TimeNs> start, std::span<const TimeNs> end)
        {
            for (std::size_t i = 0; i < start.size(); ++i, ++count) {
                starts += start[i];
                durations += end[i] - start[i];
            }
        }
        std::string text() const
        {
            return std::to_string(count) + " (starts " + std::to_string(starts) + ", durations "
                + std::to_string(durations) + ")";
        }
    } kernels, calls, ranges;
    for (const auto &gpu : trace.gpus)
        for (const auto &stream : gpu.streams)
            kernels.add(stream.kernels.start, stream.kernels.end);
    for (const auto &thread : trace.threads) {
        calls.add(thread.api.start, thread.api.end);
        ranges.add(thread.nvtx.start, thread.nvtx.end);
    }
    return "ranks " + std::to_string(trace.ranks.size()) + ", GPUs " + std::to_string(trace.gpus.size()) + ", threads "
        + std::to_string(trace.threads.size()) + ", kernels " + kernels.text() + ", calls " + calls.text() + ", ranges "
        + ranges.text();
}

std::string load(const std::string &path, bool directTableScan, unsigned threads)
{
    LoadOptions options;
    options.files = { path };
    options.directTableScan = directTableScan;
    options.threads = threads;
    return describe(*loadTraceSet(options));
}

} // namespace

class TestReaderBadInputPages : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_good;
    std::string m_goodBytes;

    std::string path(const std::string &name) const { return gaplens::test::pathIn(m_dir, name); }

    // SQLite-only with one thread is the reference; every way of loading, each kRepeats times,
    // must give exactly it, and it must be `expected`.
    void expectOneOutcome(const std::string &file, const std::string &expected)
    {
        const auto reference = load(file, false, 1);
        QCOMPARE(reference, expected);
        std::map<std::string, int> outcomes;
        for (const bool direct : { false, true })
            for (const unsigned threads : { 1u, 2u })
                for (int run = 0; run < kRepeats; ++run) {
                    const auto outcome = load(file, direct, threads);
                    if (outcome != reference)
                        QFAIL(("direct scan " + std::string(direct ? "on" : "off") + ", " + std::to_string(threads)
                            + " threads, run " + std::to_string(run) + ": " + outcome + "\nSQLite alone: " + reference)
                                  .c_str());
                    ++outcomes[outcome];
                }
        QCOMPARE(outcomes.size(), std::size_t(1));
        QCOMPARE(outcomes.begin()->second, 4 * kRepeats);
    }

    static std::string malformed(const std::string &file)
    {
        return "error [" + file + "] " + file
            + ": is truncated or corrupt (SQLite: database disk image is malformed)\n";
    }

    // The interior page whose right-most child is `table`'s last leaf, and that leaf.
    std::pair<std::uint32_t, std::uint32_t> lastLeafAndParent(const std::string &table) const
    {
        std::uint32_t parent = rootPage(m_good, table);
        while (isInterior(m_goodBytes, be32(m_goodBytes, pageOffset(parent) + 8)))
            parent = be32(m_goodBytes, pageOffset(parent) + 8);
        return { parent, be32(m_goodBytes, pageOffset(parent) + 8) };
    }

    // A copy of the good file with the kernels' last leaf appended past the header's page count,
    // and the b-tree's pointer to that leaf moved to the copy.
    std::string withLeafPastThePageCount(const std::string &name) const
    {
        const auto [parent, leaf] = lastLeafAndParent("CUPTI_ACTIVITY_KIND_KERNEL");
        const auto pages = std::uint32_t(m_goodBytes.size() / kPageSize);
        const auto p = path(name);
        writeFile(p, m_goodBytes + m_goodBytes.substr(pageOffset(leaf), kPageSize));
        patchFile(p, pageOffset(parent) + 8, bigEndian32(pages + 1));
        return p;
    }

    // A copy of `bytes` whose `leaf` has its 4th cell pointer's high byte set to 0xfe, far
    // past the 4096-byte page.
    std::string withCellPointerFarPastThePage(
        const std::string &bytes, std::uint32_t leaf, const std::string &name) const
    {
        const auto p = path(name);
        writeFile(p, bytes);
        patchFile(p, pageOffset(leaf) + 8 + 2 * 3, std::string(1, char(0xfe)));
        return p;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_good = gaplens::test::writeExportIn(m_dir, "good.sqlite", kExport);
        m_goodBytes = readFile(m_good);
        QCOMPARE(be16(m_goodBytes, 16), kPageSize);
        QCOMPARE(be32(m_goodBytes, 28), std::uint32_t(m_goodBytes.size() / kPageSize)); // the header's page count
        QCOMPARE(be32(m_goodBytes, 92), be32(m_goodBytes, 24)); // is valid
        for (const char *table : { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS" }) {
            std::vector<std::uint32_t> leaves;
            collectLeaves(m_goodBytes, rootPage(m_good, table), leaves);
            QVERIFY2(leaves.size() >= 10, table);
        }
    }

    void goodFileLoadsTheSameEveryWay()
    {
        // Row i (1..3000): a kernel at 100 i .. 100 i + 50, a call at 100 i - 20 .. 100 i - 10, a
        // range at 100 i - 30 .. 100 i + 60, all after the session start at 1 s.
        expectOneOutcome(m_good,
            "ranks 1, GPUs 1, threads 1, kernels 3000 (starts 3000450150000, durations 150000), calls 3000 "
            "(starts 3000450090000, durations 30000), ranges 3000 (starts 3000450060000, durations 270000)");
    }

    // The header counts the file's pages; the leaf past them does not exist for SQLite, which
    // fails when the b-tree leads there ("database disk image is malformed"). The direct scan
    // read the page from the file and loaded it all.
    void leafPastTheHeaderPageCountFails()
    {
        const auto p = withLeafPastThePageCount("past_count.sqlite");
        expectOneOutcome(p, malformed(p));
    }

    // When the header's page count is not valid (the version-valid-for number differs from the
    // change counter), the file size counts: the appended leaf exists, holds the last leaf's
    // rows, and the file loads as the good one does.
    void leafPastAnInvalidPageCountLoads()
    {
        const auto p = withLeafPastThePageCount("past_invalid_count.sqlite");
        patchFile(p, 92, bigEndian32(be32(m_goodBytes, 24) + 1));
        expectOneOutcome(p, load(m_good, false, 1));
    }

    void cellPointerFarPastThePageInAnEdgeLeaf_data()
    {
        QTest::addColumn<QString>("table");
        QTest::addColumn<bool>("lastLeaf");
        for (const char *table : { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS" })
            for (const bool last : { false, true })
                QTest::newRow(qPrintable(QString("%1 %2 leaf").arg(table, last ? "last" : "first")))
                    << QString(table) << last;
    }

    // A cell pointer far past the page (0xfe.. in a 4096-byte page) in a table's first or last
    // leaf, which min(rowid) and max(rowid) read for the columns' size hint. SQLite marks a page
    // read before checking its cells, so after that query failed, the scan on the same
    // connection read the page unchecked, the pointer wrapped into the page, and the file
    // loaded with a row silently lost or misread (here the kernels' and the calls' first
    // leaves loaded). The hint's query now fails the file.
    void cellPointerFarPastThePageInAnEdgeLeaf()
    {
        QFETCH(QString, table);
        QFETCH(bool, lastLeaf);
        std::vector<std::uint32_t> leaves;
        collectLeaves(m_goodBytes, rootPage(m_good, table.toStdString()), leaves);
        const auto leaf = lastLeaf ? leaves.back() : leaves.front();
        QVERIFY(be16(m_goodBytes, pageOffset(leaf) + 3) > 3);
        const auto p = withCellPointerFarPastThePage(m_goodBytes, leaf, "edge_leaf.sqlite");
        expectOneOutcome(p, malformed(p));
    }

    // The same in the last kernel leaf of a file whose NVTX_EVENTS is a view of the kernels
    // (found by fuzz_scan_differential): one connection reading every table (one thread)
    // loaded the file, one reading the NVTX view alone (two threads) rejected it.
    void nvtxViewOfACorruptKernelTable()
    {
        const auto view = gaplens::test::writeExportIn(m_dir, "view.sqlite", kViewExport);
        const auto bytes = readFile(view);
        std::vector<std::uint32_t> leaves;
        collectLeaves(bytes, rootPage(view, "CUPTI_ACTIVITY_KIND_KERNEL"), leaves);
        QVERIFY(leaves.size() > 1);
        QVERIFY(be16(bytes, pageOffset(leaves.back()) + 3) > 3);
        const auto p = withCellPointerFarPastThePage(bytes, leaves.back(), "view_corrupt.sqlite");
        expectOneOutcome(p, malformed(p));
    }

    void cellPointerPastThePageEnd_data()
    {
        QTest::addColumn<QString>("table");
        QTest::addColumn<int>("pointer");
        QTest::addColumn<QByteArray>("pageEnd"); // written over the page's last bytes
        for (const char *table : { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS" }) {
            for (const int pointer : { 4093, 4094, 4095, 4096, 0xffff }) {
                const auto tag = QString("%1 cell at %2").arg(table).arg(pointer);
                QTest::newRow(qPrintable(tag)) << QString(table) << pointer << QByteArray();
            }
            // Size bytes that go on past the page: SQLite parsed them from whatever followed.
            QTest::newRow(qPrintable(QString("%1 cell at 4094, continued past the end").arg(table)))
                << QString(table) << 4094 << QByteArray("\x85\x81", 2);
            QTest::newRow(qPrintable(QString("%1 cell at 4095, continued past the end").arg(table)))
                << QString(table) << 4095 << QByteArray("\x81", 1);
        }
    }

    // A leaf cell pointer at or past the page's last bytes. SQLite used to parse such a cell
    // from the memory after its page buffer, so a file loaded in some runs and failed in
    // others; now SQLite and the direct scan reject the page every time, with any thread count.
    void cellPointerPastThePageEnd()
    {
        QFETCH(QString, table);
        QFETCH(int, pointer);
        QFETCH(QByteArray, pageEnd);
        std::vector<std::uint32_t> leaves;
        collectLeaves(m_goodBytes, rootPage(m_good, table.toStdString()), leaves);
        const auto leaf = leaves[3];
        QVERIFY(be16(m_goodBytes, pageOffset(leaf) + 3) > 5);
        const auto p = path("cell_past_end.sqlite");
        writeFile(p, m_goodBytes);
        patchFile(p, pageOffset(leaf) + 8 + 2 * 5, bigEndian16(std::uint32_t(pointer)));
        patchFile(p, pageOffset(leaf) + kPageSize - std::size_t(pageEnd.size()),
            std::string(pageEnd.constData(), std::size_t(pageEnd.size())));
        expectOneOutcome(p, malformed(p));
    }
};

QTEST_APPLESS_MAIN(TestReaderBadInputPages)
#include "tst_reader_bad_input_pages.moc"
