// SPDX-License-Identifier: MIT
// The rank mapping as shown (gaplens-cli ranks, the GUI's Ranks dialog), the check of edited
// rank numbers, and reassigning ranks through overrides: what the next load makes of them.
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/read/rank_identity.h"
#include "sqltestdb.h"
#include "synth_sample.h"
#include "testsupport.h"

#include <QTest>

#include <filesystem>

using namespace gaplens::core;
using gaplens::test::SqlTestDb;

namespace {

std::shared_ptr<TraceSet> load(const std::vector<std::string> &files, std::vector<RankOverride> overrides = {})
{
    LoadOptions options;
    options.files = files;
    options.rankOverrides = std::move(overrides);
    return loadTraceSet(options);
}

// The rank numbers of a trace, by report file name (the file names are unique in these captures).
std::map<std::string, std::int32_t> ranksByFile(const TraceSet &trace)
{
    std::map<std::string, std::int32_t> out;
    for (const auto &row : rankMapping(trace))
        out[std::filesystem::path(row.file).filename().string()] = row.rank;
    return out;
}

// The numbers of `trace`'s ranks with two rank numbers swapped.
std::vector<std::int32_t> swapped(const TraceSet &trace, std::int32_t a, std::int32_t b)
{
    std::vector<std::int32_t> numbers;
    for (const auto &rank : trace.ranks)
        numbers.push_back(rank.rank == a ? b : rank.rank == b ? a : rank.rank);
    return numbers;
}

} // namespace

class TestRankReassign : public QObject
{
    Q_OBJECT

private slots:
    void duplicatesAndGapsAreNamed()
    {
        QVERIFY(checkRankNumbers({ 2, 0, 1 }).ok());
        QVERIFY(checkRankNumbers({}).ok());
        const auto gap = checkRankNumbers({ 0, 1, 4 });
        QCOMPARE(gap.missing, (std::vector<std::int32_t> { 2, 3 }));
        QVERIFY(gap.duplicates.empty());
        const auto dup = checkRankNumbers({ 1, 0, 1, 2, 2, 2 });
        QCOMPARE(dup.duplicates, (std::vector<std::int32_t> { 1, 2 }));
        QVERIFY(dup.missing.empty());
        const auto both = checkRankNumbers({ 1, 1 });
        QCOMPARE(both.duplicates, std::vector<std::int32_t> { 1 });
        QCOMPARE(both.missing, std::vector<std::int32_t> { 0 });
        QCOMPARE(describeRankNumberCheck(both), std::string("rank 1 is claimed more than once; no rank 0"));
        QCOMPARE(describeRankNumberCheck(gap), std::string("no rank 2, 3"));
        QCOMPARE(describeRankNumberCheck(checkRankNumbers({ 0 })), std::string());
    }

    // The ring's ranks come from PMI_RANK in each report's environment (independent: SQL).
    void mappingOfTheRingSaysWhereEachRankCameFrom()
    {
        const auto dir = gaplens::test::realFile("ring_6ranks");
        QVERIFY(!dir.empty());
        const auto trace = load({ dir });
        const auto rows = rankMapping(*trace);
        QCOMPARE(rows.size(), std::size_t(6));
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto &row = rows[i];
            QCOMPARE(row.rankIndex, std::uint32_t(i));
            QCOMPARE(row.rank, std::int32_t(i));
            SqlTestDb db(row.file);
            const auto env = db.text("SELECT value FROM META_DATA_CAPTURE WHERE value LIKE 'PMI_RANK=%'");
            QCOMPARE(env, "PMI_RANK=\"" + std::to_string(row.rank) + "\"");
            QCOMPARE(row.decidedBy, std::string("environment"));
            QCOMPARE(row.detail, env);
            QCOMPARE(row.deviceIds.size(), trace->ranks[i].gpus.size());
            QCOMPARE(row.gpus.empty(), false);
            QCOMPARE(row.pid, trace->ranks[i].pid);
        }
    }

    // Swapping two ranks pins exactly those two files; loading with the overrides swaps them,
    // says so, and leaves the others decided as before.
    void swappingTwoRanksPinsTheirFiles()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(4, 6)));
        const auto before = load({ sample.path.toStdString() });
        QCOMPARE(before->ranks.size(), std::size_t(4));
        const auto overrides = reassignRanks(*before, {}, swapped(*before, 1, 3));
        QCOMPARE(overrides.size(), std::size_t(2));
        for (const auto &o : overrides)
            QVERIFY(!o.pid); // one rank per file: the file is enough

        const auto after = load({ sample.path.toStdString() }, overrides);
        auto expected = ranksByFile(*before);
        std::swap(expected["train_1.sqlite"], expected["train_3.sqlite"]);
        QCOMPARE(ranksByFile(*after), expected);
        for (const auto &row : rankMapping(*after)) {
            const bool moved = row.rank == 1 || row.rank == 3;
            QCOMPARE(row.decidedBy, std::string(moved ? "override" : rankSourceName(before->ranks[0].source)));
            if (moved)
                QCOMPARE(row.detail, std::string("set by the user"));
        }
        QVERIFY(after->warnings.empty());

        // Moving an overridden rank again replaces its override; the other one stays.
        const auto again = reassignRanks(*after, overrides, swapped(*after, 3, 0));
        QCOMPARE(again.size(), std::size_t(3)); // train_1's replaced, train_3's kept, train_0's added
        const auto third = load({ sample.path.toStdString() }, again);
        QCOMPARE(ranksByFile(*third),
            (std::map<std::string, std::int32_t> {
                { "train_0.sqlite", 3 }, { "train_1.sqlite", 0 }, { "train_2.sqlite", 2 }, { "train_3.sqlite", 1 } }));
        // Unchanged numbers make no override.
        QCOMPARE(reassignRanks(*third, again, swapped(*third, 0, 0)).size(), again.size());
    }

    // Two GPU processes in one report: each override names its process.
    void ranksOfOneReportArePinnedByProcess()
    {
        const auto file = gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY(!file.empty());
        const auto before = load({ file });
        QCOMPARE(before->ranks.size(), std::size_t(2));
        QCOMPARE(rankMapping(*before)[0].decidedBy, std::string("process"));
        const auto pid0 = before->ranks[0].pid, pid1 = before->ranks[1].pid;
        const auto overrides = reassignRanks(*before, {}, swapped(*before, 0, 1));
        QCOMPARE(overrides.size(), std::size_t(2));
        QCOMPARE(overrides[0].pid, std::optional<std::uint32_t>(pid0));
        QCOMPARE(overrides[0].rank, 1);
        const auto after = load({ file }, overrides);
        QCOMPARE(after->ranks[0].pid, pid1);
        QCOMPARE(after->ranks[1].pid, pid0);
        QCOMPARE(after->ranks[0].source, RankSource::Override);
    }

    // The straggler is a process, not a number: renumbering it moves the verdict and the pace
    // row with it.
    void overrideMovesThePaceAndTheStragglerVerdict()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(4, 8, 1)));
        PaceOptions pace;
        pace.rangeName = "train_step";
        const auto before = load({ sample.path.toStdString() });
        const auto paceBefore = computePace(*before, pace);
        QVERIFY(paceBefore.straggler);
        QCOMPARE(before->ranks[paceBefore.straggler->rank].rank, 1);
        QVERIFY(describeStraggler(*before, *paceBefore.straggler).starts_with("rank 1 was slowest"));

        const auto after = load({ sample.path.toStdString() }, reassignRanks(*before, {}, swapped(*before, 1, 2)));
        const auto paceAfter = computePace(*after, pace);
        QVERIFY(paceAfter.straggler);
        QCOMPARE(after->ranks[paceAfter.straggler->rank].rank, 2);
        QVERIFY(describeStraggler(*after, *paceAfter.straggler).starts_with("rank 2 was slowest"));
        // The same process, the same figures: its median step moved to rank 2's row.
        const auto medianOf = [](const PaceReport &p, const TraceSet &t, std::int32_t number) {
            for (const auto &r : p.ranks)
                if (t.ranks[r.rank].rank == number)
                    return r.medianNs;
            return -1.0;
        };
        QCOMPARE(medianOf(paceAfter, *after, 2), medianOf(paceBefore, *before, 1));
        QCOMPARE(medianOf(paceAfter, *after, 1), medianOf(paceBefore, *before, 2));
        QCOMPARE(after->ranks[paceAfter.straggler->rank].pid, before->ranks[paceBefore.straggler->rank].pid);
    }
};

QTEST_APPLESS_MAIN(TestRankReassign)
#include "tst_rank_reassign.moc"
