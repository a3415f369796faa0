// SPDX-License-Identifier: MIT
// What the process may still allocate (MemAvailable, cgroup v2 and v1 limits of the process's
// cgroup and its ancestors, RLIMIT_AS less the address space in use), read from fake /proc and
// /sys/fs/cgroup files in a temporary folder; and the memory sizes users write (--max-memory).
#include "gaplens/core/util/memory_limit.h"
#include "gaplens/core/util/units.h"

#include "test_files.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <sys/resource.h>

using namespace gaplens::core;
namespace fs = std::filesystem;
using gaplens::test::writeFile;

class TestMemoryLimit : public QObject
{
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_root; // stands for / in the fake sources

    // Sources that all point into the fake folder; nothing there yet, no RLIMIT_AS.
    MemoryLimitSources fakeSources() const
    {
        MemoryLimitSources sources;
        sources.meminfo = m_root / "proc/meminfo";
        sources.selfCgroup = m_root / "proc/self/cgroup";
        sources.cgroupRoot = m_root / "sys/fs/cgroup";
        sources.selfStatus = m_root / "proc/self/status";
        sources.addressSpaceLimit = kNoAddressSpaceLimit;
        return sources;
    }

    static void compareHeadrooms(const std::vector<MemoryHeadroom> &actual, const std::vector<MemoryHeadroom> &expected)
    {
        QCOMPARE(actual.size(), expected.size());
        for (std::size_t i = 0; i < actual.size(); ++i) {
            QCOMPARE(actual[i].bytes, expected[i].bytes);
            QCOMPARE(actual[i].source, expected[i].source);
        }
    }

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_root = fs::path(m_dir->path().toStdString());
    }

    void nothingReadableMeansNoBound()
    {
        QVERIFY(memoryHeadrooms(fakeSources()).empty());
        QVERIFY(!tightestMemoryHeadroom(fakeSources()));
    }

    void memAvailableFromMeminfo()
    {
        writeFile(m_root / "proc/meminfo",
            "MemTotal:       24731708 kB\n"
            "MemFree:         1000000 kB\n"
            "MemAvailable:       2048 kB\n"
            "Buffers:          123456 kB\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()), { { 2097152, "MemAvailable" } });
    }

    void meminfoWithoutMemAvailableSetsNoBound()
    {
        writeFile(m_root / "proc/meminfo", "MemTotal:       24731708 kB\nMemAvailableX: 5 kB\n");
        QVERIFY(memoryHeadrooms(fakeSources()).empty());
    }

    void cgroupV2LimitOfAnAncestorCapsTheProcess()
    {
        const auto cgroup = m_root / "sys/fs/cgroup";
        writeFile(m_root / "proc/self/cgroup", "0::/user.slice/job.scope\n");
        writeFile(cgroup / "user.slice/job.scope/memory.max", "max\n");
        writeFile(cgroup / "user.slice/job.scope/memory.current", "123\n");
        writeFile(cgroup / "user.slice/memory.max", "1073741824\n");
        writeFile(cgroup / "user.slice/memory.current", "1000000000\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()),
            { { 73741824,
                "memory.max of cgroup " + (cgroup / "user.slice").string() + ": 1.0 GiB, 953.7 MiB in use" } });
    }

    void cgroupV2LimitsOnEveryLevelAreAllListed()
    {
        const auto cgroup = m_root / "sys/fs/cgroup";
        writeFile(m_root / "proc/self/cgroup", "0::/a/b\n");
        writeFile(cgroup / "a/b/memory.max", "4096\n");
        writeFile(cgroup / "a/b/memory.current", "1024\n");
        writeFile(cgroup / "a/memory.max", "1048576\n");
        writeFile(cgroup / "a/memory.current", "1024\n");
        writeFile(cgroup / "memory.max", "2048\n"); // a container's own cgroup mounted as the root
        writeFile(cgroup / "memory.current", "0\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()),
            { { 3072, "memory.max of cgroup " + (cgroup / "a/b").string() + ": 4.0 KiB, 1.0 KiB in use" },
                { 1047552, "memory.max of cgroup " + (cgroup / "a").string() + ": 1.0 MiB, 1.0 KiB in use" },
                { 2048, "memory.max of cgroup " + cgroup.string() + ": 2.0 KiB, 0 B in use" } });
        const auto tightest = tightestMemoryHeadroom(fakeSources());
        QVERIFY(tightest);
        QCOMPARE(tightest->bytes, std::uint64_t(2048));
    }

    void cgroupV2UsageOverTheLimitLeavesZeroNotAWrappedNumber()
    {
        const auto cgroup = m_root / "sys/fs/cgroup";
        writeFile(m_root / "proc/self/cgroup", "0::/job\n");
        writeFile(cgroup / "job/memory.max", "1000\n");
        writeFile(cgroup / "job/memory.current", "5000\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()),
            { { 0, "memory.max of cgroup " + (cgroup / "job").string() + ": 1000 B, 4.9 KiB in use" } });
    }

    // memory.current counts page cache, which reading a capture fills and a capture mapped from
    // the report cache is made of: active or inactive, it is not in use.
    void cgroupPageCacheIsNotInUse()
    {
        const auto cgroup = m_root / "sys/fs/cgroup";
        writeFile(m_root / "proc/self/cgroup", "0::/job\n");
        writeFile(cgroup / "job/memory.max", "1048576\n");
        writeFile(cgroup / "job/memory.current", "1000000\n");
        writeFile(cgroup / "job/memory.stat",
            "anon 200000\n"
            "file 800000\n"
            "active_file 100000\n"
            "inactive_file 700000\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()),
            { { 848576, "memory.max of cgroup " + (cgroup / "job").string() + ": 1.0 MiB, 195.3 KiB in use" } });

        // More inactive cache than usage (the counters are read one after the other): none in use.
        writeFile(cgroup / "job/memory.stat", "inactive_file 2000000\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()),
            { { 1048576, "memory.max of cgroup " + (cgroup / "job").string() + ": 1.0 MiB, 0 B in use" } });

        // cgroup v1 names them total_inactive_file and total_active_file (without total_, this
        // cgroup's alone).
        const auto memory = m_root / "sys/fs/cgroup/memory";
        writeFile(m_root / "proc/self/cgroup", "4:memory:/job\n");
        writeFile(memory / "job/memory.limit_in_bytes", "1048576\n");
        writeFile(memory / "job/memory.usage_in_bytes", "1000000\n");
        writeFile(memory / "job/memory.stat",
            "inactive_file 1\nactive_file 2\ntotal_inactive_file 500000\ntotal_active_file 100000\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()),
            { { 648576,
                "memory.limit_in_bytes of cgroup " + (memory / "job").string() + ": 1.0 MiB, 390.6 KiB in use" } });
    }

    void cgroupV2WithoutUsageCountsNothingInUse()
    {
        const auto cgroup = m_root / "sys/fs/cgroup";
        writeFile(m_root / "proc/self/cgroup", "0::/job\n");
        writeFile(cgroup / "job/memory.max", "1000\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()),
            { { 1000, "memory.max of cgroup " + (cgroup / "job").string() + ": 1000 B, 0 B in use" } });
    }

    void cgroupOutsideTheNamespaceOrUnparseableIsSkipped()
    {
        const auto cgroup = m_root / "sys/fs/cgroup";
        writeFile(m_root / "proc/self/cgroup", "0::/../../elsewhere\n");
        writeFile(cgroup / "memory.max", "4096\n");
        writeFile(m_root / "sys/fs/elsewhere/memory.max", "1\n");
        QVERIFY(memoryHeadrooms(fakeSources()).empty());

        writeFile(m_root / "proc/self/cgroup", "0::/job\n");
        writeFile(cgroup / "memory.max", "lots\n");
        writeFile(cgroup / "job/memory.max", "12 34\n");
        QVERIFY(memoryHeadrooms(fakeSources()).empty());
    }

    void cgroupV1MemoryControllerIsRead()
    {
        const auto memory = m_root / "sys/fs/cgroup/memory";
        // The layout of a hybrid machine: v1 controllers, an empty v2 hierarchy.
        writeFile(m_root / "proc/self/cgroup",
            "9:name=systemd:/\n"
            "4:memory:/process_api/ae10\n"
            "2:cpu,cpuacct:/\n"
            "0::/\n");
        writeFile(memory / "process_api/ae10/memory.limit_in_bytes", "536870912\n");
        writeFile(memory / "process_api/ae10/memory.usage_in_bytes", "134217728\n");
        writeFile(memory / "memory.limit_in_bytes", "9223372036854771712\n"); // v1's "no limit"
        writeFile(memory / "memory.usage_in_bytes", "5713920\n");
        // Not the memory controller's: ignored.
        writeFile(m_root / "sys/fs/cgroup/cpu/memory.limit_in_bytes", "1\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()),
            { { 402653184,
                  "memory.limit_in_bytes of cgroup " + (memory / "process_api/ae10").string()
                      + ": 512.0 MiB, 128.0 MiB in use" },
                { 9223372036849057792,
                    "memory.limit_in_bytes of cgroup " + memory.string() + ": 8388608.0 TiB, 5.4 MiB in use" } });
    }

    void cgroupV1MemoryAmongSeveralControllers()
    {
        const auto memory = m_root / "sys/fs/cgroup/memory";
        writeFile(m_root / "proc/self/cgroup", "5:cpu,memory:/batch\n");
        writeFile(memory / "batch/memory.limit_in_bytes", "2048\n");
        writeFile(memory / "batch/memory.usage_in_bytes", "1024\n");
        compareHeadrooms(memoryHeadrooms(fakeSources()),
            { { 1024,
                "memory.limit_in_bytes of cgroup " + (memory / "batch").string() + ": 2.0 KiB, 1.0 KiB in use" } });
    }

    void addressSpaceLimitLessTheAddressSpaceInUse()
    {
        writeFile(m_root / "proc/self/status", "Name:\tgaplens\nVmPeak:\t  204800 kB\nVmSize:\t  102400 kB\n");
        auto sources = fakeSources();
        sources.addressSpaceLimit = std::uint64_t(1) << 30;
        compareHeadrooms(memoryHeadrooms(sources),
            { { (std::uint64_t(1) << 30) - 104857600,
                "RLIMIT_AS (ulimit -v) of 1.0 GiB, 100.0 MiB of address space in use" } });

        sources.addressSpaceLimit = 1024;
        compareHeadrooms(
            memoryHeadrooms(sources), { { 0, "RLIMIT_AS (ulimit -v) of 1.0 KiB, 100.0 MiB of address space in use" } });

        fs::remove(m_root / "proc/self/status");
        compareHeadrooms(memoryHeadrooms(sources), { { 1024, "RLIMIT_AS (ulimit -v) of 1.0 KiB" } });
    }

    void unlimitedAddressSpaceSetsNoBound()
    {
        writeFile(m_root / "proc/self/status", "VmSize:\t  102400 kB\n");
        QVERIFY(memoryHeadrooms(fakeSources()).empty());
    }

    void tightestOfAllSources()
    {
        writeFile(m_root / "proc/meminfo", "MemAvailable:    1048576 kB\n");
        writeFile(m_root / "proc/self/cgroup", "0::/job\n");
        writeFile(m_root / "sys/fs/cgroup/job/memory.max", "536870912\n");
        writeFile(m_root / "sys/fs/cgroup/job/memory.current", "0\n");
        writeFile(m_root / "proc/self/status", "VmSize:\t  1024 kB\n");
        auto sources = fakeSources();
        sources.addressSpaceLimit = std::uint64_t(300) << 20;
        const auto headrooms = memoryHeadrooms(sources);
        QCOMPARE(headrooms.size(), std::size_t(3));
        QCOMPARE(headrooms[0].source, std::string("MemAvailable"));
        QCOMPARE(headrooms[1].bytes, std::uint64_t(536870912));
        QCOMPARE(headrooms[2].bytes, std::uint64_t(299) << 20);
        const auto tightest = tightestMemoryHeadroom(sources);
        QVERIFY(tightest);
        QCOMPARE(tightest->bytes, std::uint64_t(299) << 20);
        QCOMPARE(tightest->source, std::string("RLIMIT_AS (ulimit -v) of 300.0 MiB, 1.0 MiB of address space in use"));
    }

    // The default sources are this process's: its RLIMIT_AS through getrlimit, its VmSize. The
    // soft limit is set 64 GiB above the address space already in use, so the test runs under
    // ASan too, whose shadow memory alone takes terabytes of it.
    void thisProcessAddressSpaceLimit()
    {
        std::uint64_t inUse = 0;
        std::ifstream status("/proc/self/status");
        for (std::string line; std::getline(status, line);)
            if (line.starts_with("VmSize:"))
                inUse = std::stoull(line.substr(7)) * 1024; // "VmSize:   123456 kB"
        QVERIFY(inUse > 0);
        constexpr std::uint64_t kGiB = std::uint64_t(1) << 30;
        const std::uint64_t limit = (inUse / kGiB + 65) * kGiB; // whole GiB, 64-65 GiB above VmSize

        rlimit saved {};
        QCOMPARE(getrlimit(RLIMIT_AS, &saved), 0);
        if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < rlim_t(limit))
            QFAIL("RLIMIT_AS's hard limit is below the address space in use + 65 GiB: the test cannot set its soft "
                  "limit there");
        rlimit lowered = saved;
        lowered.rlim_cur = rlim_t(limit);
        QCOMPARE(setrlimit(RLIMIT_AS, &lowered), 0);
        const auto headrooms = memoryHeadrooms();
        QCOMPARE(setrlimit(RLIMIT_AS, &saved), 0);
        const auto rlimitAs = std::find_if(
            headrooms.begin(), headrooms.end(), [](const auto &h) { return h.source.starts_with("RLIMIT_AS"); });
        QVERIFY(rlimitAs != headrooms.end());
        const std::string prefix = "RLIMIT_AS (ulimit -v) of " + formatBytes(limit) + ", ";
        QVERIFY2(rlimitAs->source.starts_with(prefix), rlimitAs->source.c_str());
        QVERIFY2(rlimitAs->source.ends_with(" of address space in use"), rlimitAs->source.c_str());
        // The limit less this test's address space, which grew by far less than 1 GiB since.
        QVERIFY(rlimitAs->bytes <= limit - inUse);
        QVERIFY(rlimitAs->bytes > limit - inUse - kGiB);
        // Restored: no RLIMIT_AS bound when the test started without one.
        if (saved.rlim_cur == RLIM_INFINITY)
            for (const auto &headroom : memoryHeadrooms())
                QVERIFY2(!headroom.source.starts_with("RLIMIT_AS"), headroom.source.c_str());
    }

    void memorySizes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<quint64>("bytes");
        QTest::newRow("bytes") << "1000" << quint64(1000);
        QTest::newRow("B") << "1000B" << quint64(1000);
        QTest::newRow("K") << "1K" << quint64(1024);
        QTest::newRow("k") << "2k" << quint64(2048);
        QTest::newRow("KiB") << "3KiB" << quint64(3072);
        QTest::newRow("KB") << "1KB" << quint64(1000);
        QTest::newRow("M") << "512M" << quint64(512) * 1024 * 1024;
        QTest::newRow("mb") << "5mb" << quint64(5'000'000);
        QTest::newRow("G") << "4G" << (quint64(4) << 30);
        QTest::newRow("GiB fraction") << "1.5GiB" << quint64(1610612736);
        QTest::newRow("GB fraction") << "2.25GB" << quint64(2'250'000'000);
        QTest::newRow("T") << "1T" << (quint64(1) << 40);
        QTest::newRow("TB") << "3TB" << quint64(3'000'000'000'000);
        QTest::newRow("fraction rounds down") << "0.3K" << quint64(307);
        QTest::newRow("fraction of a byte") << "1.9" << quint64(1);
        QTest::newRow("zero") << "0" << quint64(0);
        QTest::newRow("largest") << "18446744073709551615" << quint64(18446744073709551615ull);
        QTest::newRow("largest in TiB") << "16777215T" << (quint64(16777215) << 40);
    }

    void memorySizes()
    {
        QFETCH(QString, text);
        QFETCH(quint64, bytes);
        const auto parsed = parseMemorySize(text.toStdString());
        QVERIFY(parsed);
        QCOMPARE(quint64(*parsed), bytes);
    }

    void notMemorySizes_data()
    {
        QTest::addColumn<QString>("text");
        for (const char *text : { "", "G", "abc", "-5", "+5", " 5", "5 G", "5G ", "1e3", "0x10", "1.", ".5", "1.2.3",
                 "12X", "5GiBB", "5iB", "18446744073709551616", "16777216T", "99999999999999999999K" })
            QTest::newRow(text) << QString::fromLatin1(text);
    }

    void notMemorySizes()
    {
        QFETCH(QString, text);
        QVERIFY(!parseMemorySize(text.toStdString()));
    }
};

QTEST_APPLESS_MAIN(TestMemoryLimit)
#include "tst_memory_limit.moc"
