// SPDX-License-Identifier: MIT
// Run accounting (docs/run-accounting.md): the partition of a window into states, work,
// active and sustained rates, step time inside and outside each state, checkpoint health,
// on hand-built captures with exact answers, and on the real NVTX exports against an
// independent union of the step range's rows.
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/util/splitmix.h"
#include "gaplens/core/write/synth.h"

#include "run_fixture.h"
#include "sqltestdb.h"
#include "testsupport.h"
#include "trace_counts.h"
#include "trace_fixture.h"

#include <QTemporaryDir>
#include <QTest>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;
using gaplens::test::T0;
using gaplens::test::twentyMinutes;

namespace {

constexpr TimeNs kSecond = 1'000'000'000;
constexpr TimeNs kMs = 1'000'000;

std::size_t ix(RunState s)
{
    return std::size_t(s);
}

double round2(double v)
{
    return std::round(v * 100.0) / 100.0;
}

TimeNs sum(const std::array<TimeNs, kRunStateCount> &parts)
{
    TimeNs total = 0;
    for (const auto p : parts)
        total += p;
    return total;
}

RunAccountingOptions withRange(std::string name)
{
    RunAccountingOptions o;
    o.stepRange = std::move(name);
    return o;
}

RunWindowSpec explicitWindow(TimeNs start, TimeNs end)
{
    RunWindowSpec w;
    w.rule = RunWindowRule::Explicit;
    w.startNs = start;
    w.endNs = end;
    return w;
}

// Main thread: steps [0,100) and [300,400), a checkpoint [50,150) overlapping the first (a
// start/end range), validation [120,200) with a data wait [130,140) nested in it, a barrier
// [210,260); another thread: a data loader [250,320) running into the second step.
std::unique_ptr<TraceSet> edgeCases()
{
    FixtureBuilder b;
    const auto r = b.addRank(0);
    const auto main = b.addThread(r);
    const auto loader = b.addThread(r, 77);
    b.nvtx(main, T0 + 0, T0 + 100, "step");
    b.nvtx(main, T0 + 300, T0 + 400, "step");
    b.nvtx(main, T0 + 50, T0 + 150, "ckpt", NvtxKind::StartEnd);
    b.nvtx(main, T0 + 120, T0 + 200, "run_eval");
    b.nvtx(main, T0 + 130, T0 + 140, "data_wait");
    b.nvtx(main, T0 + 210, T0 + 260, "barrier");
    b.nvtx(loader, T0 + 250, T0 + 320, "DataLoader.next");
    auto trace = b.finish();
    trace->reports[0].sessionStartNs = T0;
    return trace;
}

} // namespace

class TestRunAccounting : public QObject
{
    Q_OBJECT

private slots:
    void twentyMinuteWindowGivesBothRates_data()
    {
        QTest::addColumn<bool>("payload");
        QTest::addColumn<bool>("explicitWindow");
        QTest::newRow("payload, state span") << true << false;
        QTest::newRow("work per step, state span") << false << false;
        QTest::newRow("payload, --window 0s:1200s") << true << true;
    }
    void twentyMinuteWindowGivesBothRates()
    {
        QFETCH(bool, payload);
        QFETCH(bool, explicitWindow);
        const auto trace = twentyMinutes(payload);
        RunAccountingOptions options; // the step range as pace proposes it
        if (!payload)
            options.workPerStep = 100'000.0;
        if (explicitWindow)
            options.window = ::explicitWindow(0, 1200 * kSecond);
        const auto a = computeRunAccounting(*trace, options);
        QCOMPARE(a.error, std::string());
        QCOMPARE(a.stepRange, std::string("train_step"));
        QCOMPARE(a.workSource, payload ? WorkSource::Payload : WorkSource::PerStep);
        QCOMPARE(a.workUnit, std::string("tokens"));
        QCOMPARE(a.windowRule, explicitWindow ? RunWindowRule::Explicit : RunWindowRule::StateSpan);
        QCOMPARE(a.ranks.size(), std::size_t(1));
        const auto &r = a.ranks[0];
        QCOMPARE(r.window, (TimeRange { T0, T0 + 1200 * kSecond }));
        QCOMPARE(r.windowNs(), 1200 * kSecond);
        QCOMPARE(r.activeNs(), 900 * kSecond);
        QCOMPARE(r.partitionNs[ix(RunState::Checkpoint)], 90 * kSecond);
        QCOMPARE(r.partitionNs[ix(RunState::Validation)], 210 * kSecond);
        QCOMPARE(r.partitionNs[ix(RunState::DataWait)], TimeNs(0));
        QCOMPARE(r.partitionNs[ix(RunState::Barrier)], TimeNs(0));
        QCOMPARE(r.partitionNs[ix(RunState::Unexplained)], TimeNs(0));
        QCOMPARE(r.steps, std::uint64_t(96));
        QCOMPARE(r.work, 9'600'000.0);
        QVERIFY(r.activeRate && r.sustainedRate && r.sustainedOverActive);
        QCOMPARE(round2(*r.activeRate), 10'666.67);
        QCOMPARE(*r.sustainedRate, 8'000.0);
        QCOMPARE(*r.sustainedOverActive, 0.75);
        // Blocking phases overlap no step: every step is outside every state.
        QCOMPARE(r.stepTimeByState.size(), std::size_t(4));
        for (const auto &row : r.stepTimeByState) {
            QCOMPARE(row.inside.count, std::uint64_t(0));
            QCOMPARE(row.outside.count, std::uint64_t(96));
            QCOMPARE(row.outside.medianNs, 9'375'000'000.0);
            QVERIFY(!row.significant);
        }
        // Checkpoints start at 300 s and 1,155 s.
        QVERIFY(r.checkpoint);
        QCOMPARE(r.checkpoint->count, std::uint64_t(2));
        QCOMPARE(r.checkpoint->stagingCount, std::uint64_t(0));
        QCOMPARE(r.checkpoint->commitP95Ns, 45 * kSecond);
        QCOMPARE(r.checkpoint->cadenceNs, std::optional<double>(855.0 * 1e9));
        QCOMPARE(r.checkpoint->medianDurationNs, 45.0 * 1e9);
        QCOMPARE(r.checkpoint->p95DurationNs, 45 * kSecond);
        QCOMPARE(*r.checkpoint->p95OverCadence, 45.0 / 855.0);
        QCOMPARE(r.checkpoint->backlogMax, std::uint32_t(0));
        QVERIFY(!r.checkpoint->backlogGrowing);
        QCOMPARE(a.overall.work, 9'600'000.0);
        QCOMPARE(*a.overall.sustainedRate, 8'000.0);
    }

    // Without a payload or --work-per-step, work is the step count.
    void withoutPayloadOrWorkPerStepWorkCountsSteps()
    {
        const auto trace = twentyMinutes(false);
        const auto a = computeRunAccounting(*trace, {});
        QCOMPARE(a.workSource, WorkSource::StepCount);
        QCOMPARE(a.workUnit, std::string("steps"));
        QCOMPARE(a.ranks[0].work, 96.0);
        QCOMPARE(*a.ranks[0].sustainedRate, 96.0 / 1200.0);
    }

    // Overall sums the work and takes the slowest rank's window: rank 1 runs the same 96 steps
    // without checkpoints or validation (900 s).
    void overallSumsWorkOverTheSlowestRanksWindow()
    {
        FixtureBuilder b;
        const auto r0 = b.addRank(0);
        const auto r1 = b.addRank(1);
        const auto t0 = b.addThread(r0);
        const auto t1 = b.addThread(r1);
        constexpr TimeNs kStep = 9'375'000'000;
        TimeNs at = T0;
        for (int i = 0; i < 96; ++i, at += kStep) {
            b.nvtxWithPayload(t0, at, at + kStep, "train_step", 100'000.0);
            b.nvtxWithPayload(t1, at, at + kStep, "train_step", 100'000.0);
        }
        b.nvtx(t0, at, at + 300 * kSecond, "evaluate");
        const auto trace = b.finish();
        const auto a = computeRunAccounting(*trace, withRange("train_step"));
        QCOMPARE(a.ranks.size(), std::size_t(2));
        QCOMPARE(a.ranks[1].windowNs(), 900 * kSecond);
        QCOMPARE(*a.ranks[1].sustainedOverActive, 1.0);
        QCOMPARE(a.overall.rank, kNoIndex);
        QCOMPARE(a.slowestRank, 0u); // the longer window
        QCOMPARE(a.overall.window, a.ranks[0].window);
        QCOMPARE(a.overall.windowNs(), 1200 * kSecond);
        QCOMPARE(a.overall.work, 19'200'000.0);
        QCOMPARE(a.overall.steps, std::uint64_t(192));
        QCOMPARE(*a.overall.sustainedRate, 16'000.0);
        QCOMPARE(round2(*a.overall.activeRate), 21'333.33);
        QCOMPARE(a.overall.partitionNs[ix(RunState::Validation)], 300 * kSecond);
    }

    // Asynchronous staging: a checkpoint range on another thread from the start of step 5 to
    // the end of step 9; those five steps take 150 ms, the other fifteen 100 ms. Steps 4 and
    // 10 only touch it (zero overlap): they are outside.
    void stepsOverlappingAsyncStagingAreSlower()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto main = b.addThread(r);
        const auto staging = b.addThread(r, 4242);
        TimeNs at = T0, stagingStart = 0, stagingEnd = 0;
        for (int i = 0; i < 20; ++i) {
            const bool slow = i >= 5 && i <= 9;
            const TimeNs length = slow ? 150 * kMs : 100 * kMs;
            if (i == 5)
                stagingStart = at;
            b.nvtx(main, at, at + length, "train_step");
            at += length;
            if (i == 9)
                stagingEnd = at;
        }
        b.nvtx(staging, stagingStart, stagingEnd, "ckpt_stage", NvtxKind::StartEnd);
        const auto trace = b.finish();
        const auto a = computeRunAccounting(*trace, withRange("train_step"));
        QCOMPARE(a.error, std::string());
        const auto &rank = a.ranks[0];
        // The staging runs under steps only: active wins everywhere.
        QCOMPARE(rank.windowNs(), 2250 * kMs);
        QCOMPARE(rank.activeNs(), 2250 * kMs);
        QCOMPARE(rank.partitionNs[ix(RunState::Checkpoint)], TimeNs(0));
        const auto &ckpt = rank.stepTimeByState[0];
        QCOMPARE(ckpt.state, RunState::Checkpoint);
        QCOMPARE(ckpt.inside.count, std::uint64_t(5));
        QCOMPARE(ckpt.inside.medianNs, double(150 * kMs));
        QCOMPARE(ckpt.inside.p95Ns, 150 * kMs);
        QCOMPARE(ckpt.inside.maxNs, 150 * kMs);
        QCOMPARE(ckpt.outside.count, std::uint64_t(15));
        QCOMPARE(ckpt.outside.medianNs, double(100 * kMs));
        QCOMPARE(ckpt.outside.p95Ns, 100 * kMs);
        QVERIFY(ckpt.pValue < 0.001);
        QVERIFY(ckpt.significant);
        for (std::size_t i = 1; i < rank.stepTimeByState.size(); ++i) {
            QCOMPARE(rank.stepTimeByState[i].inside.count, std::uint64_t(0));
            QCOMPARE(rank.stepTimeByState[i].outside.count, std::uint64_t(20));
            QVERIFY(!rank.stepTimeByState[i].significant);
        }
        QVERIFY(rank.checkpoint);
        // The staging thread runs no step: staging, standing for the checkpoint.
        QCOMPARE(rank.checkpoint->count, std::uint64_t(0));
        QCOMPARE(rank.checkpoint->stagingCount, std::uint64_t(1));
        QCOMPARE(rank.checkpoint->cadenceNs, std::optional<double>());
        QCOMPARE(rank.checkpoint->p95DurationNs, 750 * kMs);
        QCOMPARE(rank.checkpoint->commitP95Ns, 750 * kMs);
    }

    // Nested and overlapping states, a state on another thread: see edgeCases().
    void partitionTakesTheFirstOpenStateInOrder()
    {
        const auto trace = edgeCases();
        const auto a = computeRunAccounting(*trace, withRange("step"));
        QCOMPARE(a.error, std::string());
        const auto &r = a.ranks[0];
        QCOMPARE(r.window, (TimeRange { T0, T0 + 400 }));
        QCOMPARE(r.partitionNs[ix(RunState::Active)], TimeNs(200)); // [0,100) [300,400)
        QCOMPARE(r.partitionNs[ix(RunState::Checkpoint)], TimeNs(50)); // [100,150)
        QCOMPARE(r.partitionNs[ix(RunState::Validation)], TimeNs(50)); // [150,200); data_wait nested under it
        QCOMPARE(r.partitionNs[ix(RunState::DataWait)], TimeNs(50)); // [250,300), over the barrier
        QCOMPARE(r.partitionNs[ix(RunState::Barrier)], TimeNs(40)); // [210,250)
        QCOMPARE(r.partitionNs[ix(RunState::Unexplained)], TimeNs(10)); // [200,210)
        QCOMPARE(sum(r.partitionNs), r.windowNs());
        // Step 1 overlaps the checkpoint, step 2 the loader on the other thread.
        QCOMPARE(r.stepTimeByState[0].inside.count, std::uint64_t(1));
        QCOMPARE(r.stepTimeByState[1].inside.count, std::uint64_t(0));
        QCOMPARE(r.stepTimeByState[2].state, RunState::DataWait);
        QCOMPARE(r.stepTimeByState[2].inside.count, std::uint64_t(1));
        QCOMPARE(r.stepTimeByState[2].outside.count, std::uint64_t(1));
        QCOMPARE(r.stepTimeByState[3].inside.count, std::uint64_t(0));
    }

    // The partition as spans in time order (the GUI's state lane): runs of one state joined,
    // tiling the window, each state's spans summing to its part.
    void spansArePartitionInTimeOrder()
    {
        const auto trace = edgeCases();
        auto a = computeRunAccounting(*trace, withRange("step"));
        const auto &spans = a.ranks[0].spans;
        const std::vector<TimeNs> start { 0, 100, 150, 200, 210, 250, 300 };
        const std::vector<TimeNs> end { 100, 150, 200, 210, 250, 300, 400 };
        const std::vector<RunState> state { RunState::Active, RunState::Checkpoint, RunState::Validation,
            RunState::Unexplained, RunState::Barrier, RunState::DataWait, RunState::Active };
        QCOMPARE(spans.size(), start.size());
        for (std::size_t i = 0; i < spans.size(); ++i) {
            QCOMPARE(spans.start[i], T0 + start[i]);
            QCOMPARE(spans.end[i], T0 + end[i]);
            QCOMPARE(spans.state[i], state[i]);
        }
        // The overall copies the slowest rank's spans.
        QCOMPARE(a.overall.spans.state, spans.state);
        QCOMPARE(a.slowestRank, 0u);

        // A window cutting ranges cuts the spans; a window past every range is one unexplained span.
        auto options = withRange("step");
        options.window = explicitWindow(50, 180);
        a = computeRunAccounting(*trace, options);
        QCOMPARE(a.ranks[0].spans.start, (std::vector<TimeNs> { T0 + 50, T0 + 100, T0 + 150 }));
        QCOMPARE(a.ranks[0].spans.end, (std::vector<TimeNs> { T0 + 100, T0 + 150, T0 + 180 }));
        options.window = explicitWindow(500, 700);
        a = computeRunAccounting(*trace, options);
        QCOMPARE(a.ranks[0].spans.state, std::vector<RunState> { RunState::Unexplained });
        QCOMPARE(a.ranks[0].spans.end[0] - a.ranks[0].spans.start[0], TimeNs(200));
    }

    void patternErrorsAreTheCompilersOwn()
    {
        QCOMPARE(runStatePatternError("checkpoint|ckpt|save"), std::string());
        QVERIFY(!runStatePatternError("save(").empty());
        auto options = withRange("step");
        options.patterns[0] = "save(";
        const auto a = computeRunAccounting(*edgeCases(), options);
        QVERIFY(a.error.find(runStatePatternError("save(")) != std::string::npos);
    }

    // The GUI's time selection: absolute times, the same for every rank, whatever its time zero.
    void absoluteWindowIsTheSameForEveryRank()
    {
        const auto trace = edgeCases();
        auto options = withRange("step");
        options.window.rule = RunWindowRule::Absolute;
        options.window.startNs = T0 + 50;
        options.window.endNs = T0 + 180;
        const auto a = computeRunAccounting(*trace, options);
        QCOMPARE(a.error, std::string());
        QCOMPARE(a.windowRule, RunWindowRule::Absolute);
        QCOMPARE(runWindowRuleName(a.windowRule), std::string_view("absolute"));
        QCOMPARE(a.ranks[0].window, (TimeRange { T0 + 50, T0 + 180 }));
        QCOMPARE(a.ranks[0].partitionNs[ix(RunState::Validation)], TimeNs(30));
    }

    // The box plot's figures: smallest, nearest-rank quartiles.
    void stepTimeGroupsHaveQuartiles()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto main = b.addThread(r);
        TimeNs at = T0;
        // Eight steps of 10, 20, ..., 80 ns; the barrier overlaps the last two.
        for (int i = 1; i <= 8; ++i) {
            b.nvtx(main, at, at + 10 * i, "step");
            at += 10 * i;
        }
        const auto other = b.addThread(r, 5);
        b.nvtx(other, at - 100, at, "barrier");
        const auto trace = b.finish();
        const auto a = computeRunAccounting(*trace, withRange("step"));
        const auto &barrier = a.ranks[0].stepTimeByState[3];
        QCOMPARE(barrier.state, RunState::Barrier);
        QCOMPARE(barrier.outside.count, std::uint64_t(6));
        QCOMPARE(barrier.outside.minNs, TimeNs(10));
        QCOMPARE(barrier.outside.q1Ns, TimeNs(20)); // ceil(0.25 * 6) = 2nd
        QCOMPARE(barrier.outside.q3Ns, TimeNs(50)); // ceil(0.75 * 6) = 5th
        QCOMPARE(barrier.inside.minNs, TimeNs(70));
        QCOMPARE(barrier.inside.q3Ns, TimeNs(80));
    }

    void windowCutsRangesAndCountsStepsEndingInIt()
    {
        const auto trace = edgeCases();
        auto options = withRange("step");
        options.window = explicitWindow(50, 180);
        auto a = computeRunAccounting(*trace, options);
        auto r = a.ranks[0];
        QCOMPARE(r.window, (TimeRange { T0 + 50, T0 + 180 }));
        QCOMPARE(r.partitionNs[ix(RunState::Active)], TimeNs(50));
        QCOMPARE(r.partitionNs[ix(RunState::Checkpoint)], TimeNs(50));
        QCOMPARE(r.partitionNs[ix(RunState::Validation)], TimeNs(30));
        QCOMPARE(sum(r.partitionNs), TimeNs(130));
        QCOMPARE(r.steps, std::uint64_t(1)); // ends at 100

        // A window beyond the 64-bit time range (T0 is 1.7e18 ns) is an error, never a wrap.
        options.window = explicitWindow(0, std::numeric_limits<TimeNs>::max() - 5);
        QCOMPARE(computeRunAccounting(*trace, options).error,
            std::string("--window 0ns:9223372036854775802ns: rank 0's window lies outside the 64-bit time range"));

        // A step ending at the window's start is not in it; one ending at its end is.
        options.window = explicitWindow(100, 400);
        a = computeRunAccounting(*trace, options);
        r = a.ranks[0];
        QCOMPARE(r.steps, std::uint64_t(1));
        QCOMPARE(r.work, 1.0);
        QCOMPARE(r.partitionNs[ix(RunState::Active)], TimeNs(100));
        QCOMPARE(sum(r.partitionNs), TimeNs(300));
    }

    void patternsAreOverridableAndIgnoreCase()
    {
        const auto trace = edgeCases();
        auto options = withRange("step");
        options.patterns[1] = "EVAL"; // validation
        options.patterns[2] = "^nothing$"; // data_wait
        auto a = computeRunAccounting(*trace, options);
        QCOMPARE(a.error, std::string());
        QCOMPARE(a.patterns[1], std::string("EVAL"));
        QCOMPARE(a.patterns[0], std::string("checkpoint|ckpt|save"));
        const auto &r = a.ranks[0];
        QCOMPARE(r.partitionNs[ix(RunState::Validation)], TimeNs(50));
        QCOMPARE(r.partitionNs[ix(RunState::DataWait)], TimeNs(0));
        QCOMPARE(r.partitionNs[ix(RunState::Barrier)], TimeNs(50)); // [210,260)
        QCOMPARE(r.partitionNs[ix(RunState::Unexplained)], TimeNs(50)); // [200,210) [260,300)

        options.patterns[0] = "(";
        a = computeRunAccounting(*trace, options);
        QVERIFY(a.ranks.empty());
        QVERIFY(a.error.starts_with("the pattern of state checkpoint is not a regular expression: '('"));
    }

    void noStepRangeIsAClearMessage()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto t = b.addThread(r);
        b.nvtx(t, T0, T0 + 100, "ckpt");
        const auto trace = b.finish();
        auto a = computeRunAccounting(*trace, {});
        QVERIFY(a.ranks.empty());
        QVERIFY2(a.error.starts_with("no step range: ") && a.error.ends_with("; choose one with --range NAME"),
            a.error.c_str());
        a = computeRunAccounting(*trace, withRange("train_step"));
        QCOMPARE(a.error, std::string("no selected rank has an NVTX range named 'train_step'"));
        a = computeRunAccounting(*trace, withRange("ckpt")); // a name that is there, as the step
        QCOMPARE(a.error, std::string());
        QCOMPARE(a.ranks[0].activeNs(), TimeNs(100));
        QCOMPARE(a.ranks[0].partitionNs[ix(RunState::Checkpoint)], TimeNs(0)); // the step is active only
    }

    // Rank 1 has no NVTX range at all: no state span, or all of an explicit window unexplained.
    void aRankWithoutStatesIsUnexplained()
    {
        FixtureBuilder b;
        const auto r0 = b.addRank(0);
        const auto r1 = b.addRank(1);
        const auto t0 = b.addThread(r0);
        const auto t1 = b.addThread(r1);
        b.nvtx(t0, T0, T0 + 500, "step");
        b.nvtx(t0, T0 + 500, T0 + 1000, "step");
        b.api(t1, T0 + 10, T0 + 20, "cudaMalloc");
        auto trace = b.finish();
        for (auto &report : trace->reports)
            report.sessionStartNs = T0;
        auto a = computeRunAccounting(*trace, withRange("step"));
        QCOMPARE(a.error, std::string());
        QCOMPARE(a.ranks.size(), std::size_t(2));
        QCOMPARE(a.ranks[1].windowNs(), TimeNs(0));
        QCOMPARE(sum(a.ranks[1].partitionNs), TimeNs(0));
        QVERIFY(!a.ranks[1].sustainedRate && !a.ranks[1].activeRate && !a.ranks[1].sustainedOverActive);
        QCOMPARE(a.overall.windowNs(), TimeNs(1000));
        QCOMPARE(a.overall.work, 2.0);

        auto options = withRange("step");
        options.window = explicitWindow(0, 2000);
        a = computeRunAccounting(*trace, options);
        QCOMPARE(a.ranks[1].partitionNs[ix(RunState::Unexplained)], TimeNs(2000));
        QCOMPARE(*a.ranks[1].sustainedRate, 0.0);
        QVERIFY(!a.ranks[1].activeRate);
        QCOMPARE(a.ranks[0].partitionNs[ix(RunState::Unexplained)], TimeNs(1000));
        QCOMPARE(*a.ranks[0].sustainedOverActive, 0.5);
    }

    // Random ranges on three threads against a brute force over every nanosecond: each
    // instant's state by the rule itself, no sweep.
    void partitionEqualsABruteForceAndSumsToTheWindow()
    {
        const char *names[] = { "step", "ckpt", "eval", "data_wait", "barrier", "forward" };
        const RunState states[] = { RunState::Active, RunState::Checkpoint, RunState::Validation, RunState::DataWait,
            RunState::Barrier, RunState::Unexplained };
        for (std::uint64_t seed = 1; seed <= 25; ++seed) {
            SplitMix64 rng { seed };
            FixtureBuilder b;
            const auto r = b.addRank(0);
            std::vector<std::uint32_t> threads { b.addThread(r), b.addThread(r, 11), b.addThread(r, 12) };
            struct Range
            {
                TimeNs start, end;
                RunState state;
            };
            std::vector<Range> ranges;
            for (int i = 0; i < 40; ++i) {
                const auto n = rng.next() % 6;
                const TimeNs start = TimeNs(rng.next() % 1000), end = start + 1 + TimeNs(rng.next() % 150);
                b.nvtx(threads[rng.next() % 3], T0 + start, T0 + end, names[n], NvtxKind::StartEnd);
                ranges.push_back({ start, end, states[n] });
            }
            b.nvtx(threads[0], T0 + 2000, T0 + 2001, "step"); // at least one step
            ranges.push_back({ 2000, 2001, RunState::Active });
            auto trace = b.finish();
            trace->reports[0].sessionStartNs = T0;
            auto options = withRange("step");
            options.window = explicitWindow(TimeNs(rng.next() % 300), 1500 + TimeNs(rng.next() % 700));
            const auto a = computeRunAccounting(*trace, options);
            QCOMPARE(a.error, std::string());
            std::array<TimeNs, kRunStateCount> expected {};
            for (TimeNs t = options.window.startNs; t < options.window.endNs; ++t) {
                std::size_t best = ix(RunState::Unexplained);
                for (const auto &range : ranges)
                    if (range.start <= t && t < range.end && range.state != RunState::Unexplained)
                        best = std::min(best, ix(range.state));
                ++expected[best];
            }
            QCOMPARE(a.ranks[0].partitionNs, expected);
            QCOMPARE(sum(a.ranks[0].partitionNs), options.window.endNs - options.window.startNs);
        }
    }

    void betweenCountsFromTheEndOfTheKthToTheEndOfTheMth()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto t = b.addThread(r);
        for (int i = 0; i < 10; ++i)
            b.nvtx(t, T0 + 100 * i, T0 + 100 * (i + 1), "step");
        const auto trace = b.finish();
        auto run = [&](std::string_view between) {
            std::string error;
            const auto spec = parseRunBetween(between, error);
            if (!spec)
                qFatal("%s", error.c_str());
            auto options = withRange("step");
            options.window = *spec;
            return computeRunAccounting(*trace, options);
        };
        auto a = run("step:2:5");
        QCOMPARE(a.windowRule, RunWindowRule::Between);
        QCOMPARE(a.windowText, std::string("step:2:5"));
        QCOMPARE(a.ranks[0].window, (TimeRange { T0 + 200, T0 + 500 }));
        QCOMPARE(a.ranks[0].steps, std::uint64_t(3));
        QCOMPARE(*a.ranks[0].sustainedOverActive, 1.0);
        a = run("step");
        QCOMPARE(a.ranks[0].window, (TimeRange { T0 + 100, T0 + 1000 }));
        QCOMPARE(a.ranks[0].steps, std::uint64_t(9));
        a = run("step:3");
        QCOMPARE(a.ranks[0].window, (TimeRange { T0 + 300, T0 + 1000 }));
        QCOMPARE(a.ranks[0].steps, std::uint64_t(7));
        a = run("step:2:20");
        QVERIFY(a.ranks.empty());
        QCOMPARE(a.error,
            std::string("--between step:2:20: rank 0 has 10 occurrence(s) of 'step', not enough for the end of the "
                        "2-th to the end of the 20-th"));
    }

    void windowAndBetweenParseOrSayWhy_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("window ok") << "window"
                                   << "0s:1200s" << QString();
        QTest::newRow("window mixed units") << "window"
                                            << "350ms:2.5s" << QString();
        QTest::newRow("window no colon") << "window"
                                         << "1200s"
                                         << "--window expects START:END (e.g. 0s:1200s), got '1200s'";
        QTest::newRow("window in another unit")
            << "window"
            << "0min:1200"
            << "--window: '0min' is not a duration (a number, then s, ms, us or ns; none is seconds)";
        QTest::newRow("window end first") << "window"
                                          << "5s:2s"
                                          << "--window: the end must come after the start, got '5s:2s'";
        QTest::newRow("window three parts") << "window"
                                            << "1s:2s:3s"
                                            << "--window expects START:END (e.g. 0s:1200s), got '1s:2s:3s'";
        QTest::newRow("between name") << "between"
                                      << "epoch" << QString();
        QTest::newRow("between colon name") << "between"
                                            << "model:step:1:3" << QString();
        QTest::newRow("between zero") << "between"
                                      << "epoch:0:2"
                                      << "--between epoch:0:2: occurrences count from 1, not '0'";
        QTest::newRow("between M not after K") << "between"
                                               << "epoch:3:2"
                                               << "--between epoch:3:2: M must be larger than K";
        QTest::newRow("between empty") << "between"
                                       << ":1:2"
                                       << "--between expects NAME[:K:M] (occurrences from 1), got ':1:2'";
    }
    void windowAndBetweenParseOrSayWhy()
    {
        QFETCH(QString, kind);
        QFETCH(QString, text);
        QFETCH(QString, error);
        std::string why;
        const auto spec
            = kind == "window" ? parseRunWindow(text.toStdString(), why) : parseRunBetween(text.toStdString(), why);
        QCOMPARE(spec.has_value(), error.isEmpty());
        QCOMPARE(QString::fromStdString(why), error);
        if (text == "350ms:2.5s") {
            QCOMPARE(spec->startNs, 350 * kMs);
            QCOMPARE(spec->endNs, 2500 * kMs);
        }
        if (text == "model:step:1:3") {
            QCOMPARE(spec->rangeName, std::string("model:step"));
            QCOMPARE(spec->fromOccurrence, std::uint32_t(1));
            QCOMPARE(spec->toOccurrence, std::optional<std::uint32_t>(3));
        }
        if (text == "epoch") {
            QCOMPARE(spec->fromOccurrence, std::uint32_t(1));
            QVERIFY(!spec->toOccurrence);
        }
    }

    // Staging ranges that outlast the interval pile up: earlier ones still open at each start
    // are 0, 1, 1, 2.
    void checkpointBacklogGrowthIsMeasured()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto main = b.addThread(r);
        const auto staging = b.addThread(r, 99);
        b.nvtx(main, T0, T0 + 1000, "step");
        const TimeNs lengths[] = { 150, 250, 350, 450 };
        for (int i = 0; i < 4; ++i)
            b.nvtx(staging, T0 + 100 * i, T0 + 100 * i + lengths[i], "async_checkpoint", NvtxKind::StartEnd);
        const auto trace = b.finish();
        const auto a = computeRunAccounting(*trace, withRange("step"));
        const auto &h = a.ranks[0].checkpoint;
        QVERIFY(h);
        QCOMPARE(h->count, std::uint64_t(0));
        QCOMPARE(h->stagingCount, std::uint64_t(4));
        QCOMPARE(h->cadenceNs, std::optional<double>(100.0));
        QCOMPARE(h->commitP95Ns, TimeNs(450));
        QCOMPARE(h->medianDurationNs, 300.0);
        QCOMPARE(h->p95DurationNs, TimeNs(450));
        QCOMPARE(*h->p95OverCadence, 4.5);
        QCOMPARE(h->backlogFirstHalf, 0.5);
        QCOMPARE(h->backlogSecondHalf, 1.5);
        QCOMPARE(h->backlogMax, std::uint32_t(2));
        QVERIFY(h->backlogGrowing);
    }

    // Asynchronous checkpoints: a 10 ns blocking save between steps, then 250 ns of staging on
    // another thread, every 100 ns. Cadence and durations are the saves', the commit latency
    // the staging's; each staging outlasts two intervals, so the backlog grows: 0, 1, 2, 2.
    void blockingSavesAndStagingAreTold()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto main = b.addThread(r);
        const auto stager = b.addThread(r, 55);
        for (int i = 0; i < 4; ++i) {
            const TimeNs at = T0 + 100 * i;
            b.nvtx(main, at, at + 90, "step");
            b.nvtx(main, at + 90, at + 100, "save_checkpoint");
            b.nvtx(stager, at + 100, at + 350, "ckpt_stage", NvtxKind::StartEnd);
        }
        const auto trace = b.finish();
        const auto a = computeRunAccounting(*trace, withRange("step"));
        const auto &h = a.ranks[0].checkpoint;
        QVERIFY(h);
        QCOMPARE(h->count, std::uint64_t(4));
        QCOMPARE(h->stagingCount, std::uint64_t(4));
        QCOMPARE(h->cadenceNs, std::optional<double>(100.0));
        QCOMPARE(h->medianDurationNs, 10.0);
        QCOMPARE(h->p95DurationNs, TimeNs(10));
        QCOMPARE(h->commitP95Ns, TimeNs(250));
        QCOMPARE(*h->p95OverCadence, 2.5);
        QCOMPARE(h->backlogFirstHalf, 0.5);
        QCOMPARE(h->backlogSecondHalf, 2.0);
        QCOMPARE(h->backlogMax, std::uint32_t(2));
        QVERIFY(h->backlogGrowing);
        // The staging after the last step: checkpoint time in the window beyond the steps.
        QCOMPARE(a.ranks[0].window, (TimeRange { T0, T0 + 650 }));
        QCOMPARE(a.ranks[0].partitionNs[ix(RunState::Checkpoint)], TimeNs(4 * 10 + 250));
    }

    // With payloads, a step without one counts --work-per-step, else nothing, and is counted.
    void stepsWithoutPayloadAreCounted()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto t = b.addThread(r);
        b.nvtxWithPayload(t, T0, T0 + 100, "step", 512.0);
        b.nvtx(t, T0 + 100, T0 + 200, "step");
        b.nvtxWithPayload(t, T0 + 200, T0 + 300, "step", 256.0);
        const auto trace = b.finish();
        auto options = withRange("step");
        auto a = computeRunAccounting(*trace, options);
        QCOMPARE(a.workSource, WorkSource::Payload);
        QCOMPARE(a.ranks[0].work, 768.0);
        QCOMPARE(a.ranks[0].stepsWithoutPayload, std::uint64_t(1));
        options.workPerStep = 1000.0;
        options.workUnit = "samples";
        a = computeRunAccounting(*trace, options);
        QCOMPARE(a.ranks[0].work, 1768.0);
        QCOMPARE(a.workUnit, std::string("samples"));
    }

    // The generator's phases against its own truth (what it wrote): without staging every
    // phase is its own part of the partition; with it, the steps that overlap a staging range
    // are the slowed ones.
    void syntheticPhasesMatchTheirTruth_data()
    {
        QTest::addColumn<bool>("staging");
        QTest::newRow("blocking only") << false;
        QTest::newRow("with staging") << true;
    }
    void syntheticPhasesMatchTheirTruth()
    {
        QFETCH(bool, staging);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        SynthOptions options = withRunPhases({});
        options.ranks = 2;
        options.steps = 32;
        options.layers = 2;
        options.stragglerRank = -1;
        if (!staging)
            options.asyncStagingNs = 0;
        const auto written = writeSyntheticCapture(dir.path().toStdString(), options);
        const auto trace = gaplens::test::load({ dir.path().toStdString() });
        QVERIFY(trace->errors.empty());
        const auto a = computeRunAccounting(*trace, {});
        QCOMPARE(a.error, std::string());
        QCOMPARE(a.stepRange, std::string("train_step"));
        QCOMPARE(a.workSource, WorkSource::Payload);
        QCOMPARE(a.ranks.size(), std::size_t(2));
        QCOMPARE(a.overall.work, 2 * 32 * 8192.0);
        for (std::size_t r = 0; r < 2; ++r) {
            const auto &truth = written.ranks[r];
            const auto &got = a.ranks[r];
            const TimeNs offset = trace->reports[trace->ranks[got.rank].report].timeOffsetNs;
            auto total = [](const std::vector<TimeRange> &ranges) {
                TimeNs sum = 0;
                for (const auto &x : ranges)
                    sum += x.duration();
                return sum;
            };
            TimeNs stepsNs = 0;
            for (const auto d : truth.stepDurationNs)
                stepsNs += d;
            QCOMPARE(got.steps, std::uint64_t(32));
            QCOMPARE(got.work, 32 * 8192.0);
            QCOMPARE(got.window.start, truth.stepStartNs.front() + offset);
            QCOMPARE(got.activeNs(), stepsNs);
            QCOMPARE(sum(got.partitionNs), got.windowNs());
            if (!staging) {
                // The last data wait ends the window.
                QCOMPARE(got.window.end, truth.dataWaits.back().end + offset);
                QCOMPARE(got.partitionNs[ix(RunState::Checkpoint)], total(truth.checkpoints));
                QCOMPARE(got.partitionNs[ix(RunState::Validation)], total(truth.validations));
                QCOMPARE(got.partitionNs[ix(RunState::DataWait)], total(truth.dataWaits));
                QCOMPARE(got.checkpoint->count, std::uint64_t(4));
                QCOMPARE(got.checkpoint->stagingCount, std::uint64_t(0));
                continue;
            }
            // Steps overlapping a staging range, counted here from the truth.
            std::uint64_t overlapping = 0;
            for (std::size_t k = 0; k < truth.stepStartNs.size(); ++k) {
                const TimeNs s = truth.stepStartNs[k], e = s + truth.stepDurationNs[k];
                for (const auto &st : truth.stagings)
                    if (st.start < e && s < st.end) {
                        ++overlapping;
                        break;
                    }
            }
            QVERIFY(overlapping > 0);
            const auto &ckpt = got.stepTimeByState[0];
            QCOMPARE(ckpt.inside.count, overlapping);
            QCOMPARE(ckpt.outside.count, 32 - overlapping);
            QVERIFY(ckpt.inside.medianNs > ckpt.outside.medianNs);
            QVERIFY(ckpt.significant);
            QCOMPARE(got.checkpoint->count, std::uint64_t(4));
            QCOMPARE(got.checkpoint->stagingCount, std::uint64_t(4));
            QCOMPARE(got.checkpoint->commitP95Ns, options.asyncStagingNs);
            QCOMPARE(got.checkpoint->p95DurationNs, options.checkpointNs);
            QVERIFY(!got.checkpoint->backlogGrowing);
        }
    }

    // Real NVTX exports with a repeating range named by --range and no name matching a state
    // pattern: the partition is active + unexplained, active is the union of that range's rows
    // per rank and the window their span, computed here from SQL with a plain loop.
    void realExportsPartitionIntoActiveAndUnexplained_data()
    {
        QTest::addColumn<QString>("files");
        QTest::addColumn<QString>("range");
        QTest::addColumn<bool>("noPatterns"); // every pattern overridden by one that never matches
        QTest::newRow("centerformer /ArgMax") << "centerformer_nvtx_only.sqlite"
                                              << "/ArgMax" << false;
        QTest::newRow("centerformer myelinTensorGetMemory") << "centerformer_nvtx_only.sqlite"
                                                            << "myelinTensorGetMemory" << false;
        QTest::newRow("pipit MPI_Send") << "pipit_saxpy_mpi_cuda_rank0.sqlite"
                                        << "MPI_Send" << false;
        QTest::newRow("ring ncclNetRecvTest()") << "ring_6ranks"
                                                << "ncclNetRecvTest()" << false;
        // Two processes (ranks) in one file; PyTorch's per-call names grouped.
        QTest::newRow("h100 aten::mm") << "nsysai_h100_2gpu_1s.sqlite"
                                       << "aten::mm" << false;
        // FSDP's "..._checkpoint_wrapped_module" and "_NoopSaveInputs" match the default
        // checkpoint pattern: with the patterns overridden the partition is the step's again.
        QTest::newRow("mfu ncclSend, --state overrides") << "nsysai_mfu_2gpu_before.sqlite"
                                                         << "ncclSend" << true;
    }
    void realExportsPartitionIntoActiveAndUnexplained()
    {
        QFETCH(QString, files);
        QFETCH(QString, range);
        QFETCH(bool, noPatterns);
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        const auto path = gaplens::test::realFile(files.toStdString().c_str());
        QVERIFY(!path.empty());
        const auto trace = gaplens::test::load({ path });
        QVERIFY(trace->errors.empty());
        auto options = withRange(range.toStdString());
        if (noPatterns) {
            // With the defaults, activation checkpointing is counted as checkpoint time.
            const auto defaults = computeRunAccounting(*trace, options);
            QVERIFY(defaults.ranks[0].partitionNs[ix(RunState::Checkpoint)] > 0);
            options.patterns = { "(?!x)x", "(?!x)x", "(?!x)x", "(?!x)x" };
        }
        const auto a = computeRunAccounting(*trace, options);
        QCOMPARE(a.error, std::string());
        QCOMPARE(a.ranks.size(), trace->ranks.size());
        for (const auto &r : a.ranks) {
            const auto &rank = trace->ranks[r.rank];
            const auto &report = trace->reports[rank.report];
            gaplens::test::SqlTestDb db(report.path);
            QVERIFY(db.isOpen());
            // This rank's ranges of that name (text or registered string), sorted by start.
            const auto rows = db.ints(
                fmt::format("SELECT e.start, e.\"end\" FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId "
                            "WHERE e.eventType IN (59, 60, 70, 71) AND e.\"end\" IS NOT NULL AND e.\"end\" >= e.start "
                            "AND (COALESCE(e.text, s.value) = '{0}' OR COALESCE(e.text, s.value) GLOB '{0}, seq = *' "
                            "OR COALESCE(e.text, s.value) GLOB '{0}, op_id = *' OR COALESCE(e.text, s.value) GLOB "
                            "'{0}, sizes = *') "
                            "AND (e.globalTid >> 24) & 16777215 = {1} ORDER BY e.start",
                    range.toStdString(), rank.pid));
            TimeNs unionNs = 0, first = 0, last = 0, coverEnd = 0;
            bool any = false;
            for (const auto &row : rows) {
                const TimeNs s = row[0], e = row[1];
                if (!any) {
                    first = s;
                    last = e;
                    unionNs = e - s;
                    coverEnd = e;
                    any = true;
                    continue;
                }
                last = std::max(last, e);
                if (s >= coverEnd) {
                    unionNs += e - s;
                    coverEnd = e;
                } else if (e > coverEnd) {
                    unionNs += e - coverEnd;
                    coverEnd = e;
                }
            }
            QCOMPARE(r.windowNs(), last - first);
            if (any)
                QCOMPARE(r.window.start, first + report.timeOffsetNs);
            QCOMPARE(r.activeNs(), unionNs);
            QCOMPARE(r.partitionNs[ix(RunState::Unexplained)], (last - first) - unionNs);
            for (const auto state : kPatternStates)
                QCOMPARE(r.partitionNs[ix(state)], TimeNs(0));
            QCOMPARE(sum(r.partitionNs), r.windowNs());
        }
        QVERIFY(a.overall.activeNs() > 0);
    }
};

QTEST_APPLESS_MAIN(TestRunAccounting)
#include "tst_run_accounting.moc"
