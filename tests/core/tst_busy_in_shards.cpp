// SPDX-License-Identifier: MIT
// GPU busy % of a file read in time shards (gaplens-mpi's check): each shard's part of a GPU's
// busy union, counted after its file's earlier shards' busy end (exchanged as ShardEdges),
// added over the shards must give the whole file's busy time, window and busy % exactly, with
// copies counted or not.
#include "gaplens/core/analysis/busy_shards.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/gap_shards.h"
#include "gaplens/core/read/loader.h"
#include "minimal_export.h"
#include "shard_windows.h"
#include "synth_sample.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace gaplens::core;
using gaplens::test::sampledWindows;
using gaplens::test::windowsOf;

namespace {

std::shared_ptr<TraceSet> load(const std::string &file, std::vector<StoredStartWindow> windows = {})
{
    LoadOptions options;
    options.files = { file };
    options.tables = gpuBusyTables(true);
    options.windows = std::move(windows);
    options.threads = 1;
    return loadTraceSet(options);
}

std::shared_ptr<const DerivedCapture> derive(std::shared_ptr<const TraceSet> trace, bool includeCopies)
{
    DerivedOptions options;
    options.includeCopies = includeCopies;
    options.foldIndexes = false;
    return DerivedCapture::build(std::move(trace), options);
}

// Every GPU's parts over `windows`, added in shard order, against the whole file's figures.
void checkSameBusy(const std::string &file, const std::vector<StoredStartWindow> &windows, bool includeCopies)
{
    const auto whole = derive(load(file), includeCopies);
    std::vector<std::shared_ptr<const DerivedCapture>> shards;
    std::vector<ShardEdges> edges;
    for (const auto &window : windows) {
        const auto trace = load(file, { window });
        edges.push_back(shardEdges(*trace, 0, includeCopies));
        shards.push_back(derive(trace, includeCopies));
    }
    std::map<std::int32_t, GpuBusyPart> byDevice;
    for (std::size_t s = 0; s < shards.size(); ++s) {
        const auto &trace = shards[s]->trace();
        EarlierShards earlier;
        addEarlierShards(trace, 0, { edges.begin(), edges.begin() + std::ptrdiff_t(s) }, earlier);
        for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
            byDevice[trace.gpus[g].deviceId].add(gpuBusyPart(*shards[s], g, earlier));
    }
    QCOMPARE(byDevice.size(), whole->trace().gpus.size());
    for (std::uint32_t g = 0; g < whole->trace().gpus.size(); ++g) {
        const auto &want = whole->busy(GpuIndex(g));
        const auto &got = byDevice[whole->trace().gpus[g].deviceId];
        QCOMPARE(got.busyNs, want.busyNs);
        QCOMPARE(got.window.value_or(TimeRange {}).start, want.window.start);
        QCOMPARE(got.window.value_or(TimeRange {}).end, want.window.end);
        // The same bits: check compares the percentages with a tolerance, gaplens-mpi's JSON
        // prints them, and both must be gaplens-cli's.
        QCOMPARE(got.busyPercent(), want.busyPercent);
    }
}

// Kernels of two streams and a copy on GPU 0, in stored times, beside the minimal export's
// kernel (100-200 on stream 7). The long kernel (150-1000) covers stream 7's 500-700; the
// copy (1800-2050) overlaps the last kernel.
const char *const kOverlapRows = R"(
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 150, 1000, 8, 6, 16777216 * 42, 1);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 500, 700, 7, 7, 16777216 * 42, 1);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 2000, 2100, 7, 8, 16777216 * 42, 1);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, "end" INTEGER, deviceId INTEGER, streamId INTEGER,
        correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER,
        dstKind INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1800, 2050, 0, 9, 20, 16777216 * 42, 4096, 1, 0, 0);
)";

} // namespace

class TestBusyInShards : public QObject
{
    Q_OBJECT

    gaplens::test::SynthSample m_single;

private slots:
    void initTestCase()
    {
        auto options = gaplens::test::synthOptions(2, 60);
        options.jitter = 0.2;
        QVERIFY(m_single.write(options));
    }

    void sampledShards_data()
    {
        QTest::addColumn<int>("shards");
        QTest::addColumn<bool>("includeCopies");
        for (const int shards : { 1, 2, 3, 5, 9 })
            for (const bool copies : { false, true })
                QTest::addRow("%d shards%s", shards, copies ? ", copies counted" : "") << shards << copies;
    }

    void sampledShards()
    {
        QFETCH(int, shards);
        QFETCH(bool, includeCopies);
        const auto &file = m_single.synth.files.front();
        CHECK(checkSameBusy(file, sampledWindows(file, kTimeShardTables, std::size_t(shards)), includeCopies));
    }

    // An edge inside the long kernel: the next shard's kernel lies under it and must not count
    // twice, and a shard may hold no work at all. With copies counted, the copy that starts in
    // one shard and outlasts the kernel of the next is counted once.
    void workAcrossShardEdges_data()
    {
        QTest::addColumn<std::vector<std::int64_t>>("edges");
        QTest::addColumn<bool>("includeCopies");
        for (const bool copies : { false, true }) {
            QTest::addRow("inside the long kernel%s", copies ? ", copies" : "")
                << std::vector<std::int64_t> { 300 } << copies;
            QTest::addRow("an empty shard between%s", copies ? ", copies" : "")
                << std::vector<std::int64_t> { 300, 1200, 1500 } << copies;
            QTest::addRow("between the copy and the last kernel%s", copies ? ", copies" : "")
                << std::vector<std::int64_t> { 600, 1900 } << copies;
        }
    }

    void workAcrossShardEdges()
    {
        QFETCH(std::vector<std::int64_t>, edges);
        QFETCH(bool, includeCopies);
        QTemporaryDir dir;
        const auto file
            = gaplens::test::writeExportIn(dir, "edges.sqlite", gaplens::test::minimalExportSql() + kOverlapRows);
        const auto whole = derive(load(file), includeCopies);
        // The union: 100-1000, then 2000-2100, or 1800-2100 with the copy.
        QCOMPARE(whole->busy(GpuIndex(0)).busyNs, TimeNs(includeCopies ? 900 + 300 : 900 + 100));
        CHECK(checkSameBusy(file, windowsOf(edges), includeCopies));
    }

    void realExports_data()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        gaplens::test::addFileRows(gaplens::test::realExportFiles());
    }

    void realExports()
    {
        QFETCH(QString, file);
        const auto path = file.toStdString();
        // An NVTX-only export has no GPU: the shards must not make one up either.
        for (const std::size_t count : { 2, 3 })
            for (const bool copies : { false, true })
                CHECK(checkSameBusy(path, sampledWindows(path, kTimeShardTables, count), copies));
    }
};

QTEST_GUILESS_MAIN(TestBusyInShards)
#include "tst_busy_in_shards.moc"
