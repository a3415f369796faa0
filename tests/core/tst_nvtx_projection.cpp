// SPDX-License-Identifier: MIT
// NVTX ranges projected onto each GPU (the timeline's projected rows) and the projected-time
// summary (`nvtx --gpu`), on a hand-built fixture with exact answers.
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/nvtx_projection.h"
#include "gaplens/core/analysis/summaries.h"
#include "trace_fixture.h"

#include <QTest>

#include <cmath>

using namespace gaplens::core;
using namespace gaplens::test;

namespace {

// One thread of rank 0 on two GPUs:
//   step [0, 1000]  > fwd [100, 400]: launches k1 on GPU 0 at 150 (runs 200..1500, after the step ends)
//                   > bwd [500, 900]: launches k2 on GPU 0 at 550 (1500..1700) and a copy on GPU 1
//                                     at 600 (800..900)
//   idle [1100, 1200]: only a synchronize, no GPU work
//   step [2000, 3000]: launches k3 on GPU 0 at 2100 (2200..2300)
struct Fixture
{
    std::shared_ptr<const TraceSet> trace;
    std::uint32_t thread = 0;

    Fixture()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto g0 = b.addGpu(r, 0);
        const auto g1 = b.addGpu(r, 1);
        thread = b.addThread(r);
        b.nvtx(thread, T0 + 0, T0 + 1000, "step");
        b.nvtx(thread, T0 + 100, T0 + 400, "fwd");
        b.nvtx(thread, T0 + 500, T0 + 900, "bwd");
        b.nvtx(thread, T0 + 1100, T0 + 1200, "idle");
        b.nvtx(thread, T0 + 2000, T0 + 3000, "step");
        b.api(thread, T0 + 150, T0 + 160, "cudaLaunchKernel", 1);
        b.api(thread, T0 + 550, T0 + 560, "cudaLaunchKernel", 2);
        b.api(thread, T0 + 600, T0 + 610, "cudaMemcpyAsync", 3);
        b.api(thread, T0 + 1150, T0 + 1190, "cudaStreamSynchronize", 0);
        b.api(thread, T0 + 2100, T0 + 2110, "cudaLaunchKernel", 4);
        b.kernel(g0, 7, T0 + 200, T0 + 1500, "k1", 1);
        b.kernel(g0, 7, T0 + 1500, T0 + 1700, "k2", 2);
        b.copy(g1, 9, T0 + 800, T0 + 900, 3);
        b.kernel(g0, 7, T0 + 2200, T0 + 2300, "k3", 4);
        trace = b.finish();
    }

    std::string nameOf(const ProjectedNvtxLane &lane, std::size_t i) const
    {
        const auto source = lane.source(i);
        return trace->str(trace->threads[source.thread].nvtx.name[source.range]);
    }
};

} // namespace

class TestNvtxProjection : public QObject
{
    Q_OBJECT

private slots:
    void rangesSpanTheirGpuWorkOnEachGpu()
    {
        const Fixture f;
        const auto projected = projectNvtxOntoGpus(*f.trace);
        QVERIFY(projected);
        QCOMPARE(projected->gpus.size(), std::size_t(2));

        const auto &g0 = projected->gpus[0];
        QCOMPARE(g0.size(), std::size_t(4)); // step, fwd, bwd, step; idle launched nothing
        // The step's projection ends when k2 ends, 700 ns after the CPU range.
        QCOMPARE(f.nameOf(g0, 0), std::string("step"));
        QCOMPARE(TimeRange(g0.start[0], g0.end[0]), at(200, 1700));
        QCOMPARE(g0.depth[0], std::uint8_t(0));
        // Work launched from a nested range: the child lies inside its parent, a level deeper.
        QCOMPARE(f.nameOf(g0, 1), std::string("fwd"));
        QCOMPARE(TimeRange(g0.start[1], g0.end[1]), at(200, 1500));
        QCOMPARE(g0.depth[1], std::uint8_t(1));
        QCOMPARE(f.nameOf(g0, 2), std::string("bwd"));
        QCOMPARE(TimeRange(g0.start[2], g0.end[2]), at(1500, 1700));
        QCOMPARE(g0.depth[2], std::uint8_t(1));
        QCOMPARE(f.nameOf(g0, 3), std::string("step"));
        QCOMPARE(TimeRange(g0.start[3], g0.end[3]), at(2200, 2300));
        QCOMPARE(g0.depth[3], std::uint8_t(0));
        QCOMPARE(g0.nesting.levelCount(), std::size_t(2));
        QCOMPARE(g0.folds.size(), std::size_t(2));
        QCOMPARE(g0.level(1).size(), std::size_t(2));

        // GPU 1 has only the copy: the step and bwd project onto it, fwd does not.
        const auto &g1 = projected->gpus[1];
        QCOMPARE(g1.size(), std::size_t(2));
        QCOMPARE(f.nameOf(g1, 0), std::string("step"));
        QCOMPARE(TimeRange(g1.start[0], g1.end[0]), at(800, 900));
        QCOMPARE(f.nameOf(g1, 1), std::string("bwd")); // equal span: the CPU child nests under its parent
        QCOMPARE(g1.depth[1], std::uint8_t(1));

        const auto noFolds = projectNvtxOntoGpus(*f.trace, false);
        QVERIFY(noFolds->gpus[0].folds.empty());
        QCOMPARE(noFolds->gpus[0].size(), std::size_t(4));
    }

    // Two reports whose processes share a pid and correlation ids (one file per rank, each from
    // its own node), with their GPUs listed out of report order: each range projects only onto
    // its own report's GPU, with that GPU's work.
    void reportsWithTheSamePidAndCorrelationIdsProjectApart()
    {
        FixtureBuilder b;
        const auto r0 = b.addRank(0, FixtureBuilder::kNewReport, 4242);
        const auto r1 = b.addRank(1, FixtureBuilder::kNewReport, 4242);
        const auto g1 = b.addGpu(r1, 0);
        const auto g0 = b.addGpu(r0, 0);
        const auto t1 = b.addThread(r1);
        const auto t0 = b.addThread(r0);
        b.nvtx(t0, T0 + 0, T0 + 100, "rank0_step");
        b.nvtx(t1, T0 + 0, T0 + 100, "rank1_step");
        b.api(t0, T0 + 10, T0 + 20, "cudaLaunchKernel", 5);
        b.api(t1, T0 + 10, T0 + 20, "cudaLaunchKernel", 5);
        b.kernel(g0, 7, T0 + 30, T0 + 40, "k", 5);
        b.kernel(g1, 7, T0 + 50, T0 + 90, "k", 5);
        const auto trace = b.finish();
        QCOMPARE(trace->threads[t0].report, trace->gpus[g0.gpu].report);
        QVERIFY(trace->gpus[g0.gpu].report != trace->gpus[g1.gpu].report);

        const auto projected = projectNvtxOntoGpus(*trace);
        QVERIFY(projected);
        const auto nameOn = [&](const ProjectedNvtxLane &lane) {
            const auto source = lane.source(0);
            return trace->str(trace->threads[source.thread].nvtx.name[source.range]);
        };
        const auto &lane0 = projected->gpus[g0.gpu];
        QCOMPARE(lane0.size(), std::size_t(1));
        QCOMPARE(nameOn(lane0), std::string("rank0_step"));
        QCOMPARE(TimeRange(lane0.start[0], lane0.end[0]), at(30, 40));
        const auto &lane1 = projected->gpus[g1.gpu];
        QCOMPARE(lane1.size(), std::size_t(1));
        QCOMPARE(nameOn(lane1), std::string("rank1_step"));
        QCOMPARE(TimeRange(lane1.start[0], lane1.end[0]), at(50, 90));
    }

    // Two threads launching on one GPU: each projection names its own thread and range
    // (ProjectedNvtxLane::source decodes the one number a lane keeps per projection).
    void eachProjectionNamesItsThreadAndRange()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto g = b.addGpu(r, 0);
        const auto main = b.addThread(r);
        const auto worker = b.addThread(r, 77);
        b.nvtx(main, T0 + 0, T0 + 50, "main_idle"); // launches nothing
        b.nvtx(main, T0 + 100, T0 + 200, "main_step");
        b.nvtx(worker, T0 + 0, T0 + 40, "w_a");
        b.nvtx(worker, T0 + 300, T0 + 400, "w_b");
        b.api(main, T0 + 110, T0 + 120, "cudaLaunchKernel", 1);
        b.api(worker, T0 + 10, T0 + 20, "cudaLaunchKernel", 2);
        b.api(worker, T0 + 310, T0 + 320, "cudaLaunchKernel", 3);
        b.kernel(g, 7, T0 + 130, T0 + 140, "k1", 1);
        b.kernel(g, 7, T0 + 50, T0 + 60, "k2", 2);
        b.kernel(g, 7, T0 + 330, T0 + 340, "k3", 3);
        const auto trace = b.finish();
        const auto projected = projectNvtxOntoGpus(*trace);
        QVERIFY(projected);
        const auto &lane = projected->gpus[g.gpu];
        QCOMPARE(lane.size(), std::size_t(3)); // by start: w_a (50), main_step (130), w_b (330)
        const std::pair<std::uint32_t, std::uint32_t> expected[] = { { worker, 0 }, { main, 1 }, { worker, 1 } };
        for (std::size_t i = 0; i < lane.size(); ++i) {
            QCOMPARE(lane.source(i).thread, expected[i].first);
            QCOMPARE(lane.source(i).range, expected[i].second);
        }
        QCOMPARE(TimeRange(lane.start[1], lane.end[1]), at(130, 140));
        QCOMPARE(trace->str(trace->threads[main].nvtx.name[lane.source(1).range]), std::string("main_step"));
    }

    void derivedCaptureHoldsTheProjectionOnlyForTheTimeline()
    {
        const Fixture f;
        const auto timeline = DerivedCapture::build(f.trace, {});
        QVERIFY(timeline->projectedNvtx());
        QCOMPARE(timeline->projectedNvtx()->gpus[0].size(), std::size_t(4));
        DerivedOptions other;
        other.minGapNs = 10;
        const auto next = DerivedCapture::build(f.trace, other, nullptr, timeline.get());
        QCOMPARE(next->projectedNvtx(), timeline->projectedNvtx()); // shared across thresholds
        DerivedOptions cli;
        cli.foldIndexes = false;
        QVERIFY(!DerivedCapture::build(f.trace, cli)->projectedNvtx());
    }

    // A capture opened larger than memory keeps its timeline: the projection that would not fit
    // is left out with a reason, not built into an out-of-memory kill.
    void projectionOverTheMemoryLimitIsLeftOutWithAReason()
    {
        const Fixture f;
        // Lanes: 5 ranges of a thread that calls CUDA x 26 bytes; the one report's collection:
        // 5 x 64 bytes, and 4 launches (3 kernels, 1 copy) x (32 in the map + 56 in LaunchSpans).
        QCOMPARE(projectedNvtxPeakBytes(*f.trace), std::uint64_t(5 * 26 + 5 * 64 + 4 * 88));

        DerivedOptions tight;
        tight.projectionMemoryLimit = 801;
        const auto without = DerivedCapture::build(f.trace, tight);
        QVERIFY(without);
        QVERIFY(!without->projectedNvtx());
        QCOMPARE(without->projectionSkipped(),
            std::string("The projected NVTX rows under the GPUs were not built: they need up to 802 B, over the "
                        "limit of 801 B"));
        QCOMPARE(without->gapCount(), DerivedCapture::build(f.trace, {})->gapCount()); // the rest is whole

        DerivedOptions enough;
        enough.projectionMemoryLimit = 802;
        const auto with = DerivedCapture::build(f.trace, enough, nullptr, without.get());
        QVERIFY(with->projectedNvtx());
        QVERIFY(with->projectionSkipped().empty());
        QCOMPARE(with->projectedNvtx()->gpus[0].size(), std::size_t(4));
        // This machine has far more than a few bytes free: the default limit builds it.
        QVERIFY(DerivedCapture::build(f.trace, {})->projectionSkipped().empty());
    }

    void projectedSummaryGroupsProjectedDurations()
    {
        const Fixture f;
        const auto summary = summarizeNvtxProjection(*f.trace);
        // step: 1500 (200..1700 over both GPUs) and 100; fwd 1300; bwd 800..1700 = 900.
        QCOMPARE(summary.rows.size(), std::size_t(3)); // idle has no projection: no row
        QCOMPARE(summary.instances, std::uint64_t(4));
        QCOMPARE(summary.totalNs, TimeNs(1600 + 1300 + 900));
        const auto &step = summary.rows[0];
        QCOMPARE(f.trace->str(step.name), std::string("step"));
        QCOMPARE(step.rangeInstances, std::uint64_t(2));
        QCOMPARE(step.stats.count, std::uint64_t(2));
        QCOMPARE(step.stats.totalNs, TimeNs(1600));
        QCOMPARE(step.stats.minNs, TimeNs(100));
        QCOMPARE(step.stats.maxNs, TimeNs(1500));
        QCOMPARE(step.stats.medianNs, 800.0);
        QCOMPARE(step.stats.avgNs, 800.0);
        QCOMPARE(step.stats.stddevNs, std::sqrt(2 * 700.0 * 700.0));
        QCOMPARE(step.percent, 100.0 * 1600 / 3800);
        QCOMPARE(f.trace->str(summary.rows[1].name), std::string("fwd"));
        QCOMPARE(summary.rows[1].stats.totalNs, TimeNs(1300));
        QCOMPARE(f.trace->str(summary.rows[2].name), std::string("bwd"));
        QCOMPARE(summary.rows[2].stats.totalNs, TimeNs(900));

        // A window holding only the second step's start.
        SummaryOptions window;
        window.window = at(1500, 2500);
        const auto late = summarizeNvtxProjection(*f.trace, window);
        QCOMPARE(late.rows.size(), std::size_t(1));
        QCOMPARE(late.rows[0].stats.totalNs, TimeNs(100));
    }
};

QTEST_APPLESS_MAIN(TestNvtxProjection)
#include "tst_nvtx_projection.moc"
