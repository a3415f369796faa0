// SPDX-License-Identifier: MIT
// A kernel's duration histogram: bins on linear and log axes, exact median and p95, the
// slowest instances, a shared axis, the rank selection.
#include "gaplens/core/analysis/kernel_histogram.h"
#include "trace_fixture.h"

#include <QTest>

#include <numeric>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;
using gaplens::test::T0;

namespace {

// Rank 0: gemm lasting 10, 20, ..., 100 ns and one of 1000 ns (the outlier, launched first),
// plus a "copy_k" kernel; rank 1: one gemm of 5000 ns.
std::shared_ptr<const TraceSet> fixture()
{
    FixtureBuilder b;
    const auto r0 = b.addRank(0);
    const auto g0 = b.addGpu(r0, 0);
    b.kernel(g0, 7, T0, T0 + 1000, "gemm");
    for (int i = 1; i <= 10; ++i)
        b.kernel(g0, 7, T0 + 10'000 * i, T0 + 10'000 * i + 10 * i, "gemm");
    b.kernel(g0, 8, T0 + 500, T0 + 600, "copy_k");
    const auto r1 = b.addRank(1);
    const auto g1 = b.addGpu(r1, 0);
    b.kernel(g1, 7, T0, T0 + 5000, "gemm");
    return b.finish();
}

std::uint64_t binTotal(const KernelHistogram &h)
{
    return std::accumulate(h.bins.begin(), h.bins.end(), std::uint64_t(0),
        [](std::uint64_t n, const HistogramBin &b) { return n + b.count(); });
}

} // namespace

class TestKernelHistogram : public QObject
{
    Q_OBJECT

private slots:
    void linearBinsCountEveryInstance()
    {
        const auto trace = fixture();
        KernelHistogramOptions options;
        options.ranks = RankSelection::only({ 0 });
        options.bins = 4;
        const auto h = computeKernelHistogram(*trace, trace->strings.find("gemm"), options);
        QCOMPARE(h.count(), std::size_t(11));
        QCOMPARE(h.minNs, TimeNs(10));
        QCOMPARE(h.maxNs, TimeNs(1000));
        QCOMPARE(h.medianNs, 60.0);
        QCOMPARE(h.p95Ns, TimeNs(1000)); // nearest rank ceil(0.95 * 11) = 11
        QCOMPARE(h.bins.size(), std::size_t(4));
        QCOMPARE(h.bins[0].lo, 10.0);
        QCOMPARE(h.bins[0].hi, 257.5);
        QCOMPARE(h.bins[3].hi, 1000.0);
        QCOMPARE(h.bins[0].count(), std::uint64_t(10));
        QCOMPARE(h.bins[1].count(), std::uint64_t(0));
        QCOMPARE(h.bins[2].count(), std::uint64_t(0));
        QCOMPARE(h.bins[3].count(), std::uint64_t(1)); // the last bin holds its upper edge
        QCOMPARE(binTotal(h), std::uint64_t(h.count()));
        QCOMPARE(h.below + h.above, std::uint64_t(0));
        // A bin's instances are a run of the duration order, and point at the kernels.
        const auto &outlier = h.instances[h.bins[3].first];
        QCOMPARE(outlier.duration, TimeNs(1000));
        QCOMPARE(outlier.start, T0);
        const auto &k = trace->gpus[outlier.gpu].streams[outlier.stream].kernels;
        QCOMPARE(k.end[outlier.index] - k.start[outlier.index], TimeNs(1000));

        const auto slowest = h.slowest(3);
        QCOMPARE(slowest.size(), std::size_t(3));
        QCOMPARE(slowest[0].duration, TimeNs(1000));
        QCOMPARE(slowest[1].duration, TimeNs(100));
        QCOMPARE(slowest[2].duration, TimeNs(90));
        QCOMPARE(h.slowest(50).size(), std::size_t(11));
    }

    void logBinsAreEvenInLog10()
    {
        const auto trace = fixture();
        KernelHistogramOptions options;
        options.ranks = RankSelection::only({ 0 });
        options.bins = 2;
        options.logarithmic = true;
        const auto h = computeKernelHistogram(*trace, trace->strings.find("gemm"), options);
        QCOMPARE(h.bins.size(), std::size_t(2));
        QCOMPARE(h.bins[0].lo, 10.0);
        QCOMPARE(h.bins[0].hi, 100.0); // 10^1 .. 10^2 .. 10^3
        QCOMPARE(h.bins[0].count(), std::uint64_t(9)); // 10 .. 90
        QCOMPARE(h.bins[1].count(), std::uint64_t(2)); // 100 and 1000
        QCOMPARE(binTotal(h), std::uint64_t(h.count()));
    }

    void allRanksAndSharedAxis()
    {
        const auto trace = fixture();
        KernelHistogramOptions options;
        options.bins = 3;
        const auto all = computeKernelHistogram(*trace, trace->strings.find("gemm"), options);
        QCOMPARE(all.count(), std::size_t(12));
        QCOMPARE(all.maxNs, TimeNs(5000));
        QCOMPARE(all.medianNs, 65.0); // (60 + 70) / 2
        QCOMPARE(all.p95Ns, TimeNs(5000)); // ceil(0.95 * 12) = 12
        QCOMPARE(binTotal(all), std::uint64_t(12));

        // A fixed axis (the compare window's shared one): instances outside it are counted apart.
        options.ranks = RankSelection::only({ 0 });
        options.axis = std::pair<TimeNs, TimeNs>(20, 500);
        options.bins = 2;
        const auto fixed = computeKernelHistogram(*trace, trace->strings.find("gemm"), options);
        QCOMPARE(fixed.below, std::uint64_t(1)); // 10
        QCOMPARE(fixed.above, std::uint64_t(1)); // 1000
        QCOMPARE(fixed.bins[0].lo, 20.0);
        QCOMPARE(fixed.bins[0].hi, 260.0);
        QCOMPARE(fixed.bins[0].count(), std::uint64_t(9));
        QCOMPARE(fixed.bins[1].count(), std::uint64_t(0));
        QCOMPARE(binTotal(fixed) + fixed.below + fixed.above, std::uint64_t(fixed.count()));

        QCOMPARE(computeKernelHistogram(*trace, trace->strings.find("copy_k"), options).count(), std::size_t(1));
        const auto none = computeKernelHistogram(*trace, kEmptyString);
        QCOMPARE(none.count(), std::size_t(0));
        QVERIFY(none.bins.empty());
    }

    void oneDurationGivesOneBin()
    {
        const auto edges = histogramEdges(50, 50, 10, false);
        QCOMPARE(edges.size(), std::size_t(2));
        QCOMPARE(edges[0], 50.0);
        QCOMPARE(edges[1], 51.0);
    }
};

QTEST_APPLESS_MAIN(TestKernelHistogram)
#include "tst_kernel_histogram.moc"
