// SPDX-License-Identifier: MIT
// A capture larger than memory fails up front with a message naming the files, the estimate
// and the limit, instead of swapping the machine and failing later. The estimate counts rows
// (a sparse or huge rowid neither refuses a small file nor wraps into a pass), and the limit
// is the tightest of the user's and the process's own (MemAvailable, cgroup, RLIMIT_AS).
#include "gaplens/core/read/loader.h"
#include "gaplens/core/util/units.h"
#include "gaplens/core/write/synth.h"

#include "sqltestdb.h"
#include "synth_sample.h"
#include "test_files.h"
#include "testsupport.h"
#include "trace_counts.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <string>

using namespace gaplens::core;
namespace fs = std::filesystem;
using gaplens::test::writeFile;

namespace {

// The reader's tables at the loader's bytes per row (kTableCosts in core/src/loader.cpp).
struct Expected
{
    std::uint64_t rows = 0, bytes = 0;
};

Expected expectedEstimate(const SynthRankTruth &truth, std::uint64_t kernels, const std::string &file)
{
    const auto strings = std::uint64_t(gaplens::test::sqlInt(file, "SELECT count(*) FROM StringIds"));
    const auto copies = truth.memcpys + truth.memsets;
    const auto runtime = truth.runtimeCalls + truth.backtraceRows;
    const auto nvtx = truth.nvtxRanges + truth.nvtxMarks + truth.nvtxDomains;
    return { kernels + copies + runtime + nvtx + strings,
        40 * kernels + 56 * copies + 40 * runtime + 36 * nvtx + 96 * strings };
}

} // namespace

class TestLoaderMemoryGuard : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    SynthResult m_capture;
    Expected m_expected; // both files

    std::string path(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)).toStdString(); }

    // No bound of the machine's: the tests' limits are the only ones, whatever the machine has.
    MemoryLimitSources noProcessLimits() const
    {
        MemoryLimitSources sources;
        sources.meminfo = path("none/meminfo");
        sources.selfCgroup = path("none/cgroup");
        sources.cgroupRoot = path("none/sys/fs/cgroup");
        sources.selfStatus = path("none/status");
        sources.addressSpaceLimit = kNoAddressSpaceLimit;
        return sources;
    }

    LoadOptions optionsFor(std::vector<std::string> files, std::uint64_t limit) const
    {
        LoadOptions options;
        options.files = std::move(files);
        options.memoryLimitBytes = limit;
        options.memoryLimitSources = noProcessLimits();
        return options;
    }

    // Rank 0's export, copied so that a test can rewrite its rowids.
    std::string copyOfRank0(const char *name) const
    {
        const auto copy = path(name);
        fs::copy_file(m_capture.files[0], copy, fs::copy_options::overwrite_existing);
        return copy;
    }

    std::string tooLargeMessage(const std::string &names, const Expected &expected, const std::string &limit) const
    {
        return names + ": too large to load: " + std::to_string(expected.rows) + " rows need an estimated "
            + formatBytes(expected.bytes) + " of memory, but " + limit + "; open fewer ranks or free memory";
    }

    // estimateLoad() of `file`, a copy of rank 0's export now holding `kernels` kernels, is
    // `expected` (set here).
    void checkEstimate(const std::string &file, std::uint64_t kernels, Expected &expected) const
    {
        expected = expectedEstimate(m_capture.ranks[0], kernels, file);
        const auto estimate = estimateLoad({ file });
        QCOMPARE(estimate.rows, expected.rows);
        QCOMPARE(estimate.bytes, expected.bytes);
    }

    std::string bothFiles() const { return m_capture.files[0] + ", " + m_capture.files[1]; }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_capture = writeSyntheticCapture(
            m_dir.filePath(QStringLiteral("capture")).toStdString(), gaplens::test::synthOptions(2, 3));
        QCOMPARE(m_capture.files.size(), std::size_t(2));
        for (std::size_t r = 0; r < 2; ++r) {
            const auto file = expectedEstimate(m_capture.ranks[r], m_capture.ranks[r].kernels, m_capture.files[r]);
            m_expected.rows += file.rows;
            m_expected.bytes += file.bytes;
        }
    }

    void estimateCountsEveryKeptRow()
    {
        const auto estimate = estimateLoad(m_capture.files);
        QCOMPARE(estimate.rows, m_expected.rows);
        QCOMPARE(estimate.bytes, m_expected.bytes);
    }

    void tinyLimitFailsBeforeLoadingWithAClearMessage()
    {
        const auto trace = loadTraceSet(optionsFor({ m_dir.filePath(QStringLiteral("capture")).toStdString() }, 1000));
        QCOMPARE(trace->errors.size(), std::size_t(1));
        QVERIFY(trace->ranks.empty());
        QVERIFY(trace->gpus.empty());
        QCOMPARE(trace->errors[0].path, bothFiles());
        QCOMPARE(trace->errors[0].message, tooLargeMessage(bothFiles(), m_expected, "the limit is 1000 B"));
    }

    void limitAtTheEstimateLoadsAndOneByteLessDoesNot()
    {
        const auto fits = loadTraceSet(optionsFor(m_capture.files, m_expected.bytes));
        QVERIFY(fits->errors.empty());
        QCOMPARE(fits->ranks.size(), std::size_t(2));

        const auto refused = loadTraceSet(optionsFor(m_capture.files, m_expected.bytes - 1));
        QCOMPARE(refused->errors.size(), std::size_t(1));
        QCOMPARE(refused->errors[0].message,
            tooLargeMessage(bothFiles(), m_expected, "the limit is " + formatBytes(m_expected.bytes - 1)));
    }

    void unreadableFilesDoNotCountAndStillReportTheirOwnError()
    {
        const auto missing = path("missing.sqlite");
        QCOMPARE(estimateLoad({ missing }).rows, std::uint64_t(0));
        const auto trace = loadTraceSet(optionsFor({ missing }, 1000));
        QCOMPARE(trace->errors.size(), std::size_t(1));
        QVERIFY2(
            trace->errors[0].message.find("does not exist") != std::string::npos, trace->errors[0].message.c_str());
    }

    // max(rowid) x bytes per row called this file 64 GiB and refused it.
    void oneKernelAtRowid2To30LoadsUnderASmallLimit()
    {
        const auto file = copyOfRank0("rowid_2_30.sqlite");
        gaplens::test::execSql(file,
            "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid > 1;"
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = 1073741824;");
        QCOMPARE(gaplens::test::sqlInt(file, "SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1073741824);
        Expected expected;
        CHECK(checkEstimate(file, 1, expected));

        const auto trace = loadTraceSet(optionsFor({ file }, 1 << 20));
        QVERIFY2(trace->errors.empty(), trace->errors.empty() ? "" : trace->errors[0].message.c_str());
        QCOMPARE(trace->ranks.size(), std::size_t(1));
        QCOMPARE(gaplens::test::kernelCount(*trace), std::size_t(1));
    }

    // The reader sizes its columns from the same kind of hint: a rowid range of 2^30 per row
    // made it reserve for ~2^44 kernels after its first 4096 and fail with "not enough
    // memory". A range the file could not hold is replaced by the exact count.
    void sparseRowidsDoNotMakeTheReaderReserveForMissingRows()
    {
        SynthOptions options;
        options.ranks = 1;
        options.scaleKernelsPerRank = 20000;
        const auto capture = writeSyntheticCapture(path("sparse"), options);
        const auto file = capture.files[0];
        const auto kernels = capture.ranks[0].kernels;
        QVERIFY(kernels >= 20000);
        gaplens::test::execSql(file, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = rowid * 1073741824;");
        QCOMPARE(gaplens::test::sqlInt(file, "SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL"),
            std::int64_t(kernels) << 30);

        for (const bool direct : { true, false }) {
            auto load = optionsFor({ file }, std::uint64_t(1) << 32);
            load.directTableScan = direct;
            const auto trace = loadTraceSet(load);
            QVERIFY2(trace->errors.empty(), trace->errors.empty() ? "" : trace->errors[0].message.c_str());
            QCOMPARE(gaplens::test::kernelCount(*trace), std::size_t(kernels));
        }
    }

    // Rowids ending at 2^58: max(rowid) x 64 bytes wrapped to 0 and the guard let any such file
    // through. Counted, the kernels weigh what they are.
    void rowidsUpTo2To58AreCountedNotMultiplied()
    {
        const auto file = copyOfRank0("rowid_2_58.sqlite");
        const auto kernels = m_capture.ranks[0].kernels;
        gaplens::test::execSql(file,
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = rowid + 288230376151711744 - " + std::to_string(kernels)
                + ";");
        QCOMPARE(
            gaplens::test::sqlInt(file, "SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL"), std::int64_t(1) << 58);
        Expected expected;
        CHECK(checkEstimate(file, kernels, expected));

        const auto refused = loadTraceSet(optionsFor({ file }, expected.bytes - 1));
        QCOMPARE(refused->errors.size(), std::size_t(1));
        QCOMPARE(refused->errors[0].message,
            tooLargeMessage(file, expected, "the limit is " + formatBytes(expected.bytes - 1)));

        const auto fits = loadTraceSet(optionsFor({ file }, expected.bytes));
        QVERIFY(fits->errors.empty());
        QCOMPARE(gaplens::test::kernelCount(*fits), std::size_t(kernels));
    }

    // The rowid bound max - min + 1 is 2^64 here: it saturates (no wrap to 0) and the exact
    // count decides.
    void extremeRowidsSaturateAndTheCountDecides()
    {
        const auto file = copyOfRank0("rowid_extremes.sqlite");
        gaplens::test::execSql(file,
            "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid > 2;"
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = -9223372036854775808 WHERE rowid = 1;"
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = 9223372036854775807 WHERE rowid = 2;");
        Expected expected;
        CHECK(checkEstimate(file, 2, expected));

        const auto trace = loadTraceSet(optionsFor({ file }, 1 << 20));
        QVERIFY2(trace->errors.empty(), trace->errors.empty() ? "" : trace->errors[0].message.c_str());
        QCOMPARE(gaplens::test::kernelCount(*trace), std::size_t(2));
    }

    // The process's bounds are read at load time; the tightest one is named when it refuses.
    void cgroupLimitTighterThanTheUserLimitIsNamed()
    {
        auto options = optionsFor(m_capture.files, std::uint64_t(1) << 30);
        const auto fake = fs::path(path("cgroup_fake"));
        options.memoryLimitSources.selfCgroup = fake / "proc/self/cgroup";
        options.memoryLimitSources.cgroupRoot = fake / "sys/fs/cgroup";
        writeFile(fake / "proc/self/cgroup", "0::/job\n");
        writeFile(fake / "sys/fs/cgroup/job/memory.current", "1000\n");
        // 1 byte short of the estimate once the 1000 bytes in use are taken off.
        const auto limit = m_expected.bytes + 999;
        writeFile(fake / "sys/fs/cgroup/job/memory.max", std::to_string(limit) + "\n");
        const auto refused = loadTraceSet(options);
        QCOMPARE(refused->errors.size(), std::size_t(1));
        QCOMPARE(refused->errors[0].message,
            tooLargeMessage(bothFiles(), m_expected,
                "only " + formatBytes(m_expected.bytes - 1) + " is available (memory.max of cgroup "
                    + (fake / "sys/fs/cgroup/job").string() + ": " + formatBytes(limit) + ", 1000 B in use)"));

        writeFile(fake / "sys/fs/cgroup/job/memory.max", std::to_string(limit + 1) + "\n");
        const auto fits = loadTraceSet(options);
        QVERIFY(fits->errors.empty());
        QCOMPARE(fits->ranks.size(), std::size_t(2));

        // Below the cgroup's headroom the user's limit is the one that refuses.
        options.memoryLimitBytes = m_expected.bytes - 1;
        const auto user = loadTraceSet(options);
        QCOMPARE(user->errors.size(), std::size_t(1));
        QCOMPARE(user->errors[0].message,
            tooLargeMessage(bothFiles(), m_expected, "the limit is " + formatBytes(m_expected.bytes - 1)));
    }

    void addressSpaceLimitIsNamed()
    {
        auto options = optionsFor(m_capture.files, 0);
        const auto status = fs::path(path("rlimit_fake/status"));
        writeFile(status, "VmSize:\t    1024 kB\n");
        options.memoryLimitSources.selfStatus = status;
        options.memoryLimitSources.addressSpaceLimit = m_expected.bytes - 1 + 1024 * 1024;
        const auto refused = loadTraceSet(options);
        QCOMPARE(refused->errors.size(), std::size_t(1));
        QCOMPARE(refused->errors[0].message,
            tooLargeMessage(bothFiles(), m_expected,
                "only " + formatBytes(m_expected.bytes - 1) + " is available (RLIMIT_AS (ulimit -v) of "
                    + formatBytes(m_expected.bytes - 1 + 1024 * 1024) + ", 1.0 MiB of address space in use)"));

        options.memoryLimitSources.addressSpaceLimit = m_expected.bytes + 1024 * 1024;
        QVERIFY(loadTraceSet(options)->errors.empty());
    }

    void memAvailableIsNamed()
    {
        auto options = optionsFor(m_capture.files, 0);
        const auto meminfo = fs::path(path("meminfo_fake/meminfo"));
        const auto availableKib = m_expected.bytes / 1024 - 1; // less than the estimate
        writeFile(meminfo, "MemTotal:  999999999 kB\nMemAvailable:  " + std::to_string(availableKib) + " kB\n");
        options.memoryLimitSources.meminfo = meminfo;
        const auto refused = loadTraceSet(options);
        QCOMPARE(refused->errors.size(), std::size_t(1));
        QCOMPARE(refused->errors[0].message,
            tooLargeMessage(
                bothFiles(), m_expected, "only " + formatBytes(availableKib * 1024) + " is available (MemAvailable)"));
    }
};

QTEST_APPLESS_MAIN(TestLoaderMemoryGuard)
#include "tst_loader_memory_guard.moc"
