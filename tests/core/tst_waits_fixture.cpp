// SPDX-License-Identifier: MIT
// waited_on of queued gaps and the late launch's stack, on hand-built traces: one fixture per
// WaitKind rule (gap_blame.h), and a stack given outer to inner.
#include "gaplens/core/analysis/gap_blame.h"
#include "trace_fixture.h"

#include <QTest>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;
using gaplens::test::GpuRef;

namespace {

// Rank 0 on device 0, one thread: kernel A on stream 7 (100..200 ns, launched 10..20, corr 1)
// and kernel B on stream 7 (300..400 ns, launched 40..50, corr 3): a queued gap 200..300.
// Other times of B's launch or start move the gap's end or make it not queued.
struct QueuedGap
{
    FixtureBuilder b;
    std::uint32_t rank = b.addRank(0);
    GpuRef gpu = b.addGpu(rank, 0);
    std::uint32_t thread = b.addThread(rank);
    explicit QueuedGap(TimeNs launchB = 40, TimeNs startB = 300)
    {
        b.api(thread, 10, 20, "cudaLaunchKernel", 1);
        b.kernel(gpu, 7, 100, 200, "a", 1);
        b.api(thread, launchB, launchB + 10, "cudaLaunchKernel", 3);
        b.kernel(gpu, 7, startB, startB + 100, "b", 3);
    }
    // The gaps of 50 ns or more, blamed.
    GapBlameReport blame()
    {
        trace = b.finish();
        return blameGaps(*trace, { .minGapNs = 50 });
    }
    GapBlame blameTheGap()
    {
        const auto report = blame();
        if (report.gaps.size() != 1)
            qFatal("the fixture has %zu gaps", report.gaps.size());
        return report.gaps.front();
    }
    std::unique_ptr<TraceSet> trace;
};

} // namespace

class TestWaitsFixture : public QObject
{
    Q_OBJECT

private slots:
    void nothingRecordedIsUnknown()
    {
        QueuedGap f;
        const auto gap = f.blameTheGap();
        QCOMPARE(gap.cause, GapCause::QueuedDependencyWait);
        QCOMPARE(gap.waitedOn, WaitKind::Unknown);
        QCOMPARE(waitKindId(gap.waitedOn), std::string_view("unknown"));
        QVERIFY(!gap.waitStream);
        QCOMPARE(gap.waitRecord, kNoIndex);
    }

    void streamWaitEventBetweenTheLaunchesIsAnEventWait()
    {
        QueuedGap f;
        f.b.sync(f.gpu, SyncType::StreamWaitEvent, 7, 30, 31, 2, 77);
        const auto gap = f.blameTheGap();
        QCOMPARE(gap.waitedOn, WaitKind::EventWait);
        QCOMPARE(waitKindId(gap.waitedOn), std::string_view("event_wait"));
        QVERIFY(!gap.waitStream); // the export names the event, not the stream that recorded it
        QCOMPARE(gap.waitRecord, 0u);
        QCOMPARE(f.trace->gpus[0].syncs.eventId[gap.waitRecord], 77u);
    }

    void streamWaitEventBeforeThePreviousKernelOrOnAnotherStreamIsNot_data()
    {
        QTest::addColumn<std::int64_t>("stream");
        QTest::addColumn<std::uint32_t>("correlationId");
        QTest::newRow("before kernel a") << std::int64_t(7) << 0u;
        QTest::newRow("another stream") << std::int64_t(9) << 2u;
        QTest::newRow("after kernel b") << std::int64_t(7) << 4u;
    }
    void streamWaitEventBeforeThePreviousKernelOrOnAnotherStreamIsNot()
    {
        QFETCH(std::int64_t, stream);
        QFETCH(std::uint32_t, correlationId);
        QueuedGap f;
        f.b.sync(f.gpu, SyncType::StreamWaitEvent, stream, 5, 6, correlationId);
        QCOMPARE(f.blameTheGap().waitedOn, WaitKind::Unknown);
    }

    // 49 ns of copy in a 100 ns gap: under half, so the gap stays queued.
    void copyOfAnotherStreamEndingAtTheGapEnd()
    {
        QueuedGap f;
        f.b.copy(f.gpu, 9, 250, 299);
        const auto gap = f.blameTheGap();
        QCOMPARE(gap.cause, GapCause::QueuedDependencyWait);
        QCOMPARE(gap.waitedOn, WaitKind::CopyOtherStream);
        QCOMPARE(waitKindId(gap.waitedOn), std::string_view("copy_other_stream"));
        QCOMPARE(gap.waitStream, std::optional<std::int64_t>(9));
        QCOMPARE(gap.waitRecord, 0u);
    }

    void copyOfItsOwnStreamIsNotAnotherStream()
    {
        QueuedGap f;
        f.b.copy(f.gpu, 7, 250, 299);
        QCOMPARE(f.blameTheGap().waitedOn, WaitKind::Unknown);
    }

    void copyEndingBeyondTheToleranceIsNot()
    {
        QueuedGap f(40, 10'000);
        f.b.copy(f.gpu, 9, 7'000, 7'999); // ends 2001 ns before the gap's end
        f.b.copy(f.gpu, 9, 8'001, 8'002); // ends 1998 ns before it: within the tolerance
        const auto report = f.blame();
        QCOMPARE(report.gaps.size(), std::size_t(1));
        QCOMPARE(report.gaps[0].waitedOn, WaitKind::CopyOtherStream);
        QCOMPARE(f.trace->gpus[0].copies.end[report.gaps[0].waitRecord], TimeNs(8'002));
    }

    void synchronizeReturningAtTheGapEndIsAHostSync_data()
    {
        QTest::addColumn<SyncType>("type");
        QTest::addColumn<TimeNs>("end");
        QTest::addColumn<bool>("named");
        QTest::newRow("stream sync after") << SyncType::StreamSynchronize << TimeNs(2'300) << true;
        QTest::newRow("context sync") << SyncType::ContextSynchronize << TimeNs(299) << false;
        QTest::newRow("event sync") << SyncType::EventSynchronize << TimeNs(300) << false;
    }
    void synchronizeReturningAtTheGapEndIsAHostSync()
    {
        QFETCH(SyncType, type);
        QFETCH(TimeNs, end);
        QFETCH(bool, named);
        QueuedGap f;
        f.b.sync(f.gpu, type, 9, 60, end, 8);
        const auto gap = f.blameTheGap();
        QCOMPARE(gap.waitedOn, WaitKind::HostSync);
        QCOMPARE(waitKindId(gap.waitedOn), std::string_view("host_sync"));
        QCOMPARE(gap.waitStream, named ? std::optional<std::int64_t>(9) : std::nullopt);
    }

    void synchronizeReturningLaterIsNot()
    {
        QueuedGap f;
        f.b.sync(f.gpu, SyncType::StreamSynchronize, 9, 60, 2'301, 8);
        QCOMPARE(f.blameTheGap().waitedOn, WaitKind::Unknown);
    }

    // The rules' order: an event wait wins over a copy, a copy over a synchronize.
    void firstRuleThatHoldsWins()
    {
        QueuedGap f;
        f.b.sync(f.gpu, SyncType::StreamWaitEvent, 7, 30, 31, 2);
        f.b.copy(f.gpu, 9, 250, 299);
        f.b.sync(f.gpu, SyncType::ContextSynchronize, 0, 60, 300, 8);
        QCOMPARE(f.blameTheGap().waitedOn, WaitKind::EventWait);
        QueuedGap g;
        g.b.copy(g.gpu, 9, 250, 299);
        g.b.sync(g.gpu, SyncType::ContextSynchronize, 0, 60, 300, 8);
        QCOMPARE(g.blameTheGap().waitedOn, WaitKind::CopyOtherStream);
    }

    void onlyQueuedGapsHaveAWait()
    {
        QueuedGap f(250); // B launched inside the gap
        f.b.copy(f.gpu, 9, 250, 299);
        const auto report = f.blame();
        QCOMPARE(report.gaps.size(), std::size_t(1));
        QVERIFY(report.gaps[0].cause != GapCause::QueuedDependencyWait);
        QCOMPARE(report.gaps[0].waitedOn, WaitKind::None);
        QCOMPARE(waitKindId(report.gaps[0].waitedOn), std::string_view(""));
        QVERIFY(!report.gaps[0].waitStream);
    }

    void theLaunchsStackOuterToInner()
    {
        QueuedGap f;
        const auto chain = f.b.backtrace(f.thread, 3,
            { { "app", "_start" }, { "libc.so.6", "__libc_start_main" }, { "app", "main" },
                { "libcudart.so.12", "cudaLaunchKernel" }, { "libcupti.so", "0x7f00" } });
        f.b.backtrace(f.thread, 1, { { "app", "main" } }); // kernel a's launch, not the gap's
        const auto gap = f.blameTheGap();
        QCOMPARE(gap.launchCallchain, chain);
        const auto stack = f.trace->reports[0].callchains.stackOf(gap.launchCallchain);
        QCOMPARE(stack.size(), std::size_t(5));
        const char *symbols[] = { "_start", "__libc_start_main", "main", "cudaLaunchKernel", "0x7f00" };
        const char *modules[] = { "app", "libc.so.6", "app", "libcudart.so.12", "libcupti.so" };
        for (std::size_t i = 0; i < 5; ++i) {
            QCOMPARE(f.trace->str(stack.symbol[i]), std::string(symbols[i]));
            QCOMPARE(f.trace->str(stack.module[i]), std::string(modules[i]));
            QCOMPARE(int(stack.depth[i]), int(4 - i));
        }
        QCOMPARE(f.trace->reports[0].callchains.find(CallchainSource::Cuda, 1), chain);
        QCOMPARE(f.trace->reports[0].callchains.find(CallchainSource::Osrt, 1), 0u);
        QVERIFY(f.trace->reports[0].callchains.stackOf(0).empty());
    }

    void aLaunchWithoutABacktraceHasNoStack()
    {
        QueuedGap f;
        QCOMPARE(f.blameTheGap().launchCallchain, 0u);
    }

    // Frames added in any order come out outer (highest stackDepth) to inner.
    void callchainsSortFramesByDepth()
    {
        StringPool strings;
        Callchains store;
        const StringId module[] = { strings.intern("m0"), strings.intern("m2"), strings.intern("m1") };
        const StringId symbol[] = { strings.intern("inner"), strings.intern("outer"), strings.intern("middle") };
        const std::uint16_t depth[] = { 0, 2, 1 };
        const auto osrt = store.add(CallchainSource::Osrt, 40, module, symbol, depth);
        QCOMPARE(osrt, 1u);
        QCOMPARE(store.find(CallchainSource::Osrt, 40), 1u);
        QCOMPARE(store.find(CallchainSource::Cuda, 40), 0u);
        const auto stack = store.stackOf(osrt);
        QCOMPARE(strings.get(stack.symbol[0]), std::string("outer"));
        QCOMPARE(strings.get(stack.symbol[1]), std::string("middle"));
        QCOMPARE(strings.get(stack.symbol[2]), std::string("inner"));
        QCOMPARE(strings.get(stack.module[0]), std::string("m2"));
        QCOMPARE(store.sourceOf(osrt), CallchainSource::Osrt);
        QCOMPARE(store.frameCount(), std::size_t(3));
    }
};

QTEST_GUILESS_MAIN(TestWaitsFixture)
#include "tst_waits_fixture.moc"
