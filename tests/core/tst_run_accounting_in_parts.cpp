// SPDX-License-Identifier: MIT
// Run accounting computed in parts (one thread per part standing in for gaplens-mpi's
// processes, each holding some of the files) equals the accounting of the whole capture: the
// step range and work source decided over the parts, each rank accounted on its part, the
// first failed rank's error and the overall figures from finishRunAccounting, every figure
// bit for bit. On a generated job with checkpoints, validation and data waits (proposed and
// given step range, --between, --ranks, work per step), the mfu pair with the H100 (no step
// range), a --between range one rank lacks, a bad pattern and a selection of no rank. And in
// time shards (one report split by start time, a part per shard): each shard's ranges
// collected, joined per rank and accounted, equal to the whole report's accounting.
#include "capture_parts.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/read/time_shards.h"
#include "shard_windows.h"
#include "synth_sample.h"
#include "testsupport.h"
#include "thread_parts.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

using namespace gaplens::core;

namespace {

using gaplens::test::rankKey;
using gaplens::test::RankKey;
using gaplens::test::realFiles;
using gaplens::test::sameBits;

bool sameOptional(const std::optional<double> &a, const std::optional<double> &b)
{
    return a.has_value() == b.has_value() && (!a || sameBits(*a, *b));
}

bool sameGroup(const StepTimeGroup &a, const StepTimeGroup &b)
{
    return a.count == b.count && sameBits(a.medianNs, b.medianNs) && a.p95Ns == b.p95Ns && a.maxNs == b.maxNs
        && a.minNs == b.minNs && a.q1Ns == b.q1Ns && a.q3Ns == b.q3Ns;
}

void compareRank(const RankRunAccounting &a, const RankRunAccounting &b, const QByteArray &where)
{
    QVERIFY2(a.rank == b.rank && a.window == b.window && a.partitionNs == b.partitionNs, where);
    QVERIFY2(a.spans.start == b.spans.start && a.spans.end == b.spans.end && a.spans.state == b.spans.state, where);
    QVERIFY2(a.steps == b.steps && a.stepsWithoutPayload == b.stepsWithoutPayload
            && a.stepsOutsideWindow == b.stepsOutsideWindow && sameBits(a.work, b.work),
        where);
    QVERIFY2(sameOptional(a.activeRate, b.activeRate) && sameOptional(a.sustainedRate, b.sustainedRate)
            && sameOptional(a.sustainedOverActive, b.sustainedOverActive),
        where);
    QVERIFY2(a.stepTimeByState.size() == b.stepTimeByState.size(), where);
    for (std::size_t s = 0; s < a.stepTimeByState.size(); ++s) {
        const auto &x = a.stepTimeByState[s], &y = b.stepTimeByState[s];
        QVERIFY2(x.state == y.state && sameGroup(x.inside, y.inside) && sameGroup(x.outside, y.outside)
                && sameBits(x.pValue, y.pValue) && x.significant == y.significant,
            where + ", step time by state " + QByteArray::number(qulonglong(s)));
    }
    QVERIFY2(a.checkpoint.has_value() == b.checkpoint.has_value(), where);
    if (a.checkpoint) {
        const auto &x = *a.checkpoint, &y = *b.checkpoint;
        QVERIFY2(x.count == y.count && x.stagingCount == y.stagingCount && sameOptional(x.cadenceNs, y.cadenceNs)
                && sameBits(x.medianDurationNs, y.medianDurationNs) && x.p95DurationNs == y.p95DurationNs
                && x.commitP95Ns == y.commitP95Ns && sameOptional(x.p95OverCadence, y.p95OverCadence)
                && sameBits(x.backlogFirstHalf, y.backlogFirstHalf)
                && sameBits(x.backlogSecondHalf, y.backlogSecondHalf) && x.backlogMax == y.backlogMax
                && x.backlogGrowing == y.backlogGrowing && x.commitsNs == y.commitsNs,
            where + ", checkpoint");
    }
}

void compareAccounting(const RunAccounting &whole, const RunAccounting &parts, const QByteArray &where)
{
    QVERIFY2(parts.error == whole.error, where + ": " + QByteArray::fromStdString(parts.error));
    QVERIFY2(parts.stepRange == whole.stepRange && parts.patterns == whole.patterns, where);
    QVERIFY2(parts.windowRule == whole.windowRule && parts.windowText == whole.windowText, where);
    QVERIFY2(parts.workSource == whole.workSource && parts.workUnit == whole.workUnit, where);
    QVERIFY2(parts.ranks.size() == whole.ranks.size(), where);
    for (std::size_t r = 0; r < whole.ranks.size(); ++r)
        compareRank(whole.ranks[r], parts.ranks[r], where + ", rank index " + QByteArray::number(whole.ranks[r].rank));
    QVERIFY2(parts.slowestRank == whole.slowestRank, where);
    compareRank(whole.overall, parts.overall, where + ", overall");
}

// The accounting of `files` whole and in `partCount` parts, for `options` (options.ranks in
// the whole capture's rank indices), compared; the whole's error.
std::string compareInParts(
    const std::vector<std::string> &files, std::size_t partCount, RunAccountingOptions options, const QByteArray &what)
{
    const auto whole = gaplens::test::loadOnOneThread(files);
    if (!whole->errors.empty() || whole->ranks.empty()) {
        QTest::qFail("the capture does not load", __FILE__, __LINE__);
        return {};
    }
    std::map<RankKey, std::uint32_t> wholeIndex;
    for (std::uint32_t r = 0; r < whole->ranks.size(); ++r)
        wholeIndex.emplace(rankKey(*whole, r), r);
    const auto expected = computeRunAccounting(*whole, options);
    const auto parts = gaplens::test::loadInParts(files, partCount);

    // What each part sends the root: its settings, its first failed rank, its ranks.
    std::vector<RunAccountingPart> results(partCount);
    std::vector<std::vector<std::uint32_t>> globalOf(partCount);
    gaplens::test::ThreadParts(partCount).run([&](std::size_t p, const PartsReduction &reduction) {
        const auto &part = *parts[p];
        std::vector<std::uint32_t> selected;
        for (std::uint32_t k = 0; k < part.ranks.size(); ++k) {
            globalOf[p].push_back(wholeIndex.at(rankKey(part, k)));
            if (options.ranks.includes(globalOf[p].back()))
                selected.push_back(k);
        }
        RunAccountingOptions partOptions = options;
        partOptions.ranks = RankSelection::only(selected.empty() ? std::vector<std::uint32_t> { kNoIndex } : selected);
        results[p] = computeRunAccountingPart(part, partOptions, reduction);
    });
    // The root's part, as gaplens-mpi's root does it.
    RunAccounting merged = results.front().accounting;
    merged.ranks.clear();
    if (results.front().failedRank != kNoIndex)
        merged.error.clear();
    std::optional<std::uint32_t> firstFailed;
    std::uint64_t stepRanges = 0;
    for (std::size_t p = 0; p < partCount; ++p) {
        const auto &r = results[p];
        if (r.failedRank != kNoIndex && (!firstFailed || globalOf[p][r.failedRank] < *firstFailed)) {
            firstFailed = globalOf[p][r.failedRank];
            merged.error = r.accounting.error;
        }
        stepRanges += r.stepRanges;
        for (auto rank : r.accounting.ranks) {
            rank.rank = globalOf[p][rank.rank];
            merged.ranks.push_back(std::move(rank));
        }
    }
    std::sort(merged.ranks.begin(), merged.ranks.end(), [](const auto &a, const auto &b) { return a.rank < b.rank; });
    compareAccounting(expected, finishRunAccounting(std::move(merged), stepRanges),
        what + ", " + QByteArray::number(qulonglong(partCount)) + " parts");
    return expected.error;
}

// The accounting of one report in `shardCount` time shards: each shard collects its ranges
// (collectRunRangesPart, the step range decided by the caller as gaplens-mpi decides it from
// the shards' tallies), the root joins each rank's shards, given in reverse to show the
// order does not matter, and accounts them; compared with the whole report's. The error.
std::string compareInShards(
    const std::string &file, std::size_t shardCount, const RunAccountingOptions &options, const QByteArray &what)
{
    const auto whole = gaplens::test::loadOnOneThread({ file });
    const auto expected = computeRunAccounting(*whole, options);
    const auto proposed = proposePaceRangeName(*whole);
    const DecidedStepRange stepRange = !options.stepRange.empty() ? DecidedStepRange(options.stepRange)
        : proposed                                                ? DecidedStepRange(*proposed)
                                                                  : DecidedStepRange(chooseStepRange(*whole));
    const auto shards
        = gaplens::test::loadInWindows(file, gaplens::test::sampledWindows(file, kTimeShardTables, shardCount));
    std::vector<RunRangesPart> collected(shards.size());
    gaplens::test::ThreadParts(shards.size()).run([&](std::size_t p, const PartsReduction &reduction) {
        collected[p] = collectRunRangesPart(*shards[p], options, stepRange, reduction);
    });
    // A shard of the report names its ranks as the whole report does.
    std::map<std::uint32_t, RankRunRanges> joined;
    for (std::size_t p = shards.size(); p-- > 0;)
        for (const auto &ranges : collected[p].ranks) {
            auto &rank = joined[ranges.rank];
            rank.rank = ranges.rank;
            rank.join(ranges);
        }
    std::vector<RankRunRanges> ranks;
    for (auto &[index, ranges] : joined)
        ranks.push_back(std::move(ranges));
    auto accounted = accountRunRanges(*whole, collected.front().accounting, options, ranks);
    compareAccounting(expected, finishRunAccounting(std::move(accounted.accounting), accounted.stepRanges),
        what + ", " + QByteArray::number(qulonglong(shardCount)) + " shards");
    return expected.error;
}

} // namespace

class TestRunAccountingInParts : public QObject
{
    Q_OBJECT

    gaplens::test::SynthSample m_phases;
    std::vector<std::string> m_files;

private slots:
    void initTestCase()
    {
        auto options = withRunPhases(gaplens::test::synthOptions(4, 48));
        QVERIFY(m_phases.write(options));
        std::vector<LoadError> errors;
        m_files = expandInputs({ m_phases.path.toStdString() }, errors);
        QVERIFY(errors.empty());
        QCOMPARE(m_files.size(), std::size_t(4));
    }

    void aGeneratedJobWithPhases()
    {
        for (std::size_t parts = 1; parts <= 4; ++parts) {
            const auto error = compareInParts(m_files, parts, {}, "the proposed step range");
            QCOMPARE(error, std::string());
        }
        RunAccountingOptions given;
        given.stepRange = "train_step";
        given.workPerStep = 2048;
        given.workUnit = "samples";
        compareInParts(m_files, 3, given, "train_step, work per step");
        RunAccountingOptions someRanks;
        someRanks.ranks = RankSelection::only({ 1, 3 });
        compareInParts(m_files, 2, someRanks, "ranks 1 and 3");
        compareInParts(m_files, 4, someRanks, "ranks 1 and 3");
    }

    void aBetweenWindow()
    {
        RunAccountingOptions between;
        std::string error;
        const auto spec = parseRunBetween("train_step:2:10", error);
        QVERIFY2(spec, error.c_str());
        between.window = *spec;
        for (std::size_t parts = 1; parts <= 4; ++parts)
            QCOMPARE(compareInParts(m_files, parts, between, "--between train_step:2:10"), std::string());
    }

    // The errors: the first failed rank's in the whole capture's order, whichever part holds
    // it; one every part has; no rank selected.
    void theErrorsAreTheWholeCapturesErrors()
    {
        RunAccountingOptions tooMany;
        std::string error;
        tooMany.window = *parseRunBetween("train_step:2:100000", error);
        for (std::size_t parts = 1; parts <= 4; ++parts)
            QVERIFY(compareInParts(m_files, parts, tooMany, "--between beyond every rank")
                        .starts_with("--between train_step:2:100000: rank 0 has"));
        RunAccountingOptions rankTwoOnward = tooMany;
        rankTwoOnward.ranks = RankSelection::only({ 2, 3 });
        QVERIFY(compareInParts(m_files, 3, rankTwoOnward, "--between, ranks 2 and 3")
                    .starts_with("--between train_step:2:100000: rank 2 has"));

        RunAccountingOptions badPattern;
        badPattern.patterns[0] = "(unclosed";
        QVERIFY(compareInParts(m_files, 2, badPattern, "a bad pattern").starts_with("the pattern of state checkpoint"));
        RunAccountingOptions noSuchRange;
        noSuchRange.stepRange = "no_such_range";
        QCOMPARE(compareInParts(m_files, 3, noSuchRange, "no such step range"),
            std::string("no selected rank has an NVTX range named 'no_such_range'"));
        RunAccountingOptions none;
        none.ranks = RankSelection::only({ kNoIndex });
        QCOMPARE(compareInParts(m_files, 2, none, "no rank selected"), std::string("no rank selected"));
    }

    // One report in 1 to 7 time shards: checkpoints (blocking, and staging on another thread),
    // validation and data waits on both sides of every edge; payloads; --between and --window.
    void aReportInTimeShards()
    {
        const auto &file = m_files.front();
        RunAccountingOptions between;
        std::string error;
        between.window = *parseRunBetween("train_step:3:40", error);
        RunAccountingOptions window;
        window.window = *parseRunWindow("100ms:900ms", error);
        RunAccountingOptions perStep;
        perStep.stepRange = "train_step";
        perStep.workPerStep = 2048;
        for (std::size_t shards = 1; shards <= 7; ++shards) {
            QCOMPARE(compareInShards(file, shards, {}, "the proposed step range"), std::string());
            QCOMPARE(compareInShards(file, shards, between, "--between train_step:3:40"), std::string());
            QCOMPARE(compareInShards(file, shards, window, "--window 100ms:900ms"), std::string());
            QCOMPARE(compareInShards(file, shards, perStep, "train_step, work per step"), std::string());
        }
        RunAccountingOptions tooMany;
        tooMany.window = *parseRunBetween("train_step:2:100000", error);
        QVERIFY(compareInShards(file, 3, tooMany, "--between beyond the steps").starts_with("--between"));
        const auto h100 = realFiles("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY2(!h100.empty(), gaplens::test::kRealDataMissing);
        QVERIFY(compareInShards(h100.front(), 3, {}, "the H100, no step range").starts_with("no step range"));
    }

    void realCapturesWithoutAStepRange()
    {
        const auto files = realFiles("nsysai_mfu_2gpu_before.sqlite");
        const auto more = realFiles("nsysai_h100_2gpu_1s.sqlite");
        QVERIFY2(!files.empty() && !more.empty(), gaplens::test::kRealDataMissing);
        std::vector<std::string> both { files.front(), more.front() };
        for (std::size_t parts = 1; parts <= 3; ++parts)
            QVERIFY(compareInParts(both, parts, {}, "the mfu file and the H100").starts_with("no step range"));
        RunAccountingOptions given;
        given.stepRange = "aten::to";
        compareInParts(both, 2, given, "the mfu file and the H100, aten::to");
    }
};

QTEST_GUILESS_MAIN(TestRunAccountingInParts)
#include "tst_run_accounting_in_parts.moc"
