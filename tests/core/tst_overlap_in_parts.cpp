// SPDX-License-Identifier: MIT
// overlap computed in parts (each part holding some of the files, as gaplens-mpi's processes
// do) equals overlap of the whole capture loaded at once: each part's rows and ranks'
// communication kernels (computeOverlapPart), named by the whole capture's rank and GPU
// indices, matched across ranks by finishOverlap. Every row, instance and skew is compared,
// doubles bit for bit, with every rank, some ranks, and a time window, on generated jobs with
// NCCL kernels, the real six-rank job, the mfu pair with the H100 and every real export at
// once (several jobs). No reduction runs between the parts, so they need no threads.
#include "capture_parts.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/read/loader.h"
#include "synth_sample.h"
#include "testsupport.h"

#include <QTest>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

using namespace gaplens::core;

namespace {

using gaplens::test::rankKey;
using gaplens::test::RankKey;
using gaplens::test::realFiles;
using gaplens::test::sameBits;

// A GPU is one device of one report: that names it in every part.
using GpuKey = std::pair<std::string, std::int32_t>;
GpuKey gpuKey(const TraceSet &trace, std::uint32_t gpu)
{
    return { trace.reports[trace.gpus[gpu].report].path, trace.gpus[gpu].deviceId };
}

void compareRows(const std::vector<OverlapRow> &whole, const std::vector<OverlapRow> &part, const QByteArray &where)
{
    QVERIFY2(part.size() == whole.size(), where);
    for (std::size_t i = 0; i < whole.size(); ++i) {
        const auto &a = whole[i], &b = part[i];
        const QByteArray row = where + ", row " + QByteArray::number(qulonglong(i));
        QVERIFY2(a.rank == b.rank && a.gpu == b.gpu, row);
        QVERIFY2(a.commKernels == b.commKernels && a.computeKernels == b.computeKernels, row);
        QVERIFY2(a.commNs == b.commNs && a.computeNs == b.computeNs && a.overlapNs == b.overlapNs
                && a.exposedCommNs == b.exposedCommNs && sameBits(a.hiddenPercent, b.hiddenPercent),
            row);
        QVERIFY2(a.collectives.size() == b.collectives.size(), row);
        for (std::size_t c = 0; c < a.collectives.size(); ++c)
            QVERIFY2(a.collectives[c].type == b.collectives[c].type && a.collectives[c].calls == b.collectives[c].calls
                    && a.collectives[c].totalNs == b.collectives[c].totalNs,
                row);
    }
}

void compareReports(const TraceSet &whole, const OverlapReport &expected, const StringPool &names,
    const OverlapReport &part, const QByteArray &where)
{
    CHECK(compareRows(expected.rows, part.rows, where));
    QVERIFY2(part.instances.size() == expected.instances.size(), where);
    for (std::size_t i = 0; i < expected.instances.size(); ++i) {
        const auto &a = expected.instances[i], &b = part.instances[i];
        QVERIFY2(whole.str(a.name) == names.get(b.name) && a.type == b.type && a.occurrence == b.occurrence
                && a.ranks == b.ranks && a.start == b.start && a.skewNs == b.skewNs && a.lastRank == b.lastRank,
            where + ", instance " + QByteArray::number(qulonglong(i)));
    }
    QVERIFY2(part.ranks.size() == expected.ranks.size(), where);
    for (std::size_t r = 0; r < expected.ranks.size(); ++r) {
        const auto &a = expected.ranks[r], &b = part.ranks[r];
        QVERIFY2(a.rank == b.rank && a.instances == b.instances && sameBits(a.medianSkewNs, b.medianSkewNs)
                && a.maxSkewNs == b.maxSkewNs && a.timesLast == b.timesLast,
            where + ", skew of rank index " + QByteArray::number(a.rank));
    }
    const auto straggler = findCollectiveStraggler(expected);
    const auto partStraggler = findCollectiveStraggler(part);
    QVERIFY2(straggler.has_value() == partStraggler.has_value(), where);
    if (straggler)
        QVERIFY2(straggler->rank == partStraggler->rank, where);
}

// Overlap of the whole capture against overlap in parts, for one set of options
// (options.ranks in the whole capture's rank indices).
void compareInParts(
    const std::vector<std::string> &files, std::size_t partCount, const OverlapOptions &options, const QByteArray &what)
{
    const auto whole = gaplens::test::loadOnOneThread(files);
    QVERIFY(whole->errors.empty());
    std::map<RankKey, std::uint32_t> wholeRank;
    for (std::uint32_t r = 0; r < whole->ranks.size(); ++r)
        wholeRank.emplace(rankKey(*whole, r), r);
    QCOMPARE(wholeRank.size(), whole->ranks.size());
    std::map<GpuKey, std::uint32_t> wholeGpu;
    for (std::uint32_t g = 0; g < whole->gpus.size(); ++g)
        wholeGpu.emplace(gpuKey(*whole, g), g);
    QCOMPARE(wholeGpu.size(), whole->gpus.size());
    const auto expected = computeOverlap(*whole, options);

    // What the root does: every part's rows and ranks named by the whole capture's indices,
    // their names interned in a pool of its own, the rows in (rank, GPU) order.
    StringPool names;
    OverlapPart all;
    for (const auto &part : gaplens::test::loadInParts(files, partCount)) {
        std::vector<std::uint32_t> globalOf(part->ranks.size());
        std::vector<std::uint32_t> selected;
        for (std::uint32_t k = 0; k < part->ranks.size(); ++k) {
            globalOf[k] = wholeRank.at(rankKey(*part, k));
            if (options.ranks.includes(globalOf[k]))
                selected.push_back(k);
        }
        OverlapOptions partOptions = options;
        if (!options.ranks.isAll()) // a selection of nothing must not become every rank
            partOptions.ranks = RankSelection::only(selected.empty() ? std::vector { kNoIndex } : selected);
        auto mine = computeOverlapPart(*part, partOptions);
        for (auto &row : mine.rows) {
            if (row.rank != kNoIndex)
                row.rank = globalOf[row.rank];
            row.gpu = wholeGpu.at(gpuKey(*part, row.gpu));
            all.rows.push_back(std::move(row));
        }
        for (auto &comm : mine.communication) {
            comm.rank = globalOf[comm.rank];
            for (auto &kernel : comm.kernels)
                kernel.name = names.intern(part->str(kernel.name));
            all.communication.push_back(std::move(comm));
        }
    }
    std::sort(all.rows.begin(), all.rows.end(),
        [](const auto &a, const auto &b) { return std::tie(a.rank, a.gpu) < std::tie(b.rank, b.gpu); });
    const QByteArray where = what + ", " + QByteArray::number(qulonglong(partCount)) + " parts";
    CHECK(compareReports(*whole, expected, names, finishOverlap(std::move(all), whole->ranks.size(), names), where));
}

// The earliest to the latest communication kernel start of the capture.
TimeRange communicationSpan(const TraceSet &trace)
{
    TimeRange span { std::numeric_limits<TimeNs>::max(), std::numeric_limits<TimeNs>::min() };
    for (const auto &gpu : trace.gpus)
        for (const auto &stream : gpu.streams)
            for (std::size_t i = 0; i < stream.kernels.size(); ++i)
                if (isCommunicationKernel(trace.str(stream.kernels.shortName[i]))) {
                    span.start = std::min(span.start, stream.kernels.start[i]);
                    span.end = std::max(span.end, stream.kernels.start[i]);
                }
    return span;
}

TimeNs kernelTime(const OverlapReport &report)
{
    TimeNs total = 0;
    for (const auto &row : report.rows)
        total += row.commNs + row.computeNs;
    return total;
}

// Every rank, the first and last rank, and a window over the middle of the communication
// (which cuts kernels and leaves some collectives out), over `files` in each of `partCounts`
// parts. `instances`: at least this many collective instances on every rank.
void compareEveryOption(
    const std::vector<std::string> &files, const std::vector<std::size_t> &partCounts, std::size_t instances)
{
    const auto whole = gaplens::test::loadOnOneThread(files);
    const auto report = computeOverlap(*whole);
    QVERIFY(report.instances.size() >= instances);
    QVERIFY(!report.rows.empty());
    const auto span = communicationSpan(*whole);
    QVERIFY(span.start < span.end);
    OverlapOptions window;
    window.window = TimeRange { span.start + span.duration() / 4, span.end - span.duration() / 4 };
    const auto windowed = computeOverlap(*whole, window);
    QVERIFY(kernelTime(windowed) < kernelTime(report));
    if (report.instances.size() > 1)
        QVERIFY(windowed.instances.size() < report.instances.size());
    for (const auto parts : partCounts) {
        CHECK(compareInParts(files, parts, {}, "every rank"));
        if (whole->ranks.size() >= 2) {
            OverlapOptions someRanks;
            someRanks.ranks = RankSelection::only({ 0, std::uint32_t(whole->ranks.size() - 1) });
            CHECK(compareInParts(files, parts, someRanks, "first and last rank"));
        }
        CHECK(compareInParts(files, parts, window, "the middle half of the communication"));
    }
}

} // namespace

class TestOverlapInParts : public QObject
{
    Q_OBJECT

private slots:
    void generatedJobInParts()
    {
        gaplens::test::SynthSample sample;
        // 5 ranks of 12 steps, an all-reduce each, rank 1 the straggler: a verdict to agree on,
        // and 6 parts leave one empty.
        QVERIFY(sample.write(gaplens::test::synthOptions(5, 12, 1)));
        QVERIFY(findCollectiveStraggler(computeOverlap(*gaplens::test::loadOnOneThread(sample.synth.files))));
        CHECK(compareEveryOption(sample.synth.files, { 1, 2, 3, 6 }, 12));
    }

    void twoGeneratedJobsInParts()
    {
        // Two jobs in one capture: their collectives are matched apart.
        gaplens::test::SynthSample first, second;
        QVERIFY(first.write(gaplens::test::synthOptions(3, 8, -1)));
        auto later = gaplens::test::synthOptions(2, 6, -1);
        TimeNs firstEnd = 0;
        for (const auto &rank : first.synth.ranks)
            firstEnd = std::max(firstEnd, rank.lastGpuNs);
        later.sessionStartUtcNs += firstEnd + 1'000'000'000;
        QVERIFY(second.write(later));
        auto files = first.synth.files;
        files.insert(files.end(), second.synth.files.begin(), second.synth.files.end());
        // Each instance on the ranks of one job: 3 ranks for the first 8, 2 for the next 6.
        const auto report = computeOverlap(*gaplens::test::loadOnOneThread(files));
        QCOMPARE(report.instances.size(), std::size_t(14));
        QCOMPARE(std::count_if(report.instances.begin(), report.instances.end(),
                     [](const auto &i) { return i.ranks.size() == 3; }),
            8);
        CHECK(compareEveryOption(files, { 2, 4 }, 14));
    }

    void realSixRankJobInParts()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        const auto files = realFiles("ring_6ranks");
        QCOMPARE(files.size(), std::size_t(6));
        CHECK(compareEveryOption(files, { 2, 4 }, 1));
    }

    void realPyTorchFilesInParts()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        std::vector<std::string> files;
        for (const char *name :
            { "nsysai_mfu_2gpu_before.sqlite", "nsysai_mfu_2gpu_after.sqlite", "nsysai_h100_2gpu_1s.sqlite" })
            files.push_back(realFiles(name).at(0));
        CHECK(compareEveryOption(files, { 2, 3 }, 10));
    }

    void everyRealExportInParts()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        std::vector<std::string> files;
        gaplens::test::listRealExports(files, 14);
        CHECK(compareEveryOption(files, { 3, 5 }, 10));
    }

    // Instances that start together are ordered by their names' text, whatever order the
    // names were interned in (which a parallel load or another process does not keep).
    void aTieOnTheEarliestStartIsOrderedByName()
    {
        StringPool names;
        const auto reduce = names.intern("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL");
        const auto gather = names.intern("ncclDevKernel_AllGather_RING_LL");
        QVERIFY(reduce < gather); // the id order is the reverse of the text order
        OverlapPart part;
        part.communication.push_back({ 1, 500, { { 100, reduce }, { 100, gather } } });
        part.communication.push_back({ 0, 400, { { 120, gather }, { 130, reduce } } });
        const auto report = finishOverlap(std::move(part), 2, names);
        QCOMPARE(report.instances.size(), std::size_t(2));
        QCOMPARE(report.instances[0].name, gather);
        QCOMPARE(report.instances[0].type, CollectiveType::AllGather);
        QCOMPARE(report.instances[0].ranks, (std::vector<std::uint32_t> { 0, 1 }));
        QCOMPARE(report.instances[0].start, (std::vector<TimeNs> { 120, 100 }));
        QCOMPARE(report.instances[0].skewNs, (std::vector<TimeNs> { 20, 0 }));
        QCOMPARE(report.instances[0].lastRank, 0u);
        QCOMPARE(report.instances[1].name, reduce);
        QCOMPARE(report.instances[1].skewNs, (std::vector<TimeNs> { 30, 0 }));
        QCOMPARE(report.ranks.size(), std::size_t(2));
        QCOMPARE(report.ranks[0].timesLast, std::uint64_t(2));
        QCOMPARE(report.ranks[0].medianSkewNs, 25.0);
        QCOMPARE(report.ranks[1].maxSkewNs, TimeNs(0));
    }
};

QTEST_APPLESS_MAIN(TestOverlapInParts)
#include "tst_overlap_in_parts.moc"
