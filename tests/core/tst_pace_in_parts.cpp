// SPDX-License-Identifier: MIT
// Pace computed in parts (one thread per part standing in for gaplens-mpi's processes, each
// holding some of the files) equals pace of the whole capture loaded at once: the step range
// proposal and the chooser's list from the parts' NVTX tallies, and each rank's pace and step
// accounting computed on its part, compared across ranks by comparePaces, every figure bit for
// bit. On a generated job with a straggler, the real six-rank job (no step-like range: the
// chooser's message), the mfu pair with the H100, and an NVTX-only file beside empty parts.
#include "capture_parts.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/step_range.h"
#include "gaplens/core/read/loader.h"
#include "minimal_export.h"
#include "shard_windows.h"
#include "synth_sample.h"
#include "testsupport.h"
#include "thread_parts.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <utility>

using namespace gaplens::core;

namespace {

using gaplens::test::rankKey;
using gaplens::test::RankKey;
using gaplens::test::realFiles;
using gaplens::test::sameBits;

void compareChoices(const StepRangeChoice &whole, const StepRangeChoice &part, const QByteArray &where)
{
    QVERIFY2(part.nvtxRanges == whole.nvtxRanges, where);
    QVERIFY2(part.ranksWithNvtx == whole.ranksWithNvtx, where);
    QVERIFY2(part.proposed == whole.proposed, where);
    QVERIFY2(part.candidates.size() == whole.candidates.size(), where);
    for (std::size_t i = 0; i < whole.candidates.size(); ++i) {
        const auto &a = whole.candidates[i], &b = part.candidates[i];
        const QByteArray row = where + ", candidate " + QByteArray::number(qulonglong(i)) + " ("
            + QByteArray::fromStdString(a.name) + ")";
        QVERIFY2(a.name == b.name && a.count == b.count && a.topLevel == b.topLevel, row);
        QVERIFY2(a.mostOnARank == b.mostOnARank && a.ranks == b.ranks, row);
        QVERIFY2(a.onEveryRank == b.onEveryRank && a.stepLike == b.stepLike, row);
    }
    QVERIFY2(describeMissingStepRange(part) == describeMissingStepRange(whole), where);
}

void comparePaceReports(const PaceReport &whole, const PaceReport &part, const QByteArray &where)
{
    QVERIFY2(part.rangeName == whole.rangeName, where);
    QVERIFY2(part.ranks.size() == whole.ranks.size(), where);
    for (std::size_t r = 0; r < whole.ranks.size(); ++r) {
        const auto &a = whole.ranks[r], &b = part.ranks[r];
        const QByteArray rank = where + ", rank index " + QByteArray::number(a.rank);
        QVERIFY2(a.rank == b.rank && a.firstIteration == b.firstIteration, rank);
        QVERIFY2(sameBits(a.medianNs, b.medianNs) && a.p95Ns == b.p95Ns, rank);
        QVERIFY2(a.timesSlowest == b.timesSlowest, rank);
        QVERIFY2(a.iterations.size() == b.iterations.size(), rank);
        for (std::size_t i = 0; i < a.iterations.size(); ++i) {
            const auto &x = a.iterations[i], &y = b.iterations[i];
            QVERIFY2(x.cpu == y.cpu && x.time == y.time && x.durationNs == y.durationNs
                    && x.deltaToPreviousNs == y.deltaToPreviousNs,
                rank + ", iteration " + QByteArray::number(qulonglong(i)));
        }
    }
    QVERIFY2(part.iterations.size() == whole.iterations.size(), where);
    for (std::size_t i = 0; i < whole.iterations.size(); ++i) {
        const auto &a = whole.iterations[i], &b = part.iterations[i];
        QVERIFY2(a.index == b.index && sameBits(a.medianNs, b.medianNs) && a.slowestRank == b.slowestRank
                && a.slowestNs == b.slowestNs,
            where + ", common iteration " + QByteArray::number(qulonglong(i)));
    }
    QVERIFY2(part.straggler.has_value() == whole.straggler.has_value(), where);
    if (whole.straggler) {
        const auto &a = *whole.straggler, &b = *part.straggler;
        QVERIFY2(a.rank == b.rank && a.slowestCount == b.slowestCount && a.iterations == b.iterations
                && sameBits(a.percentAboveMedian, b.percentAboveMedian),
            where + ", straggler");
    }
}

void compareSteps(const std::vector<RankSteps> &whole, const std::vector<RankSteps> &part, const QByteArray &where)
{
    QVERIFY2(part.size() == whole.size(), where);
    for (std::size_t r = 0; r < whole.size(); ++r) {
        QVERIFY2(part[r].rank == whole[r].rank && part[r].steps.size() == whole[r].steps.size(), where);
        for (std::size_t i = 0; i < whole[r].steps.size(); ++i) {
            const auto &a = whole[r].steps[i], &b = part[r].steps[i];
            QVERIFY2(a.iteration == b.iteration && a.step == b.step && a.kernelNs == b.kernelNs && a.busyNs == b.busyNs
                    && sameBits(a.busyPercent, b.busyPercent),
                where + ", rank index " + QByteArray::number(whole[r].rank) + ", step "
                    + QByteArray::number(qulonglong(i)));
        }
    }
}

// What one part computes: the step range choice from every part's tallies, then its own
// ranks' paces and steps, named by the whole capture's rank indices.
struct PartResult
{
    std::optional<std::string> proposed;
    StepRangeChoice choice, shortChoice;
    std::vector<std::pair<RankPace, RankSteps>> ranks;
};

// Pace of the whole capture against pace in parts, for one set of options (options.ranks in
// the whole capture's rank indices; the range name, when empty, is the proposal).
void compareInParts(const std::vector<std::string> &files, std::size_t partCount, PaceOptions options,
    const StepAccountingOptions &stepOptions, const QByteArray &what)
{
    const auto whole = gaplens::test::loadOnOneThread(files);
    QVERIFY(whole->errors.empty());
    QVERIFY(!whole->ranks.empty());
    std::map<RankKey, std::uint32_t> wholeIndex;
    for (std::uint32_t r = 0; r < whole->ranks.size(); ++r)
        wholeIndex.emplace(rankKey(*whole, r), r);
    QCOMPARE(wholeIndex.size(), whole->ranks.size());
    const auto parts = gaplens::test::loadInParts(files, partCount);

    const auto proposed = proposePaceRangeName(*whole);
    const auto choice = chooseStepRange(*whole);
    const auto shortChoice = chooseStepRange(*whole, 3);
    QVERIFY(!choice.candidates.empty());
    QVERIFY(choice.proposed == proposed);
    // Without a proposal the pace below is of the most repeated name, so it has iterations.
    const std::string rangeName = proposed.value_or(choice.candidates.front().name);
    const bool nameGiven = !options.rangeName.empty();
    if (!nameGiven)
        options.rangeName = rangeName;
    const auto pace = computePace(*whole, options);
    const auto steps = computeStepAccounting(*whole, pace, stepOptions);
    // Only the GPU projection may find no iteration (ranges that launched no GPU work).
    QVERIFY2(!pace.ranks.empty() || options.useGpuProjection, what);

    std::vector<PartResult> results(partCount);
    gaplens::test::ThreadParts(partCount).run([&](std::size_t p, const PartsReduction &reduction) {
        auto &r = results[p];
        const auto &part = *parts[p];
        r.proposed = proposePaceRangeName(part, reduction);
        r.choice = chooseStepRange(part, reduction);
        r.shortChoice = chooseStepRange(part, reduction, 3);
        // The part's own rank indices for the selection; its paces named by the whole's.
        PaceOptions partOptions = options;
        partOptions.rangeName = nameGiven ? options.rangeName : r.proposed.value_or(r.choice.candidates.front().name);
        std::vector<std::uint32_t> globalOf(part.ranks.size());
        std::vector<std::uint32_t> selected;
        for (std::uint32_t k = 0; k < part.ranks.size(); ++k) {
            globalOf[k] = wholeIndex.at(rankKey(part, k));
            if (options.ranks.includes(globalOf[k]))
                selected.push_back(k);
        }
        partOptions.ranks = options.ranks.isAll() ? RankSelection::all() : RankSelection::only(selected);
        if (!options.ranks.isAll() && selected.empty())
            return; // an empty list would select every rank
        const auto paces = computeRankPaces(part, partOptions);
        const auto partSteps = computeStepAccounting(part, paces, stepOptions);
        for (std::size_t i = 0; i < paces.size(); ++i) {
            r.ranks.emplace_back(paces[i], partSteps[i]);
            r.ranks.back().first.rank = r.ranks.back().second.rank = globalOf[paces[i].rank];
        }
    });

    std::vector<std::pair<RankPace, RankSteps>> all;
    for (std::size_t p = 0; p < partCount; ++p) {
        const QByteArray where
            = what + ", part " + QByteArray::number(qulonglong(p)) + " of " + QByteArray::number(qulonglong(partCount));
        QVERIFY2(results[p].proposed == proposed, where + ": the proposal");
        CHECK(compareChoices(choice, results[p].choice, where + ", the chooser"));
        CHECK(compareChoices(shortChoice, results[p].shortChoice, where + ", the chooser's first 3"));
        for (auto &r : results[p].ranks)
            all.push_back(std::move(r));
    }
    std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.first.rank < b.first.rank; });
    std::vector<RankPace> paces;
    std::vector<RankSteps> partSteps;
    for (auto &[p, s] : all) {
        paces.push_back(std::move(p));
        partSteps.push_back(std::move(s));
    }
    const QByteArray where = what + ", " + QByteArray::number(qulonglong(partCount)) + " parts";
    CHECK(comparePaceReports(pace, comparePaces(options.rangeName, std::move(paces)), where));
    CHECK(compareSteps(steps, partSteps, where + ", steps"));
}

// Pace of one file against pace in its time shards, as gaplens-mpi computes it: every shard's
// outermost candidates per rank joined in shard order (rankPaceFromShards), and each shard's
// step accounting of the joined steps after the earlier shards' busy end, added up.
void compareInTimeShards(const std::string &file, const std::vector<StoredStartWindow> &windows,
    const PaceOptions &options, const StepAccountingOptions &stepOptions, const QByteArray &where)
{
    const auto whole = gaplens::test::loadOnOneThread({ file });
    const auto pace = computePace(*whole, options);
    const auto steps = computeStepAccounting(*whole, pace, stepOptions);
    QVERIFY2(!pace.ranks.empty(), where);
    const auto shards = gaplens::test::loadInWindows(file, windows);
    std::vector<std::vector<std::uint32_t>> wholeOf; // per shard: its rank index -> the whole's
    std::map<std::uint32_t, std::vector<PaceCandidate>> candidates; // by the whole's rank index
    for (const auto &shard : shards) {
        auto &map = wholeOf.emplace_back();
        for (std::uint32_t k = 0; k < shard->ranks.size(); ++k)
            for (std::uint32_t r = 0; r < whole->ranks.size(); ++r)
                if (rankKey(*shard, k) == rankKey(*whole, r))
                    map.push_back(r);
        QVERIFY2(map.size() == shard->ranks.size(), where);
        const auto mine = paceCandidates(*shard, options); // one file: the same rank indices
        for (std::uint32_t k = 0; k < mine.size(); ++k)
            candidates[map[k]].insert(candidates[map[k]].end(), mine[k].begin(), mine[k].end());
    }
    std::vector<RankPace> paces;
    for (const auto &[rank, inShardOrder] : candidates)
        if (auto rp = rankPaceFromShards(rank, inShardOrder, options))
            paces.push_back(std::move(*rp));
    CHECK(comparePaceReports(pace, comparePaces(options.rangeName, paces), where));

    std::map<std::uint32_t, RankSteps> added;
    std::map<std::uint32_t, TimeNs> earlier; // by the whole's rank index
    for (std::size_t s = 0; s < shards.size(); ++s) {
        auto shardOptions = stepOptions;
        std::vector<RankPace> local;
        for (const auto &rp : paces) {
            const auto k = std::find(wholeOf[s].begin(), wholeOf[s].end(), rp.rank) - wholeOf[s].begin();
            local.push_back(rp);
            local.back().rank = std::uint32_t(k);
            if (const auto carry = earlier.find(rp.rank); carry != earlier.end())
                shardOptions.earlierShards[std::uint32_t(k)] = carry->second;
        }
        for (const auto &rankSteps : computeStepAccounting(*shards[s], local, shardOptions)) {
            auto own = rankSteps;
            own.rank = wholeOf[s][rankSteps.rank];
            addShardSteps(added[own.rank], own);
        }
        for (const auto &[k, until] : stepBusyCarries(*shards[s], stepOptions)) {
            const auto [it, first] = earlier.try_emplace(wholeOf[s][k], until);
            if (!first)
                it->second = std::max(it->second, until);
        }
    }
    std::vector<RankSteps> shardSteps;
    for (auto &[rank, rankSteps] : added)
        shardSteps.push_back(std::move(rankSteps));
    CHECK(compareSteps(steps, shardSteps, where + ", steps"));
}

// The chooser's list and the proposal of one file from its time shards, as gaplens-mpi makes
// them: each shard's tallies with its threads' ranges of the earlier shards (by pid and tid)
// still open, each rank's shards added up, and the span the union of the shards'.
void compareChoiceInTimeShards(
    const std::string &file, const std::vector<StoredStartWindow> &windows, const QByteArray &where)
{
    const auto whole = gaplens::test::loadOnOneThread({ file });
    std::map<std::pair<std::uint32_t, std::uint32_t>, TimeNs> openUntil; // by (pid, tid)
    std::vector<RankNvtxTally> ranks(whole->ranks.size());
    TimeRange span;
    for (const auto &shard : gaplens::test::loadInWindows(file, windows)) {
        std::vector<TimeNs> earlier(shard->threads.size(), std::numeric_limits<TimeNs>::min());
        for (std::size_t t = 0; t < shard->threads.size(); ++t)
            if (const auto it = openUntil.find({ shard->threads[t].pid, shard->threads[t].tid }); it != openUntil.end())
                earlier[t] = it->second;
        const auto tallies = rankNvtxTallies(*shard, earlier);
        QVERIFY2(tallies.size() == shard->ranks.size(), where);
        for (std::uint32_t k = 0; k < shard->ranks.size(); ++k) {
            std::size_t r = 0;
            while (r < whole->ranks.size() && rankKey(*whole, std::uint32_t(r)) != rankKey(*shard, k))
                ++r;
            QVERIFY2(r < whole->ranks.size(), where);
            addShardTally(ranks[r], tallies[k]);
        }
        const auto ends = latestNvtxEnds(*shard);
        for (std::size_t t = 0; t < shard->threads.size(); ++t) {
            auto &until
                = openUntil.try_emplace({ shard->threads[t].pid, shard->threads[t].tid }, ends[t]).first->second;
            until = std::max(until, ends[t]);
        }
        if (shard->span != TimeRange {})
            span = span == TimeRange {}
                ? shard->span
                : TimeRange { std::min(span.start, shard->span.start), std::max(span.end, shard->span.end) };
    }
    QVERIFY2(span == whole->span, where);
    CHECK(compareChoices(chooseStepRange(*whole), chooseStepRange(ranks, span), where));
    QVERIFY2(proposePaceRangeName(ranks, span) == proposePaceRangeName(*whole), where);
}

// Every option pace has, over `files` in each of `partCounts` parts.
void compareEveryOption(
    const std::vector<std::string> &files, const std::vector<std::size_t> &partCounts, bool expectStraggler)
{
    const auto whole = gaplens::test::loadOnOneThread(files);
    // The options are over a real straggler verdict where the capture has one.
    if (expectStraggler) {
        const auto name = proposePaceRangeName(*whole);
        QVERIFY(name.has_value());
        PaceOptions options;
        options.rangeName = *name;
        QVERIFY(computePace(*whole, options).straggler.has_value());
    }
    // A window over the middle half of the first rank's iterations (at least its first).
    PaceOptions cpu;
    const auto choice = chooseStepRange(*whole);
    QVERIFY(!choice.candidates.empty());
    cpu.rangeName = choice.proposed.value_or(choice.candidates.front().name);
    const auto cpuPace = computePace(*whole, cpu);
    const auto &first = cpuPace.ranks.at(0).iterations;
    const TimeRange middle { first[first.size() / 4].time.start, first[first.size() * 3 / 4].time.start + 1 };
    for (const auto parts : partCounts) {
        CHECK(compareInParts(files, parts, {}, {}, "cpu"));
        PaceOptions gpu;
        gpu.useGpuProjection = true;
        CHECK(compareInParts(files, parts, gpu, { true }, "gpu projection, with copies"));
        if (whole->ranks.size() >= 2) {
            PaceOptions someRanks;
            someRanks.ranks = RankSelection::only({ 0, std::uint32_t(whole->ranks.size() - 1) });
            CHECK(compareInParts(files, parts, someRanks, {}, "first and last rank"));
        }
        PaceOptions window;
        window.window = middle;
        CHECK(compareInParts(files, parts, window, {}, "the middle half of the first rank's iterations"));
    }
}

} // namespace

class TestPaceInParts : public QObject
{
    Q_OBJECT

private slots:
    void generatedJobInParts()
    {
        gaplens::test::SynthSample sample;
        // 5 ranks of 12 steps, rank 1 the straggler: a verdict to agree on, and 6 parts leave
        // one empty.
        auto options = gaplens::test::synthOptions(5, 12, 1);
        QVERIFY(sample.write(options));
        CHECK(compareEveryOption(sample.synth.files, { 1, 2, 3, 4, 6 }, true));
    }

    // One generated file in 2-9 time shards: every rank's steps and step accounting, without
    // and with copies, and over a window.
    void generatedFileInTimeShards()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(1, 40)));
        const auto &file = sample.synth.files.front();
        const auto whole = gaplens::test::loadOnOneThread({ file });
        PaceOptions options;
        options.rangeName = proposePaceRangeName(*whole).value_or("");
        QVERIFY(!options.rangeName.empty());
        const auto pace = computePace(*whole, options);
        const auto &iterations = pace.ranks.at(0).iterations;
        PaceOptions window = options;
        window.window = TimeRange { iterations[iterations.size() / 3].time.start, whole->span.end };
        for (const std::size_t count : { 2, 3, 5, 9 }) {
            const auto windows = gaplens::test::sampledWindows(file, kStepAccountingTables | kPaceTables, count);
            const QByteArray where = QByteArray::number(qulonglong(count)) + " time shards";
            CHECK(compareInTimeShards(file, windows, options, {}, where));
            CHECK(compareInTimeShards(file, windows, options, { true }, where + ", with copies"));
            CHECK(compareInTimeShards(file, windows, window, {}, where + ", the last two thirds"));
        }
    }

    // A step range nested in one of an earlier shard is no iteration, and a kernel of an earlier
    // shard that runs on under kernels of a later one is busy time counted once.
    void stepsAndKernelsAcrossShardEdges()
    {
        QTemporaryDir dir;
        const auto file = gaplens::test::writeExportIn(dir, "steps.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO NVTX_EVENTS VALUES (150, 250, 59, NULL, 16777216 * 42 + 42, 3, 0);
            INSERT INTO NVTX_EVENTS VALUES (400, 1000, 59, NULL, 16777216 * 42 + 42, 3, 0);
            INSERT INTO NVTX_EVENTS VALUES (1000, 1600, 59, NULL, 16777216 * 42 + 42, 3, 0);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 350, 900, 8, 6, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 600, 800, 9, 7, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 950, 1200, 9, 8, 16777216 * 42, 1);
        )");
        PaceOptions options;
        options.rangeName = "step";
        const auto whole = gaplens::test::loadOnOneThread({ file });
        const auto pace = computePace(*whole, options);
        QCOMPARE(pace.ranks.size(), std::size_t(1));
        QCOMPARE(pace.ranks[0].iterations.size(), std::size_t(3)); // 150-250 lies inside 40-300
        const auto steps = computeStepAccounting(*whole, pace);
        const auto &second = steps.at(0).steps.at(1);
        QCOMPARE(second.kernelNs, TimeNs(750)); // 400-900, 600-800, 950-1000
        QCOMPARE(second.busyNs, TimeNs(550)); // 400-900, 950-1000
        for (const auto &edges : { std::vector<std::int64_t> { 120, 500 }, std::vector<std::int64_t> { 200, 950 } })
            for (const bool copies : { false, true })
                CHECK(compareInTimeShards(file, gaplens::test::windowsOf(edges), options, { copies },
                    QByteArray::number(qulonglong(edges.size() + 1)) + " shards"));
    }

    // The step range chosen from a file's time shards: on a generated file, every real export,
    // and ranges that stay open across one or two shard edges.
    void stepRangeChoiceInTimeShards()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(1, 40)));
        std::vector<std::string> files { sample.synth.files.front() };
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        for (const auto &real : gaplens::test::realExportFiles())
            files.push_back(real);
        for (const auto &file : files)
            for (const std::size_t count : { 2, 3, 5 })
                CHECK(compareChoiceInTimeShards(file, gaplens::test::sampledWindows(file, kStepRangeTables, count),
                    QByteArray::fromStdString(file) + " in " + QByteArray::number(qulonglong(count)) + " shards"));
    }

    void stepRangesOpenAcrossShardEdges()
    {
        QTemporaryDir dir;
        // The export's 40-300 is outlasted by 100-1000, which starts inside it (depth 1) and
        // encloses 200-300; 1000-1050 starts as both have ended (depth 0); 1100-1500 encloses
        // 1200-1300. So 3 of the 6 "step" ranges are at depth 0.
        const auto file = gaplens::test::writeExportIn(dir, "open.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO NVTX_EVENTS VALUES (100, 1000, 59, NULL, 16777216 * 42 + 42, 3, 0);
            INSERT INTO NVTX_EVENTS VALUES (200, 300, 59, NULL, 16777216 * 42 + 42, 3, 0);
            INSERT INTO NVTX_EVENTS VALUES (1000, 1050, 59, NULL, 16777216 * 42 + 42, 3, 0);
            INSERT INTO NVTX_EVENTS VALUES (1100, 1500, 59, NULL, 16777216 * 42 + 42, 3, 0);
            INSERT INTO NVTX_EVENTS VALUES (1200, 1300, 59, NULL, 16777216 * 42 + 42, 3, 0);
        )");
        const auto choice = chooseStepRange(*gaplens::test::loadOnOneThread({ file }));
        QCOMPARE(choice.candidates.size(), std::size_t(1));
        QCOMPARE(choice.candidates[0].name, std::string("step"));
        QCOMPARE(choice.candidates[0].count, std::uint64_t(6));
        QCOMPARE(choice.candidates[0].topLevel, std::uint64_t(3));
        for (const auto &edges : { std::vector<std::int64_t> { 150 }, std::vector<std::int64_t> { 150, 1150 },
                 std::vector<std::int64_t> { 250, 1000, 1250 }, std::vector<std::int64_t> { 1001 } })
            CHECK(compareChoiceInTimeShards(file, gaplens::test::windowsOf(edges),
                QByteArray::number(qulonglong(edges.size() + 1)) + " shards from " + QByteArray::number(edges[0])));
    }

    void generatedJobWithoutStragglerInParts()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(4, 8, -1)));
        CHECK(compareEveryOption(sample.synth.files, { 2, 3 }, false));
    }

    void realSixRankJobInParts()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        const auto files = realFiles("ring_6ranks");
        QCOMPARE(files.size(), std::size_t(6));
        // No step-like range here: the chooser's list and message are what the parts agree on.
        QVERIFY(!proposePaceRangeName(*gaplens::test::loadOnOneThread(files)).has_value());
        CHECK(compareEveryOption(files, { 2, 4 }, false));
    }

    void realPyTorchFilesInParts()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        std::vector<std::string> files;
        for (const char *name :
            { "nsysai_mfu_2gpu_before.sqlite", "nsysai_mfu_2gpu_after.sqlite", "nsysai_h100_2gpu_1s.sqlite" })
            files.push_back(realFiles(name).at(0));
        CHECK(compareEveryOption(files, { 2, 3 }, false));
    }

    void nvtxOnlyFileBesideEmptyParts()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        // One rank with a step-like range: the proposal needs the span, which the empty parts
        // must not move.
        const auto files = realFiles("centerformer_nvtx_only.sqlite");
        QVERIFY(proposePaceRangeName(*gaplens::test::loadOnOneThread(files)).has_value());
        CHECK(compareEveryOption(files, { 1, 3 }, false));
    }
};

QTEST_APPLESS_MAIN(TestPaceInParts)
#include "tst_pace_in_parts.moc"
