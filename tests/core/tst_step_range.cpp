// SPDX-License-Identifier: MIT
// Choosing the step range: group names, the chooser's order, the proposal's rules, and the
// message when nothing looks like a step; pace and step tables match by group name.
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/step_range.h"
#include "trace_fixture.h"

#include <QTest>

using namespace gaplens::core;
using gaplens::test::FixtureBuilder;

namespace {

// Two ranks of PyTorch per-call ranges, as emit_nvtx writes them: every instance of an
// operator has its own name. Rank 0 alone has "rank0_only" (repeated); both have "init" once.
std::unique_ptr<TraceSet> pytorchTrace()
{
    FixtureBuilder b;
    int opId = 0;
    for (int r = 0; r < 2; ++r) {
        const auto t = b.addThread(b.addRank(r));
        b.nvtx(t, 0, 50, "init");
        for (int i = 0; i < 4; ++i) {
            const TimeNs s = 100 + 1000 * i;
            b.nvtx(t, s, s + 900, "aten::linear, op_id = " + std::to_string(++opId));
            b.nvtx(t, s + 10, s + 800, "aten::mm, seq = 3, op_id = " + std::to_string(++opId));
        }
        if (r == 0)
            for (int i = 0; i < 6; ++i)
                b.nvtx(t, 5000 + 10 * i, 5005 + 10 * i, "rank0_only");
    }
    return b.finish();
}

} // namespace

class TestStepRange : public QObject
{
    Q_OBJECT
private slots:
    void paceMatchesGroupNamesAsTheSummariesDo()
    {
        const auto trace = pytorchTrace();
        const auto pace = computePace(*trace, { .rangeName = "aten::mm" });
        QCOMPARE(pace.ranks.size(), std::size_t(2));
        QCOMPARE(pace.ranks[0].iterations.size(), std::size_t(4));
        QCOMPARE(pace.ranks[1].iterations[3].cpu, (TimeRange { 3110, 3900 }));
        // An exact per-call name still finds only its own range.
        const auto one = computePace(*trace, { .rangeName = "aten::mm, seq = 3, op_id = 2" });
        QCOMPARE(one.ranks.size(), std::size_t(1));
        QCOMPARE(one.ranks[0].iterations.size(), std::size_t(1));
        QCOMPARE(one.ranks[0].iterations[0].cpu, (TimeRange { 110, 900 }));
    }

    void stepTablesMatchGroupNamesLikePace()
    {
        const auto trace = std::shared_ptr<const TraceSet>(pytorchTrace());
        const auto derived = DerivedCapture::build(trace, {});
        const auto table = derived->stepTable("aten::linear");
        QCOMPARE(table->startsByRank.size(), std::size_t(2));
        QCOMPARE(table->startsByRank[1], (std::vector<TimeNs> { 100, 1100, 2100, 3100 }));
    }

    void theChooserListsGroupNamesOnEveryRankFirst()
    {
        const auto choice = chooseStepRange(*pytorchTrace());
        QCOMPARE(choice.nvtxRanges, std::uint64_t(2 * (1 + 8) + 6));
        QCOMPARE(choice.ranksWithNvtx, 2u);
        QCOMPARE(choice.candidates.size(), std::size_t(4));
        // Repeating on every rank (8 each), by instances then top-level ones, then by name.
        QCOMPARE(choice.candidates[0].name, std::string("aten::linear"));
        QCOMPARE(choice.candidates[0].count, std::uint64_t(8));
        QCOMPARE(choice.candidates[0].topLevel, std::uint64_t(8));
        QCOMPARE(choice.candidates[0].ranks, 2u);
        QVERIFY(choice.candidates[0].onEveryRank);
        QCOMPARE(choice.candidates[1].name, std::string("aten::mm"));
        QCOMPARE(choice.candidates[1].topLevel, std::uint64_t(0));
        // Repeating on one rank only, though it has the most instances on a rank.
        QCOMPARE(choice.candidates[2].name, std::string("rank0_only"));
        QCOMPARE(choice.candidates[2].mostOnARank, std::uint64_t(6));
        QVERIFY(!choice.candidates[2].onEveryRank);
        // Then the names that never repeat on a rank.
        QCOMPARE(choice.candidates[3].name, std::string("init"));
        for (const auto &c : choice.candidates)
            QVERIFY(!c.stepLike);
        QVERIFY(!choice.proposed);
        QCOMPARE(chooseStepRange(*pytorchTrace(), 2).candidates.size(), std::size_t(2));
    }

    void operatorRangesAreNeverProposedAndTheMessageNamesTheCandidates()
    {
        const auto trace = pytorchTrace();
        QVERIFY(!proposePaceRangeName(*trace));
        QCOMPARE(describeMissingStepRange(chooseStepRange(*trace), 2),
            std::string(
                "no NVTX range looks like a training step (a range that repeats on every rank and covers "
                "at least 10% of the capture, not a PyTorch operator); on every rank: aten::linear (8 on 2 ranks), "
                "aten::mm (8 on 2 ranks); on some ranks: rank0_only (6 on 1 rank)"));
    }

    void aStepMustBeOnEveryRankWithNvtx()
    {
        FixtureBuilder b;
        const auto t0 = b.addThread(b.addRank(0));
        const auto t1 = b.addThread(b.addRank(1));
        b.addThread(b.addRank(2)); // no NVTX: does not count
        for (int i = 0; i < 5; ++i) {
            b.nvtx(t0, 1000 * i, 1000 * i + 800, "train_step");
            b.nvtx(t0, 1000 * i + 850, 1000 * i + 990, "only_here"); // repeats, on one rank only
        }
        for (int i = 0; i < 3; ++i)
            b.nvtx(t1, 1000 * i, 1000 * i + 800, "train_step");
        const auto trace = b.finish();
        QCOMPARE(proposePaceRangeName(*trace), std::optional<std::string>("train_step"));
        const auto choice = chooseStepRange(*trace);
        QCOMPARE(choice.proposed, std::optional<std::string>("train_step"));
        QCOMPARE(choice.ranksWithNvtx, 2u);
        QCOMPARE(choice.candidates.front().name, std::string("train_step"));
        QVERIFY(choice.candidates.front().stepLike);
        QCOMPARE(choice.candidates.front().count, std::uint64_t(8));
        QVERIFY(!choice.candidates[1].stepLike);
    }

    void whatIsTrueWhenNothingRepeats()
    {
        FixtureBuilder none;
        none.addThread(none.addRank(0));
        QCOMPARE(
            describeMissingStepRange(chooseStepRange(*none.finish())), std::string("the capture has no NVTX ranges"));

        // One ncclCommInitRank per rank, as the 6-rank NCCL set has.
        FixtureBuilder nccl;
        for (int r = 0; r < 3; ++r)
            nccl.nvtx(nccl.addThread(nccl.addRank(r)), 0, 100, "ncclCommInitRank");
        const auto trace = nccl.finish();
        QVERIFY(!proposePaceRangeName(*trace));
        const std::string message = describeMissingStepRange(chooseStepRange(*trace));
        QVERIFY2(message.ends_with("; on every rank: ncclCommInitRank (3 on 3 ranks)"), message.c_str());

        // Names on some ranks only are "the most repeated" when no name is on every rank.
        FixtureBuilder split;
        split.nvtx(split.addThread(split.addRank(0)), 0, 100, "left");
        split.nvtx(split.addThread(split.addRank(1)), 0, 100, "right");
        const std::string none2 = describeMissingStepRange(chooseStepRange(*split.finish()));
        QVERIFY2(none2.ends_with("; the most repeated: left (1 on 1 rank), right (1 on 1 rank)"), none2.c_str());

        // Long names (NCCL's carry their arguments) are cut in the message.
        FixtureBuilder longName;
        longName.nvtx(longName.addThread(longName.addRank(0)), 0, 100,
            "ncclNetIsend(): Data_Size: 699392, Sender_Rank: 5, Receiver_Rank: 0");
        const std::string cut = describeMissingStepRange(chooseStepRange(*longName.finish()));
        QVERIFY2(cut.ends_with("; on every rank: ncclNetIsend(): Data_Size: 699392, Se... (1 on 1 rank)"), cut.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStepRange)
#include "tst_step_range.moc"
