// SPDX-License-Identifier: MIT
// Opening a report never creates or changes anything beside it (issue 16): every real export
// and the write-ahead-log and rollback-journal cases are loaded from a read-only folder, and
// the folder's listing, each file's sha256 and mtime must be the same afterwards. Tests run as
// root here, where chmod 0555 does not stop a write: the comparison is what catches one.
// What is loaded must be what SQLite reads from the same files in a writable folder, or an
// exact message says why it cannot be.
#include "gaplens/core/read/loader.h"
#include "minimal_export.h"
#include "sqltestdb.h"
#include "test_files.h"
#include "testsupport.h"
#include "trace_counts.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QTest>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace gaplens::core;

namespace {

namespace fs = std::filesystem;

// One kernel ("gemm") launched by one runtime call, one NVTX range.
const std::string kMinimalExport = gaplens::test::minimalExportSql();

// A second kernel, written after the first transaction: in the WAL cases it is only in the -wal.
const char *kSecondKernel = R"(
    INSERT INTO StringIds VALUES (4, 'allreduce');
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (4, 0, 400, 500, 7, 6, 16777216 * 42, 4);
)";

// Enough rows to overflow a 2-page cache: SQLite then writes pages before the commit.
const char *kLargeUncommittedWrite = R"(
    CREATE TABLE padding (x BLOB);
    INSERT INTO padding WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 4000)
        SELECT randomblob(200) FROM q;
)";

// A connection for fixtures that stay open while their files are copied.
struct Connection : gaplens::test::SqlTestDb
{
    explicit Connection(const std::string &path)
        : SqlTestDb(path, Mode::Create)
    {
    }
};

std::uint32_t readBigEndian32(const std::string &bytes, std::size_t at)
{
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i)
        value = value << 8 | std::uint8_t(bytes[at + i]);
    return value;
}

void writeBigEndian32(std::string &bytes, std::size_t at, std::uint32_t value)
{
    for (std::size_t i = 0; i < 4; ++i)
        bytes[at + i] = char(value >> (24 - 8 * i));
}

// SQLite's WAL checksum (wal.c walChecksumBytes) of `bytes`, a multiple of 8 long, read as
// 32-bit words big-endian or little-endian as the WAL header's magic number says.
std::pair<std::uint32_t, std::uint32_t> walChecksum(const std::string &bytes, bool bigEndianWords)
{
    auto word = [&](std::size_t at) {
        const auto bigEndian = readBigEndian32(bytes, at);
        return bigEndianWords
            ? bigEndian
            : (bigEndian >> 24) | ((bigEndian >> 8) & 0xFF00) | ((bigEndian << 8) & 0xFF0000) | (bigEndian << 24);
    };
    std::uint32_t first = 0, second = 0;
    for (std::size_t at = 0; at < bytes.size(); at += 8) {
        first += word(at) + second;
        second += word(at + 4) + first;
    }
    return { first, second };
}

// Bytes 18 and 19 of the header (write and read format versions) set to 1: rollback mode.
void patchRollbackModeHeader(const std::string &path)
{
    gaplens::test::patchFile(path, 18, "\x01\x01");
}

std::int64_t mtimeNs(const struct stat &st)
{
    return std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

struct FileState
{
    std::string name; // "name -> target" for a symbolic link
    std::int64_t size = 0;
    std::int64_t mtimeNs = 0;
    unsigned mode = 0;
    std::string sha256; // of a regular file's bytes
    bool operator==(const FileState &) const = default;
};

struct FolderState
{
    std::int64_t mtimeNs = 0; // changes when an entry is created, renamed or removed
    std::vector<FileState> files;
    bool operator==(const FolderState &) const = default;

    std::string describe() const
    {
        std::string text = "folder mtime " + std::to_string(mtimeNs) + "\n";
        for (const auto &f : files)
            text += "  " + f.name + " size " + std::to_string(f.size) + " mtime " + std::to_string(f.mtimeNs) + " mode "
                + std::to_string(f.mode) + " sha256 " + f.sha256 + "\n";
        return text;
    }
};

FolderState snapshot(const std::string &folder)
{
    FolderState state;
    struct stat st = {};
    if (::lstat(folder.c_str(), &st) != 0)
        qFatal("cannot stat %s", folder.c_str());
    state.mtimeNs = mtimeNs(st);
    for (const auto &entry : fs::directory_iterator(folder)) {
        const auto path = entry.path().string();
        if (::lstat(path.c_str(), &st) != 0)
            qFatal("cannot stat %s", path.c_str());
        FileState file { entry.path().filename().string(), std::int64_t(st.st_size), mtimeNs(st), unsigned(st.st_mode),
            {} };
        if (S_ISLNK(st.st_mode))
            file.name += " -> " + fs::read_symlink(entry.path()).string();
        else if (S_ISREG(st.st_mode))
            file.sha256 = QCryptographicHash::hash(
                QByteArray::fromStdString(gaplens::test::readFile(path)), QCryptographicHash::Sha256)
                              .toHex()
                              .toStdString();
        state.files.push_back(std::move(file));
    }
    std::sort(
        state.files.begin(), state.files.end(), [](const FileState &a, const FileState &b) { return a.name < b.name; });
    return state;
}

// chmod 0555 for the scope of one load; restored so the temporary folder can be removed.
class ReadOnlyFolder
{
public:
    explicit ReadOnlyFolder(std::string folder)
        : m_folder(std::move(folder))
    {
        fs::permissions(m_folder,
            fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec
                | fs::perms::others_read | fs::perms::others_exec);
    }
    ~ReadOnlyFolder() { fs::permissions(m_folder, fs::perms::owner_all, fs::perm_options::add); }
    ReadOnlyFolder(const ReadOnlyFolder &) = delete;
    ReadOnlyFolder &operator=(const ReadOnlyFolder &) = delete;

private:
    std::string m_folder;
};

// The kernels' names, sorted and joined by ", " (QCOMPARE shows a QString when it differs).
QString kernelNames(const TraceSet &t)
{
    QStringList names;
    for (const auto &g : t.gpus)
        for (const auto &s : g.streams)
            for (auto name : s.kernels.shortName)
                names.push_back(QString::fromStdString(t.str(name)));
    names.sort();
    return names.join(", ");
}

// Every load error's message, one a line.
QString errorMessages(const TraceSet &t)
{
    QStringList messages;
    for (const auto &e : t.errors)
        messages.push_back(QString::fromStdString(e.message));
    return messages.join("\n");
}

std::int64_t tableRows(const std::string &file, const char *table, const char *where = "1")
{
    gaplens::test::SqlTestDb db(file);
    return db.hasTable(table) ? db.integer(std::string("SELECT count(*) FROM ") + table + " WHERE " + where) : 0;
}

// What SQLite itself reads: a copy of the folder's files in a writable folder, opened read-write
// (so it may replay a log as SQLite does), the kernels' names by the StringIds table.
QString kernelNamesSqliteReads(const std::string &folder, const std::string &fileName, const std::string &scratch)
{
    fs::remove_all(scratch);
    fs::create_directories(scratch);
    for (const auto &entry : fs::directory_iterator(folder))
        fs::copy_file(entry.path(), fs::path(scratch) / entry.path().filename());
    gaplens::test::SqlTestDb db((fs::path(scratch) / fileName).string(), gaplens::test::SqlTestDb::Mode::Create);
    QStringList names;
    for (const auto &row : db.rows("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                   "JOIN StringIds s ON s.id = k.shortName ORDER BY s.value"))
        names.push_back(QString::fromStdString(row.at(0)));
    return names.join(", ");
}

} // namespace

// Loads into `trace`; fails the test, naming every difference, when the folder changed.
#define LOAD_UNTOUCHED(trace, folder, ...)                                                                             \
    do {                                                                                                               \
        const auto changes = loadAndListChanges(folder, trace, __VA_ARGS__);                                           \
        QVERIFY2(changes.empty(), changes.c_str());                                                                    \
    } while (false)

class TestReaderReadOnly : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::vector<std::string> m_realFiles;

    // A new folder per case whose name needs percent-encoding in an SQLite URI.
    std::string caseFolder(const std::string &name) const
    {
        const auto folder = (fs::path(m_dir.path().toStdString()) / (name + " ?#%41 [x]")).string();
        fs::create_directories(folder);
        return folder;
    }

    static std::string exportIn(const std::string &folder)
    {
        return (fs::path(folder) / "export #1 ?%41.sqlite").string();
    }

    // Loads `inputs` into `trace` with the folder read-only. Returns how the folder changed:
    // empty when it is exactly as it was.
    static std::string loadAndListChanges(const std::string &folder, std::shared_ptr<TraceSet> &trace,
        const std::vector<std::string> &inputs, bool directTableScan = true)
    {
        const auto before = snapshot(folder);
        FolderState after;
        {
            ReadOnlyFolder readOnly(folder);
            LoadOptions options;
            options.files = inputs;
            options.directTableScan = directTableScan;
            trace = loadTraceSet(options);
            after = snapshot(folder);
        }
        if (after == before)
            return {};
        return "the load changed " + folder + "\nbefore:\n" + before.describe() + "after:\n" + after.describe();
    }

    // Loading `inputs` with the folder read-only leaves it as it was, with no error and the
    // kernels `expected`.
    static void expectLoadedUntouched(
        const std::string &folder, const std::vector<std::string> &inputs, const QString &expected, bool direct = true)
    {
        std::shared_ptr<TraceSet> trace;
        LOAD_UNTOUCHED(trace, folder, inputs, direct);
        QCOMPARE(errorMessages(*trace), QString());
        QCOMPARE(kernelNames(*trace), expected);
    }

    // SQLite reads the kernels `expected` from a copy of the folder holding `file`, and loading
    // `input` reads them too, with the direct table scan on and off.
    static void expectReadAsSqliteReadsIt(
        const std::string &folder, const std::string &file, const std::string &input, const QString &expected)
    {
        QCOMPARE(kernelNamesSqliteReads(folder, fs::path(file).filename().string(), folder + ".sqlite-copy"), expected);
        for (const bool direct : { true, false })
            CHECK(expectLoadedUntouched(folder, { input }, expected, direct));
    }

    // A minimal export in WAL mode whose last transaction (the second kernel) is only in the
    // -wal: copied while the writer holds it open with automatic checkpoints off. With
    // `midTransaction`, a larger uncommitted transaction has also spilled into the -wal.
    void writeWalFixture(const std::string &folder, bool withShm, bool midTransaction)
    {
        const auto source = (fs::path(m_dir.path().toStdString()) / "wal-source").string();
        fs::remove_all(source);
        fs::create_directories(source);
        const auto db = (fs::path(source) / "w.sqlite").string();
        Connection writer(db);
        writer.exec(std::string("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;") + kMinimalExport
            + "PRAGMA wal_checkpoint(TRUNCATE);" + kSecondKernel);
        if (midTransaction)
            writer.exec(std::string("PRAGMA cache_size = 2; BEGIN;") + kLargeUncommittedWrite);
        const auto target = exportIn(folder);
        fs::copy_file(db, target);
        fs::copy_file(db + "-wal", target + "-wal");
        if (withShm)
            fs::copy_file(db + "-shm", target + "-shm");
        if (midTransaction)
            writer.exec("ROLLBACK");
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        gaplens::test::listRealExports(m_realFiles, 14);
    }

    void everyRealExportLoadsWithoutAWriteBesideIt_data() { gaplens::test::addFileRows(m_realFiles); }

    void everyRealExportLoadsWithoutAWriteBesideIt()
    {
        QFETCH(QString, file);
        const fs::path original = file.toStdString();
        const auto folder = caseFolder("real " + original.stem().string());
        const auto copy = (fs::path(folder) / original.filename()).string();
        fs::copy_file(original, copy);
        for (const bool direct : { true, false }) {
            std::shared_ptr<TraceSet> trace;
            LOAD_UNTOUCHED(trace, folder, { copy }, direct);
            QCOMPARE(errorMessages(*trace), QString());
            QCOMPARE(trace->reports.size(), std::size_t(1));
            QCOMPARE(std::int64_t(gaplens::test::kernelCount(*trace)), tableRows(copy, "CUPTI_ACTIVITY_KIND_KERNEL"));
            QCOMPARE(std::int64_t(gaplens::test::copyCount(*trace)),
                tableRows(copy, "CUPTI_ACTIVITY_KIND_MEMCPY") + tableRows(copy, "CUPTI_ACTIVITY_KIND_MEMSET"));
            QCOMPARE(std::int64_t(gaplens::test::nvtxRangeCount(*trace)),
                tableRows(copy, "NVTX_EVENTS", "eventType IN (35, 59, 60, 70, 71) AND \"end\" IS NOT NULL"));
        }
    }

    // The header says WAL (bytes 18 and 19 are 2) but no -wal is beside it: the file is the
    // whole database. SQLite used to create the -wal and -shm here.
    void walModeExportWithoutWalFileLoads()
    {
        const auto folder = caseFolder("wal header only");
        const auto file = exportIn(folder);
        gaplens::test::SqlTestDb(file, gaplens::test::SqlTestDb::Mode::Create)
            .exec(std::string("PRAGMA journal_mode = WAL;") + kMinimalExport);
        const auto bytes = gaplens::test::readFile(file);
        QCOMPARE(int(bytes[18]), 2);
        QCOMPARE(int(bytes[19]), 2);
        QVERIFY(!fs::exists(file + "-wal"));
        std::shared_ptr<TraceSet> trace;
        LOAD_UNTOUCHED(trace, folder, { file });
        QCOMPARE(errorMessages(*trace), QString());
        QCOMPARE(kernelNames(*trace), QString("gemm"));
        QCOMPARE(gaplens::test::nvtxRangeCount(*trace), std::size_t(1));
    }

    void walModeExportWithEmptyWalFileLoads()
    {
        const auto folder = caseFolder("wal empty");
        const auto file = exportIn(folder);
        gaplens::test::SqlTestDb(file, gaplens::test::SqlTestDb::Mode::Create)
            .exec(std::string("PRAGMA journal_mode = WAL;") + kMinimalExport);
        std::ofstream(file + "-wal", std::ios::binary).flush();
        QCOMPARE(fs::file_size(file + "-wal"), std::uintmax_t(0));
        CHECK(expectLoadedUntouched(folder, { file }, QString("gemm")));
    }

    // A -wal holding a committed transaction, with no -shm (as copied off a machine, or left by
    // a writer that crashed): its rows are read from the -wal without creating the -shm.
    void committedRowsInWalAreReadWithoutCreatingShm()
    {
        const auto folder = caseFolder("wal committed");
        writeWalFixture(folder, false, false);
        const auto file = exportIn(folder);
        QVERIFY(fs::file_size(file + "-wal") > 0);
        QVERIFY(!fs::exists(file + "-shm"));
        expectReadAsSqliteReadsIt(folder, file, file, QString("allreduce, gemm"));
    }

    // The same with the -shm copied too: it is neither read nor changed.
    void committedRowsInWalAreReadWithShmBeside()
    {
        const auto folder = caseFolder("wal committed shm");
        writeWalFixture(folder, true, false);
        const auto file = exportIn(folder);
        QVERIFY(fs::exists(file + "-shm"));
        CHECK(expectLoadedUntouched(folder, { file }, QString("allreduce, gemm")));
    }

    // Copied while a writer was in the middle of a large transaction, whose pages SQLite had
    // already written to the -wal: only committed transactions are read.
    void uncommittedFramesInWalAreNotRead()
    {
        for (const bool withShm : { false, true }) {
            const auto folder = caseFolder(std::string("wal mid-transaction") + (withShm ? " shm" : ""));
            writeWalFixture(folder, withShm, true);
            const auto file = exportIn(folder);
            QVERIFY(fs::file_size(file + "-wal") > 4000 * 200); // the uncommitted rows' pages are there
            const QString expected("allreduce, gemm");
            QCOMPARE(
                kernelNamesSqliteReads(folder, fs::path(file).filename().string(), folder + ".sqlite-copy"), expected);
            CHECK(expectLoadedUntouched(folder, { file }, expected));
        }
    }

    // A -wal of a format version this SQLite does not know (its header checksum is valid):
    // SQLite refuses to open it, and the message names the -wal.
    void walSqliteCannotReadIsNamed()
    {
        const auto folder = caseFolder("wal unknown version");
        writeWalFixture(folder, false, false);
        const auto file = exportIn(folder);
        auto wal = gaplens::test::readFile(file + "-wal");
        QCOMPARE(readBigEndian32(wal, 4), std::uint32_t(3007000));
        writeBigEndian32(wal, 4, 3007001);
        const auto [first, second] = walChecksum(wal.substr(0, 24), readBigEndian32(wal, 0) & 1);
        writeBigEndian32(wal, 24, first);
        writeBigEndian32(wal, 28, second);
        std::ofstream(file + "-wal", std::ios::binary | std::ios::trunc) << wal;
        std::shared_ptr<TraceSet> trace;
        LOAD_UNTOUCHED(trace, folder, { file });
        QCOMPARE(errorMessages(*trace),
            QString::fromStdString(file
                + ": could not be read (SQLite: unable to open database file, reading it with the write-ahead log "
                  "beside it ("
                + fs::canonical(file).string() + "-wal))"));
    }

    // Opened through a symbolic link, the -wal that counts is the one beside the link's target
    // (SQLite resolves the link), even when the header says rollback mode: SQLite reads a
    // -wal whenever one is there, so the direct scan must not read the file alone.
    void walBesideTheTargetOfASymbolicLinkIsRead()
    {
        const auto folder = caseFolder("wal behind a link");
        writeWalFixture(folder, false, false);
        const auto file = exportIn(folder);
        patchRollbackModeHeader(file);
        const auto link = (fs::path(folder) / "link.sqlite").string();
        fs::create_symlink(fs::path(file).filename(), link);
        expectReadAsSqliteReadsIt(folder, file, link, QString("allreduce, gemm"));
    }

    // A program still has the export open in WAL mode: its committed rows are read, and
    // neither the file, nor its -wal or -shm, changes.
    void exportOpenInWalModeByAnotherConnectionLoads()
    {
        const auto folder = caseFolder("wal live writer");
        const auto file = exportIn(folder);
        Connection writer(file);
        writer.exec(std::string("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;") + kMinimalExport
            + "PRAGMA wal_checkpoint(TRUNCATE);" + kSecondKernel);
        QVERIFY(fs::file_size(file + "-wal") > 0);
        QVERIFY(fs::exists(file + "-shm"));
        CHECK(expectLoadedUntouched(folder, { file }, QString("allreduce, gemm")));
    }

    // A hot rollback journal: a writer changed the file and stopped before committing (copied
    // here mid-transaction). Reading it would need the journal rolled back into the file, a
    // write, so it is refused by name.
    void hotJournalIsRefusedByName()
    {
        const auto folder = caseFolder("hot journal");
        const auto file = exportIn(folder);
        const auto source = (fs::path(m_dir.path().toStdString()) / "journal-source.sqlite").string();
        std::uintmax_t sizeBeforeTheWrite = 0;
        {
            Connection writer(source);
            writer.exec(std::string("PRAGMA journal_mode = DELETE;") + kMinimalExport);
            sizeBeforeTheWrite = fs::file_size(source);
            writer.exec(std::string("PRAGMA cache_size = 2; BEGIN;") + kLargeUncommittedWrite);
            fs::copy_file(source, file);
            fs::copy_file(source + "-journal", file + "-journal");
            writer.exec("ROLLBACK");
        }
        // SQLite writes the journal's magic number once it has synced it, before it changes the
        // file: from then on the journal is hot.
        QCOMPARE(gaplens::test::readFile(file + "-journal").substr(0, 8),
            std::string("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7", 8));
        QVERIFY(fs::file_size(file) > sizeBeforeTheWrite); // the file was changed before the commit
        const auto journal = fs::canonical(file).string() + "-journal";
        std::shared_ptr<TraceSet> trace;
        LOAD_UNTOUCHED(trace, folder, { file });
        const auto expected = file + ": has a hot rollback journal beside it (" + journal
            + "): a write to the file did not finish, so it may hold half a transaction, and gaplens never writes "
              "beside a report to roll that back. Let the program writing it finish, or open the file once with "
              "sqlite3 in a writable folder (copy both files there together), which rolls the write back";
        QCOMPARE(errorMessages(*trace), QString::fromStdString(expected));
        QVERIFY(trace->reports.empty());
    }

    // Journals that are not hot hold no unfinished write: the file alone is the database.
    void coldJournalsAreIgnored()
    {
        // Left empty, as a truncated journal (journal_mode=TRUNCATE) is.
        const auto emptyFolder = caseFolder("empty journal");
        const auto emptyJournalFile = exportIn(emptyFolder);
        gaplens::test::SqlTestDb(emptyJournalFile, gaplens::test::SqlTestDb::Mode::Create).exec(kMinimalExport);
        std::ofstream(emptyJournalFile + "-journal", std::ios::binary).flush();
        std::shared_ptr<TraceSet> trace;
        LOAD_UNTOUCHED(trace, emptyFolder, { emptyJournalFile });
        QCOMPARE(errorMessages(*trace), QString());
        QCOMPARE(kernelNames(*trace), QString("gemm"));

        // journal_mode=PERSIST keeps the journal after the commit, its header zeroed.
        const auto persistFolder = caseFolder("persisted journal");
        const auto persistFile = exportIn(persistFolder);
        gaplens::test::SqlTestDb(persistFile, gaplens::test::SqlTestDb::Mode::Create)
            .exec(std::string("PRAGMA journal_mode = PERSIST;") + kMinimalExport + kSecondKernel);
        const auto journal = gaplens::test::readFile(persistFile + "-journal");
        QVERIFY(journal.size() > 8);
        QCOMPARE(journal[0], '\0');
        LOAD_UNTOUCHED(trace, persistFolder, { persistFile });
        QCOMPARE(errorMessages(*trace), QString());
        QCOMPARE(kernelNames(*trace), QString("allreduce, gemm"));
    }

    // a.sqlite -> b.sqlite -> a.sqlite, given directly and inside a folder with a good export.
    void symbolicLinkLoopIsNamed()
    {
        const auto folder = caseFolder("link loop");
        const auto a = (fs::path(folder) / "a.sqlite").string();
        const auto b = (fs::path(folder) / "b.sqlite").string();
        fs::create_symlink("b.sqlite", a);
        fs::create_symlink("a.sqlite", b);
        std::shared_ptr<TraceSet> trace;
        LOAD_UNTOUCHED(trace, folder, { a });
        const auto loopOfA = a + ": is a symbolic link loop (" + a + " -> b.sqlite -> a.sqlite)";
        QCOMPARE(errorMessages(*trace), QString::fromStdString(loopOfA));

        const auto good = (fs::path(folder) / "good.sqlite").string();
        gaplens::test::SqlTestDb(good, gaplens::test::SqlTestDb::Mode::Create).exec(kMinimalExport);
        LOAD_UNTOUCHED(trace, folder, { folder });
        const auto loopOfB = b + ": is a symbolic link loop (" + b + " -> a.sqlite -> b.sqlite)";
        QCOMPARE(errorMessages(*trace), QString::fromStdString(loopOfA + "\n" + loopOfB));
        QCOMPARE(trace->reports.size(), std::size_t(1));
        QCOMPARE(trace->reports[0].path, good);
        QCOMPARE(kernelNames(*trace), QString("gemm"));

        // The loop in a folder of the path: the file itself is no link.
        const auto loopFolder = (fs::path(folder) / "folder").string();
        fs::create_symlink("folder", loopFolder);
        const auto inside = loopFolder + "/x.sqlite";
        LOAD_UNTOUCHED(trace, folder, { inside });
        QCOMPARE(errorMessages(*trace),
            QString::fromStdString(inside
                + ": cannot be opened: too many levels of symbolic links (a loop through a folder of its path, or a "
                  "chain of links longer than the system follows)"));
    }
};

QTEST_APPLESS_MAIN(TestReaderReadOnly)
#include "tst_reader_read_only.moc"
