// SPDX-License-Identifier: MIT
// Idle gaps grouped by cause, then the CUDA call the host was in, then the NVTX phase: exact
// counts and totals on a hand-built capture, and on a real export every level adds up to the
// derived capture's own totals.
#include "gaplens/core/analysis/blame_tree.h"
#include "testsupport.h"
#include "trace_counts.h"
#include "trace_fixture.h"

#include <QTest>

#include <map>
#include <numeric>
#include <string>
#include <vector>

using namespace gaplens::core;

namespace {

constexpr TimeNs S = 10'000;

// One GPU, kernels back to back but for four gaps (times relative to S):
//   A [1000,1400) 400 ns: host in cudaStreamSynchronize [1100,1350), in "forward" [900,1500)
//   B [2000,2300) 300 ns: host in cudaStreamSynchronize [2100,2250), in "backward" [1900,2400)
//   C [3000,3500) 500 ns: no CUDA call at the midpoint, in pthread_cond_wait [3100,3400),
//     in "forward" [2900,4300)
//   D [4000,4200) 200 ns: host in cudaDeviceSynchronize [4050,4150), in "forward"
// Every kernel is launched just before it starts, after the gap began (not queued).
std::shared_ptr<const DerivedCapture> fourGaps()
{
    auto [b, rank, gpu, thread] = gaplens::test::oneRankFixture();
    const std::pair<TimeNs, TimeNs> kernels[]
        = { { 0, 1000 }, { 1400, 2000 }, { 2300, 3000 }, { 3500, 4000 }, { 4200, 4500 } };
    std::uint32_t correlation = 1;
    for (const auto &[start, end] : kernels) {
        b.api(thread, S + start - 40, S + start - 20, "cudaLaunchKernel", correlation);
        b.kernel(gpu, 7, S + start, S + end, "gemm", correlation++);
    }
    b.api(thread, S + 1100, S + 1350, "cudaStreamSynchronize");
    b.api(thread, S + 2100, S + 2250, "cudaStreamSynchronize");
    b.api(thread, S + 4050, S + 4150, "cudaDeviceSynchronize");
    b.osrt(thread, S + 3100, S + 3400, "pthread_cond_wait");
    b.nvtx(thread, S + 900, S + 1500, "forward");
    b.nvtx(thread, S + 1900, S + 2400, "backward");
    b.nvtx(thread, S + 2900, S + 4300, "forward");
    DerivedOptions options;
    options.minGapNs = 100;
    options.foldIndexes = false;
    return DerivedCapture::build(std::shared_ptr<const TraceSet>(b.finish()), options);
}

std::vector<GapId> allGaps(const DerivedCapture &derived)
{
    std::vector<GapId> ids;
    for (const auto &range : derived.gapsIn(RankSelection {}, std::nullopt))
        for (auto i = range.begin; i < range.end; ++i)
            ids.push_back({ range.gpu, i });
    return ids;
}

// "key count total" of a node, for exact comparisons of a whole level at once.
std::string describe(const BlameTreeNode &node)
{
    return node.key + " " + std::to_string(node.count) + " " + std::to_string(node.totalNs);
}

std::vector<std::string> describeAll(const BlameTree &tree, const std::vector<std::uint32_t> &nodes)
{
    std::vector<std::string> out;
    for (const auto n : nodes)
        out.push_back(describe(tree.nodes[n]));
    return out;
}

} // namespace

class TestBlameTree : public QObject
{
    Q_OBJECT
private slots:
    void gapsGroupByCauseThenCallThenPhaseLargestFirst()
    {
        const auto derived = fourGaps();
        const auto ids = allGaps(*derived);
        QCOMPARE(ids.size(), std::size_t(4));
        const auto tree = buildBlameTree(*derived, ids);

        QCOMPARE(describeAll(tree, tree.roots),
            (std::vector<std::string> { "CUDA API call 3 900", "no CUDA call (host busy elsewhere) 1 500" }));
        const auto &api = tree.nodes[tree.roots[0]];
        QCOMPARE(api.level, BlameLevel::Cause);
        QCOMPARE(api.cause, GapCause::ApiCall);
        QCOMPARE(api.longestNs, TimeNs(400));
        QCOMPARE(describeAll(tree, api.children),
            (std::vector<std::string> { "cudaStreamSynchronize 2 700", "cudaDeviceSynchronize 1 200" }));
        const auto &stream = tree.nodes[api.children[0]];
        QCOMPARE(stream.level, BlameLevel::Call);
        QCOMPARE(describeAll(tree, stream.children), (std::vector<std::string> { "forward 1 400", "backward 1 300" }));
        QCOMPARE(tree.nodes[stream.children[0]].level, BlameLevel::Phase);
        QVERIFY(tree.nodes[stream.children[0]].children.empty());
        QCOMPARE(
            describeAll(tree, tree.nodes[api.children[1]].children), (std::vector<std::string> { "forward 1 200" }));

        const auto &host = tree.nodes[tree.roots[1]];
        QCOMPARE(describeAll(tree, host.children), (std::vector<std::string> { "pthread_cond_wait 1 500" }));
        QCOMPARE(
            describeAll(tree, tree.nodes[host.children[0]].children), (std::vector<std::string> { "forward 1 500" }));

        // Each node holds its gaps in time order: the stream-synchronize ones are A then B.
        QCOMPARE(stream.gaps.size(), std::size_t(2));
        QCOMPARE(derived->gap(stream.gaps[0]).gap, (TimeRange { S + 1000, S + 1400 }));
        QCOMPARE(derived->gap(stream.gaps[1]).gap, (TimeRange { S + 2000, S + 2300 }));
        QCOMPARE(api.gaps.size(), std::size_t(3));
        QCOMPARE(derived->gap(api.gaps[2]).gap, (TimeRange { S + 4000, S + 4200 }));
    }

    // Without OS runtime data a no-CUDA-call gap says so at the call level.
    void aHostGapWithoutAnOsCallSaysNoneWasTraced()
    {
        auto [b, rank, gpu, thread] = gaplens::test::oneRankFixture();
        b.api(thread, S - 40, S - 20, "cudaLaunchKernel", 1);
        b.kernel(gpu, 7, S, S + 100, "gemm", 1);
        b.api(thread, S + 560, S + 580, "cudaLaunchKernel", 2);
        b.kernel(gpu, 7, S + 600, S + 700, "gemm", 2);
        DerivedOptions options;
        options.minGapNs = 100;
        options.foldIndexes = false;
        const auto derived = DerivedCapture::build(std::shared_ptr<const TraceSet>(b.finish()), options);
        const auto tree = buildBlameTree(*derived, allGaps(*derived));
        QCOMPARE(
            describeAll(tree, tree.roots), (std::vector<std::string> { "no CUDA call (host busy elsewhere) 1 500" }));
        QCOMPARE(describeAll(tree, tree.nodes[tree.roots[0]].children),
            (std::vector<std::string> { "(no OS call traced) 1 500" }));
    }

    void aSubsetOfGapsGivesTheTreeOfThatSubset()
    {
        const auto derived = fourGaps();
        auto ids = allGaps(*derived);
        ids.erase(ids.begin()); // without gap A
        const auto tree = buildBlameTree(*derived, ids);
        QCOMPARE(describeAll(tree, tree.roots),
            (std::vector<std::string> { "CUDA API call 2 500", "no CUDA call (host busy elsewhere) 1 500" }));
        QVERIFY(buildBlameTree(*derived, {}).roots.empty());
    }

    // On real exports, each level's children add up to their parent, and the causes to the
    // derived capture's overall totals (computed apart, by its own blame totals).
    void everyLevelAddsUpToItsParentOnRealExports_data()
    {
        QTest::addColumn<QString>("file");
        for (const char *name :
            { "nsysai_h100_2gpu_1s.sqlite", "nsysai_mfu_2gpu_before.sqlite", "gpu4_streams_report2.sqlite" })
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void everyLevelAddsUpToItsParentOnRealExports()
    {
        QFETCH(QString, file);
        const auto path = gaplens::test::realFile(file.toUtf8().constData());
        QVERIFY(!path.empty());
        DerivedOptions options;
        options.foldIndexes = false;
        const auto derived = DerivedCapture::build(gaplens::test::load({ path }), options);
        const auto ids = allGaps(*derived);
        QVERIFY(!ids.empty());
        const auto tree = buildBlameTree(*derived, ids);
        const auto totals = derived->totalsOf(ids);
        std::uint64_t count = 0;
        TimeNs total = 0, copy = 0;
        for (const auto r : tree.roots) {
            count += tree.nodes[r].count;
            total += tree.nodes[r].totalNs;
            copy += tree.nodes[r].copyNs;
        }
        QCOMPARE(count, totals.gapCount);
        QCOMPARE(total, totals.totalGapNs);
        QCOMPARE(copy, totals.copyNs);
        // The causes and their calls are the derived capture's byCause buckets, regrouped.
        std::map<std::string, TimeNs> byCauseKey;
        for (const auto &bucket : totals.byCause)
            byCauseKey[bucket.key] += bucket.totalNs;
        std::map<std::string, TimeNs> fromTree;
        for (const auto &node : tree.nodes) {
            if (!node.children.empty()) {
                std::uint64_t childCount = 0;
                TimeNs childTotal = 0;
                for (const auto c : node.children) {
                    childCount += tree.nodes[c].count;
                    childTotal += tree.nodes[c].totalNs;
                    QCOMPARE(int(tree.nodes[c].level), int(node.level) + 1);
                }
                QCOMPARE(childCount, node.count);
                QCOMPARE(childTotal, node.totalNs);
            }
            QCOMPARE(node.gaps.size(), std::size_t(node.count));
            if (node.level == BlameLevel::Call)
                fromTree[node.cause == GapCause::ApiCall && node.key != kNoCallLabel
                        ? node.key
                        : std::string(gapCauseLabel(node.cause))]
                    += node.totalNs;
        }
        QCOMPARE(fromTree, byCauseKey);
    }
};

QTEST_APPLESS_MAIN(TestBlameTree)
#include "tst_blame_tree.moc"
