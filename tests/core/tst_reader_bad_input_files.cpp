// SPDX-License-Identifier: MIT
// Bad inputs that are not bad databases but bad files: a FIFO, a device, a socket, a file
// this process may not read, names longer than the system allows, and 10k-character names
// inside an export. Each gets one message that names it and says what is wrong, quickly
// (a FIFO is never opened, so nothing waits for a writer), and the good file beside it
// still loads. docs/bad-input.md lists every bad-input case and its test.
#include "gaplens/core/read/loader.h"

#include "minimal_export.h"
#include "sqltestdb.h"
#include "test_files.h"

#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

using namespace gaplens::core;
using gaplens::test::execSql;

namespace {

namespace fs = std::filesystem;

// One kernel launched by one runtime call under one NVTX range.
const std::string kGoodExport = gaplens::test::minimalExportHeadSql() + R"(
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, "end" INTEGER, deviceId INTEGER, streamId INTEGER,
        correlationId INTEGER, globalPid INTEGER, shortName INTEGER, demangledName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 7, 5, 16777216 * 42, 1, 1);
)" + gaplens::test::minimalLaunchAndRangeSql();

// Root reads every file whatever its mode (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), and the
// tests run as root here. This drops both capabilities from the calling thread's effective
// set, so file permissions apply to it as to any user, and raises them again on destruction
// (they stay in the permitted set). Threads started meanwhile inherit the dropped set. For a
// process without the capabilities it changes nothing.
class FileAccessOverrideDropped
{
public:
    FileAccessOverrideDropped()
    {
        m_header.version = _LINUX_CAPABILITY_VERSION_3;
        m_header.pid = 0; // this thread
        m_valid = syscall(SYS_capget, &m_header, m_saved) == 0;
        if (!m_valid)
            return;
        __user_cap_data_struct dropped[_LINUX_CAPABILITY_U32S_3];
        std::memcpy(dropped, m_saved, sizeof dropped);
        dropped[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
        m_valid = syscall(SYS_capset, &m_header, dropped) == 0;
    }
    ~FileAccessOverrideDropped()
    {
        if (m_valid)
            syscall(SYS_capset, &m_header, m_saved);
    }
    FileAccessOverrideDropped(const FileAccessOverrideDropped &) = delete;
    FileAccessOverrideDropped &operator=(const FileAccessOverrideDropped &) = delete;

    bool valid() const { return m_valid; }

private:
    __user_cap_header_struct m_header {};
    __user_cap_data_struct m_saved[_LINUX_CAPABILITY_U32S_3] {};
    bool m_valid = false;
};

// errno of opening `path` for reading (0 when it opens), as the calling thread may.
int openErrno(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno;
    ::close(fd);
    return 0;
}

// A reader that opens a FIFO blocks until a writer appears. A correct reader never opens
// it; a wrong one must fail the test, not hang it: this keeps opening the FIFO's write end
// and closing it again, so such a reader sees end of file, until destroyed.
class FifoWriterUntilDone
{
public:
    explicit FifoWriterUntilDone(std::string path)
        : m_path(std::move(path))
        , m_writer([this] {
            while (!m_done) {
                const int fd = ::open(m_path.c_str(), O_WRONLY | O_CLOEXEC); // waits for a reader
                if (fd < 0)
                    return;
                ::close(fd);
            }
        })
    {
    }
    ~FifoWriterUntilDone()
    {
        m_done = true;
        // The writer may be waiting for a reader: be one until it has finished.
        const int reader = ::open(m_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        m_writer.join();
        if (reader >= 0)
            ::close(reader);
    }
    FifoWriterUntilDone(const FifoWriterUntilDone &) = delete;
    FifoWriterUntilDone &operator=(const FifoWriterUntilDone &) = delete;

private:
    std::string m_path;
    std::atomic<bool> m_done { false };
    std::thread m_writer;
};

} // namespace

class TestReaderBadInputFiles : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_good;

    std::string path(const std::string &name) const { return gaplens::test::pathIn(m_dir, name); }

    // Loads the bad path together with the good file on one thread (so a test's dropped
    // capabilities apply to the whole load); the good one must still load.
    void expectError(const std::string &bad, const char *expectedPhrase)
    {
        LoadOptions options;
        options.files = { bad, m_good };
        options.threads = 1;
        const auto trace = loadTraceSet(options);
        QCOMPARE(trace->reports.size(), std::size_t(1));
        gaplens::test::checkOneErrorBesideGood(*trace, bad, m_good, expectedPhrase);
        if (!QTest::currentTestFailed())
            QCOMPARE(trace->gpus[0].kernelCount(), std::size_t(1));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_good = gaplens::test::writeExportIn(m_dir, "good.sqlite", kGoodExport);
    }

    void fifoIsRefusedWithoutOpeningIt()
    {
        const auto fifo = path("pipe.sqlite");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        FifoWriterUntilDone writer(fifo);
        expectError(fifo, "is not a regular file");
    }

    // Folders are expanded to their regular *.sqlite files: a FIFO among them is not one.
    void folderWithOnlyAFifoIsNamed()
    {
        const auto folder = path("fifo_folder");
        fs::create_directory(folder);
        const auto fifo = folder + "/rank0.sqlite";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        FifoWriterUntilDone writer(fifo);
        expectError(folder, "is a folder without any .sqlite export");
    }

    void devZeroIsRefused() { expectError("/dev/zero", "is not a regular file"); }

    // The message names the path given (the link), not only its target.
    void symlinkToDevZeroIsRefused()
    {
        const auto link = path("zero.sqlite");
        fs::create_symlink("/dev/zero", link);
        expectError(link, "is not a regular file");
    }

    void unixSocketIsRefused()
    {
        const auto socketPath = path("socket.sqlite");
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QVERIFY(fd >= 0);
        sockaddr_un address {};
        address.sun_family = AF_UNIX;
        QVERIFY(socketPath.size() < sizeof address.sun_path);
        std::memcpy(address.sun_path, socketPath.c_str(), socketPath.size() + 1);
        const int bound = ::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address);
        QCOMPARE(bound, 0);
        expectError(socketPath, "is not a regular file");
        ::close(fd);
    }

    void danglingSymlinkIsNamed()
    {
        const auto link = path("moved.sqlite");
        fs::create_symlink(path("no_such_target.sqlite"), link);
        expectError(link, "does not exist");
    }

    void unreadableFileSaysPermissionDenied()
    {
        const auto locked = path("locked.sqlite");
        fs::copy_file(m_good, locked);
        QCOMPARE(::chmod(locked.c_str(), 0), 0);
        FileAccessOverrideDropped asAnyUser;
        QVERIFY(asAnyUser.valid());
        QCOMPARE(openErrno(locked), EACCES); // the precondition: this thread may not read it
        expectError(locked, (std::string("cannot be read: ") + std::strerror(EACCES)).c_str());
    }

    // The file is readable, the folder holding it is not searchable: the file cannot be
    // reached, which is not the same as not existing.
    void fileInUnsearchableFolderSaysPermissionDenied()
    {
        const auto folder = path("locked_folder");
        fs::create_directory(folder);
        const auto inside = folder + "/rank0.sqlite";
        fs::copy_file(m_good, inside);
        QCOMPARE(::chmod(folder.c_str(), 0), 0);
        const auto searchableAgain = qScopeGuard([&] { ::chmod(folder.c_str(), 0700); }); // for QTemporaryDir
        FileAccessOverrideDropped asAnyUser;
        QVERIFY(asAnyUser.valid());
        QCOMPARE(openErrno(inside), EACCES);
        expectError(inside, (std::string("cannot be opened: ") + std::strerror(EACCES)).c_str());
    }

    // One path component of 10,000 characters: longer than NAME_MAX (255).
    void tenThousandCharacterFileNameIsNamed()
    {
        const auto longName = path(std::string(10000, 'n') + ".sqlite");
        QCOMPARE(openErrno(longName), ENAMETOOLONG);
        expectError(longName, (std::string("cannot be opened: ") + std::strerror(ENAMETOOLONG)).c_str());
    }

    // 25 folders of 200 characters each: every name is allowed, the path (5,000+
    // characters) is longer than PATH_MAX (4096).
    void pathLongerThanPathMaxIsNamed()
    {
        std::string longPath = m_dir.path().toStdString();
        for (int i = 0; i < 25; ++i)
            longPath += "/" + std::string(200, char('a' + i));
        longPath += "/rank0.sqlite";
        QVERIFY(longPath.size() > 5000);
        QCOMPARE(openErrno(longPath), ENAMETOOLONG);
        expectError(longPath, (std::string("cannot be opened: ") + std::strerror(ENAMETOOLONG)).c_str());
    }

    // Names are data, not limits: 10,000-character kernel, API, NVTX and thread names load
    // whole (they span several overflow pages of a 4 KiB-page file).
    void tenThousandCharacterNamesLoadWhole()
    {
        const auto p = path("long_names.sqlite");
        execSql(p, std::string(kGoodExport) + R"(
            INSERT INTO StringIds VALUES (10, printf('%.*c', 10000, 'k')), (11, printf('%.*c', 10000, 't')),
                (12, printf('%.*c', 9990, 'a') || '_v7000');
            UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = 10, demangledName = 10;
            UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 12;
            UPDATE NVTX_EVENTS SET text = printf('%.*c', 10000, 'r'), textId = NULL;
            CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
            INSERT INTO ThreadNames VALUES (11, 0, 16777216 * 42 + 42);
        )");
        LoadOptions options;
        options.files = { p };
        const auto trace = loadTraceSet(options);
        QVERIFY(trace->errors.empty());
        QCOMPARE(trace->reports[0].problems.total(), std::uint64_t(0));
        const auto &kernels = trace->gpus.at(0).streams.at(0).kernels;
        QCOMPARE(trace->str(kernels.shortName.at(0)), std::string(10000, 'k'));
        QCOMPARE(trace->str(kernels.demangledName.at(0)), std::string(10000, 'k'));
        const auto &thread = trace->threads.at(0);
        QCOMPARE(trace->str(thread.name), std::string(10000, 't'));
        QCOMPARE(trace->str(thread.api.name.at(0)), std::string(9990, 'a')); // version suffix stripped
        QCOMPARE(trace->str(thread.nvtx.name.at(0)), std::string(10000, 'r'));
    }
};

QTEST_APPLESS_MAIN(TestReaderBadInputFiles)
#include "tst_reader_bad_input_files.moc"
