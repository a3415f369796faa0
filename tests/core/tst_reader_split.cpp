// SPDX-License-Identifier: MIT
// With fewer files than threads, each big table of a file is also split into page ranges
// read by the idle threads (TableScan's page-range split). The loaded capture must be the
// same at 1, 2, 3 and 4 threads, and the one read through SQLite statements alone: on
// generator captures whose tables have multi-level b-trees (their depth checked through
// SQLite's dbstat table), and on every real export.
#include "read/sqlite_db.h"
#include "read/table_scan.h"

#include "gaplens/core/read/loader.h"
#include "synth_sample.h"
#include "testsupport.h"
#include "trace_compare.h"

#include "sqltestdb.h"

#include <QTest>

#include <string>
#include <vector>

using namespace gaplens::core;

namespace {

constexpr const char *kBigTables[]
    = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "OSRT_API" };

std::shared_ptr<TraceSet> loadWith(const std::vector<std::string> &files, unsigned threads, bool direct = true)
{
    LoadOptions options;
    options.files = files;
    options.threads = threads;
    options.directTableScan = direct;
    return loadTraceSet(options);
}

// Both loads hold the same capture, field by field (names as text; see traceDifferences).
void sameCapture(const TraceSet &reference, const TraceSet &other)
{
    QVERIFY(reference.errors.empty());
    QVERIFY(other.errors.empty());
    std::string shown;
    for (const auto &line : gaplens::test::traceDifferences(reference, other))
        shown += "\n  " + line;
    QVERIFY2(shown.empty(), shown.c_str());
}

// The capture loaded with one thread equals the one loaded with 2, 3 and 4, and the one
// read through SQLite statements (at 1 and 3 threads).
void loadsAlikeAtEveryThreadCount(const std::vector<std::string> &files)
{
    const auto reference = loadWith(files, 1);
    QVERIFY(!reference->ranks.empty());
    for (unsigned threads : { 2u, 3u, 4u }) {
        CHECK(sameCapture(*reference, *loadWith(files, threads)));
    }
    for (unsigned threads : { 1u, 3u }) {
        CHECK(sameCapture(*reference, *loadWith(files, threads, false)));
    }
}

// Page ranges of `table`'s scan with one thread beside the caller (0: not split, or no table).
std::size_t pageRangesOf(const std::string &file, const char *table)
{
    detail::Database db(file);
    if (!db.hasTable(table))
        return 0;
    detail::TableScan scan(db, table, { { "start", false, false } }, true, 1);
    return scan.pageRanges();
}

std::int64_t depthOf(const std::string &file, const char *table)
{
    return gaplens::test::sqlInt(file,
        std::string("SELECT max(length(path) - length(replace(path, '/', ''))) FROM dbstat WHERE name = '") + table
            + "' AND pagetype <> 'overflow'");
}

} // namespace

class TestReaderSplit : public QObject
{
    Q_OBJECT

    std::vector<std::string> m_files;

private slots:
    void initTestCase() { gaplens::test::listRealExports(m_files, 14); }

    // Two ranks of a generated job. The generator writes 64 KiB pages, so that its b-trees
    // have two levels at this size; rewritten with 1 KiB pages (rank 0) and nsys's 4 KiB
    // (rank 1) they have three. Each rank alone (one file, up to 3 threads beside the reader)
    // and both together.
    void generatorCaptureLoadsAlike()
    {
        gaplens::test::SynthSample sample;
        auto options = gaplens::test::synthOptions(2, 20);
        options.scaleKernelsPerRank = 20000;
        options.scaleRuntimePerRank = 40000;
        options.scaleNvtxPerRank = 60000;
        QVERIFY(sample.write(options));
        const auto &files = sample.synth.files;
        QCOMPARE(files.size(), std::size_t(2));
        gaplens::test::SqlTestDb(files[0], gaplens::test::SqlTestDb::Mode::Create)
            .exec("PRAGMA page_size = 1024; VACUUM;");
        gaplens::test::SqlTestDb(files[1], gaplens::test::SqlTestDb::Mode::Create)
            .exec("PRAGMA page_size = 4096; VACUUM;");
        for (const char *table : { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS" }) {
            QVERIFY2(depthOf(files[0], table) >= 3, table);
            QVERIFY2(pageRangesOf(files[0], table) >= 4, table);
            QVERIFY2(pageRangesOf(files[1], table) >= 4, table);
        }
        CHECK(loadsAlikeAtEveryThreadCount({ files[0] }));
        CHECK(loadsAlikeAtEveryThreadCount({ files[1] }));
        CHECK(loadsAlikeAtEveryThreadCount(files));
    }

    void realExportLoadsAlike_data() { gaplens::test::addFileRows(m_files); }
    void realExportLoadsAlike()
    {
        QFETCH(QString, file);
        CHECK(loadsAlikeAtEveryThreadCount({ file.toStdString() }));
    }

    // The real exports are small, but some of their tables still have enough leaves to be
    // split, so the identity above is not only that of unsplit scans.
    void someRealTablesAreSplit()
    {
        std::size_t split = 0;
        for (const auto &file : m_files)
            for (const char *table : kBigTables)
                split += pageRangesOf(file, table) > 0;
        QVERIFY(split >= 1);
        QVERIFY(pageRangesOf(gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite"), "NVTX_EVENTS") >= 4);
    }
};

QTEST_APPLESS_MAIN(TestReaderSplit)
#include "tst_reader_split.moc"
