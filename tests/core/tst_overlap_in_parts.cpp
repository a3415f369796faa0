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
#include "minimal_export.h"
#include "shard_windows.h"
#include "synth_sample.h"
#include "testsupport.h"

#include <QTemporaryDir>
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

using Parts = std::vector<std::shared_ptr<TraceSet>>;

// Overlap of the whole capture against overlap in parts, for one set of options
// (options.ranks in the whole capture's rank indices). `timeShards`: the parts are one file's
// time shards in order, each given what the earlier ones' kernels cover, as gaplens-mpi does.
void compareInParts(const std::vector<std::string> &files, const Parts &parts, bool timeShards,
    const OverlapOptions &options, const QByteArray &where)
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
    // their names interned in a pool of its own, then joined.
    StringPool names;
    std::vector<OverlapPart> all;
    OverlapCarries earlier; // in the whole capture's (rank, GPU) indices
    for (const auto &part : parts) {
        std::vector<std::uint32_t> globalOf(part->ranks.size());
        std::vector<std::uint32_t> selected;
        for (std::uint32_t k = 0; k < part->ranks.size(); ++k) {
            globalOf[k] = wholeRank.at(rankKey(*part, k));
            if (options.ranks.includes(globalOf[k]))
                selected.push_back(k);
        }
        auto wholeRow = [&](std::pair<std::uint32_t, std::uint32_t> row) {
            return std::pair { row.first == kNoIndex ? kNoIndex : globalOf[row.first],
                wholeGpu.at(gpuKey(*part, row.second)) };
        };
        OverlapOptions partOptions = options;
        if (!options.ranks.isAll()) // a selection of nothing must not become every rank
            partOptions.ranks = RankSelection::only(selected.empty() ? std::vector { kNoIndex } : selected);
        if (timeShards && !part->reports.empty()) {
            for (std::uint32_t g = 0; g < part->gpus.size(); ++g) // this shard's rows' carries
                for (std::uint32_t r = 0; r <= part->ranks.size(); ++r) {
                    const auto rank = r == part->ranks.size() ? kNoIndex : r;
                    if (const auto it = earlier.find(wholeRow({ rank, g })); it != earlier.end())
                        partOptions.earlierShards[{ rank, g }] = it->second;
                }
            for (const auto &[row, carry] : overlapCarries(*part, 0)) { // for the later shards
                auto &into = earlier[wholeRow(row)];
                for (auto [to, from] : { std::pair { &into.commUntil, carry.commUntil },
                         std::pair { &into.computeUntil, carry.computeUntil } })
                    if (from)
                        *to = std::max(to->value_or(*from), *from);
            }
        }
        auto mine = computeOverlapPart(*part, partOptions);
        for (auto &row : mine.rows)
            std::tie(row.rank, row.gpu) = wholeRow({ row.rank, row.gpu });
        for (auto &comm : mine.communication) {
            comm.rank = globalOf[comm.rank];
            for (auto &kernel : comm.kernels)
                kernel.name = names.intern(part->str(kernel.name));
        }
        all.push_back(std::move(mine));
    }
    CHECK(compareReports(
        *whole, expected, names, finishOverlap(joinOverlapParts(std::move(all)), whole->ranks.size(), names), where));
}

void compareInParts(
    const std::vector<std::string> &files, std::size_t partCount, const OverlapOptions &options, const QByteArray &what)
{
    CHECK(compareInParts(files, gaplens::test::loadInParts(files, partCount), false, options,
        what + ", " + QByteArray::number(qulonglong(partCount)) + " parts"));
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

    // Time shards of one file: a row's unions (communication, compute, and both for the
    // overlap) counted after what the earlier shards' kernels cover add up to the whole file's.
    void generatedFileInTimeShards()
    {
        gaplens::test::SynthSample sample;
        QVERIFY(sample.write(gaplens::test::synthOptions(1, 40)));
        const auto &file = sample.synth.files.front();
        const auto report = computeOverlap(*gaplens::test::loadOnOneThread({ file }));
        QVERIFY(!report.rows.empty() && report.rows.front().overlapNs > 0);
        for (const std::size_t count : { 2, 3, 5, 9 }) {
            const auto parts
                = gaplens::test::loadInWindows(file, gaplens::test::sampledWindows(file, kOverlapTables, count));
            CHECK(compareInParts({ file }, parts, true, {}, QByteArray::number(qulonglong(count)) + " time shards"));
        }
    }

    // A compute kernel of the first shard runs under communication and compute of the second:
    // without the carry the second shard would count that time again.
    void kernelsAcrossAShardEdge()
    {
        QTemporaryDir dir;
        const auto file = gaplens::test::writeExportIn(dir, "edge.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO StringIds VALUES (4, 'ncclKernel_AllReduce_RING_LL_Sum_float');
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 100, 1000, 8, 6, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (4, 0, 200, 600, 9, 7, 16777216 * 42, 4);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (4, 0, 700, 1500, 9, 8, 16777216 * 42, 4);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 800, 900, 11, 9, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 1200, 1300, 8, 10, 16777216 * 42, 1);
        )");
        const auto report = computeOverlap(*gaplens::test::loadOnOneThread({ file }));
        QCOMPARE(report.rows.size(), std::size_t(1));
        const auto &row = report.rows.front();
        QCOMPARE(row.commNs, TimeNs(1200)); // 200-600, 700-1500
        QCOMPARE(row.computeNs, TimeNs(1000)); // 100-1000, 1200-1300
        QCOMPARE(row.overlapNs, TimeNs(800)); // 200-600, 700-1000, 1200-1300
        for (const auto &edges : { std::vector<std::int64_t> { 500 }, std::vector<std::int64_t> { 150, 750, 1000 } })
            CHECK(compareInParts({ file }, gaplens::test::loadInWindows(file, gaplens::test::windowsOf(edges)), true,
                {}, QByteArray::number(qulonglong(edges.size() + 1)) + " shards"));
    }

    // Every real export alone, in 2 and 3 time shards, with every rank and with a window.
    void realExportsInTimeShards_data()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        gaplens::test::addFileRows(gaplens::test::realExportFiles());
    }

    void realExportsInTimeShards()
    {
        QFETCH(QString, file);
        const auto path = file.toStdString();
        const auto whole = gaplens::test::loadOnOneThread({ path });
        OverlapOptions window;
        window.window = TimeRange { whole->span.start + whole->span.duration() / 3, whole->span.end };
        for (const std::size_t count : { 2, 3 }) {
            const auto parts
                = gaplens::test::loadInWindows(path, gaplens::test::sampledWindows(path, kOverlapTables, count));
            const QByteArray where = QByteArray::number(qulonglong(count)) + " time shards";
            CHECK(compareInParts({ path }, parts, true, {}, where));
            CHECK(compareInParts({ path }, parts, true, window, where + ", last two thirds"));
        }
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
