// SPDX-License-Identifier: MIT
// Idle gaps of a file read in time shards (core/analysis/gap_shards.h, gaplens-mpi's gaps
// and blame): each shard reads its window's kernels and copies, tells the later shards its
// edges, reads again with the halo they give it, and finds and blames the gaps its own work
// ends. Together the shards' gaps must be the whole file's, every field of every gap, and
// their totals merged in shard order the whole file's totals. The edge cases: a gap whose
// ending kernel's launch call lies in another shard, a kernel across a shard edge, an NVTX
// range open across several shards at a gap, empty shards, more shards than events, copies
// counted as busy, and every real export.
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/gap_shards.h"
#include "gaplens/core/read/loader.h"
#include "gaplens/core/read/time_shards.h"
#include "minimal_export.h"
#include "shard_windows.h"
#include "synth_sample.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <fmt/format.h>

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace gaplens::core;
using gaplens::test::sampledWindows;
using gaplens::test::windowsOf;

namespace {

constexpr TableSet kFirstRead = TableSet(ExportTable::Kernels) | ExportTable::Copies;

std::shared_ptr<const DerivedCapture> derive(
    std::shared_ptr<const TraceSet> trace, bool withCopies, EarlierShards earlier)
{
    DerivedOptions options;
    options.includeCopies = withCopies;
    options.foldIndexes = false;
    options.earlierShards = std::move(earlier);
    return DerivedCapture::build(std::move(trace), options);
}

std::shared_ptr<TraceSet> load(const std::string &file, TableSet tables, std::vector<StoredStartWindow> windows = {})
{
    LoadOptions options;
    options.files = { file };
    options.tables = tables;
    options.windows = std::move(windows);
    options.threads = 1;
    return loadTraceSet(options);
}

std::string stackText(const TraceSet &trace, std::uint32_t report, std::uint32_t chain)
{
    std::string text;
    const auto stack = trace.reports[report].callchains.stackOf(chain);
    for (std::size_t i = 0; i < stack.size(); ++i)
        text += trace.str(stack.module[i]) + "!" + trace.str(stack.symbol[i]) + ";";
    return text;
}

// Every field of a gap's blame that an output shows, as text (indices name each trace's own
// columns, so what they point at is written out instead).
std::string describe(const TraceSet &trace, const GapBlame &b)
{
    const Gpu &gpu = trace.gpus[b.gpu];
    std::string phase;
    for (const auto name : b.phaseStack)
        phase += trace.str(name) + ">";
    const auto endStream = b.endKind == GapEndKind::Kernel ? gpu.streams[b.endStream].streamId : -1;
    return fmt::format("gpu {} [{}, {}) end {} stream {} pid {} corr {} rank pid {} | {} api '{}' {} copy {} | launch "
                       "tid {} stack {} | waited {} stream {} | phase {} | os '{}' {} stack {}",
        gpu.deviceId, b.gap.start, b.gap.end, int(b.endKind), endStream, b.endPid, b.endCorrelationId,
        b.rank == kNoIndex ? 0 : trace.ranks[b.rank].pid, gapCauseLabel(b.cause), trace.str(b.apiName),
        apiKindId(b.apiKind), b.copyNs, b.launchTid, stackText(trace, gpu.report, b.launchCallchain),
        waitKindId(b.waitedOn), b.waitStream ? std::to_string(*b.waitStream) : "-", phase, trace.str(b.osCall),
        osCategoryId(b.osCategory),
        b.phaseThread == kNoIndex ? "" : stackText(trace, trace.threads[b.phaseThread].report, b.osCallchain));
}

std::string describe(const BlameTotals &t)
{
    std::string text = fmt::format("{} gaps {} ns copies {} {}\n", t.gapCount, t.totalGapNs, t.copyNs, t.copyCauseNs);
    for (const auto *buckets : { &t.byCause, &t.byPhase, &t.byOsCall, &t.byOsCategory }) {
        for (const auto &b : *buckets)
            text += fmt::format("  {} {} {} {} {} {} {}\n", b.key, int(b.cause), int(b.osCategory), b.count, b.totalNs,
                b.longestNs, b.copyNs);
        text += "--\n";
    }
    return text;
}

struct GapsOfFile
{
    std::vector<std::string> gaps;
    std::string totals;
    std::vector<std::size_t> perShard; // gaps found by each shard
    std::vector<std::size_t> hostRows; // CUDA calls and NVTX ranges each shard held
    std::vector<std::size_t> osRows; // OS runtime calls each shard held
    std::vector<std::size_t> chains; // call stacks each shard held
    std::vector<std::size_t> syncs; // synchronisation records each shard held
};

std::vector<std::string> gapsOf(const TraceSet &trace, const DerivedCapture &derived)
{
    std::vector<std::string> out;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
        for (std::size_t k = 0; k < derived.gaps(GpuIndex(g)).size(); ++k)
            out.push_back(describe(trace, derived.gaps(GpuIndex(g)).blame[k]));
    return out;
}

GapsOfFile whole(const std::string &file, bool withCopies)
{
    const auto trace = load(file, kGapBlameTables);
    const auto derived = derive(trace, withCopies, {});
    return { gapsOf(*trace, *derived), describe(derived->overallTotals()), { 0 } };
}

// The file's gaps found shard by shard, as gaplens-mpi's processes find them, and put in
// GPU order as its root puts them: a GPU's gaps shard after shard, a GPU's totals merged in
// shard order, and the GPUs' totals merged in GPU order.
GapsOfFile inShards(const std::string &file, const std::vector<StoredStartWindow> &windows, bool withCopies)
{
    std::vector<ShardEdges> edges;
    for (const auto &window : windows)
        edges.push_back(shardEdges(*load(file, kFirstRead, { window }), 0, withCopies));
    GapsOfFile out;
    std::map<std::int32_t, std::vector<std::string>> gapsByDevice;
    std::map<std::int32_t, std::vector<BlameTotals>> totalsByDevice;
    std::vector<std::int32_t> deviceOrder; // the GPU order of a shard (the same in each)
    for (std::size_t s = 0; s < windows.size(); ++s) {
        const std::vector<ShardEdges> earlier(edges.begin(), edges.begin() + std::ptrdiff_t(s));
        auto window = windows[s];
        window.halo = shardHalo(earlier, edges[s]);
        const auto trace = load(file, kGapBlameTables, { window });
        EarlierShards carry;
        if (!trace->reports.empty())
            addEarlierShards(*trace, 0, earlier, carry);
        const auto derived = derive(trace, withCopies, carry);
        std::size_t found = 0, hostRows = 0;
        for (const auto &thread : trace->threads)
            hostRows += thread.api.size() + thread.nvtx.size();
        out.hostRows.push_back(hostRows);
        std::size_t osRows = 0;
        for (const auto &thread : trace->threads)
            osRows += thread.osrt.size();
        out.osRows.push_back(osRows);
        out.chains.push_back(trace->reports.empty() ? 0 : trace->reports.front().callchains.chainCount());
        std::size_t syncs = 0;
        for (const auto &gpu : trace->gpus)
            syncs += gpu.syncs.size();
        out.syncs.push_back(syncs);
        deviceOrder.clear();
        for (std::uint32_t g = 0; g < trace->gpus.size(); ++g) {
            const auto device = trace->gpus[g].deviceId;
            deviceOrder.push_back(device);
            for (const auto &blame : derived->gaps(GpuIndex(g)).blame)
                gapsByDevice[device].push_back(describe(*trace, blame));
            found += derived->gaps(GpuIndex(g)).size();
        }
        for (const auto &gpu : derived->gpuTotals())
            totalsByDevice[trace->gpus[gpu.gpu].deviceId].push_back(gpu.totals);
        out.perShard.push_back(found);
    }
    std::vector<BlameTotals> totals;
    for (const auto device : deviceOrder) {
        out.gaps.insert(out.gaps.end(), gapsByDevice[device].begin(), gapsByDevice[device].end());
        if (totalsByDevice.count(device))
            totals.push_back(mergeBlameTotals(totalsByDevice[device]));
    }
    out.totals = describe(mergeBlameTotals(totals));
    return out;
}

void checkSameGaps(const std::string &file, const std::vector<StoredStartWindow> &windows, bool withCopies = false)
{
    const auto all = whole(file, withCopies);
    const auto parts = inShards(file, windows, withCopies);
    QCOMPARE(parts.gaps.size(), all.gaps.size());
    for (std::size_t i = 0; i < all.gaps.size(); ++i)
        QCOMPARE(QString::fromStdString(parts.gaps[i]), QString::fromStdString(all.gaps[i]));
    QCOMPARE(QString::fromStdString(parts.totals), QString::fromStdString(all.totals));
}

} // namespace

class TestGapsInShards : public QObject
{
    Q_OBJECT

    gaplens::test::SynthSample m_single; // one rank in one file
    std::shared_ptr<TraceSet> m_trace; // m_single, loaded whole
    std::shared_ptr<const DerivedCapture> m_derived;

    // A time as the file stores it.
    std::int64_t stored(TimeNs absolute) const { return absolute - m_trace->reports.front().timeOffsetNs; }

    // The first gap of the whole file that `wanted` accepts.
    const GapBlame *firstGap(const std::function<bool(const GapBlame &)> &wanted) const
    {
        const auto &table = m_derived->gaps(GpuIndex(0));
        for (const auto &b : table.blame)
            if (wanted(b))
                return &b;
        return nullptr;
    }

private slots:
    void initTestCase()
    {
        auto options = gaplens::test::synthOptions(1, 60);
        options.jitter = 0.2;
        options.scaleRuntimePerRank = 4000;
        options.scaleNvtxPerRank = 4000;
        QVERIFY(m_single.write(options));
        m_trace = load(m_single.synth.files.front(), kGapBlameTables);
        m_derived = derive(m_trace, false, {});
        QVERIFY(m_derived->overallTotals().gapCount > 20);
    }

    void sampledShardsFindTheWholeFilesGaps_data()
    {
        QTest::addColumn<int>("shards");
        QTest::addColumn<bool>("withCopies");
        for (const int shards : { 1, 2, 3, 5 })
            for (const bool withCopies : { false, true })
                QTest::addRow("%d shards%s", shards, withCopies ? ", copies busy" : "") << shards << withCopies;
    }

    void sampledShardsFindTheWholeFilesGaps()
    {
        QFETCH(int, shards);
        QFETCH(bool, withCopies);
        const auto &file = m_single.synth.files.front();
        CHECK(checkSameGaps(file, sampledWindows(file, kTimeShardTables, std::size_t(shards)), withCopies));
        if (shards == 1)
            return;
        // The gaps really are spread over the shards, and the halo keeps a shard near its
        // share of the host rows (not every row since the file's start).
        const auto parts = inShards(file, sampledWindows(file, kTimeShardTables, std::size_t(shards)), withCopies);
        std::size_t wholeRows = 0;
        for (const auto &thread : m_trace->threads)
            wholeRows += thread.api.size() + thread.nvtx.size();
        for (std::size_t s = 0; s < parts.perShard.size(); ++s) {
            QVERIFY(parts.perShard[s] > 0);
            QVERIFY2(parts.hostRows[s] < 2 * wholeRows / std::size_t(shards),
                qPrintable(
                    QStringLiteral("shard %1 holds %2 of %3 host rows").arg(s).arg(parts.hostRows[s]).arg(wholeRows)));
        }
    }

    // The edge at the ending kernel's start: the gap, and the call that launched its kernel,
    // lie in the shard before the one that owns the gap.
    void aGapWhoseLaunchCallIsInAnEarlierShard()
    {
        const auto *gap = firstGap([&](const GapBlame &b) {
            return b.launchCall != kNoIndex && b.gap.start > m_trace->span.start
                && m_trace->threads[b.launchThread].api.start[b.launchCall] < b.gap.end;
        });
        QVERIFY(gap);
        const auto windows = windowsOf({ stored(gap->gap.end) });
        CHECK(checkSameGaps(m_single.synth.files.front(), windows));
        const auto shards = inShards(m_single.synth.files.front(), windows, false);
        QVERIFY(shards.perShard[1] > 0);
    }

    // The edge one nanosecond into a kernel that ends a busy stretch: the gap after it starts
    // at its end, which lies in the next shard.
    void aKernelAcrossAShardEdge()
    {
        const auto *gap = firstGap([&](const GapBlame &b) { return b.gap.start > m_trace->span.start + 1; });
        QVERIFY(gap);
        // The kernel that ends where the gap starts.
        std::int64_t edge = 0;
        for (const auto &stream : m_trace->gpus[0].streams)
            for (std::size_t i = 0; i < stream.kernels.size(); ++i)
                if (stream.kernels.end[i] == gap->gap.start && stream.kernels.end[i] > stream.kernels.start[i] + 1)
                    edge = stored(stream.kernels.start[i] + 1);
        QVERIFY(edge != 0);
        CHECK(checkSameGaps(m_single.synth.files.front(), windowsOf({ edge })));
    }

    // A gap at whose midpoint an NVTX range is open that started three shards before the one
    // owning the gap, and spans the two between.
    void anNvtxRangeOpenAcrossShardsAtAGap()
    {
        const auto *gap = firstGap([&](const GapBlame &b) {
            return !b.phaseRanges.empty()
                && m_trace->threads[b.phaseThread].nvtx.start[b.phaseRanges.front()] + 10 < b.midpoint;
        });
        QVERIFY(gap);
        const auto rangeStart = m_trace->threads[gap->phaseThread].nvtx.start[gap->phaseRanges.front()];
        const auto a = stored(rangeStart + 1), b = stored(rangeStart + (gap->midpoint - rangeStart) / 2);
        const auto windows = windowsOf({ a, b, stored(gap->gap.end) });
        CHECK(checkSameGaps(m_single.synth.files.front(), windows));
        QVERIFY(inShards(m_single.synth.files.front(), windows, false).perShard[3] > 0);
    }

    // A kernel across the edge that outlasts the next shard's kernels on another stream: the
    // gap after them starts where it ends, carried into the next shard.
    void aKernelAcrossAnEdgeOutlastsTheNextShardsKernels()
    {
        QTemporaryDir dir;
        const auto file = gaplens::test::writeExportIn(dir, "overlap.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 150, 100000, 8, 6, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 500, 700, 7, 7, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 200000, 200100, 7, 8, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (120, 140, 0, 16777216 * 42 + 42, 6, 2);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (150000, 199990, 0, 16777216 * 42 + 42, 8, 2);
        )");
        const auto all = whole(file, false);
        QCOMPARE(all.gaps.size(), std::size_t(1)); // [100000, 200000)
        CHECK(checkSameGaps(file, windowsOf({ 300 }))); // stored times, as the rows above give them
        CHECK(checkSameGaps(file, windowsOf({ 300, 600 })));
    }

    // A shard's gaps start no earlier than the latest busy end of its file's earlier shards,
    // or its own first work: the halo starts there.
    void theHaloStartsAtTheCarriedBusyEnd()
    {
        const auto edges = [](std::optional<TimeNs> first, std::optional<TimeNs> until) {
            ShardEdges e;
            e.gpus.push_back({ 0, first, until, {} });
            return e;
        };
        const std::vector<ShardEdges> earlier { edges(10, 100), edges(200, 500), edges(510, 520) };
        QCOMPARE(shardHalo(earlier, edges(600, 700)).from, TimeNs(520));
        QCOMPARE(shardHalo(earlier, edges(515, 700)).from, TimeNs(515)); // its own work starts first
        QCOMPARE(shardHalo({}, edges(600, 700)).from, TimeNs(600));
        QCOMPARE(shardHalo(earlier, edges(std::nullopt, std::nullopt)).from, std::numeric_limits<TimeNs>::max());
    }

    // Blame reads the OS call open at a gap's midpoint, outermost first: a shard keeps the OS
    // calls overlapping its gaps' span or starting in its window, not every call of the file,
    // and only the stacks of the calls it keeps.
    void aShardKeepsOnlyTheOsCallsNearIt()
    {
        QTemporaryDir dir;
        const auto file = gaplens::test::writeExportIn(dir, "os-calls.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO StringIds VALUES (10, 'pthread_cond_wait'), (11, 'futex'), (12, 'fopen'), (13, 'read'),
                (14, 'poll');
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 1000000, 1010000, 7, 6, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 2000000, 2010000, 7, 7, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 3000000, 3010000, 7, 8, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (990000, 995000, 0, 16777216 * 42 + 42, 6, 2);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1990000, 1995000, 0, 16777216 * 42 + 42, 7, 2);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2990000, 2995000, 0, 16777216 * 42 + 42, 8, 2);
            CREATE TABLE OSRT_API (start INTEGER NOT NULL, "end" INTEGER NOT NULL, eventClass INTEGER NOT NULL,
                globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER,
                callchainId INTEGER NOT NULL);
            INSERT INTO OSRT_API VALUES (100000, 900000, 27, 16777216 * 42 + 42, 10, 0, 0, 1);
            INSERT INTO OSRT_API VALUES (400000, 600000, 27, 16777216 * 42 + 42, 11, 0, 1, 2);
            INSERT INTO OSRT_API VALUES (1100000, 1900000, 27, 16777216 * 42 + 42, 12, 0, 0, 3);
            INSERT INTO OSRT_API VALUES (1200000, 1800000, 27, 16777216 * 42 + 42, 13, 0, 1, 4);
            INSERT INTO OSRT_API VALUES (2100000, 2900000, 27, 16777216 * 42 + 42, 14, 0, 0, 5);
            INSERT INTO StringIds VALUES (20, 'libc.so.6'), (21, 'loader_loop'), (22, 'train');
            CREATE TABLE OSRT_CALLCHAINS (id INTEGER, symbol INTEGER, module INTEGER, kernelMode INTEGER,
                thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER, originalIP INTEGER, unwindMethod INTEGER,
                stackDepth INTEGER);
            INSERT INTO OSRT_CALLCHAINS VALUES (1, 10, 20, 0, 0, 0, 0, 1, 1, 0), (1, 21, 22, 0, 0, 0, 0, 2, 1, 1),
                (2, 11, 20, 0, 0, 0, 0, 3, 1, 0), (3, 12, 20, 0, 0, 0, 0, 4, 1, 0), (4, 13, 20, 0, 0, 0, 0, 5, 1, 0),
                (5, 14, 20, 0, 0, 0, 0, 6, 1, 0);
            CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
                unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL);
            INSERT INTO CUDA_CALLCHAINS VALUES (9, 21, 22, NULL, 4096, 0);
        )");
        const auto all = whole(file, false);
        QCOMPARE(all.gaps.size(), std::size_t(3));
        QVERIFY2(all.gaps[0].find("os 'pthread_cond_wait' wait stack train!loader_loop;libc.so.6!pthread_cond_wait;")
                != std::string::npos,
            all.gaps[0].c_str());
        QVERIFY2(all.gaps[1].find("os 'fopen'") != std::string::npos, all.gaps[1].c_str()); // not its read
        QVERIFY2(all.gaps[2].find("os 'poll'") != std::string::npos, all.gaps[2].c_str());
        const auto windows = windowsOf({ 1000000, 2000000, 3000000 });
        CHECK(checkSameGaps(file, windows));
        const auto shards = inShards(file, windows, false);
        QCOMPARE(shards.perShard, (std::vector<std::size_t> { 0, 1, 1, 1 }));
        // The first shard: the calls starting in it; the second: the calls overlapping its gap's
        // [200, 2000000); the third: [1010000, 3000000); the last: [2010000, end), only poll.
        QCOMPARE(shards.osRows, (std::vector<std::size_t> { 2, 4, 3, 1 }));
        // Their stacks, one per call; the whole file holds six (the CUDA one no call names).
        QCOMPARE(shards.chains, (std::vector<std::size_t> { 2, 4, 3, 1 }));
        QCOMPARE(load(file, kGapBlameTables)->reports.front().callchains.chainCount(), std::size_t(6));
    }

    // What a queued gap's work waited for: a stream wait between the kernel before it on its
    // stream and itself (whose launch and wait may lie in an earlier shard), or a host
    // synchronize that returned when the gap ended. A shard keeps only the records its gaps
    // may name, not every record of the file.
    void aShardKeepsOnlyTheSyncsItsGapsMayName()
    {
        QTemporaryDir dir;
        const auto file = gaplens::test::writeExportIn(dir, "syncs.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 1000000, 1010000, 7, 6, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 2000000, 2010000, 7, 9, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 3000000, 3010000, 7, 12, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 4000000, 4010000, 7, 15, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (990000, 995000, 0, 16777216 * 42 + 42, 6, 2);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1001000, 1002000, 0, 16777216 * 42 + 42, 9, 2);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2001000, 2002000, 0, 16777216 * 42 + 42, 12, 2);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (3001000, 3002000, 0, 16777216 * 42 + 42, 15, 2);
            CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, "end" INTEGER, deviceId INTEGER,
                contextId INTEGER, greenContextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,
                deprecatedSyncType INTEGER, syncType INTEGER, eventId INTEGER, eventSyncId INTEGER);
            INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
                (1003000, 1003100, 0, 1, NULL, 7, 8, 16777216 * 42, NULL, 2, 1, NULL),
                (2003000, 2999000, 0, 1, NULL, 7, 11, 16777216 * 42, NULL, 3, 0, NULL),
                (3003000, 3003100, 0, 1, NULL, 7, 14, 16777216 * 42, NULL, 2, 2, NULL),
                (1400000, 1500000, 0, 1, NULL, 7, 3, 16777216 * 42, NULL, 4, 0, NULL),
                (3004000, 3004100, 0, 1, NULL, 8, 13, 16777216 * 42, NULL, 2, 3, NULL),
                (2004000, 3000500, 0, 1, NULL, 9, 10, 16777216 * 42, NULL, 3, 0, NULL);
        )");
        const auto all = whole(file, false);
        QCOMPARE(all.gaps.size(), std::size_t(4));
        // The gap before 1000000 is not queued; the next three waited on the records above.
        QVERIFY2(all.gaps[1].find("waited event_wait stream -") != std::string::npos, all.gaps[1].c_str());
        // The synchronize returning closest to the gap's end: 0.5 us after it, past the shard's edge.
        QVERIFY2(all.gaps[2].find("waited host_sync stream 9") != std::string::npos, all.gaps[2].c_str());
        QVERIFY2(all.gaps[3].find("waited event_wait stream -") != std::string::npos, all.gaps[3].c_str());
        // The third shard ends 0.2 us after its kernel: the synchronize its gap names returns
        // past its edge.
        const auto windows = windowsOf({ 2000000, 3000000, 3000200, 4000000 });
        CHECK(checkSameGaps(file, windows));
        const auto shards = inShards(file, windows, false);
        QCOMPARE(shards.perShard, (std::vector<std::size_t> { 1, 1, 1, 0, 1 }));
        // The first shard: the context synchronize returning in its gaps' span (no gap names
        // it); the second: the wait with correlation id 8 (between its kernel's 9 and the 6 of
        // the one before it), and the three synchronizes returning in [1010000, 3000000 + 2 us];
        // the third: the two stream synchronizes; the fourth, without kernels, none; the last:
        // the wait with id 14. None keeps the wait on stream 8, which runs no kernel.
        QCOMPARE(shards.syncs, (std::vector<std::size_t> { 1, 4, 2, 0, 1 }));
        // Held by name: a range-for over a temporary's member frees the trace before the loop.
        const auto wholeTrace = load(file, kGapBlameTables);
        std::size_t wholeSyncs = 0;
        for (const auto &gpu : wholeTrace->gpus)
            wholeSyncs += gpu.syncs.size();
        QCOMPARE(wholeSyncs, std::size_t(6));
    }

    void emptyShards()
    {
        const auto &file = m_single.synth.files.front();
        const auto sampled = sampleTimeShards(file, kTimeShardTables, 3);
        const auto edge = sampled.edges[0];
        CHECK(checkSameGaps(
            file, windowsOf({ std::numeric_limits<std::int64_t>::min() + 1, edge, edge, edge, sampled.edges[1] })));
    }

    void moreShardsThanEvents()
    {
        QTemporaryDir dir;
        // The minimal export's kernel and a second one 200 us later, inside a longer range.
        const auto file
            = gaplens::test::writeExportIn(dir, "two-kernels.sqlite", gaplens::test::minimalExportSql() + R"(
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 0, 200000, 200100, 7, 6, 16777216 * 42, 1);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (150000, 199990, 0, 16777216 * 42 + 42, 6, 2);
            INSERT INTO NVTX_EVENTS VALUES (30, 300000, 59, NULL, 16777216 * 42 + 42, 3, 0);
        )");
        CHECK(checkSameGaps(file, sampledWindows(file, kTimeShardTables, 8)));
        QVERIFY(!whole(file, false).gaps.empty());
    }

    // Every real export in two and three sampled shards, kernels alone busy and with copies.
    void realExports_data()
    {
        QVERIFY2(!gaplens::test::realDataDir().empty(), gaplens::test::kRealDataMissing);
        gaplens::test::addFileRows(gaplens::test::realExportFiles());
    }

    void realExports()
    {
        QFETCH(QString, file);
        const auto path = file.toStdString();
        for (const bool withCopies : { false, true })
            for (const std::size_t count : { 2, 3 })
                CHECK(checkSameGaps(path, sampledWindows(path, kTimeShardTables, count), withCopies));
    }
};

QTEST_GUILESS_MAIN(TestGapsInShards)
#include "tst_gaps_in_shards.moc"
