// SPDX-License-Identifier: MIT
// mergeBlameTotals: the GPUs' blame totals merged in GPU order are the overall totals, field
// by field, bucket by bucket (gaplens-mpi merges its processes' GPUs so), on every real export
// with and without copies; and a key shared by two causes keeps the first part's fields.
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/read/loader.h"
#include "testsupport.h"

#include <QTest>

using namespace gaplens::core;

namespace {

void compareBuckets(const std::vector<BlameBucket> &got, const std::vector<BlameBucket> &want, const QByteArray &where)
{
    QVERIFY2(got.size() == want.size(), where);
    for (std::size_t i = 0; i < want.size(); ++i) {
        const auto &a = got[i], &b = want[i];
        const QByteArray row = where + ", bucket " + QByteArray::fromStdString(b.key);
        QVERIFY2(a.key == b.key && a.cause == b.cause && a.name == b.name && a.osCategory == b.osCategory, row);
        QVERIFY2(
            a.count == b.count && a.totalNs == b.totalNs && a.longestNs == b.longestNs && a.copyNs == b.copyNs, row);
    }
}

void compareTotals(const BlameTotals &got, const BlameTotals &want, const QByteArray &where)
{
    QVERIFY2(got.gapCount == want.gapCount && got.totalGapNs == want.totalGapNs, where);
    QVERIFY2(got.copyNs == want.copyNs && got.copyCauseNs == want.copyCauseNs, where);
    CHECK(compareBuckets(got.byCause, want.byCause, where + " by cause"));
    CHECK(compareBuckets(got.byPhase, want.byPhase, where + " by phase"));
    CHECK(compareBuckets(got.byOsCall, want.byOsCall, where + " by OS call"));
    CHECK(compareBuckets(got.byOsCategory, want.byOsCategory, where + " by OS category"));
}

BlameBucket bucket(std::string key, GapCause cause, StringId name, TimeNs ns)
{
    BlameBucket b;
    b.key = std::move(key);
    b.cause = cause;
    b.name = name;
    b.count = 1;
    b.totalNs = ns;
    b.longestNs = ns;
    return b;
}

} // namespace

class TestBlameMerge : public QObject
{
    Q_OBJECT

private slots:
    void gpuTotalsMergeToTheOverallTotals()
    {
        std::vector<std::string> files;
        CHECK(gaplens::test::listRealExports(files, 14));
        int withGaps = 0;
        for (const auto &file : files) {
            LoadOptions options;
            options.files = { file };
            const auto trace = loadTraceSet(options);
            for (const bool copies : { false, true }) {
                const auto derived
                    = DerivedCapture::build(trace, { .minGapNs = 1000, .includeCopies = copies, .foldIndexes = false });
                QVERIFY(derived);
                std::vector<BlameTotals> gpus;
                for (const auto &g : derived->gpuTotals())
                    gpus.push_back(g.totals);
                CHECK(compareTotals(mergeBlameTotals(gpus), derived->overallTotals(),
                    QByteArray::fromStdString(file) + (copies ? " with copies" : "")));
                withGaps += derived->overallTotals().gapCount > 0 ? 1 : 0;
            }
        }
        QVERIFY(withGaps >= 10); // most exports have gaps to merge
    }

    void aKeySharedByTwoCausesKeepsTheFirstPartsFields()
    {
        BlameTotals first, second;
        first.gapCount = 1;
        first.totalGapNs = 10;
        first.byCause = { bucket("cudaMemcpy", GapCause::ApiCall, 7, 10) };
        second.gapCount = 2;
        second.totalGapNs = 50;
        second.byCause = { bucket("queued", GapCause::QueuedDependencyWait, kEmptyString, 30),
            bucket("cudaMemcpy", GapCause::NoCudaCall, 9, 20) };
        const auto merged = mergeBlameTotals({ first, second });
        QCOMPARE(merged.gapCount, std::uint64_t(3));
        QCOMPARE(merged.totalGapNs, TimeNs(60));
        QCOMPARE(merged.byCause.size(), std::size_t(2));
        // 30 ns each: ordered by key then.
        QCOMPARE(merged.byCause[0].key, std::string("cudaMemcpy"));
        QCOMPARE(merged.byCause[0].cause, GapCause::ApiCall);
        QCOMPARE(merged.byCause[0].name, StringId(7));
        QCOMPARE(merged.byCause[0].count, std::uint64_t(2));
        QCOMPARE(merged.byCause[0].totalNs, TimeNs(30));
        QCOMPARE(merged.byCause[0].longestNs, TimeNs(20));
        QCOMPARE(merged.byCause[1].key, std::string("queued"));
    }
};

QTEST_APPLESS_MAIN(TestBlameMerge)
#include "tst_blame_merge.moc"
