// SPDX-License-Identifier: MIT
// TraceSet::findLaunch finds the API call that launched GPU work by (report, pid,
// correlationId) without a per-call index: a binary search in each thread's correlation ids
// when they ascend (every real export), a small fallback index for threads where they do not.
#include "gaplens/core/analysis/gap_blame.h"
#include "testsupport.h"
#include "trace_fixture.h"

#include <QTest>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;

namespace {

constexpr TimeNs T0 = 1'000'000;

// The call index `launch` points at, or -1 when there is none.
int callOf(const std::optional<LaunchRef> &launch, std::uint32_t thread)
{
    if (!launch)
        return -1;
    return launch->thread == thread ? int(launch->call) : -2;
}

struct OneThread
{
    std::unique_ptr<TraceSet> trace;
    std::uint32_t thread;
};

// One rank whose main thread makes the calls (name, correlation id), 10 ns each, one every 20 ns
// from T0.
OneThread callsOnOneThread(std::initializer_list<std::pair<const char *, std::uint32_t>> calls)
{
    FixtureBuilder b;
    const auto thread = b.addThread(b.addRank(0));
    TimeNs start = T0;
    for (const auto &[name, correlationId] : calls) {
        b.api(thread, start, start + 10, name, correlationId);
        start += 20;
    }
    return { b.finish(), thread };
}

// findLaunch in report 0 and process `pid` gives, for each correlation id, that call of
// `thread` (callOf: -1 for none).
void expectCalls(const TraceSet &trace, std::uint32_t pid, std::uint32_t thread,
    std::initializer_list<std::pair<std::uint32_t, int>> expected)
{
    for (const auto &[correlationId, call] : expected) {
        const auto found = callOf(trace.findLaunch(0, pid, correlationId), thread);
        const auto message = QStringLiteral("correlation id %1: call %2, expected %3").arg(correlationId);
        QVERIFY2(found == call, qPrintable(message.arg(found).arg(call)));
    }
}

} // namespace

class TestLaunchLookup : public QObject
{
    Q_OBJECT

private slots:
    void ascendingIdsAreSearchedInTheThreadsOwnColumn()
    {
        const auto [trace, main]
            = callsOnOneThread({ { "cudaLaunchKernel", 3 }, { "cudaLaunchKernel", 5 }, { "cudaLaunchKernel", 9 } });
        QVERIFY(trace->threads[main].api.correlationAscending);
        QVERIFY(trace->unorderedLaunches.empty());
        const auto pid = trace->threads[main].pid;
        CHECK(expectCalls(*trace, pid, main, { { 3, 0 }, { 5, 1 }, { 9, 2 }, { 4, -1 }, { 0, -1 } }));
        QCOMPARE(callOf(trace->findLaunch(0, pid + 1, 5), main), -1); // another process
        QCOMPARE(callOf(trace->findLaunch(1, pid, 5), main), -1); // another report
    }

    void unorderedIdsAndCallsWithoutAnIdUseTheFallbackIndex()
    {
        const auto [trace, main] = callsOnOneThread({ { "cudaLaunchKernel", 9 }, { "cudaLaunchKernel", 3 },
            { "cudaStreamSynchronize", 0 }, { "cudaLaunchKernel", 5 } });
        QVERIFY(!trace->threads[main].api.correlationAscending);
        QCOMPARE(trace->unorderedLaunches.size(), std::size_t(3)); // the call without an id is not a launch
        const auto pid = trace->threads[main].pid;
        expectCalls(*trace, pid, main, { { 9, 0 }, { 3, 1 }, { 5, 3 }, { 0, -1 }, { 4, -1 } });
    }

    void everyThreadOfTheProcessIsSearched()
    {
        FixtureBuilder b;
        const auto rank = b.addRank(0);
        const auto main = b.addThread(rank);
        const auto worker = b.addThread(rank, 77);
        const auto other = b.addRank(1); // another process: its ids repeat
        const auto otherMain = b.addThread(other);
        b.api(main, T0 + 0, T0 + 10, "cudaLaunchKernel", 1);
        b.api(worker, T0 + 5, T0 + 15, "cudaLaunchKernel", 2);
        b.api(worker, T0 + 25, T0 + 35, "cudaLaunchKernel", 4);
        b.api(otherMain, T0 + 5, T0 + 15, "cudaLaunchKernel", 4);
        const auto trace = b.finish();
        const auto pid = trace->threads[main].pid;
        QCOMPARE(trace->threadsOfProcess(0, pid).size(), std::size_t(2));
        QCOMPARE(callOf(trace->findLaunch(0, pid, 1), main), 0);
        QCOMPARE(callOf(trace->findLaunch(0, pid, 4), worker), 1);
        const auto otherPid = trace->threads[otherMain].pid;
        QCOMPARE(callOf(trace->findLaunch(trace->threads[otherMain].report, otherPid, 4), otherMain), 0);
    }

    // Gap blame's cursor walks the correlation ids of ascending threads; with an unordered
    // thread it must still give the plain answer.
    void blameWithACursorFindsLaunchesInUnorderedThreads()
    {
        auto [b, rank, gpu, main] = gaplens::test::oneRankFixture();
        b.kernel(gpu, 1, T0 + 0, T0 + 1000, "A", 7);
        b.kernel(gpu, 1, T0 + 2000, T0 + 2100, "B", 2);
        b.kernel(gpu, 1, T0 + 4000, T0 + 4100, "C", 8);
        b.api(main, T0 - 100, T0 - 50, "cudaLaunchKernel", 7);
        b.api(main, T0 + 1200, T0 + 1900, "cudaLaunchKernel", 2); // in flight during the first gap
        b.api(main, T0 + 2500, T0 + 3900, "cudaLaunchKernel", 8);
        const auto trace = b.finish();
        QVERIFY(!trace->threads[main].api.correlationAscending);
        const GapBlamer blamer(*trace);
        GapBlamer::SearchCursor cursor;
        for (const auto gap : { TimeRange { T0 + 1000, T0 + 2000 }, TimeRange { T0 + 2100, T0 + 4000 } }) {
            const auto plain = blamer.blame(0, gap);
            const auto walked = blamer.blame(0, gap, false, cursor);
            QCOMPARE(walked.launchThread, main);
            QCOMPARE(walked.launchCall, plain.launchCall);
            QCOMPARE(walked.cause, plain.cause);
            QCOMPARE(walked.apiCall, plain.apiCall);
        }
        QCOMPARE(blamer.blame(0, { T0 + 1000, T0 + 2000 }).launchCall, std::uint32_t(1));
        QCOMPARE(blamer.blame(0, { T0 + 2100, T0 + 4000 }).launchCall, std::uint32_t(2));
    }
};

QTEST_APPLESS_MAIN(TestLaunchLookup)
#include "tst_launch_lookup.moc"
