// SPDX-License-Identifier: MIT
// Replicating a real export keeps its shape: N copies hold N times the activity, GPU busy
// time scales by N (the copies do not overlap), and launch joins stay unique.
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/replicate.h"

#include "testsupport.h"
#include "trace_counts.h"

#include <QTemporaryDir>
#include <QTest>

#include <stdexcept>

using namespace gaplens::core;
using gaplens::test::load;

namespace {

struct Counts
{
    std::uint64_t kernels = 0, copies = 0, calls = 0, ranges = 0, marks = 0, launches = 0;
    TimeNs busyNs = 0, busyWithCopiesNs = 0;
};

Counts countsOf(const TraceSet &trace)
{
    Counts c;
    for (const auto &gpu : trace.gpus) {
        c.kernels += gpu.kernelCount();
        c.copies += gpu.copies.size();
    }
    for (const auto &t : trace.threads) {
        c.calls += t.api.size();
        c.ranges += t.nvtx.size();
        c.marks += t.marks.size();
    }
    // GPU work whose launching call is found: every copy of the activity keeps its joins.
    for (const auto &gpu : trace.gpus)
        for (const auto &stream : gpu.streams)
            for (auto corr : stream.kernels.correlationId)
                c.launches += trace.findLaunch(gpu.report, stream.pid, corr).has_value();
    for (const auto &busy : computeAllGpuBusy(trace))
        c.busyNs += busy.busyNs;
    GpuBusyOptions withCopies;
    withCopies.includeCopies = true;
    for (const auto &busy : computeAllGpuBusy(trace, withCopies))
        c.busyWithCopiesNs += busy.busyNs;
    return c;
}

} // namespace

class TestReplicate : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void threeCopiesTripleCountsAndBusyTime()
    {
        const auto source = gaplens::test::realFile("nsysai_mock.sqlite");
        QVERIFY2(!source.empty(), "real export nsysai_mock.sqlite not found");
        const auto target = m_dir.filePath(QStringLiteral("mock_x3.sqlite")).toStdString();
        ReplicateOptions options;
        options.repeat = 3;
        const auto result = replicateExport(source, target, options);
        QCOMPARE(result.rowsAdded, 2 * result.rowsPerCopy);

        const auto original = load({ source });
        const auto tripled = load({ target });
        QVERIFY(original->errors.empty());
        QVERIFY(tripled->errors.empty());
        const auto a = countsOf(*original), b = countsOf(*tripled);
        QVERIFY(a.kernels > 0 && a.calls > 0 && a.copies > 0);
        QCOMPARE(b.kernels, 3 * a.kernels);
        QCOMPARE(b.copies, 3 * a.copies);
        QCOMPARE(b.calls, 3 * a.calls);
        QCOMPARE(b.ranges, 3 * a.ranges);
        QCOMPARE(b.marks, 3 * a.marks);
        QCOMPARE(b.launches, 3 * a.launches); // correlation ids offset: every launch stays unique
        QCOMPARE(b.busyNs, 3 * a.busyNs);
        QCOMPARE(b.busyWithCopiesNs, 3 * a.busyWithCopiesNs);
        QCOMPARE(tripled->ranks.size(), original->ranks.size());
        QCOMPARE(tripled->span.start, original->span.start);
        QCOMPARE(tripled->span.end, original->span.end + 2 * result.periodNs);

        // The last copy's kernels still find their launching calls.
        const auto &gpu = tripled->gpus[0];
        const auto &k = gpu.streams[0].kernels;
        const auto launch = tripled->findLaunch(gpu.report, gpu.streams[0].pid, k.correlationId.back());
        QVERIFY(launch);
        QVERIFY(tripled->threads[launch->thread].api.start[launch->call] <= k.start.back());
    }

    void gapSeparatesCopies()
    {
        const auto source = gaplens::test::realFile("nsysai_mock.sqlite");
        QVERIFY(!source.empty());
        const auto plain = replicateExport(source, m_dir.filePath(QStringLiteral("a.sqlite")).toStdString(), { 2, 0 });
        const auto gapped
            = replicateExport(source, m_dir.filePath(QStringLiteral("b.sqlite")).toStdString(), { 2, 5000 });
        QCOMPARE(gapped.periodNs, plain.periodNs + 5000);
    }

    void badArgumentsThrow()
    {
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
            replicateExport("/nonexistent.sqlite", m_dir.filePath(QStringLiteral("c.sqlite")).toStdString(), { 2, 0 }));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
            replicateExport("/nonexistent.sqlite", m_dir.filePath(QStringLiteral("c.sqlite")).toStdString(), { 0, 0 }));
    }
};

QTEST_APPLESS_MAIN(TestReplicate)
#include "tst_replicate.moc"
