// SPDX-License-Identifier: MIT
// A staged load (LoadOptions::onFirstStage, the GUI's) hands over the capture without NVTX
// and OS runtime calls once those parts are read, then returns the full capture. The full
// capture must be exactly a single-stage load's, at 1-3 threads, on generator captures and
// every real export, with bad files among good ones; the first stage must hold what a load of
// its tables alone holds, stay valid after the load returns, and a cancel while it is handed
// over must end the load.
#include "gaplens/core/read/loader.h"
#include "synth_sample.h"
#include "testsupport.h"
#include "trace_compare.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gaplens::core;

namespace {

struct StagedLoad
{
    std::shared_ptr<const TraceSet> first; // what onFirstStage was given
    int firstStageCalls = 0;
    std::shared_ptr<TraceSet> full;
};

LoadOptions optionsFor(const std::vector<std::string> &files, unsigned threads)
{
    LoadOptions options;
    options.files = files;
    options.threads = threads;
    return options;
}

StagedLoad loadStaged(const std::vector<std::string> &files, unsigned threads)
{
    StagedLoad staged;
    auto options = optionsFor(files, threads);
    options.onFirstStage = [&](std::shared_ptr<const TraceSet> first) {
        staged.first = std::move(first);
        ++staged.firstStageCalls;
    };
    staged.full = loadTraceSet(options);
    return staged;
}

// `ignored`: a field name whose differences are expected (in every report).
void same(const TraceSet &reference, const TraceSet &other, const std::string &ignored = {})
{
    std::string shown;
    for (const auto &line : gaplens::test::traceDifferences(reference, other, 1000))
        if (ignored.empty() || line.find(ignored) == std::string::npos)
            shown += "\n  " + line;
    QVERIFY2(shown.empty(), shown.c_str());
}

std::size_t nvtxAndOsrtRows(const TraceSet &trace)
{
    std::size_t rows = 0;
    for (const auto &thread : trace.threads)
        rows += thread.nvtx.size() + thread.marks.size() + thread.osrt.size();
    return rows;
}

bool hasGpuWork(const TraceSet &trace)
{
    for (const auto &gpu : trace.gpus)
        if (gpu.kernelCount() + gpu.copies.size() > 0)
            return true;
    return false;
}

// The staged load's full capture is the single-stage load's, at every thread count; its first
// stage is the load of the first stage's tables alone (whose ranks are the full load's, since
// every file has GPU work), without a row of NVTX or OS runtime calls.
void stagedLoadsAlike(const std::vector<std::string> &files)
{
    const auto firstTables = firstStageTables(TableSet::all());
    for (unsigned threads : { 1u, 2u, 3u }) {
        const auto reference = loadTraceSet(optionsFor(files, threads));
        QVERIFY(!reference->ranks.empty());
        auto staged = loadStaged(files, threads);
        QCOMPARE(staged.firstStageCalls, 1);
        QVERIFY(staged.first);
        QVERIFY(staged.first.get() != staged.full.get());
        CHECK(same(*reference, *staged.full));

        auto firstOnly = optionsFor(files, threads);
        firstOnly.tables = firstTables;
        const auto expectedFirst = loadTraceSet(firstOnly);
        QCOMPARE(nvtxAndOsrtRows(*staged.first), std::size_t(0));
        if (hasGpuWork(*reference)) {
            // The first stage read the whole string table (a full load's first part does); a
            // load of its tables alone looks up only the names its rows use: more rows read.
            CHECK(same(*expectedFirst, *staged.first, ".notes.rowsRead:"));
            for (std::size_t r = 0; r < reference->reports.size(); ++r)
                QVERIFY(staged.first->reports[r].notes.rowsRead <= reference->reports[r].notes.rowsRead);
            QCOMPARE(staged.first->ranks.size(), reference->ranks.size());
        }
        // Both share the strings: every name of the first stage reads the same in the full one.
        for (std::size_t g = 0; g < staged.first->gpus.size(); ++g)
            for (std::size_t s = 0; s < staged.first->gpus[g].streams.size(); ++s)
                for (auto name : staged.first->gpus[g].streams[s].kernels.shortName)
                    QCOMPARE(&staged.first->str(name), &staged.full->str(name));
    }
}

} // namespace

class TestReaderStaged : public QObject
{
    Q_OBJECT

    std::vector<std::string> m_files;
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { gaplens::test::listRealExports(m_files, 14); }

    void generatorCaptureLoadsAlike()
    {
        gaplens::test::SynthSample sample;
        auto options = gaplens::test::synthOptions(3, 20);
        options.scaleNvtxPerRank = 20000;
        QVERIFY(sample.write(options));
        const auto &files = sample.synth.files;
        QCOMPARE(files.size(), std::size_t(3));
        CHECK(stagedLoadsAlike({ files[0] }));
        CHECK(stagedLoadsAlike(files));
    }

    void realExportLoadsAlike_data() { gaplens::test::addFileRows(m_files); }
    void realExportLoadsAlike()
    {
        QFETCH(QString, file);
        CHECK(stagedLoadsAlike({ file.toStdString() }));
    }

    // The six files of one job together: more files than threads, read as two parts each.
    void realFolderLoadsAlike()
    {
        const auto ring = gaplens::test::realFile("ring_6ranks");
        QVERIFY(!ring.empty());
        CHECK(stagedLoadsAlike({ ring }));
    }

    // A file without GPU work: its first stage has no GPU lanes, and the full capture is still
    // the single-stage load's (checked above); its rank is named only once NVTX is read.
    void fileWithoutGpuWork()
    {
        const auto file = gaplens::test::realFile("centerformer_nvtx_only.sqlite");
        const auto staged = loadStaged({ file }, 2);
        QVERIFY(staged.first);
        QVERIFY(staged.first->gpus.empty());
        QCOMPARE(staged.first->ranks.size(), std::size_t(1));
        QVERIFY(nvtxAndOsrtRows(*staged.full) > 0);
    }

    // Bad files among good ones: the full capture has the single-stage load's errors, once each.
    void badFilesAreReportedAlike()
    {
        const auto good = gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite");
        const auto notSqlite = m_dir.filePath(QStringLiteral("not_sqlite.sqlite")).toStdString();
        std::ofstream(notSqlite) << "this is not a database";
        const std::vector<std::string> files { good, notSqlite,
            m_dir.filePath(QStringLiteral("missing.sqlite")).toStdString() };
        for (unsigned threads : { 1u, 2u }) {
            const auto reference = loadTraceSet(optionsFor(files, threads));
            QCOMPARE(reference->errors.size(), std::size_t(2));
            const auto staged = loadStaged(files, threads);
            QCOMPARE(staged.firstStageCalls, 1);
            CHECK(same(*reference, *staged.full));
            QCOMPARE(staged.first->errors.size(), std::size_t(2));
            QCOMPARE(staged.first->ranks.size(), reference->ranks.size());
        }
    }

    // Cancelled while the first stage is handed over: the load ends cancelled, and the first
    // stage stays whole (it is the caller's now).
    void cancelDuringSecondStage()
    {
        const auto file = gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite");
        for (unsigned threads : { 1u, 2u }) {
            CancelToken cancel;
            std::shared_ptr<const TraceSet> first;
            auto options = optionsFor({ file }, threads);
            options.onFirstStage = [&](std::shared_ptr<const TraceSet> given) {
                first = std::move(given);
                cancel.cancel();
            };
            const auto full = loadTraceSet(options, {}, &cancel);
            QVERIFY(full->cancelled);
            QVERIFY(full->ranks.empty());
            QVERIFY(first);
            std::size_t kernels = 0;
            for (const auto &gpu : first->gpus)
                kernels += gpu.kernelCount();
            QCOMPARE(kernels, std::size_t(3442));
            QCOMPARE(first->ranks.size(), std::size_t(2));
        }
    }

    // Cancelled before the first stage is ready: no first stage, a cancelled load.
    void cancelBeforeFirstStage()
    {
        CancelToken cancel;
        cancel.cancel();
        int calls = 0;
        auto options = optionsFor({ gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite") }, 2);
        options.onFirstStage = [&](std::shared_ptr<const TraceSet>) { ++calls; };
        QVERIFY(loadTraceSet(options, {}, &cancel)->cancelled);
        QCOMPARE(calls, 0);
    }

    // Without NVTX in the set there is no second stage to wait for: no first stage either.
    void noFirstStageWithoutNvtx()
    {
        int calls = 0;
        auto options = optionsFor({ gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite") }, 2);
        options.tables = firstStageTables(TableSet::all());
        options.onFirstStage = [&](std::shared_ptr<const TraceSet>) { ++calls; };
        QVERIFY(!loadTraceSet(options)->ranks.empty());
        QCOMPARE(calls, 0);
    }

    // The first stage's columns are a copy: the memory guard counts them on top of the load.
    void memoryGuardCountsTheFirstStage()
    {
        const std::vector<std::string> files { gaplens::test::realFile("nsysai_h100_2gpu_1s.sqlite") };
        const auto whole = estimateLoad(files).bytes;
        const auto copy = estimateLoad(files, firstStageTables(TableSet::all())).bytes
            - estimateLoad(files, TableSet::none()).bytes;
        QVERIFY(copy > 0);
        auto options = optionsFor(files, 2);
        const auto none = m_dir.filePath(QStringLiteral("none/")).toStdString();
        options.memoryLimitSources.meminfo = none + "meminfo";
        options.memoryLimitSources.selfCgroup = none + "cgroup";
        options.memoryLimitSources.cgroupRoot = none + "sys/fs/cgroup";
        options.memoryLimitSources.selfStatus = none + "status";
        options.memoryLimitSources.addressSpaceLimit = kNoAddressSpaceLimit;
        options.memoryLimitBytes = whole + copy - 1;
        QVERIFY(loadTraceSet(options)->errors.empty());
        int calls = 0;
        options.onFirstStage = [&](std::shared_ptr<const TraceSet>) { ++calls; };
        const auto refused = loadTraceSet(options);
        QCOMPARE(refused->errors.size(), std::size_t(1));
        QVERIFY(refused->errors[0].message.find("too large to load") != std::string::npos);
        QCOMPARE(calls, 0);
        options.memoryLimitBytes = whole + copy;
        QVERIFY(loadTraceSet(options)->errors.empty());
        QCOMPARE(calls, 1);
    }

    // gaplens-mpi's rank decision runs collective steps: deciding twice would hang a job.
    void notWithDecideRanks()
    {
        auto options = optionsFor({ gaplens::test::realFile("nsysai_mock.sqlite") }, 1);
        options.onFirstStage = [](std::shared_ptr<const TraceSet>) {};
        options.decideRanks = [](const std::vector<RankCandidate> &candidates, std::vector<std::string> &) {
            return std::vector<RankAssignment>(candidates.size());
        };
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadTraceSet(options));
    }
};

QTEST_APPLESS_MAIN(TestReaderStaged)
#include "tst_reader_staged.moc"
