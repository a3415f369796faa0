// SPDX-License-Identifier: MIT
// Synchronisation records and call stacks of the real exports: what the reader keeps equals
// an SQL count, each queued gap's waited_on equals the rule (gap_blame.h, WaitKind) computed
// in SQL over the file, and a launch's stack equals CUDA_CALLCHAINS read in SQL.
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/read/loader.h"
#include "sqltestdb.h"
#include "testsupport.h"

#include <QTest>

#include <fmt/format.h>

using namespace gaplens::core;
using gaplens::test::SqlTestDb;

namespace {

std::shared_ptr<TraceSet> loadOne(const std::string &file)
{
    LoadOptions load;
    load.files = { file };
    auto trace = loadTraceSet(load);
    if (!trace->errors.empty())
        qFatal("%s", trace->errors.front().message.c_str());
    return trace;
}

// The WaitKind the rule gives for a queued gap, in SQL over the export (stored times).
struct SqlWait
{
    std::string kind;
    std::optional<std::int64_t> stream;
};

SqlWait sqlWait(const SqlTestDb &db, const TraceSet &trace, const GapBlame &gap)
{
    const Gpu &gpu = trace.gpus[gap.gpu];
    const TimeNs offset = trace.reports[gpu.report].timeOffsetNs;
    const TimeNs start = gap.gap.start - offset, end = gap.gap.end - offset;
    const auto dev = gpu.deviceId;
    const auto pid = gap.endPid;
    const std::string pidOf = "((globalPid >> 24) & 16777215)";
    std::int64_t stream = 0;
    if (gap.endKind == GapEndKind::Kernel) {
        stream = db.integer(fmt::format("SELECT streamId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = {} AND {} = "
                                        "{} AND correlationId = {} AND start = {}",
            dev, pidOf, pid, gap.endCorrelationId, end));
        // The kernel before it on its stream is looked up only when a wait precedes it at all.
        const auto anyWait = db.integer(fmt::format(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE syncType = 2 AND deviceId = {} AND {} = "
            "{} AND streamId = {} AND correlationId < {}",
            dev, pidOf, pid, stream, gap.endCorrelationId));
        const auto waits = anyWait == 0
            ? 0
            : db.integer(fmt::format(
                "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE syncType = 2 AND deviceId = {0} AND "
                "{1} = "
                "{2} AND streamId = {3} AND correlationId < {4} AND correlationId > coalesce((SELECT correlationId "
                "FROM "
                "CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = {0} AND {1} = {2} AND streamId = {3} AND start < {5} "
                "ORDER BY start DESC, \"end\" ASC LIMIT 1), 0)",
                dev, pidOf, pid, stream, gap.endCorrelationId, end));
        if (gap.endCorrelationId != 0 && waits > 0)
            return { "event_wait", std::nullopt };
    } else {
        stream = gpu.copies.streamId[gap.endEvent];
    }
    const TimeNs from = std::max(start + 1, end - kWaitToleranceNs);
    const auto copy = db.ints(fmt::format(
        "SELECT streamId FROM (SELECT deviceId, \"end\", streamId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL "
        "SELECT deviceId, \"end\", streamId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET) WHERE deviceId = {} AND "
        "\"end\" BETWEEN {} AND {} AND NOT ({} = {} AND streamId = {}) ORDER BY \"end\" DESC LIMIT 1",
        dev, from, end, pidOf, pid, stream));
    if (!copy.empty())
        return { "copy_other_stream", copy.front().front() };
    const auto sync = db.ints(fmt::format(
        "SELECT syncType, streamId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE syncType IN (1, 3, 4) AND deviceId = "
        "{} AND {} = {} AND \"end\" BETWEEN {} AND {} ORDER BY abs(\"end\" - {}) LIMIT 1",
        dev, pidOf, pid, from, end + kWaitToleranceNs, end));
    if (!sync.empty())
        return { "host_sync", sync.front()[0] == 3 ? std::optional(sync.front()[1]) : std::nullopt };
    return { "unknown", std::nullopt };
}

} // namespace

class TestWaitsReal : public QObject
{
    Q_OBJECT

private slots:
    void init() { QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing); }

    void syncCountsEqualSql_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("rows");
        QTest::newRow("h100") << "nsysai_h100_2gpu_1s.sqlite" << qint64(244);
        QTest::newRow("mfu before") << "nsysai_mfu_2gpu_before.sqlite" << qint64(366);
        QTest::newRow("mfu after") << "nsysai_mfu_2gpu_after.sqlite" << qint64(-1);
    }
    void syncCountsEqualSql()
    {
        QFETCH(QString, file);
        QFETCH(qint64, rows);
        const auto path = gaplens::test::realFile(file.toStdString().c_str());
        QVERIFY(!path.empty());
        const SqlTestDb db(path);
        const auto sqlRows = db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
        if (rows >= 0)
            QCOMPARE(sqlRows, rows); // the figure the files are known by
        const auto tracePtr = loadOne(path);
        const TraceSet &trace = *tracePtr;
        std::int64_t loaded = 0;
        for (const auto &gpu : trace.gpus) {
            loaded += std::int64_t(gpu.syncs.size());
            const auto perDevice = db.integer(fmt::format(
                "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE deviceId = {}", gpu.deviceId));
            QCOMPARE(std::int64_t(gpu.syncs.size()), perDevice);
            QVERIFY(std::is_sorted(gpu.syncs.start.begin(), gpu.syncs.start.end()));
            std::int64_t waits = 0;
            for (auto type : gpu.syncs.type)
                waits += type == SyncType::StreamWaitEvent ? 1 : 0;
            QCOMPARE(waits,
                db.integer(fmt::format(
                    "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE deviceId = {} AND syncType = 2",
                    gpu.deviceId)));
        }
        QCOMPARE(loaded, sqlRows);
        QCOMPARE(trace.reports.front().problems.nullSyncColumn, std::uint64_t(0));
    }

    // Every queued gap at a 1 us threshold, kernels only and with copies as busy time.
    void waitedOnEqualsSql_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("withCopies");
        QTest::addColumn<int>("eventWaits");
        QTest::addColumn<int>("hostSyncs");
        QTest::newRow("h100") << "nsysai_h100_2gpu_1s.sqlite" << false << 0 << 0;
        QTest::newRow("h100 copies") << "nsysai_h100_2gpu_1s.sqlite" << true << 0 << 0;
        QTest::newRow("mfu before") << "nsysai_mfu_2gpu_before.sqlite" << false << 32 << 0;
        QTest::newRow("mfu before copies") << "nsysai_mfu_2gpu_before.sqlite" << true << 32 << 0;
        QTest::newRow("mfu after") << "nsysai_mfu_2gpu_after.sqlite" << false << 29 << 3;
        QTest::newRow("mfu after copies") << "nsysai_mfu_2gpu_after.sqlite" << true << 29 << 5;
    }
    void waitedOnEqualsSql()
    {
        QFETCH(QString, file);
        QFETCH(bool, withCopies);
        QFETCH(int, eventWaits);
        QFETCH(int, hostSyncs);
        const auto path = gaplens::test::realFile(file.toStdString().c_str());
        QVERIFY(!path.empty());
        const auto tracePtr = loadOne(path);
        const TraceSet &trace = *tracePtr;
        const SqlTestDb db(path);
        GapBlameOptions options;
        options.minGapNs = 1'000;
        options.includeCopies = withCopies;
        const auto report = blameGaps(trace, options);
        int queued = 0, seenEventWaits = 0, seenHostSyncs = 0;
        for (const auto &gap : report.gaps) {
            if (gap.cause != GapCause::QueuedDependencyWait) {
                QCOMPARE(gap.waitedOn, WaitKind::None);
                QVERIFY(!gap.waitStream);
                continue;
            }
            ++queued;
            const auto expected = sqlWait(db, trace, gap);
            const auto where
                = fmt::format("gap {}..{} on device {}", gap.gap.start, gap.gap.end, trace.gpus[gap.gpu].deviceId);
            QVERIFY2(std::string(waitKindId(gap.waitedOn)) == expected.kind,
                fmt::format("{}: {} instead of {}", where, waitKindId(gap.waitedOn), expected.kind).c_str());
            QVERIFY2(gap.waitStream == expected.stream, where.c_str());
            seenEventWaits += gap.waitedOn == WaitKind::EventWait ? 1 : 0;
            seenHostSyncs += gap.waitedOn == WaitKind::HostSync ? 1 : 0;
        }
        QVERIFY(queued > 1000);
        QCOMPARE(seenEventWaits, eventWaits);
        QCOMPARE(seenHostSyncs, hostSyncs);
    }

    // pipit's 38 backtraces (eventClass 67 rows) each give their call a stack, and one launch's
    // stack is CUDA_CALLCHAINS' frames, outer to inner.
    void backtracesGiveStacks()
    {
        const auto path = gaplens::test::realFile("pipit_saxpy_mpi_cuda_rank0.sqlite");
        QVERIFY(!path.empty());
        const SqlTestDb db(path);
        const auto tracePtr = loadOne(path);
        const TraceSet &trace = *tracePtr;
        const Report &report = trace.reports.front();
        QCOMPARE(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE callchainId IS NOT NULL"),
            std::int64_t(38));
        std::size_t withStack = 0;
        for (const auto &thread : trace.threads)
            withStack += thread.api.callchains.size();
        QCOMPARE(withStack, std::size_t(38));
        QCOMPARE(report.callchains.chainCount(),
            std::size_t(db.integer("SELECT count(DISTINCT id) FROM CUDA_CALLCHAINS")
                + db.integer("SELECT count(DISTINCT id) FROM OSRT_CALLCHAINS")));
        QCOMPARE(report.problems.unknownCallchainId, std::uint64_t(0));
        // The export's callchainIds count from 0, its chains from 1: the chain id + 1 holds the
        // call's own name in every backtrace, the id itself in fewer.
        const char *namesOwnCall = "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds n ON n.id = "
                                   "r.nameId WHERE r.eventClass = 67 AND EXISTS (SELECT 1 FROM CUDA_CALLCHAINS c JOIN "
                                   "StringIds s ON s.id = c.symbol WHERE c.id = r.callchainId + {} AND s.value = "
                                   "n.value)";
        QCOMPARE(db.integer(fmt::format(fmt::runtime(namesOwnCall), 1)), std::int64_t(38));
        QCOMPARE(db.integer(fmt::format(fmt::runtime(namesOwnCall), 0)), std::int64_t(17));
        QCOMPARE(int(report.notes.callchainIdOffset), 1);

        // Every gap's launch (the saxpy kernels' cudaLaunchKernel) has its stack.
        GapBlameOptions options;
        options.minGapNs = 1'000;
        const auto blamed = blameGaps(trace, options);
        QVERIFY(!blamed.gaps.empty());
        for (const auto &gap : blamed.gaps) {
            QVERIFY(gap.launchCallchain != 0);
            const auto expected = db.rows(fmt::format(
                "SELECT m.value, s.value FROM CUDA_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol JOIN StringIds m "
                "ON m.id = c.module WHERE c.id = (SELECT callchainId + 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE "
                "eventClass = 67 AND correlationId = {} AND ((globalTid >> 24) & 16777215) = {}) ORDER BY "
                "c.stackDepth DESC",
                gap.endCorrelationId, gap.endPid));
            const auto stack = report.callchains.stackOf(gap.launchCallchain);
            QCOMPARE(stack.size(), expected.size());
            for (std::size_t i = 0; i < stack.size(); ++i) {
                QCOMPARE(trace.str(stack.module[i]), expected[i][0]);
                QCOMPARE(trace.str(stack.symbol[i]), expected[i][1]);
            }
        }
        // One whole stack spelled out: outer (_start) to inner (libcupti).
        const auto stack = report.callchains.stackOf(blamed.gaps.front().launchCallchain);
        QCOMPARE(stack.size(), std::size_t(10));
        QCOMPARE(trace.str(stack.symbol[0]), std::string("_start"));
        QCOMPARE(trace.str(stack.symbol[1]), std::string("__libc_start_main"));
        QCOMPARE(trace.str(stack.symbol[2]), std::string("main"));
        QCOMPARE(trace.str(stack.symbol[6]), std::string("cudaLaunchKernel"));
        QCOMPARE(int(stack.depth[0]), 9);
        QCOMPARE(int(stack.depth[9]), 0);
    }
};

QTEST_GUILESS_MAIN(TestWaitsReal)
#include "tst_waits_real.moc"
