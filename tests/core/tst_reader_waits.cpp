// SPDX-License-Identifier: MIT
// The reader's synchronisation records and callchains on a small export written in SQL:
// what it keeps, and every NULL counted as a data problem, never a crash.
#include "gaplens/core/read/loader.h"
#include "minimal_export.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::core;

namespace {

// One kernel on device 0 (stream 7, 100..200 ns, correlation 5, pid 42) launched by a call
// with a backtrace row, and the synchronisation and callchain rows each test case needs.
std::string exportSql()
{
    return gaplens::test::exportHeadSql() + R"(
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000'), (10, 'main'), (11, 'app'),
        (12, 'cudaLaunchKernel'), (13, 'libcudart.so');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (shortName INTEGER, deviceId INTEGER, start INTEGER, "end" INTEGER,
        streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 100, 200, 7, 5, 16777216 * 42, 1);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, "end" INTEGER, eventClass INTEGER, globalTid INTEGER,
        correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
        (50, 60, 0, 16777216 * 42 + 42, 5, 2, 0, NULL),
        (50, 60, 67, 16777216 * 42 + 42, 5, 2, 0, 1),
        (70, 80, 0, 16777216 * 42 + 42, 6, 2, 0, NULL),
        (70, 80, 67, 16777216 * 42 + 42, 6, 2, 0, 99);
    CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, "end" INTEGER, deviceId INTEGER,
        contextId INTEGER, greenContextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,
        deprecatedSyncType INTEGER, syncType INTEGER, eventId INTEGER, eventSyncId INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
        (30, 31, 0, 1, NULL, 7, 4, 16777216 * 42, NULL, 2, 9, 3),
        (90, 95, 0, 1, NULL, NULL, 4, 16777216 * 42, NULL, 2, 9, 3),
        (90, 95, 0, 1, NULL, 7, 4, 16777216 * 42, NULL, NULL, 9, 3),
        (90, 95, 0, 1, NULL, 7, 4, 16777216 * 42, NULL, 3, NULL, 3),
        (90, NULL, 0, 1, NULL, 7, 4, 16777216 * 42, NULL, 3, 9, 3),
        (90, 95, 5, 1, NULL, 7, 4, 16777216 * 42, NULL, 4, 0, NULL);
    CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
        unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL);
    INSERT INTO CUDA_CALLCHAINS VALUES (1, 12, 13, NULL, 4096, 0), (1, 10, 11, NULL, 8192, 1);
    CREATE TABLE OSRT_CALLCHAINS (id INTEGER, symbol INTEGER, module INTEGER, kernelMode INTEGER,
        thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER, originalIP INTEGER, unwindMethod INTEGER,
        stackDepth INTEGER);
    INSERT INTO OSRT_CALLCHAINS VALUES (3, 10, 11, 0, 0, 0, 0, 1, 1, 0), (3, NULL, 11, 0, 0, 0, 0, 1, 1, 1),
        (4, 10, 11, 0, 0, 0, 0, 1, 1, NULL);
)";
}

} // namespace

class TestReaderWaits : public QObject
{
    Q_OBJECT

private slots:
    void syncsAndCallchainsAreReadAndNullsCounted_data()
    {
        QTest::addColumn<bool>("direct");
        QTest::newRow("direct scan") << true;
        QTest::newRow("through SQLite") << false;
    }
    void syncsAndCallchainsAreReadAndNullsCounted()
    {
        QFETCH(bool, direct);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        LoadOptions options;
        options.files = { gaplens::test::writeExportIn(dir, "waits.sqlite", exportSql()) };
        options.directTableScan = direct;
        const auto trace = loadTraceSet(options);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->gpus.size(), std::size_t(1)); // device 5 has nothing but a sync: no GPU
        const auto &syncs = trace->gpus[0].syncs;
        QCOMPARE(syncs.size(), std::size_t(1));
        QCOMPARE(syncs.type[0], SyncType::StreamWaitEvent);
        QCOMPARE(syncs.streamId[0], std::int64_t(7));
        QCOMPARE(syncs.correlationId[0], 4u);
        QCOMPARE(syncs.eventId[0], 9u);
        QCOMPARE(syncs.pid[0], 42u);
        QCOMPARE(syncs.start[0], TimeNs(1'000'000'030)); // session start 1 s
        QCOMPARE(syncs.end[0], TimeNs(1'000'000'031));

        const Report &report = trace->reports[0];
        QCOMPARE(report.problems.nullSyncColumn, std::uint64_t(3));
        QCOMPARE(report.problems.nullEnd, std::uint64_t(1));
        QCOMPARE(report.problems.nullCallchainColumn, std::uint64_t(2));
        QCOMPARE(report.problems.unknownCallchainId, std::uint64_t(1)); // callchainId 99
        QCOMPARE(report.notes.callchainIdOffset, std::uint64_t(0));
        QCOMPARE(report.notes.backtraceDuplicates, std::uint64_t(2));

        QCOMPARE(report.callchains.chainCount(), std::size_t(2)); // CUDA chain 1, OSRT chain 3
        QCOMPARE(trace->threads.size(), std::size_t(1));
        const auto &api = trace->threads[0].api;
        QCOMPARE(api.size(), std::size_t(2));
        QCOMPARE(api.callchains.size(), std::size_t(1));
        const auto chain = api.callchainOf(5);
        QCOMPARE(chain, report.callchains.find(CallchainSource::Cuda, 1));
        QCOMPARE(api.callchainOf(6), 0u);
        const auto stack = report.callchains.stackOf(chain);
        QCOMPARE(stack.size(), std::size_t(2));
        QCOMPARE(trace->str(stack.symbol[0]), std::string("main"));
        QCOMPARE(trace->str(stack.module[0]), std::string("app"));
        QCOMPARE(trace->str(stack.symbol[1]), std::string("cudaLaunchKernel"));
        QCOMPARE(trace->str(stack.module[1]), std::string("libcudart.so"));
        const auto osrt = report.callchains.stackOf(report.callchains.find(CallchainSource::Osrt, 3));
        QCOMPARE(osrt.size(), std::size_t(1)); // its frame with a NULL symbol skipped
        QCOMPARE(report.callchains.find(CallchainSource::Osrt, 4), 0u);
    }
};

QTEST_GUILESS_MAIN(TestReaderWaits)
#include "tst_reader_waits.moc"
