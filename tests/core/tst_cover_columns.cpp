// SPDX-License-Identifier: MIT
// Utilisation per pixel column (the timeline's GPU and stream lanes), the per-stream merged
// kernels it reads, and the dominant cause of a run of gaps.
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/view/cover_columns.h"
#include "trace_fixture.h"

#include <QTest>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;

class TestCoverColumns : public QObject
{
    Q_OBJECT
private slots:
    void eachColumnGetsItsCoveredShare()
    {
        // [10, 30) and [50, 55): 25 ns covered.
        const std::vector<TimeNs> start { 10, 50 }, end { 30, 55 }, before { 0, 20, 25 };
        const CoverColumns lane { start, end, before };
        QCOMPARE(coveredUntil(lane, 0), TimeNs(0));
        QCOMPARE(coveredUntil(lane, 20), TimeNs(10));
        QCOMPARE(coveredUntil(lane, 30), TimeNs(20));
        QCOMPARE(coveredUntil(lane, 52), TimeNs(22));
        QCOMPARE(coveredUntil(lane, 1000), TimeNs(25));

        std::vector<float> out;
        coverPerColumn(lane, ViewWindow { 0, 60, 6 }, out); // 10 ns per column
        QCOMPARE(out, (std::vector<float> { 0.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.5f }));
        // Zoomed out: one column holds all 25 of 100 ns.
        coverPerColumn(lane, ViewWindow { 0, 100, 1 }, out);
        QCOMPARE(out, (std::vector<float> { 0.25f }));
        // A fractional width rounds up to whole columns; the last is clipped to the window.
        coverPerColumn(lane, ViewWindow { 0, 60, 2.5 }, out);
        QCOMPARE(out.size(), std::size_t(3));
        QCOMPARE(out[0], 14.0f / 24.0f); // [10, 24) of [0, 24)
        QCOMPARE(out[2], 5.0f / 12.0f); // [48, 60)
        coverPerColumn({}, ViewWindow { 0, 60, 3 }, out);
        QCOMPARE(out, (std::vector<float> { 0.0f, 0.0f, 0.0f }));
        coverPerColumn(lane, ViewWindow { 60, 60, 3 }, out);
        QVERIFY(out.empty());
    }

    void columnsEqualTheirEdgesCoveredTimeOnAnyLane()
    {
        // Irregular intervals; every column's share is (coveredUntil(right) - coveredUntil(left))
        // over its width, however the columns walk the lane.
        std::vector<TimeNs> start, end, before { 0 };
        TimeNs t = 5;
        for (int i = 0; i < 3000; ++i) {
            t += 1 + (i * 7919) % 97;
            start.push_back(t);
            t += 1 + (i * 104729) % 53;
            end.push_back(t);
            before.push_back(before.back() + (end.back() - start.back()));
        }
        const auto coarse = coarseStarts(start);
        QCOMPARE(coarse.size(), std::size_t(3000 / kCoverCoarseStride + 1));
        QCOMPARE(coarse[2], start[2 * kCoverCoarseStride]);
        std::vector<float> out, withCoarse;
        const CoverColumns lane { start, end, before }, indexed { start, end, before, coarse };
        for (const ViewWindow w : { ViewWindow { 0, t + 100, 1000 }, ViewWindow { 5000, 9000, 333 },
                 ViewWindow { 100, 130, 60 }, ViewWindow { t - 500, t + 500, 7 } }) {
            coverPerColumn(lane, w, out);
            coverPerColumn(indexed, w, withCoarse);
            QCOMPARE(withCoarse, out); // the coarse starts find the same edges
            const double nsPerPx = w.nsPerPx();
            for (std::size_t c = 0; c < out.size(); ++c) {
                const TimeNs left = w.start + TimeNs(std::llround(double(c) * nsPerPx));
                const TimeNs right = std::min(w.start + TimeNs(std::llround(double(c + 1) * nsPerPx)), w.end);
                const float expected = right > left
                    ? float(double(coveredUntil(lane, right) - coveredUntil(lane, left)) / double(right - left))
                    : 0.0f;
                QCOMPARE(out[c], expected);
            }
        }
    }

    void streamLanesMergeTheirOwnKernels()
    {
        FixtureBuilder b;
        const auto rank = b.addRank(0);
        const auto gpu = b.addGpu(rank, 0);
        b.kernel(gpu, 7, 100, 200, "a");
        b.kernel(gpu, 7, 150, 260, "b"); // overlaps a (programmatic dependent launch)
        b.kernel(gpu, 7, 400, 500, "c");
        b.kernel(gpu, 9, 180, 300, "d");
        const auto derived = DerivedCapture::build(std::shared_ptr<const TraceSet>(b.finish()), {});
        const auto &lane = derived->busy(GpuIndex(0));
        const auto s7 = lane.streamCover(0), s9 = lane.streamCover(1);
        QCOMPARE(std::vector<TimeNs>(s7.start.begin(), s7.start.end()), (std::vector<TimeNs> { 100, 400 }));
        QCOMPARE(std::vector<TimeNs>(s7.end.begin(), s7.end.end()), (std::vector<TimeNs> { 260, 500 }));
        QCOMPARE(coveredUntil(s7, 1000), TimeNs(260));
        QCOMPARE(coveredUntil(s9, 1000), TimeNs(120));
        QCOMPARE(coveredUntil(lane.cover(), 1000), TimeNs(300)); // [100, 300) + [400, 500)
        QVERIFY(lane.streamCover(2).start.empty());

        // One stream and no copies: the stream lane is the GPU's own intervals.
        FixtureBuilder one;
        const auto g1 = one.addGpu(one.addRank(0), 0);
        one.kernel(g1, 7, 0, 10, "a");
        const auto single = DerivedCapture::build(std::shared_ptr<const TraceSet>(one.finish()), {});
        const auto &l1 = single->busy(GpuIndex(0));
        QVERIFY(l1.streamLanes.empty());
        QCOMPARE(l1.streamCover(0).start.data(), l1.start.data());
    }

    void aRunOfGapsTakesTheCauseWithMostIdleTime()
    {
        // Kernels every 1000 ns leave gaps; blame depends on the host, so check the rule on
        // the table's own prefix sums.
        auto [b, rank, gpu, thread] = gaplens::test::oneRankFixture();
        b.kernel(gpu, 7, 0, 100, "k", 1);
        b.kernel(gpu, 7, 1000, 1100, "k", 2); // gap [100, 1000): no CUDA call
        b.api(thread, 1150, 2900, "cudaDeviceSynchronize");
        b.kernel(gpu, 7, 3000, 3100, "k", 3); // gap [1100, 3000): in cudaDeviceSynchronize
        b.kernel(gpu, 7, 3500, 3600, "k", 4); // gap [3100, 3500): no CUDA call
        DerivedOptions options;
        options.minGapNs = 100;
        const auto derived = DerivedCapture::build(std::shared_ptr<const TraceSet>(b.finish()), options);
        const auto &table = derived->gaps(GpuIndex(0));
        QCOMPARE(table.size(), std::size_t(3));
        QCOMPARE(table.blame[1].cause, GapCause::ApiCall);
        QCOMPARE(table.idleBeforeByCause.size(), std::size_t(4));
        QCOMPARE(table.idleBeforeByCause[3][std::size_t(GapCause::NoCudaCall)], TimeNs(900 + 400));
        QCOMPARE(table.idleBeforeByCause[3][std::size_t(GapCause::ApiCall)], TimeNs(1900));
        QCOMPARE(table.dominantCause(0, 2), GapCause::ApiCall); // 1900 > 1300
        QCOMPARE(table.dominantCause(0, 0), GapCause::NoCudaCall);
        QCOMPARE(table.dominantCause(2, 2), GapCause::NoCudaCall);
    }

    void copyGapsHaveTheirOwnPrefixSums()
    {
        // Gap [100, 1000) is 600 ns under a copy: a copy gap; gap [1100, 1500) has 100 ns of copy
        // only: no CUDA call. The copy gap's 900 ns outweighs the 400 ns.
        FixtureBuilder b;
        const auto rank = b.addRank(0);
        const auto gpu = b.addGpu(rank, 0);
        b.kernel(gpu, 7, 0, 100, "k", 1);
        b.copy(gpu, 8, 200, 800);
        b.kernel(gpu, 7, 1000, 1100, "k", 2);
        b.copy(gpu, 8, 1200, 1300);
        b.kernel(gpu, 7, 1500, 1600, "k", 3);
        DerivedOptions options;
        options.minGapNs = 100;
        const auto derived = DerivedCapture::build(std::shared_ptr<const TraceSet>(b.finish()), options);
        const auto &table = derived->gaps(GpuIndex(0));
        QCOMPARE(table.size(), std::size_t(2));
        QCOMPARE(table.blame[0].cause, GapCause::Copy);
        QCOMPARE(table.blame[0].copyNs, TimeNs(600));
        QCOMPARE(table.blame[1].cause, GapCause::NoCudaCall);
        QCOMPARE(table.blame[1].copyNs, TimeNs(100));
        QCOMPARE(table.idleBeforeByCause[2][std::size_t(GapCause::Copy)], TimeNs(900));
        QCOMPARE(table.idleBeforeByCause[2][std::size_t(GapCause::NoCudaCall)], TimeNs(400));
        QCOMPARE(table.dominantCause(0, 1), GapCause::Copy);
        QCOMPARE(table.dominantCause(1, 1), GapCause::NoCudaCall);
        QCOMPARE(derived->overallTotals().copyNs, TimeNs(700));
        QCOMPARE(derived->overallTotals().copyCauseNs, TimeNs(900));
        QCOMPARE(derived->causeKeys()[derived->causeKeyOf({ GpuIndex(0), 0 }).value()],
            std::string("copy (GPU moving data)"));
        // With copies as busy time the copies split the gaps instead, and none holds a copy.
        options.includeCopies = true;
        const auto busyCopies = DerivedCapture::build(derived->sharedTrace(), options);
        const auto &split = busyCopies->gaps(GpuIndex(0));
        QCOMPARE(split.size(), std::size_t(4)); // [100,200) [800,1000) [1100,1200) [1300,1500)
        for (const auto &g : split.blame) {
            QCOMPARE(g.copyNs, TimeNs(0));
            QVERIFY(g.cause != GapCause::Copy);
        }
        QCOMPARE(busyCopies->overallTotals().copyNs, TimeNs(0));
    }
};

QTEST_GUILESS_MAIN(TestCoverColumns)
#include "tst_cover_columns.moc"
