// SPDX-License-Identifier: MIT
// Chart reduction, the pace chooser's names and pace restricted to a time selection.
#include "trace_fixture.h"

#include "gaplens/core/analysis/panel_data.h"
#include "gaplens/core/analysis/step_range.h"

#include <QTest>

using namespace gaplens;
using namespace gaplens::core;
using gaplens::test::FixtureBuilder;

namespace {
// Two ranks, 5 "step" ranges each ([1000 i, 1000 i + 500 + 100 r)), one "once" range, and
// 3 nested "op" ranges inside the first step.
std::unique_ptr<TraceSet> paceTrace()
{
    FixtureBuilder b;
    for (int r = 0; r < 2; ++r) {
        const auto rank = b.addRank(r);
        const auto t = b.addThread(rank);
        for (int i = 0; i < 5; ++i)
            b.nvtx(t, 1000 * i, 1000 * i + 500 + 100 * r, "step");
        b.nvtx(t, 6000, 6100, "once");
        for (int k = 0; k < 3; ++k)
            b.nvtx(t, 10 + 10 * k, 15 + 10 * k, "op");
    }
    return b.finish();
}
} // namespace

class TestPanelData : public QObject
{
    Q_OBJECT
private slots:
    void shortSeriesPassUnchanged()
    {
        const std::vector<double> y { 3, 1, 2 };
        const auto p = downsampleMinMax(y, 10);
        QCOMPARE(p.size(), std::size_t(3));
        QCOMPARE(p[1], (SeriesPoint { 1, 1 }));
    }

    void longSeriesKeepTheirSpikesWithinTheBudget()
    {
        std::vector<double> y(100'000, 5.0);
        y[54'321] = 900; // one slow iteration
        y[77'777] = -3;
        const auto p = downsampleMinMax(y, 2000);
        QVERIFY(p.size() <= 2000);
        QVERIFY(p.size() >= 1000);
        bool spike = false, dip = false;
        for (std::size_t i = 0; i < p.size(); ++i) {
            spike = spike || p[i] == SeriesPoint { 54'321, 900 };
            dip = dip || p[i] == SeriesPoint { 77'777, -3 };
            if (i > 0)
                QVERIFY(p[i].x > p[i - 1].x); // in index order
        }
        QVERIFY(spike);
        QVERIFY(dip);
    }

    void theChooserOffersTheStepFirstThenNamesThatRepeat()
    {
        const auto t = paceTrace();
        const auto names = chooseStepRange(*t).candidates;
        QCOMPARE(names.size(), std::size_t(3));
        QCOMPARE(names[0].name, std::string("step")); // 10 instances, all top-level
        QCOMPARE(names[0].count, std::uint64_t(10));
        QCOMPARE(names[0].topLevel, std::uint64_t(10));
        QVERIFY(names[0].stepLike);
        QCOMPARE(names[1].name, std::string("op")); // repeats on every rank, nested
        QVERIFY(!names[1].stepLike);
        QCOMPARE(names[2].name, std::string("once")); // never repeats on a rank
        QCOMPARE(names[2].mostOnARank, std::uint64_t(1));
        QCOMPARE(chooseStepRange(*t, 1).candidates.size(), std::size_t(1));
    }

    void aStepRangeMustRepeatOnOneRank()
    {
        QCOMPARE(proposePaceRangeName(*paceTrace()), std::optional<std::string>("step"));
        // One instance per rank of the same per-call name is counted twice over the capture,
        // but it is no step.
        FixtureBuilder b;
        for (int r = 0; r < 2; ++r)
            b.nvtx(b.addThread(b.addRank(r)), 0, 100, "aten::mul, op_id = 7");
        QVERIFY(!proposePaceRangeName(*b.finish()));
    }

    void aWindowKeepsTheIterationsStartingInItAndRecomputesTheVerdict()
    {
        const auto t = paceTrace();
        PaceOptions o;
        o.rangeName = "step";
        const auto full = computePace(*t, o);
        QCOMPARE(full.ranks[0].firstIteration, 0u);
        QCOMPARE(full.iterations.size(), std::size_t(5));
        QVERIFY(full.straggler.has_value());
        QCOMPARE(full.straggler->slowestCount, 5u);

        // Iterations 1 and 2 start in [1000, 2500); 3 and 4 do not.
        o.window = TimeRange { 1000, 2500 };
        const auto w = computePace(*t, o);
        QCOMPARE(w.ranks.size(), std::size_t(2));
        QCOMPARE(w.ranks[0].firstIteration, 1u);
        QCOMPARE(w.ranks[0].iterations.size(), std::size_t(2));
        QCOMPARE(w.ranks[0].iterations[0].cpu.start, TimeNs(1000));
        QCOMPARE(w.ranks[0].iterations[0].deltaToPreviousNs, TimeNs(1000)); // to iteration 0, outside
        QCOMPARE(w.ranks[1].timesSlowest, 2u);
        QCOMPARE(w.iterations.size(), std::size_t(2));
        QCOMPARE(w.iterations[0].medianNs, 550.0);
        QVERIFY(!w.straggler); // fewer than 3 common iterations
        // A window with no iteration start leaves no rank.
        o.window = TimeRange { 5500, 5600 };
        QVERIFY(computePace(*t, o).ranks.empty());
    }
};

QTEST_APPLESS_MAIN(TestPanelData)
#include "tst_panel_data.moc"
