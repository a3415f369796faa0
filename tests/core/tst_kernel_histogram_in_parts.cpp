// SPDX-License-Identifier: MIT
// `kernels --hist` computed in parts (one thread per part standing in for gaplens-mpi's
// processes: files dealt over parts, or a file's time shards) equals the whole capture's
// histogram: the count, every bin's edges and count, min, max, median and p95 bit for bit, and
// the slowest launches in the same order, on the same GPUs, ranks and streams. Linear and log
// axes, a rank selection, a time window, a kernel absent from some parts, one with a single
// launch; a generated job with jittered (distinct) durations, and real exports.
#include "capture_parts.h"
#include "gaplens/core/analysis/kernel_histogram.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/read/time_shards.h"
#include "minimal_export.h"
#include "shard_windows.h"
#include "synth_sample.h"
#include "test_files.h"
#include "testsupport.h"
#include "thread_parts.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>

using namespace gaplens::core;
using gaplens::test::sameBits;

namespace {

constexpr std::size_t kSlowest = 10;
using Parts = std::vector<std::shared_ptr<TraceSet>>;

// A GPU or a rank of a part named as the whole capture's: by report path and device id, or by
// report path and process id.
std::uint32_t wholeGpu(const TraceSet &whole, const TraceSet &part, std::uint32_t gpu)
{
    const auto &g = part.gpus.at(gpu);
    for (std::uint32_t i = 0; i < whole.gpus.size(); ++i)
        if (whole.reports[whole.gpus[i].report].path == part.reports[g.report].path
            && whole.gpus[i].deviceId == g.deviceId)
            return i;
    return kNoIndex;
}

std::uint32_t rankIn(const TraceSet &to, const TraceSet &from, std::uint32_t rank)
{
    if (rank == kNoIndex)
        return kNoIndex;
    const auto &r = from.ranks.at(rank);
    for (std::uint32_t i = 0; i < to.ranks.size(); ++i)
        if (to.reports[to.ranks[i].report].path == from.reports[r.report].path && to.ranks[i].pid == r.pid)
            return i;
    return kNoIndex;
}

// The whole capture's rank selection in a part's rank indices (a rank it lacks: none).
RankSelection selectionIn(const TraceSet &whole, const TraceSet &part, const RankSelection &ranks)
{
    if (ranks.isAll())
        return ranks;
    std::vector<std::uint32_t> indices;
    for (std::uint32_t r = 0; r < whole.ranks.size(); ++r)
        if (ranks.includes(r))
            indices.push_back(rankIn(part, whole, r));
    return RankSelection::only(indices);
}

// Every part computes the histogram in parts; each must hold the whole capture's figures, and
// their slowest candidates, named as the whole capture's GPUs and ranks, merge into its slowest.
void compareInParts(const TraceSet &whole, const Parts &parts, const std::string &name,
    const KernelHistogramOptions &options, const QByteArray &where)
{
    const auto expected
        = histogramFigures(whole, computeKernelHistogram(whole, whole.strings.find(name), options), kSlowest);
    QVERIFY2(expected.count > 0, where);
    std::vector<KernelHistogramFigures> results(parts.size());
    gaplens::test::ThreadParts(parts.size()).run([&](std::size_t p, const PartsReduction &reduction) {
        auto partOptions = options;
        partOptions.ranks = selectionIn(whole, *parts[p], options.ranks);
        results[p] = computeKernelHistogram(*parts[p], parts[p]->strings.find(name), partOptions, kSlowest, reduction);
    });
    std::vector<SlowKernel> candidates;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const auto &f = results[p];
        const QByteArray at = where + ", part " + QByteArray::number(qulonglong(p));
        QVERIFY2(f.count == expected.count, at);
        QVERIFY2(f.logarithmic == expected.logarithmic, at);
        QVERIFY2(f.minNs == expected.minNs && f.maxNs == expected.maxNs, at);
        QVERIFY2(sameBits(f.medianNs, expected.medianNs), at + ", median");
        QVERIFY2(f.p95Ns == expected.p95Ns, at + ", p95");
        QVERIFY2(f.below == expected.below && f.above == expected.above, at);
        QVERIFY2(f.bins.size() == expected.bins.size(), at);
        for (std::size_t b = 0; b < f.bins.size(); ++b) {
            QVERIFY2(sameBits(f.bins[b].lo, expected.bins[b].lo) && sameBits(f.bins[b].hi, expected.bins[b].hi), at);
            QVERIFY2(f.bins[b].count == expected.bins[b].count, at + ", bin " + QByteArray::number(qulonglong(b)));
        }
        for (auto k : f.slowest) {
            k.gpu = wholeGpu(whole, *parts[p], k.gpu);
            k.rank = rankIn(whole, *parts[p], k.rank);
            candidates.push_back(k);
        }
    }
    const auto slowest = mergeSlowest(candidates, kSlowest);
    QVERIFY2(slowest.size() == expected.slowest.size(), where);
    for (std::size_t i = 0; i < slowest.size(); ++i) {
        const auto &a = slowest[i], &b = expected.slowest[i];
        QVERIFY2(std::tie(a.gpu, a.rank, a.streamId, a.start, a.duration)
                == std::tie(b.gpu, b.rank, b.streamId, b.start, b.duration),
            where + ", slowest " + QByteArray::number(qulonglong(i)));
    }
}

// The option sets every capture is compared with: linear and log axes, few and many bins, a
// rank selection (the whole capture's second and last ranks) and a time window (its middle half).
std::vector<std::pair<QByteArray, KernelHistogramOptions>> optionSets(const TraceSet &whole)
{
    std::vector<std::pair<QByteArray, KernelHistogramOptions>> sets;
    KernelHistogramOptions linear;
    sets.emplace_back("linear", linear);
    KernelHistogramOptions log;
    log.logarithmic = true;
    log.bins = 7;
    sets.emplace_back("log, 7 bins", log);
    KernelHistogramOptions many;
    many.bins = 500;
    sets.emplace_back("500 bins", many);
    if (whole.ranks.size() > 1) {
        KernelHistogramOptions ranks;
        ranks.ranks = RankSelection::only({ 1, std::uint32_t(whole.ranks.size() - 1) });
        ranks.logarithmic = true;
        sets.emplace_back("ranks", ranks);
    }
    KernelHistogramOptions window;
    const auto span = whole.span;
    window.window = TimeRange { span.start + (span.end - span.start) / 4, span.end - (span.end - span.start) / 4 };
    sets.emplace_back("window", window);
    return sets;
}

void compareEveryOption(const TraceSet &whole, const Parts &parts, const std::string &name, const QByteArray &where)
{
    for (const auto &[label, options] : optionSets(whole)) {
        // A selection may hold no launch of the kernel: then there is nothing to compare.
        if (computeKernelHistogram(whole, whole.strings.find(name), options).count() == 0)
            continue;
        CHECK(compareInParts(whole, parts, name, options, where + ", " + label + ", " + QByteArray(name.c_str())));
    }
}

// One file in `count` time shards, as gaplens-mpi divides it.
Parts timeShards(const std::string &file, std::size_t count)
{
    return gaplens::test::loadInWindows(file, gaplens::test::sampledWindows(file, kKernelHistogramTables, count));
}

} // namespace

class TestKernelHistogramInParts : public QObject
{
    Q_OBJECT

private slots:
    void generatedJobInParts()
    {
        gaplens::test::SynthSample sample;
        auto options = gaplens::test::synthOptions(4, 150);
        options.jitter = 0.2; // distinct durations: every order statistic takes the histogram passes
        QVERIFY(sample.write(options));
        const auto whole = gaplens::test::loadOnOneThread(sample.synth.files);
        const auto kernels = summarizeKernels(*whole);
        QVERIFY(kernels.rows.size() > 2);
        // The longest kernel by time, and the one with the fewest launches.
        const std::string busiest = whole->str(kernels.rows.front().name);
        const std::string last = whole->str(kernels.rows.back().name);
        for (const std::size_t count : { 1, 2, 3, 5 }) {
            const auto parts = gaplens::test::loadInParts(sample.synth.files, count);
            const QByteArray where = QByteArray::number(qulonglong(count)) + " parts";
            CHECK(compareEveryOption(*whole, parts, busiest, where));
            CHECK(compareEveryOption(*whole, parts, last, where));
        }
    }

    void generatedFileInTimeShards()
    {
        gaplens::test::SynthSample sample;
        auto options = gaplens::test::synthOptions(1, 300);
        options.jitter = 0.3;
        QVERIFY(sample.write(options));
        QCOMPARE(sample.synth.files.size(), std::size_t(1));
        const auto whole = gaplens::test::loadOnOneThread(sample.synth.files);
        const std::string busiest = whole->str(summarizeKernels(*whole).rows.front().name);
        for (const std::size_t count : { 2, 4, 7 })
            CHECK(compareEveryOption(*whole, timeShards(sample.synth.files.front(), count), busiest,
                QByteArray::number(qulonglong(count)) + " time shards"));
    }

    // Launches tied in duration and start on three streams come out in the whole file's stream
    // order from the shard that holds them, although the shard meets its streams in another
    // order than the file does (its rows: 3 before 9; the file's: 7, 9, 3).
    void tiedLaunchesOnStreamsMetInAnotherOrder()
    {
        QTemporaryDir dir;
        const auto file = gaplens::test::writeExportIn(dir, "ties.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 1000, 1100, 9, 6, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 2000, 2100, 3, 7, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 5000, 5300, 3, 8, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 5000, 5300, 9, 9, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 5000, 5300, 7, 10, 16777216 * 42, 1);
        )");
        const auto whole = gaplens::test::loadOnOneThread({ file });
        const auto expected = histogramFigures(*whole, computeKernelHistogram(*whole, whole->strings.find("gemm")), 3);
        QCOMPARE(expected.slowest.size(), std::size_t(3));
        for (std::size_t i = 0; i < 3; ++i)
            QCOMPARE(expected.slowest[i].start - whole->reports.front().timeOffsetNs, 5000);
        // Stored-time edges: the shard from 4000 holds only the tied launches.
        for (const auto &edges : { std::vector<std::int64_t> { 4000 }, std::vector<std::int64_t> { 1500, 4000 } })
            CHECK(compareInParts(*whole, gaplens::test::loadInWindows(file, gaplens::test::windowsOf(edges)), "gemm",
                {}, QByteArray::number(qulonglong(edges.size() + 1)) + " shards"));
    }

    // Kernels in some files only (absent from the other parts), one with a single launch, tied
    // durations (the T4 file's), and one launch per rank (the six-rank job's all-reduce), over
    // real exports dealt over parts.
    void realFilesInParts()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        std::vector<LoadError> errors;
        auto files = expandInputs({ gaplens::test::realDataDir() + "/ring_6ranks" }, errors);
        QCOMPARE(files.size(), std::size_t(6));
        files.insert(files.begin(),
            { gaplens::test::realFile("nsysai_mock.sqlite"), gaplens::test::realFile("gpu4_streams_report2.sqlite") });
        const auto whole = gaplens::test::loadOnOneThread(files);
        QVERIFY(whole->errors.empty());
        QCOMPARE(computeKernelHistogram(*whole, whole->strings.find("reduce_kernel")).count(), std::size_t(1));
        for (const std::size_t count : { 2, 3, 4 }) {
            const auto parts = gaplens::test::loadInParts(files, count);
            const QByteArray where = QByteArray::number(qulonglong(count)) + " parts";
            for (const auto &row : summarizeKernels(*whole).rows)
                CHECK(compareEveryOption(*whole, parts, whole->str(row.name), where));
        }
    }

    // Every kernel of every real export, in 3 time shards.
    void realFilesInTimeShards()
    {
        std::vector<std::string> files;
        CHECK(gaplens::test::listRealExports(files, 14));
        std::size_t compared = 0;
        for (const auto &file : files) {
            const auto whole = gaplens::test::loadOnOneThread({ file });
            const auto parts = timeShards(file, 3);
            for (const auto &row : summarizeKernels(*whole).rows) {
                CHECK(compareEveryOption(*whole, parts, whole->str(row.name), QByteArray(file.c_str())));
                ++compared;
            }
        }
        QVERIFY(compared > 30);
    }
};

QTEST_APPLESS_MAIN(TestKernelHistogramInParts)
#include "tst_kernel_histogram_in_parts.moc"
