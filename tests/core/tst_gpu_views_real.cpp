// SPDX-License-Identifier: MIT
// The projected NVTX summary, the kernel histogram and the GPU memory counter on the real
// exports, each against an independent SQL computation over the export's own tables.
#include "gaplens/core/analysis/gpu_memory.h"
#include "gaplens/core/analysis/kernel_histogram.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/read/loader.h"
#include "sqltestdb.h"
#include "testsupport.h"

#include <QTest>

#include <cmath>

using namespace gaplens::core;
using gaplens::test::SqlTestDb;

namespace {

std::shared_ptr<const TraceSet> load(const std::string &path)
{
    LoadOptions options;
    options.files = { path };
    return loadTraceSet(options);
}

// Per (pid, correlationId): the first start and last end of the kernels, copies and memsets.
std::string workSql(const SqlTestDb &db)
{
    std::string sources;
    for (const char *table :
        { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET" })
        if (db.hasTable(table))
            sources += std::string(sources.empty() ? "" : " UNION ALL ")
                + "SELECT correlationId, globalPid, start, \"end\" FROM " + table;
    return "CREATE TEMP TABLE work AS SELECT globalPid / 16777216 % 16777216 AS pid, correlationId AS corr, "
           "min(start) AS s, max(\"end\") AS e FROM ("
        + sources + ") WHERE correlationId != 0 GROUP BY 1, 2; CREATE INDEX temp.work_key ON work(pid, corr);";
}

} // namespace

class TestGpuViewsReal : public QObject
{
    Q_OBJECT

private slots:
    void projectedNvtxTimeEqualsSql_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("h100") << QStringLiteral("nsysai_h100_2gpu_1s.sqlite");
        QTest::newRow("mfu before") << QStringLiteral("nsysai_mfu_2gpu_before.sqlite");
    }
    void projectedNvtxTimeEqualsSql()
    {
        QFETCH(QString, file);
        const auto path = gaplens::test::realFile(file.toUtf8().constData());
        QVERIFY(!path.empty());
        const SqlTestDb db(path);
        db.exec(workSql(db));
        db.exec("CREATE TEMP TABLE calls AS SELECT r.globalTid AS tid, r.start AS start, w.s AS s, w.e AS e "
                "FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN work w ON w.pid = r.globalTid / 16777216 % 16777216 "
                "AND w.corr = r.correlationId; CREATE INDEX temp.calls_key ON calls(tid, start);");
        // Every push/pop and start/end range: its calls' work, first start to last end.
        const auto expected = db.ints(
            "SELECT count(*), coalesce(sum(pe - ps), 0) FROM (SELECT "
            "(SELECT min(c.s) FROM calls c WHERE c.tid = n.globalTid AND c.start BETWEEN n.start AND n.\"end\") AS ps, "
            "(SELECT max(c.e) FROM calls c WHERE c.tid = n.globalTid AND c.start BETWEEN n.start AND n.\"end\") AS pe "
            "FROM NVTX_EVENTS n WHERE n.eventType IN (59, 60) AND n.\"end\" IS NOT NULL) WHERE ps IS NOT NULL");
        const auto trace = load(path);
        QVERIFY(trace->errors.empty());
        const auto summary = summarizeNvtxProjection(*trace);
        QVERIFY(summary.instances > 0);
        QCOMPARE(std::int64_t(summary.instances), expected[0][0]);
        QCOMPARE(std::int64_t(summary.totalNs), expected[0][1]);
    }

    void kernelHistogramEqualsSql()
    {
        const auto path = gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY(!path.empty());
        const SqlTestDb db(path);
        // The kernel with the most time, and its sorted durations.
        const std::string name
            = db.text("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
                      "GROUP BY s.value ORDER BY sum(k.\"end\" - k.start) DESC LIMIT 1");
        const auto rows = db.ints("SELECT k.\"end\" - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON "
                                  "s.id = k.shortName WHERE s.value = '"
            + name + "' ORDER BY 1");
        const auto trace = load(path);
        KernelHistogramOptions options;
        options.bins = 12;
        for (const bool log : { false, true }) {
            options.logarithmic = log;
            const auto h = computeKernelHistogram(*trace, trace->strings.find(name), options);
            QCOMPARE(h.count(), rows.size());
            std::uint64_t total = 0;
            for (const auto &b : h.bins) {
                total += b.count();
                // Every launch in a bin lies within its edges.
                for (auto i = b.first; i < b.last; ++i)
                    QVERIFY(double(h.instances[i].duration) >= b.lo && double(h.instances[i].duration) <= b.hi);
            }
            QCOMPARE(total, std::uint64_t(rows.size()));
            const std::size_t n = rows.size();
            const double median
                = n % 2 ? double(rows[n / 2][0]) : (double(rows[n / 2 - 1][0]) + double(rows[n / 2][0])) / 2;
            QCOMPARE(h.medianNs, median);
            QCOMPARE(h.p95Ns, TimeNs(rows[std::size_t(std::ceil(0.95 * double(n))) - 1][0]));
            QCOMPARE(h.maxNs, TimeNs(rows.back()[0]));
            QCOMPARE(h.slowest(1).front().duration, TimeNs(rows.back()[0]));
        }
    }

    void memoryIsNotRecordedWithoutEvents_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("saxpy: the table, no rows") << QStringLiteral("pipit_saxpy_mpi_cuda_rank0.sqlite");
        QTest::newRow("h100: no table") << QStringLiteral("nsysai_h100_2gpu_1s.sqlite");
    }
    void memoryIsNotRecordedWithoutEvents()
    {
        QFETCH(QString, file);
        const auto path = gaplens::test::realFile(file.toUtf8().constData());
        QVERIFY(!path.empty());
        const SqlTestDb db(path);
        if (db.hasTable("CUDA_GPU_MEMORY_USAGE_EVENTS"))
            QCOMPARE(db.integer("SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS"), std::int64_t(0));
        const auto trace = load(path);
        QVERIFY(trace->errors.empty());
        const auto usage = computeGpuMemoryUsage(*trace);
        QVERIFY(!usage.recorded());
        QCOMPARE(usage.gpus.size(), trace->gpus.size());
        for (const auto &gpu : trace->gpus)
            QCOMPARE(gpu.memory.size(), std::size_t(0));
        QCOMPARE(trace->reports[0].problems.badMemoryEvent, std::uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestGpuViewsReal)
#include "tst_gpu_views_real.moc"
