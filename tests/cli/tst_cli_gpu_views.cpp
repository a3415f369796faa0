// SPDX-License-Identifier: MIT
// `nvtx --gpu`, `kernels --hist` and the GPU memory figures of `summary`, end to end on a
// hand-written export: the documented JSON fields with their exact values, CSV and table text.
#include "cli_runner.h"
#include "minimal_export.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::test;

namespace {

// Thread 42 of pid 42:  step [40, 300] > fwd [45, 70]; idle [700, 800] launches nothing.
//   call at 50 (correlation 5) -> gemm [100, 200) on device 0
//   call at 80 (correlation 6) -> gemm [250, 600), ending 300 ns after the step
// Device memory: 100 B allocated at 10, 300 B at 20, the first freed at 40 (peak 400 B).
std::string exportSql(bool withMemory)
{
    std::string sql = exportHeadSql() + R"(
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000'), (3, 'step'), (4, 'fwd'), (5, 'idle');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (shortName INTEGER, deviceId INTEGER, start INTEGER, "end" INTEGER,
        streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 100, 200, 7, 5, 16777216 * 42, 1),
        (1, 0, 250, 600, 7, 6, 16777216 * 42, 1);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, "end" INTEGER, eventClass INTEGER, globalTid INTEGER,
        correlationId INTEGER, nameId INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (50, 60, 0, 16777216 * 42 + 42, 5, 2),
        (80, 90, 0, 16777216 * 42 + 42, 6, 2);
    CREATE TABLE NVTX_EVENTS (start INTEGER, "end" INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER,
        textId INTEGER, domainId INTEGER);
    INSERT INTO NVTX_EVENTS VALUES (40, 300, 59, NULL, 16777216 * 42 + 42, 3, 0),
        (45, 70, 59, NULL, 16777216 * 42 + 42, 4, 0), (700, 800, 59, NULL, 16777216 * 42 + 42, 5, 0);
)";
    if (withMemory)
        sql += memoryUsageTableSql() + R"(
    INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, memKind,
        memoryOperationType) VALUES (10, 16777216 * 42, 0, 1, 4096, 0, 100, 2, 0),
        (20, 16777216 * 42, 0, 1, 8192, 0, 300, 2, 0), (40, 16777216 * 42, 0, 1, 4096, 0, 100, 2, 1);
)";
    return sql;
}

QStringList args(std::initializer_list<const char *> list, const QString &file)
{
    QStringList out;
    for (const char *a : list)
        out << QString::fromLatin1(a);
    return out << file;
}

} // namespace

class TestCliGpuViews : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_file, m_noMemory;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_file = QString::fromStdString(writeExportIn(m_dir, "rank0.sqlite", exportSql(true)));
        m_noMemory = QString::fromStdString(writeExportIn(m_dir, "plain.sqlite", exportSql(false)));
    }

    void nvtxGpuGivesProjectedTime()
    {
        const auto run = runCli(args({ "nvtx", "--gpu", "--format", "json" }, m_file));
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("projection")].toString(), QStringLiteral("gpu"));
        QCOMPARE(doc[QStringLiteral("instances")].toInteger(), 2);
        QCOMPARE(doc[QStringLiteral("total_ns")].toInteger(), 500 + 100);
        const auto ranges = doc[QStringLiteral("ranges")].toArray();
        QCOMPARE(ranges.size(), 2); // idle launched nothing: no row
        const auto step = ranges[0].toObject();
        QCOMPARE(step[QStringLiteral("name")].toString(), QStringLiteral("step"));
        QCOMPARE(step[QStringLiteral("style")].toString(), QStringLiteral("PushPop"));
        QCOMPARE(step[QStringLiteral("range_instances")].toInteger(), 1);
        QCOMPARE(step[QStringLiteral("instances")].toInteger(), 1);
        QCOMPARE(step[QStringLiteral("total_ns")].toInteger(), 500); // 100 .. 600, past the CPU range
        QCOMPARE(step[QStringLiteral("max_ns")].toInteger(), 500);
        QCOMPARE(step[QStringLiteral("pct")].toDouble(), 100.0 * 500 / 600);
        const auto fwd = ranges[1].toObject();
        QCOMPARE(fwd[QStringLiteral("name")].toString(), QStringLiteral("fwd"));
        QCOMPARE(fwd[QStringLiteral("total_ns")].toInteger(), 100); // the nested range's own launch

        const auto table = runCli(args({ "nvtx", "--gpu" }, m_file));
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("projected onto the GPU"));
        // Without --gpu: CPU time, the idle range included.
        const auto cpu = json(runCli(args({ "nvtx", "--format", "json" }, m_file)));
        QCOMPARE(cpu[QStringLiteral("ranges")].toArray().size(), 3);
    }

    void kernelsHistPrintsTheBins()
    {
        const auto run = runCli(args({ "kernels", "--hist", "gemm", "--bins", "2", "--format", "json" }, m_file));
        QCOMPARE(run.exitCode, 0);
        const auto doc = json(run);
        QCOMPARE(doc[QStringLiteral("name")].toString(), QStringLiteral("gemm"));
        QCOMPARE(doc[QStringLiteral("axis")].toString(), QStringLiteral("linear"));
        QCOMPARE(doc[QStringLiteral("instances")].toInteger(), 2);
        QCOMPARE(doc[QStringLiteral("median_ns")].toDouble(), 225.0);
        QCOMPARE(doc[QStringLiteral("p95_ns")].toInteger(), 350);
        const auto bins = doc[QStringLiteral("bins")].toArray();
        QCOMPARE(bins.size(), 2);
        QCOMPARE(bins[0].toObject()[QStringLiteral("lo_ns")].toDouble(), 100.0);
        QCOMPARE(bins[0].toObject()[QStringLiteral("hi_ns")].toDouble(), 225.0);
        QCOMPARE(bins[0].toObject()[QStringLiteral("count")].toInteger(), 1);
        QCOMPARE(bins[1].toObject()[QStringLiteral("count")].toInteger(), 1);
        QCOMPARE(bins[1].toObject()[QStringLiteral("pct")].toDouble(), 50.0);
        const auto slowest = doc[QStringLiteral("slowest")].toArray();
        QCOMPARE(slowest.size(), 2);
        QCOMPARE(slowest[0].toObject()[QStringLiteral("duration_ns")].toInteger(), 350);
        QCOMPARE(slowest[0].toObject()[QStringLiteral("start_ns")].toInteger(), 1'000'000'250);
        QCOMPARE(slowest[0].toObject()[QStringLiteral("stream")].toInteger(), 7);

        const auto csv
            = runCli(args({ "kernels", "--hist", "gemm", "--bins", "2", "--log", "--format", "csv" }, m_file));
        QCOMPARE(csv.exitCode, 0);
        const auto lines = csv.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 3); // header and two bins
        QCOMPARE(lines[0], QByteArray("lo_ns,hi_ns,count,pct"));
        QVERIFY(lines[1].startsWith("100,"));

        const auto table = runCli(args({ "kernels", "--hist", "gemm" }, m_file));
        QVERIFY(table.out.contains("median 225 ns, p95 350 ns"));
        const auto missing = runCli(args({ "kernels", "--hist", "nope" }, m_file));
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("no kernel named 'nope'"));
        QCOMPARE(runCli(args({ "kernels", "--log" }, m_file)).exitCode, 2); // --log needs --hist
    }

    void summaryTellsGpuMemoryOrWhyNot()
    {
        const auto doc = json(runCli(args({ "summary", "--format", "json" }, m_file)));
        QVERIFY(doc[QStringLiteral("gpu_memory_recorded")].toBool());
        const auto gpu
            = doc[QStringLiteral("ranks")].toArray()[0].toObject()[QStringLiteral("devices")].toArray()[0].toObject();
        QCOMPARE(gpu[QStringLiteral("memory_peak_bytes")].toInteger(), 400);
        QCOMPARE(gpu[QStringLiteral("memory_allocations")].toInteger(), 2);
        QCOMPARE(gpu[QStringLiteral("memory_frees")].toInteger(), 1);
        const auto table = runCli(args({ "summary" }, m_file));
        QVERIFY(table.out.contains("peak 400 B"));

        const auto plain = json(runCli(args({ "summary", "--format", "json" }, m_noMemory)));
        QVERIFY(!plain[QStringLiteral("gpu_memory_recorded")].toBool());
        const auto plainGpu
            = plain[QStringLiteral("ranks")].toArray()[0].toObject()[QStringLiteral("devices")].toArray()[0].toObject();
        QVERIFY(plainGpu[QStringLiteral("memory_peak_bytes")].isNull());
        QVERIFY(runCli(args({ "summary" }, m_noMemory)).out.contains("without --cuda-memory-usage"));
    }
};

QTEST_GUILESS_MAIN(TestCliGpuViews)
#include "tst_cli_gpu_views.moc"
