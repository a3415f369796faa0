// SPDX-License-Identifier: MIT
// LoadOptions::tables: a table outside the set is not read at all (its columns stay empty, the
// reader goes through none of its rows, and it cannot fail the file), while ranks, their processes and GPUs stay those
// of a full load: the kernel, copy and memset tables are scanned for devices and processes,
// and a file without GPU work reads what decides its rank (its CUDA calls and NVTX events).
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/export_writer.h"

#include "sqltestdb.h"
#include "test_files.h"
#include "testsupport.h"
#include "trace_counts.h"

#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::core;
using gaplens::test::SqlTestDb;

namespace {

std::shared_ptr<TraceSet> loadTables(const std::string &file, TableSet tables)
{
    LoadOptions options;
    options.files = { file };
    options.tables = tables;
    return loadTraceSet(options);
}

std::uint64_t rowsRead(const TraceSet &trace)
{
    std::uint64_t rows = 0;
    for (const auto &r : trace.reports)
        rows += r.notes.rowsRead;
    return rows;
}

std::vector<std::int32_t> deviceIds(const TraceSet &trace, const Rank &rank)
{
    std::vector<std::int32_t> ids;
    for (auto g : rank.gpus)
        ids.push_back(trace.gpus[g].deviceId);
    return ids;
}

// Ranks, their processes and GPUs as a full load has them.
void compareRanks(const TraceSet &partial, const TraceSet &full)
{
    QCOMPARE(partial.errors.size(), std::size_t(0));
    QCOMPARE(partial.ranks.size(), full.ranks.size());
    for (std::size_t r = 0; r < full.ranks.size(); ++r) {
        const auto &a = partial.ranks[r], &b = full.ranks[r];
        QCOMPARE(a.rank, b.rank);
        QCOMPARE(a.pid, b.pid);
        QCOMPARE(a.processName, b.processName);
        QCOMPARE(a.host, b.host);
        QCOMPARE(a.source, b.source);
        QCOMPARE(a.sourceDetail, b.sourceDetail);
        QCOMPARE(deviceIds(partial, a), deviceIds(full, b));
    }
    QCOMPARE(partial.gpus.size(), full.gpus.size());
    QCOMPARE(partial.warnings, full.warnings);
}

} // namespace

class TestTableSets : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void setsCombineAndOsRuntimeCallsBringWhatKeepsThem()
    {
        constexpr TableSet kernels = ExportTable::Kernels;
        QVERIFY(kernels.contains(ExportTable::Kernels));
        QVERIFY(!kernels.contains(ExportTable::Nvtx));
        QCOMPARE((kernels | ExportTable::Nvtx).bits(), 0b1001u);
        QCOMPARE((TableSet::all() - kernels).contains(ExportTable::Kernels), false);
        QVERIFY(TableSet::all().isAll());
        QVERIFY(!(TableSet::all() - ExportTable::Callchains).isAll());
        QCOMPARE(withDependencies(ExportTable::OsRuntime),
            ExportTable::OsRuntime | ExportTable::CudaApi | TableSet(ExportTable::Nvtx));
        QCOMPARE(withDependencies(kernels), kernels);
    }

    // The real H100 capture: two processes (two ranks) in one file, with kernels, copies,
    // memsets, CUDA calls and NVTX ranges.
    void aKernelsLoadReadsTheKernelTableOnly()
    {
        const auto file = gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY2(!file.empty(), "the real exports (../shared/nsys-real) are missing");
        const auto partial = loadTables(file, kKernelSummaryTables);
        const auto full = gaplens::test::load({ file });
        SqlTestDb db(file);
        const auto count = [&](const char *table) {
            return std::uint64_t(db.integer(std::string("SELECT count(*) FROM ") + table));
        };
        QCOMPARE(gaplens::test::kernelCount(*partial), std::size_t(count("CUPTI_ACTIVITY_KIND_KERNEL")));
        QCOMPARE(gaplens::test::kernelCount(*partial), std::size_t(3442));
        // No CUDA call, NVTX range, mark or OS call: no thread at all (threads come from them).
        QVERIFY(partial->threads.empty());
        QCOMPARE(gaplens::test::apiCallCount(*partial), std::size_t(0));
        QCOMPARE(gaplens::test::nvtxRangeCount(*partial), std::size_t(0));
        QVERIFY(gaplens::test::apiCallCount(*full) > 0 && gaplens::test::nvtxRangeCount(*full) > 0);
        for (const auto &gpu : partial->gpus) {
            QCOMPARE(gpu.copies.size(), std::size_t(0));
            QCOMPARE(gpu.syncs.size(), std::size_t(0));
            QCOMPARE(gpu.memory.size(), std::size_t(0));
        }
        QCOMPARE(gaplens::test::copyCount(*full),
            std::size_t(count("CUPTI_ACTIVITY_KIND_MEMCPY") + count("CUPTI_ACTIVITY_KIND_MEMSET")));
        // The rows it went through: the kernels' names (no other string), the kernels, and the
        // copies and memsets scanned for their devices and processes; not one row of the CUDA
        // API or NVTX table.
        const auto kernelNames
            = std::uint64_t(db.integer("SELECT count(*) FROM StringIds WHERE id IN (SELECT shortName "
                                       "FROM CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT demangledName "
                                       "FROM CUPTI_ACTIVITY_KIND_KERNEL)"));
        QVERIFY(kernelNames > 0 && kernelNames < count("StringIds"));
        QCOMPARE(rowsRead(*partial),
            kernelNames + count("CUPTI_ACTIVITY_KIND_KERNEL") + count("CUPTI_ACTIVITY_KIND_MEMCPY")
                + count("CUPTI_ACTIVITY_KIND_MEMSET"));
        QCOMPARE(partial->strings.size(), std::size_t(1 + kernelNames)); // and the empty string
        QVERIFY(rowsRead(*full) > rowsRead(*partial) + count("NVTX_EVENTS"));
        CHECK(compareRanks(*partial, *full));
        QCOMPARE(partial->ranks.size(), std::size_t(2));
        // What the kernels command shows is the full load's.
        const auto a = summarizeKernels(*partial), b = summarizeKernels(*full);
        QCOMPARE(a.rows.size(), b.rows.size());
        QCOMPARE(a.totalNs, b.totalNs);
        for (std::size_t i = 0; i < a.rows.size(); ++i) {
            QCOMPARE(partial->str(a.rows[i].name), full->str(b.rows[i].name));
            QCOMPARE(a.rows[i].stats.count, b.rows[i].stats.count);
            QCOMPARE(a.rows[i].stats.medianNs, b.rows[i].stats.medianNs);
        }
    }

    void anNvtxLoadReadsNoKernelOrCall()
    {
        const auto file = gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY2(!file.empty(), "the real exports (../shared/nsys-real) are missing");
        const auto partial = loadTables(file, kNvtxSummaryTables);
        const auto full = gaplens::test::load({ file });
        QCOMPARE(gaplens::test::kernelCount(*partial), std::size_t(0));
        QCOMPARE(gaplens::test::apiCallCount(*partial), std::size_t(0));
        QCOMPARE(gaplens::test::nvtxRangeCount(*partial), gaplens::test::nvtxRangeCount(*full));
        QCOMPARE(gaplens::test::nvtxRangeCount(*partial), std::size_t(16782));
        // The GPUs exist (their devices were scanned), without kernels: no rank has them.
        QCOMPARE(partial->gpus.size(), full->gpus.size());
        QCOMPARE(partial->ranks.size(), full->ranks.size());
        for (std::size_t r = 0; r < full->ranks.size(); ++r) {
            QCOMPARE(partial->ranks[r].pid, full->ranks[r].pid);
            QCOMPARE(partial->ranks[r].processName, full->ranks[r].processName);
        }
    }

    // No kernel, copy or memset: the rank is the process with the most CUDA calls and NVTX
    // events, so those are read whatever the set.
    void aFileWithoutGpuWorkReadsWhatDecidesItsRank()
    {
        const auto file = gaplens::test::realFile("centerformer_nvtx_only.sqlite");
        QVERIFY2(!file.empty(), "the real exports (../shared/nsys-real) are missing");
        const auto partial = loadTables(file, kKernelSummaryTables);
        const auto full = gaplens::test::load({ file });
        CHECK(compareRanks(*partial, *full));
        QVERIFY(partial->ranks.front().pid != 0);
        QCOMPARE(gaplens::test::nvtxRangeCount(*partial), gaplens::test::nvtxRangeCount(*full));
    }

    // A process with copies and no kernel is a rank of its own, as a full load makes it,
    // though a kernels load keeps no copy.
    void aProcessWithOnlyCopiesIsStillARank()
    {
        const auto file = m_dir.filePath(QStringLiteral("copies_only.sqlite")).toStdString();
        {
            ExportWriter writer(file, {});
            writer.addProcess(100, "trainer");
            writer.addProcess(200, "loader");
            ExportWriter::Kernel kernel;
            kernel.start = 1'000;
            kernel.end = 5'000;
            kernel.pid = 100;
            kernel.shortName = "gemm";
            writer.addKernel(kernel);
            ExportWriter::Memcpy copy;
            copy.start = 2'000;
            copy.end = 9'000;
            copy.deviceId = 1;
            copy.pid = 200;
            copy.bytes = 4096;
            writer.addMemcpy(copy);
            writer.finish();
        }
        const auto partial = loadTables(file, kKernelSummaryTables);
        const auto full = gaplens::test::load({ file });
        CHECK(compareRanks(*partial, *full));
        QCOMPARE(partial->ranks.size(), std::size_t(2));
        QCOMPARE(partial->ranks[1].pid, 200u);
        QCOMPARE(partial->gpus.size(), std::size_t(2));
        QCOMPARE(gaplens::test::copyCount(*partial), std::size_t(0));
        QCOMPARE(gaplens::test::copyCount(*full), std::size_t(1));
    }

    // A corrupt NVTX table fails a full load of the file; a kernels load never reads it.
    void aTableNotReadCannotFailTheFile()
    {
        const auto file = m_dir.filePath(QStringLiteral("bad_nvtx.sqlite")).toStdString();
        {
            ExportWriter writer(file, {});
            writer.addProcess(100, "trainer");
            for (int i = 0; i < 3; ++i) {
                ExportWriter::Kernel kernel;
                kernel.start = 1'000 + i * 10'000;
                kernel.end = kernel.start + 4'000;
                kernel.pid = 100;
                kernel.shortName = "gemm";
                writer.addKernel(kernel);
                ExportWriter::NvtxRange range;
                range.start = kernel.start;
                range.end = kernel.end;
                range.pid = 100;
                range.tid = 100;
                range.text = "step";
                writer.addNvtx(range);
            }
            writer.finish();
        }
        std::uint64_t root = 0, pageSize = 0;
        {
            SqlTestDb db(file);
            root = std::uint64_t(db.integer("SELECT rootpage FROM sqlite_master WHERE name = 'NVTX_EVENTS'"));
            pageSize = std::uint64_t(db.integer("PRAGMA page_size"));
        }
        QVERIFY(root > 1);
        gaplens::test::patchFile(file, (root - 1) * pageSize, std::string(1, '\x00')); // no b-tree page type
        const auto full = gaplens::test::load({ file });
        QCOMPARE(full->errors.size(), std::size_t(1));
        QVERIFY2(
            full->errors.front().message.find("corrupt") != std::string::npos, full->errors.front().message.c_str());
        const auto kernels = loadTables(file, kKernelSummaryTables);
        QCOMPARE(kernels->errors.size(), std::size_t(0));
        QCOMPARE(gaplens::test::kernelCount(*kernels), std::size_t(3));
        QCOMPARE(kernels->ranks.size(), std::size_t(1));
    }

    // The memory guard counts what the set reads, with the string table.
    void theEstimateCountsTheTablesReadOnly()
    {
        const auto file = gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY2(!file.empty(), "the real exports (../shared/nsys-real) are missing");
        SqlTestDb db(file);
        const auto kernels = estimateLoad({ file }, kKernelSummaryTables);
        QCOMPARE(kernels.rows,
            std::uint64_t(db.integer("SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + "
                                     "(SELECT count(*) FROM StringIds)")));
        QVERIFY(estimateLoad({ file }).rows > kernels.rows);
        QCOMPARE(estimateLoad({ file }, TableSet::all()).rows, estimateLoad({ file }).rows);
    }
};

QTEST_APPLESS_MAIN(TestTableSets)
#include "tst_table_sets.moc"
