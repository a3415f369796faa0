// SPDX-License-Identifier: MIT
// The kernel, NVTX, NVTX-projection and CUDA API summaries computed in parts (one thread per
// part standing in for gaplens-mpi's processes, each holding some of the files) equal the
// summaries of the whole capture loaded at once: the same rows in the same order, the same
// names, every figure bit for bit. On a generated 4-rank job (each kernel name thousands of
// times, so the medians take the histogram passes) and on the real six-rank job.
#include "capture_parts.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/read/loader.h"
#include "summary_compare.h"
#include "synth_sample.h"
#include "test_files.h"
#include "testsupport.h"
#include "thread_parts.h"

#include <QTest>

#include <memory>

using namespace gaplens::core;
using gaplens::test::compareSummaries;

namespace {

// The files dealt over `partCount` parts (file i to part i % partCount; a part may get none),
// every summary computed in parts on each, against the whole capture's.
void compareInParts(const std::vector<std::string> &files, std::size_t partCount)
{
    const auto whole = gaplens::test::loadOnOneThread(files);
    QVERIFY(whole->errors.empty());
    QVERIFY(!whole->ranks.empty());
    const auto parts = gaplens::test::loadInParts(files, partCount);
    const auto kernels = summarizeKernels(*whole);
    const auto demangled = summarizeKernels(*whole, { {}, true });
    const auto nvtx = summarizeNvtx(*whole);
    const auto projection = summarizeNvtxProjection(*whole);
    const auto api = summarizeApi(*whole);
    // Both captures have every kind of row, so no comparison below is of empty lists.
    QVERIFY(!kernels.rows.empty() && !nvtx.rows.empty() && !projection.rows.empty() && !api.rows.empty());

    struct Result
    {
        StringPool names;
        KernelSummary kernels, demangled;
        NvtxSummary nvtx;
        NvtxProjectionSummary projection;
        ApiSummary api;
    };
    std::vector<Result> results(partCount);
    gaplens::test::ThreadParts(partCount).run([&](std::size_t p, const PartsReduction &reduction) {
        auto &r = results[p];
        r.kernels = summarizeKernels(*parts[p], {}, reduction, r.names);
        r.demangled = summarizeKernels(*parts[p], { {}, true }, reduction, r.names);
        r.nvtx = summarizeNvtx(*parts[p], {}, reduction, r.names);
        r.projection = summarizeNvtxProjection(*parts[p], {}, reduction, r.names);
        r.api = summarizeApi(*parts[p], {}, reduction, r.names);
    });
    for (std::size_t p = 0; p < partCount; ++p) {
        const QByteArray where
            = "part " + QByteArray::number(qulonglong(p)) + " of " + QByteArray::number(qulonglong(partCount));
        const auto &r = results[p];
        CHECK(compareSummaries(whole->strings, kernels, r.names, r.kernels, where + ", kernels"));
        CHECK(compareSummaries(whole->strings, demangled, r.names, r.demangled, where + ", kernels demangled"));
        CHECK(compareSummaries(whole->strings, nvtx, r.names, r.nvtx, where + ", nvtx"));
        CHECK(compareSummaries(whole->strings, projection, r.names, r.projection, where + ", nvtx projection"));
        CHECK(compareSummaries(whole->strings, api, r.names, r.api, where + ", api"));
    }
}

} // namespace

class TestSummariesInParts : public QObject
{
    Q_OBJECT

private slots:
    void generatedJobInParts_data()
    {
        QTest::addColumn<int>("parts");
        for (const int parts : { 1, 2, 3, 4, 6 })
            QTest::addRow("%d parts", parts) << parts;
    }

    void generatedJobInParts()
    {
        QFETCH(int, parts);
        gaplens::test::SynthSample sample;
        // 4 ranks of 400 steps: each of the 12 kernels 1,600 times, over 4096 with the copies'
        // and the API calls' names.
        QVERIFY(sample.write(gaplens::test::synthOptions(4, 400)));
        CHECK(compareInParts(sample.synth.files, std::size_t(parts)));
    }

    void realSixRankJobInParts()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        std::vector<LoadError> errors;
        const auto files = expandInputs({ gaplens::test::realDataDir() + "/ring_6ranks" }, errors);
        QVERIFY(errors.empty());
        QCOMPARE(files.size(), std::size_t(6));
        for (const std::size_t parts : { 2, 4 })
            CHECK(compareInParts(files, parts));
    }
};

QTEST_APPLESS_MAIN(TestSummariesInParts)
#include "tst_summaries_in_parts.moc"
