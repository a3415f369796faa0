// SPDX-License-Identifier: MIT
#include "gaplens/core/read/rank_identity.h"

#include <QTest>

using namespace gaplens::core;

class TestRankIdentity : public QObject
{
    Q_OBJECT

    static RankCandidate file(std::uint32_t report, std::string path, std::uint32_t pid = 100)
    {
        RankCandidate c;
        c.report = report;
        c.path = std::move(path);
        c.pid = pid;
        return c;
    }

    // assignRanks without overrides, for cases that do not look at the warnings.
    static std::vector<RankAssignment> assign(const std::vector<RankCandidate> &candidates)
    {
        std::vector<std::string> warnings;
        return assignRanks(candidates, {}, warnings);
    }

private slots:
    void environmentRankWinsOverFileNames()
    {
        std::vector<RankCandidate> c { file(0, "train_0.sqlite"), file(1, "train_1.sqlite") };
        c[0].environmentRank = { { 1, "PMI_RANK=\"1\"" } };
        c[1].environmentRank = { { 0, "PMI_RANK=\"0\"" } };
        std::vector<std::string> warnings;
        const auto a = assignRanks(c, {}, warnings);
        QCOMPARE(a[0].rank, 1);
        QCOMPARE(a[1].rank, 0);
        QCOMPARE(a[0].source, RankSource::Environment);
        QCOMPARE(a[0].detail, std::string("PMI_RANK=\"1\""));
        QVERIFY(warnings.empty());
    }

    void fileNameNumbersZeroToNMinusOneGiveTheRanks()
    {
        std::vector<RankCandidate> c { file(0, "/x/train_2.sqlite"), file(1, "/x/train_0.sqlite"),
            file(2, "/x/train_1.sqlite") };
        const auto a = assign(c);
        QCOMPARE(a[0].rank, 2);
        QCOMPARE(a[1].rank, 0);
        QCOMPARE(a[2].rank, 1);
        QCOMPARE(a[0].source, RankSource::FileName);
    }

    void pidsInFileNamesAreNotRanks()
    {
        // As ring_6ranks/nsys_report_<host>_<pid>.sqlite: numbers are not 0..N-1.
        std::vector<RankCandidate> c { file(0, "rep_ault44_1004534.sqlite"), file(1, "rep_ault43_854730.sqlite"),
            file(2, "rep_ault43_854723.sqlite") };
        const auto a = assign(c);
        QCOMPARE(a[2].rank, 0); // ault43_854723 < ault43_854730 < ault44_...
        QCOMPARE(a[1].rank, 1);
        QCOMPARE(a[0].rank, 2);
        QCOMPARE(a[0].source, RankSource::FileOrder);
    }

    void partialEnvironmentFallsBackToFileOrder()
    {
        std::vector<RankCandidate> c { file(0, "b.sqlite"), file(1, "a.sqlite") };
        c[0].environmentRank = { { 0, "RANK=\"0\"" } };
        const auto a = assign(c);
        QCOMPARE(a[1].rank, 0);
        QCOMPARE(a[0].rank, 1);
        QCOMPARE(a[1].source, RankSource::FileOrder);
    }

    void severalGpuProcessesInOneReportAreRanksInPidOrder()
    {
        auto p1 = file(0, "both.sqlite", 112);
        auto p0 = file(0, "both.sqlite", 111);
        p1.oneOfSeveralProcesses = p0.oneOfSeveralProcesses = true;
        const auto a = assign({ p1, p0 });
        QCOMPARE(a[0].rank, 1);
        QCOMPARE(a[1].rank, 0);
        QCOMPARE(a[0].source, RankSource::Process);
    }

    void overridesWinAndDuplicatesAreWarned()
    {
        std::vector<RankCandidate> c { file(0, "/d/train_0.sqlite"), file(1, "/d/train_1.sqlite") };
        std::vector<std::string> warnings;
        auto a = assignRanks(c, { { "train_0.sqlite", std::nullopt, 7 } }, warnings);
        QCOMPARE(a[0].rank, 7);
        QCOMPARE(a[0].source, RankSource::Override);
        QCOMPARE(a[1].rank, 1);
        QVERIFY(warnings.empty());

        a = assignRanks(c, { { "train_0.sqlite", std::nullopt, 1 } }, warnings);
        QCOMPARE(warnings.size(), std::size_t(1));
        QVERIFY(warnings[0].find("claim rank 1") != std::string::npos);

        warnings.clear();
        assignRanks(c, { { "nope.sqlite", std::nullopt, 1 } }, warnings);
        QCOMPARE(warnings.size(), std::size_t(1));
        QVERIFY(warnings[0].find("nope.sqlite") != std::string::npos);
    }

    void overrideCanNameOneProcess()
    {
        auto a0 = file(0, "both.sqlite", 111), a1 = file(0, "both.sqlite", 112);
        a0.oneOfSeveralProcesses = a1.oneOfSeveralProcesses = true;
        std::vector<std::string> warnings;
        const auto a = assignRanks({ a0, a1 }, { { "both.sqlite", 112u, 0 }, { "both.sqlite", 111u, 1 } }, warnings);
        QCOMPARE(a[0].rank, 1);
        QCOMPARE(a[1].rank, 0);
    }

    void naturalOrderComparesDigitRunsAsNumbers()
    {
        QVERIFY(naturalLess("train_2.sqlite", "train_10.sqlite"));
        QVERIFY(!naturalLess("train_10.sqlite", "train_2.sqlite"));
        QVERIFY(naturalLess("a_007", "a_8"));
        QVERIFY(naturalLess("a", "a1"));
        QVERIFY(!naturalLess("same", "same"));
    }

    void numberInFileNameIsTheLastDigitRun()
    {
        QCOMPARE(numberInFileName("/runs/2024/train_12.sqlite"), std::optional<std::int64_t>(12));
        QCOMPARE(numberInFileName("node3_rank5_final.sqlite"), std::optional<std::int64_t>(5));
        QCOMPARE(numberInFileName("report.sqlite"), std::optional<std::int64_t>());
    }

    void rankOverrideSpecsParse()
    {
        auto o = parseRankOverride("runs/train_3.sqlite=5");
        QVERIFY(o.has_value());
        QCOMPARE(o->file, std::string("runs/train_3.sqlite"));
        QCOMPARE(o->rank, 5);
        QVERIFY(!o->pid.has_value());
        o = parseRankOverride("both.sqlite:112=0");
        QVERIFY(o.has_value());
        QCOMPARE(o->file, std::string("both.sqlite"));
        QCOMPARE(o->pid, std::optional<std::uint32_t>(112));
        QVERIFY(!parseRankOverride("nofile").has_value());
        QVERIFY(!parseRankOverride("f.sqlite=x").has_value());
        QVERIFY(!parseRankOverride("f.sqlite=-1").has_value());
    }
};

QTEST_APPLESS_MAIN(TestRankIdentity)
#include "tst_rank_identity.moc"
