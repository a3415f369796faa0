// SPDX-License-Identifier: MIT
// GPU memory over time: CUDA_GPU_MEMORY_USAGE_EVENTS with the 3.x columns read from a small
// export written in SQL (bad values counted, a missing or empty table is no memory), and the
// per-GPU counter built from it: peak, allocation and free counts, values over time.
#include "gaplens/core/analysis/gpu_memory.h"
#include "gaplens/core/read/loader.h"
#include "minimal_export.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::core;

namespace {

constexpr TimeNs kSessionStart = 1'000'000'000;

// Device 0 of pid 42 (the minimal export's GPU): device memory A (100 B) and B (300 B), pinned
// host memory (left out), A freed, a free of memory allocated before the capture, C (50 B),
// B freed; then four bad rows and one of device 5, which has no GPU.
std::string memoryRowsSql()
{
    return R"(
    INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, memKind,
        memoryOperationType, correlationId, streamId) VALUES
        (10, 16777216 * 42, 0, 1, 4096, 0, 100, 2, 0, 11, 7),
        (20, 16777216 * 42, 0, 1, 8192, 0, 300, 2, 0, 12, 7),
        (30, 16777216 * 42, 0, 1, 36864, 0, 1000, 1, 0, 13, NULL),
        (40, 16777216 * 42, 0, 1, 4096, 0, 100, 2, 1, 14, 7),
        (50, 16777216 * 42, 0, 1, 20480, 0, 64, 2, 1, 15, 7),
        (60, 16777216 * 42, 0, 1, 12288, 0, 50, 2, 0, 16, 7),
        (70, 16777216 * 42, 0, 1, 8192, 0, 300, 2, 1, 17, 7),
        (80, 16777216 * 42, 0, 1, 4096, 0, -5, 2, 0, 18, 7),
        (80, 16777216 * 42, 0, 1, 4096, 0, 5, 2, 7, 18, 7),
        (80, 16777216 * 42, 'x', 1, 4096, 0, 5, 2, 0, 18, 7),
        (80, 16777216 * 42, 0, 1, 4096.5, 0, 5, 2, 0, 18, 7),
        (90, 16777216 * 42, 5, 1, 4096, 0, 5, 2, 0, 19, 7);
)";
}

std::shared_ptr<const TraceSet> load(const QTemporaryDir &dir, const std::string &sql, bool direct)
{
    LoadOptions options;
    options.files = { gaplens::test::writeExportIn(dir, "memory.sqlite", sql) };
    options.directTableScan = direct;
    return loadTraceSet(options);
}

} // namespace

class TestGpuMemory : public QObject
{
    Q_OBJECT

private slots:
    void counterFollowsAllocationsAndFrees_data()
    {
        QTest::addColumn<bool>("direct");
        QTest::newRow("direct scan") << true;
        QTest::newRow("through SQLite") << false;
    }
    void counterFollowsAllocationsAndFrees()
    {
        QFETCH(bool, direct);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto trace = load(
            dir, gaplens::test::minimalExportSql() + gaplens::test::memoryUsageTableSql() + memoryRowsSql(), direct);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->gpus.size(), std::size_t(1));
        const auto &events = trace->gpus[0].memory;
        QCOMPARE(events.size(), std::size_t(7));
        QCOMPARE(events.time[0], kSessionStart + 10);
        QCOMPARE(events.bytes[1], std::uint64_t(300));
        QCOMPARE(events.address[1], std::uint64_t(8192));
        QCOMPARE(events.pid[1], 42u);
        QCOMPARE(events.memKind[2], std::uint8_t(1));
        QCOMPARE(events.operation[3], MemoryOperation::Free);
        QCOMPARE(trace->reports[0].problems.badMemoryEvent, std::uint64_t(4));

        const auto usage = computeGpuMemoryUsage(*trace);
        QVERIFY(usage.recorded());
        const auto &c = usage.gpus[0];
        QCOMPARE(c.allocations, std::uint64_t(3)); // A, B, C (the pinned host memory is not the GPU's)
        QCOMPARE(c.frees, std::uint64_t(3));
        QCOMPARE(c.unmatchedFrees, std::uint64_t(1));
        QCOMPARE(c.peakBytes, std::uint64_t(400));
        QCOMPARE(c.peakTime, kSessionStart + 20);
        const std::vector<std::uint64_t> inUse { 100, 400, 300, 350, 50 };
        QCOMPARE(c.inUse, inUse);
        QCOMPARE(c.time.back(), kSessionStart + 70);
        QCOMPARE(c.inUseAt(kSessionStart + 5), std::uint64_t(0));
        QCOMPARE(c.inUseAt(kSessionStart + 45), std::uint64_t(300));
        QCOMPARE(c.maxIn(kSessionStart + 15, kSessionStart + 45), std::uint64_t(400));
        QCOMPARE(c.maxIn(kSessionStart + 41, kSessionStart + 60), std::uint64_t(300)); // 60 not in [41, 60)
        QCOMPARE(c.maxIn(kSessionStart + 41, kSessionStart + 61), std::uint64_t(350));
        QCOMPARE(c.maxIn(kSessionStart + 100, kSessionStart + 200), std::uint64_t(50));
    }

    void absentOrEmptyTableIsNoMemory()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto absent = load(dir, gaplens::test::minimalExportSql(), true);
        QCOMPARE(absent->gpus.size(), std::size_t(1));
        QCOMPARE(absent->gpus[0].memory.size(), std::size_t(0));
        QVERIFY(!computeGpuMemoryUsage(*absent).recorded());
        QTemporaryDir dir2;
        const auto empty = load(dir2, gaplens::test::minimalExportSql() + gaplens::test::memoryUsageTableSql(), true);
        QVERIFY(empty->errors.empty());
        const auto usage = computeGpuMemoryUsage(*empty);
        QVERIFY(!usage.recorded());
        QCOMPARE(usage.gpus.size(), std::size_t(1));
        QCOMPARE(usage.gpus[0].peakBytes, std::uint64_t(0));
        QCOMPARE(usage.gpus[0].maxIn(0, 1'000'000'000'000), std::uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestGpuMemory)
#include "tst_gpu_memory.moc"
