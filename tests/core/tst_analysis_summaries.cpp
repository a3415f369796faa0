// SPDX-License-Identifier: MIT
// Top kernels, NVTX and CUDA API summaries (nsys *_sum style) and the shared DurationStats.
#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/summaries.h"
#include "trace_fixture.h"

#include <QTest>

#include <cmath>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;
using gaplens::test::T0;

namespace {

// Rank 0: gemm 10, 20, 30, 40 (demangled <float> for the first two, <half> for the others)
//         and relu 5, 7. Rank 1: relu 9 and copyk 100. Kernel i of a stream starts at T0 + 1000 * i.
std::unique_ptr<TraceSet> kernelFixture()
{
    FixtureBuilder b;
    auto g0 = b.addGpu(b.addRank(0), 0);
    auto g1 = b.addGpu(b.addRank(1), 0);
    const TimeNs gemm[] = { 10, 20, 30, 40 };
    for (int i = 0; i < 4; ++i)
        b.kernel(g0, 1, T0 + 1000 * i, T0 + 1000 * i + gemm[i], "gemm", 0,
            i < 2 ? "void gemm<float>()" : "void gemm<half>()");
    b.kernel(g0, 2, T0 + 0, T0 + 5, "relu");
    b.kernel(g0, 2, T0 + 1000, T0 + 1007, "relu");
    b.kernel(g1, 1, T0 + 0, T0 + 9, "relu");
    b.kernel(g1, 1, T0 + 1000, T0 + 1100, "copyk");
    return b.finish();
}

const KernelSummaryRow *row(const TraceSet &trace, const KernelSummary &s, const char *name)
{
    for (const auto &r : s.rows)
        if (trace.str(r.name) == name)
            return &r;
    return nullptr;
}

} // namespace

class TestAnalysisSummaries : public QObject
{
    Q_OBJECT

private slots:
    void durationStatsOfAnEvenCountUseTheMeanOfTheTwoMiddleValues()
    {
        std::vector<TimeNs> d { 40, 10, 30, 20 };
        const auto s = computeDurationStats(d);
        QCOMPARE(s.count, std::uint64_t(4));
        QCOMPARE(s.totalNs, TimeNs(100));
        QCOMPARE(s.minNs, TimeNs(10));
        QCOMPARE(s.maxNs, TimeNs(40));
        QCOMPARE(s.avgNs, 25.0);
        QCOMPARE(s.medianNs, 25.0);
        QCOMPARE(s.stddevNs, std::sqrt(500.0 / 3.0)); // sample: squares 225+25+25+225 over n-1
    }

    void durationStatsOfAnOddCountTakeTheMiddleValue()
    {
        std::vector<TimeNs> d { 9, 5, 7 };
        const auto s = computeDurationStats(d);
        QCOMPARE(s.medianNs, 7.0);
        QCOMPARE(s.stddevNs, 2.0); // (4 + 0 + 4) / 2 = 4
    }

    void durationStatsOfOneValueHaveZeroStddev()
    {
        std::vector<TimeNs> d { 100 };
        const auto s = computeDurationStats(d);
        QCOMPARE(s.stddevNs, 0.0);
        QCOMPARE(s.medianNs, 100.0);
        std::vector<TimeNs> none;
        QCOMPARE(computeDurationStats(none).count, std::uint64_t(0));
    }

    void nearestRankPercentileAndMedianOfSortedValues()
    {
        const std::vector<TimeNs> v { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
        QCOMPARE(sortedPercentileNearestRank(v, 95), TimeNs(19)); // ceil(0.95 * 20) = 19th
        QCOMPARE(sortedPercentileNearestRank(v, 100), TimeNs(20));
        QCOMPARE(sortedPercentileNearestRank({ 7 }, 95), TimeNs(7));
        QCOMPARE(sortedMedian(v), 10.5);
    }

    void topKernelsOverAllRanksHaveExactStatistics()
    {
        const auto trace = kernelFixture();
        const auto s = summarizeKernels(*trace);
        QCOMPARE(s.rank, kNoIndex);
        QCOMPARE(s.totalNs, TimeNs(221));
        QCOMPARE(s.instances, std::uint64_t(8));
        QCOMPARE(s.rows.size(), std::size_t(3));
        // Sorted by total desc; copyk and gemm tie at 100 -> by name.
        QCOMPARE(trace->str(s.rows[0].name), std::string("copyk"));
        QCOMPARE(trace->str(s.rows[1].name), std::string("gemm"));
        QCOMPARE(trace->str(s.rows[2].name), std::string("relu"));

        const auto *gemm = row(*trace, s, "gemm");
        QCOMPARE(gemm->stats.count, std::uint64_t(4));
        QCOMPARE(gemm->stats.totalNs, TimeNs(100));
        QCOMPARE(gemm->stats.avgNs, 25.0);
        QCOMPARE(gemm->stats.medianNs, 25.0);
        QCOMPARE(gemm->stats.minNs, TimeNs(10));
        QCOMPARE(gemm->stats.maxNs, TimeNs(40));
        QCOMPARE(gemm->stats.stddevNs, std::sqrt(500.0 / 3.0));
        QCOMPARE(gemm->percent, 100.0 * 100.0 / 221.0);

        const auto *relu = row(*trace, s, "relu");
        QCOMPARE(relu->stats.count, std::uint64_t(3));
        QCOMPARE(relu->stats.totalNs, TimeNs(21));
        QCOMPARE(relu->stats.medianNs, 7.0);
        QCOMPARE(relu->stats.stddevNs, 2.0);
        QCOMPARE(relu->percent, 100.0 * 21.0 / 221.0);

        const auto *copyk = row(*trace, s, "copyk");
        QCOMPARE(copyk->stats.stddevNs, 0.0);
        QCOMPARE(copyk->stats.medianNs, 100.0);
    }

    void demangledOptionSplitsKernelsByFullName()
    {
        const auto trace = kernelFixture();
        KernelSummaryOptions options;
        options.useDemangledName = true;
        const auto s = summarizeKernels(*trace, options);
        QCOMPARE(s.rows.size(), std::size_t(4));
        const auto *half = row(*trace, s, "void gemm<half>()");
        const auto *flt = row(*trace, s, "void gemm<float>()");
        QVERIFY(half && flt);
        QCOMPARE(half->stats.totalNs, TimeNs(70));
        QCOMPARE(half->stats.medianNs, 35.0);
        QCOMPARE(flt->stats.totalNs, TimeNs(30));
        QVERIFY(!row(*trace, s, "gemm"));
    }

    void rankSelectionLimitsTheKernelsCounted()
    {
        const auto trace = kernelFixture();
        KernelSummaryOptions options;
        options.ranks = RankSelection::only({ 1 });
        const auto s = summarizeKernels(*trace, options);
        QCOMPARE(s.totalNs, TimeNs(109));
        QCOMPARE(s.rows.size(), std::size_t(2));
        QCOMPARE(trace->str(s.rows[0].name), std::string("copyk"));
        QCOMPARE(s.rows[0].percent, 100.0 * 100.0 / 109.0);
        QCOMPARE(row(*trace, s, "relu")->stats.count, std::uint64_t(1));
    }

    void perRankSummariesAreOnePerSelectedRank()
    {
        const auto trace = kernelFixture();
        const auto all = summarizeKernelsPerRank(*trace);
        QCOMPARE(all.size(), std::size_t(2));
        QCOMPARE(all[0].rank, 0u);
        QCOMPARE(all[0].totalNs, TimeNs(112));
        QCOMPARE(trace->str(all[0].rows[0].name), std::string("gemm"));
        QCOMPARE(all[0].rows[0].percent, 100.0 * 100.0 / 112.0);
        QCOMPARE(all[1].rank, 1u);
        QCOMPARE(all[1].totalNs, TimeNs(109));

        KernelSummaryOptions options;
        options.ranks = RankSelection::only({ 1 });
        const auto one = summarizeKernelsPerRank(*trace, options);
        QCOMPARE(one.size(), std::size_t(1));
        QCOMPARE(one[0].rank, 1u);
    }

    void windowCountsKernelsWhoseStartIsInside()
    {
        const auto trace = kernelFixture();
        KernelSummaryOptions options;
        // Starts at 1000 are in, starts at 0 and 2000+ are out; full durations are counted.
        options.window = TimeRange { T0 + 1, T0 + 2000 };
        const auto s = summarizeKernels(*trace, options);
        QCOMPARE(s.instances, std::uint64_t(3)); // gemm 20, relu 7, copyk 100
        QCOMPARE(s.totalNs, TimeNs(127));
        QCOMPARE(row(*trace, s, "copyk")->stats.totalNs, TimeNs(100)); // ends after the window: still whole
    }

    void nvtxSummaryGroupsByNameAndKind()
    {
        FixtureBuilder b;
        const auto r = b.addRank(0);
        const auto t = b.addThread(r);
        const auto t2 = b.addThread(r, 1001);
        b.nvtx(t, T0 + 0, T0 + 100, "step");
        b.nvtx(t, T0 + 10, T0 + 40, "fwd");
        b.nvtx(t, T0 + 1000, T0 + 1200, "step");
        b.nvtx(t2, T0 + 0, T0 + 50, "step", NvtxKind::StartEnd);
        const auto trace = b.finish();
        const auto s = summarizeNvtx(*trace);
        QCOMPARE(s.totalNs, TimeNs(380));
        QCOMPARE(s.instances, std::uint64_t(4));
        QCOMPARE(s.rows.size(), std::size_t(3));
        QCOMPARE(trace->str(s.rows[0].name), std::string("step"));
        QCOMPARE(s.rows[0].kind, NvtxKind::PushPop);
        QCOMPARE(s.rows[0].stats.count, std::uint64_t(2));
        QCOMPARE(s.rows[0].stats.totalNs, TimeNs(300));
        QCOMPARE(s.rows[0].stats.avgNs, 150.0);
        QCOMPARE(s.rows[0].stats.medianNs, 150.0);
        QCOMPARE(s.rows[0].stats.minNs, TimeNs(100));
        QCOMPARE(s.rows[0].stats.maxNs, TimeNs(200));
        QCOMPARE(s.rows[0].stats.stddevNs, std::sqrt(5000.0)); // (2500 + 2500) / 1
        QCOMPARE(s.rows[0].percent, 100.0 * 300.0 / 380.0);
        QCOMPARE(trace->str(s.rows[1].name), std::string("step"));
        QCOMPARE(s.rows[1].kind, NvtxKind::StartEnd);
        QCOMPARE(s.rows[1].stats.totalNs, TimeNs(50));
        QCOMPARE(trace->str(s.rows[2].name), std::string("fwd"));
        QCOMPARE(s.rows[2].stats.totalNs, TimeNs(30));
    }

    void apiSummaryCountsEveryCallIncludingNestedDriverCalls()
    {
        FixtureBuilder b;
        const auto r0 = b.addRank(0);
        const auto t = b.addThread(r0);
        b.api(t, T0 + 0, T0 + 5, "cudaLaunchKernel", 1);
        b.api(t, T0 + 10, T0 + 17, "cudaLaunchKernel", 2);
        b.api(t, T0 + 11, T0 + 14, "cuLaunchKernel");
        b.api(t, T0 + 20, T0 + 29, "cudaLaunchKernel", 3);
        b.api(t, T0 + 30, T0 + 41, "cudaLaunchKernel", 4);
        b.api(t, T0 + 50, T0 + 150, "cudaStreamSynchronize");
        const auto r1 = b.addRank(1);
        b.api(b.addThread(r1), T0, T0 + 1000, "cudaMalloc");
        const auto trace = b.finish();

        SummaryOptions options;
        options.ranks = RankSelection::only({ r0 });
        const auto s = summarizeApi(*trace, options);
        QCOMPARE(s.totalNs, TimeNs(135));
        QCOMPARE(s.instances, std::uint64_t(6));
        QCOMPARE(s.rows.size(), std::size_t(3));
        QCOMPARE(trace->str(s.rows[0].name), std::string("cudaStreamSynchronize"));
        QCOMPARE(s.rows[0].percent, 100.0 * 100.0 / 135.0);
        const auto &launch = s.rows[1];
        QCOMPARE(trace->str(launch.name), std::string("cudaLaunchKernel"));
        QCOMPARE(launch.stats.count, std::uint64_t(4));
        QCOMPARE(launch.stats.totalNs, TimeNs(32));
        QCOMPARE(launch.stats.avgNs, 8.0);
        QCOMPARE(launch.stats.medianNs, 8.0);
        QCOMPARE(launch.stats.minNs, TimeNs(5));
        QCOMPARE(launch.stats.maxNs, TimeNs(11));
        QCOMPARE(launch.stats.stddevNs, std::sqrt(20.0 / 3.0));
        QCOMPARE(launch.percent, 100.0 * 32.0 / 135.0);
        QCOMPARE(trace->str(s.rows[2].name), std::string("cuLaunchKernel"));
        QCOMPARE(s.rows[2].stats.totalNs, TimeNs(3));

        QCOMPARE(summarizeApi(*trace).totalNs, TimeNs(1135)); // all ranks
    }
};

QTEST_APPLESS_MAIN(TestAnalysisSummaries)
#include "tst_analysis_summaries.moc"
