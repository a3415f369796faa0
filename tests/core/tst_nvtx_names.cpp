// SPDX-License-Identifier: MIT
// PyTorch-style per-call NVTX names group into one row in summaries and blame totals,
// while each range keeps its exact name.
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/model/nvtx_names.h"
#include "trace_fixture.h"

#include <QTest>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;

class TestNvtxNames : public QObject
{
    Q_OBJECT

private slots:
    void volatileFieldsAreDroppedFromTheGroupName()
    {
        QCOMPARE(nvtxGroupName("aten::mm, seq = 12, op_id = 345"), std::string_view("aten::mm"));
        QCOMPARE(nvtxGroupName("aten::add, op_id = 314359"), std::string_view("aten::add"));
        QCOMPARE(nvtxGroupName("aten::bmm, sizes = [[8, 2], [8, 2]]"), std::string_view("aten::bmm"));
        QCOMPARE(nvtxGroupName("train_step"), std::string_view("train_step"));
        QCOMPARE(nvtxGroupName("a, b = 1"), std::string_view("a, b = 1"));
        QCOMPARE(nvtxGroupName(", op_id = 3"), std::string_view(", op_id = 3")); // nothing left: keep
    }

    void summaryGroupsPerCallNamesAndRangesKeepTheirOwn()
    {
        FixtureBuilder b;
        const auto t = b.addThread(b.addRank(0));
        b.nvtx(t, 1000, 1100, "aten::mm, seq = 1, op_id = 10");
        b.nvtx(t, 2000, 2300, "aten::mm, seq = 2, op_id = 11");
        b.nvtx(t, 3000, 3050, "train_step");
        const auto trace = b.finish();
        const auto summary = summarizeNvtx(*trace);
        QCOMPARE(summary.rows.size(), std::size_t(2));
        QCOMPARE(trace->str(summary.rows[0].name), std::string("aten::mm"));
        QCOMPARE(summary.rows[0].stats.count, std::uint64_t(2));
        QCOMPARE(summary.rows[0].stats.totalNs, TimeNs(400));
        QCOMPARE(trace->str(trace->threads[0].nvtx.name[1]), std::string("aten::mm, seq = 2, op_id = 11"));
    }

    void blamePhasesGroupPerCallNames()
    {
        auto [b, rank, gpu, t] = gaplens::test::oneRankFixture();
        b.kernel(gpu, 7, 0, 100, "k", 1);
        b.kernel(gpu, 7, 300000, 300100, "k", 2);
        b.kernel(gpu, 7, 600000, 600100, "k", 3);
        b.api(t, 150000, 160000, "cudaLaunchKernel", 2);
        b.api(t, 450000, 460000, "cudaLaunchKernel", 3);
        b.nvtx(t, 100, 299000, "aten::copy_, op_id = 1");
        b.nvtx(t, 300200, 599000, "aten::copy_, op_id = 2");
        const auto trace = b.finish();
        const auto report = blameGaps(*trace);
        QCOMPARE(report.gaps.size(), std::size_t(2));
        QCOMPARE(report.overall.byPhase.size(), std::size_t(1));
        QCOMPARE(report.overall.byPhase[0].key, std::string("aten::copy_"));
        QCOMPARE(report.overall.byPhase[0].count, std::uint64_t(2));
        QCOMPARE(trace->str(report.gaps[1].phase()), std::string("aten::copy_, op_id = 2"));
    }
};

QTEST_APPLESS_MAIN(TestNvtxNames)
#include "tst_nvtx_names.moc"
