// SPDX-License-Identifier: MIT
#include "sqlite_db.h"

#include "read_only_vfs.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace gaplens::core::detail {

Statement::Statement(sqlite3 *db, const std::string &sql)
    : m_db(db)
{
    const int rc = sqlite3_prepare_v2(db, sql.c_str(), int(sql.size()), &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        throw SqliteError(sqlite3_errmsg(db), rc);
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

bool Statement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    throw SqliteError(sqlite3_errmsg(m_db), rc);
}

void Statement::bindInt64(int index, std::int64_t value)
{
    const int rc = sqlite3_bind_int64(m_stmt, index, value);
    if (rc != SQLITE_OK)
        throw SqliteError(sqlite3_errmsg(m_db), rc);
}

void Statement::reset()
{
    // The code is the last step's, which step() has already thrown for.
    sqlite3_reset(m_stmt);
}

std::string_view Statement::text(int column) const
{
    const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    return p ? std::string_view(p, std::size_t(sqlite3_column_bytes(m_stmt, column))) : std::string_view();
}

std::optional<std::string_view> Statement::optionalText(int column) const
{
    const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    if (!p)
        return std::nullopt;
    return std::string_view(p, std::size_t(sqlite3_column_bytes(m_stmt, column)));
}

namespace {

// The name SQLite derives the journal's and WAL's names from: absolute, symbolic links resolved.
std::string sqliteFullPathname(sqlite3_vfs &vfs, const std::string &path)
{
    std::string name(std::size_t(vfs.mxPathname) + 1, '\0');
    // SQLITE_OK_SYMLINK (a link was resolved) is a success too.
    if ((vfs.xFullPathname(&vfs, path.c_str(), vfs.mxPathname + 1, name.data()) & 0xFF) != SQLITE_OK)
        return path; // opening fails the same way and says why
    name.resize(std::strlen(name.c_str()));
    return name;
}

// `path` as an SQLite URI filename: every byte but letters, digits, "-._~" and "/" is
// percent-encoded, so spaces, "?", "#" and "%" stay part of the name.
std::string sqliteUri(const std::string &path, const char *query)
{
    std::string uri = path.starts_with('/') ? "file://" : "file:";
    for (const char c : path) {
        const auto u = static_cast<unsigned char>(c);
        const bool unreserved = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '-'
            || u == '.' || u == '_' || u == '~' || u == '/';
        uri += unreserved ? std::string(1, c) : fmt::format("%{:02X}", u);
    }
    if (*query)
        uri += fmt::format("?{}", query);
    return uri;
}

// A regular file with at least one byte (a directory, or a dangling link, holds no log).
bool isNonEmptyFile(const std::string &path)
{
    struct stat st = {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

// SQLite's test for a hot journal: the journal's first byte is not 0. SQLite writes the header
// (magic number first) only when it is about to change the file, and zeroes, truncates or
// deletes the journal when the transaction ends; while one is hot the file may hold part of a
// transaction, and only rolling the journal back (a write) gives the right rows.
void refuseHotJournal(const std::string &journal)
{
    if (!isNonEmptyFile(journal))
        return;
    const int fd = ::open(journal.c_str(), O_RDONLY | O_CLOEXEC);
    unsigned char first = 0;
    const auto got = fd >= 0 ? ::pread(fd, &first, 1, 0) : -1;
    const int error = errno;
    if (fd >= 0)
        ::close(fd);
    if (got < 0)
        throw UnfinishedWriteError(fmt::format("has a rollback journal beside it ({}) that cannot be read ({}), so "
                                               "whether a write to the file is unfinished is unknown",
            journal, std::strerror(error)));
    if (got == 1 && first != 0)
        throw UnfinishedWriteError(fmt::format(
            "has a hot rollback journal beside it ({}): a write to the file did not finish, so it may hold half a "
            "transaction, and gaplens never writes beside a report to roll that back. Let the program writing it "
            "finish, or open the file once with sqlite3 in a writable folder (copy both files there together), "
            "which rolls the write back",
            journal));
}

} // namespace

Database::Database(const std::string &path)
    : m_path(path)
{
    auto &vfs = readOnlyVfs();
    const auto sqliteName = sqliteFullPathname(vfs, path);
    refuseHotJournal(sqliteName + "-journal");
    // Without a non-empty -wal the file alone is the database: immutable, SQLite neither looks
    // beside it nor locks. A -wal may hold committed transactions the file lacks: SQLite reads
    // them with the WAL index in heap memory (exclusive locking mode) and, read-only, never
    // checkpoints; it also ignores a -shm, whose index may be stale when copied.
    const auto wal = sqliteName + "-wal";
    const bool readsWal = isNonEmptyFile(wal);
    m_readsWriteAheadLog = readsWal;
    const auto uri = sqliteUri(path, readsWal ? "" : "immutable=1");
    const int rc
        = sqlite3_open_v2(uri.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, vfs.zName);
    if (rc != SQLITE_OK) {
        std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw SqliteError(message, rc);
    }
    try {
        if (readsWal) {
            sqlite3_db_config(m_db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
            Statement(m_db, "PRAGMA locking_mode = EXCLUSIVE").step();
        }
        // Before any page is read: SQLite then checks every cell of a b-tree page when it first
        // reads the page. Without it, a cell placed at a page's last bytes is parsed from the
        // memory after the page buffer (the page cache's pointers), so a corrupt file loaded in
        // some runs and failed in others. TableScan checks pages the same way (cellsFitPage).
        Statement(m_db, "PRAGMA cell_size_check = ON").step();
        // Reading sqlite_master is the first real read: a non-database or a broken header fails here.
        Statement stmt(m_db, "SELECT name FROM sqlite_master WHERE type IN ('table','view')");
        while (stmt.step())
            m_tables.emplace(stmt.text(0));
    } catch (const SqliteError &e) {
        sqlite3_close(m_db);
        m_db = nullptr;
        if (!readsWal)
            throw;
        throw SqliteError(
            fmt::format("{}, reading it with the write-ahead log beside it ({})", e.what(), wal), e.code());
    } catch (...) {
        sqlite3_close(m_db);
        m_db = nullptr;
        throw;
    }
}

Database::~Database()
{
    sqlite3_close(m_db);
}

std::set<std::string, std::less<>> Database::columns(std::string_view table) const
{
    std::set<std::string, std::less<>> result;
    if (!hasTable(table))
        return result;
    Statement stmt(m_db, fmt::format("PRAGMA table_info(\"{}\")", table));
    while (stmt.step())
        result.emplace(stmt.text(1));
    return result;
}

std::optional<std::string> Database::scalarText(const std::string &sql) const
{
    Statement stmt(m_db, sql);
    if (!stmt.step() || stmt.isNull(0))
        return std::nullopt;
    return std::string(stmt.text(0));
}

} // namespace gaplens::core::detail
