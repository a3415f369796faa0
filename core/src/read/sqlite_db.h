// SPDX-License-Identifier: MIT
#pragma once
// Thin RAII wrappers over the SQLite C API for the reader: a read-only connection and a
// prepared statement. Errors throw SqliteError carrying SQLite's own message.
#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gaplens::core::detail {

class SqliteError : public std::runtime_error
{
public:
    SqliteError(const std::string &what, int code)
        : std::runtime_error(what)
        , m_code(code)
    {
    }
    int code() const { return m_code; }

private:
    int m_code;
};

// A value read as an exact 64-bit integer. sqlite3_column_int64 coerces without a word (TEXT
// '123abc' reads as 123, a BLOB as 0, REAL 1.5 as 1); readers that must not invent numbers
// ask for the kind first.
enum class IntegerKind : std::uint8_t {
    Null,
    Integer, // an INTEGER, or a REAL whose value is exactly an int64 (2.0 -> 2)
    NotInteger, // TEXT, BLOB, or a REAL with a fraction, infinite or beyond the int64 range
};

struct ExactInteger
{
    IntegerKind kind = IntegerKind::Null;
    std::int64_t value = 0; // set for IntegerKind::Integer only
};

// A REAL as an exact integer, or NotInteger.
inline ExactInteger exactIntegerFromReal(double value)
{
    // 2^63 is exact as a double; NaN fails every comparison (SQLite stores NaN as NULL anyway).
    constexpr double kTwoTo63 = 9223372036854775808.0;
    if (value >= -kTwoTo63 && value < kTwoTo63 && std::trunc(value) == value)
        return { IntegerKind::Integer, std::int64_t(value) };
    return { IntegerKind::NotInteger, 0 };
}

class Statement
{
public:
    Statement(sqlite3 *db, const std::string &sql);
    ~Statement();
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    // Advances to the next row; false when done. Throws on error (corrupt, truncated).
    bool step();
    // Sets the ?index parameter (counted from 1) for the next run; call reset() first when
    // the statement has run. Throws SqliteError.
    void bindInt64(int index, std::int64_t value);
    // Makes the statement run again from its first row (bindings kept).
    void reset();
    bool isNull(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }
    std::int64_t int64(int column) const { return sqlite3_column_int64(m_stmt, column); }
    std::string_view text(int column) const;
    // The value, or nullopt for NULL. NULL reads as 0, so only a 0 costs a type check: the
    // reader's per-row NULL checks were 4% of a load when every column asked for its type.
    std::optional<std::int64_t> optionalInt64(int column) const
    {
        const auto value = sqlite3_column_int64(m_stmt, column);
        if (value == 0 && sqlite3_column_type(m_stmt, column) == SQLITE_NULL)
            return std::nullopt;
        return value;
    }
    // The text, or nullopt for NULL (SQLite hands out no pointer for NULL).
    std::optional<std::string_view> optionalText(int column) const;
    // An INTEGER or REAL as a double; nullopt for NULL (TEXT and BLOB coerce as SQLite does).
    std::optional<double> optionalDouble(int column) const
    {
        if (sqlite3_column_type(m_stmt, column) == SQLITE_NULL)
            return std::nullopt;
        return sqlite3_column_double(m_stmt, column);
    }
    // The value by its storage class, without SQLite's coercion (see ExactInteger).
    ExactInteger exactInt64(int column) const
    {
        switch (sqlite3_column_type(m_stmt, column)) {
        case SQLITE_INTEGER: return { IntegerKind::Integer, sqlite3_column_int64(m_stmt, column) };
        case SQLITE_NULL: return { IntegerKind::Null, 0 };
        case SQLITE_FLOAT: return exactIntegerFromReal(sqlite3_column_double(m_stmt, column));
        default: return { IntegerKind::NotInteger, 0 }; // SQLITE_TEXT, SQLITE_BLOB
        }
    }

private:
    sqlite3 *m_db;
    sqlite3_stmt *m_stmt = nullptr;
};

// The file cannot be read as it is without writing beside it (a hot rollback journal is
// there): what() says why and what to do, without the file's name in front.
class UnfinishedWriteError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class Database
{
public:
    // Opens a report without ever creating, changing or deleting a file, beside it or not
    // (the connection's VFS opens named files read-only and takes no locks), so it reads from
    // read-only folders and media. Without a non-empty -wal the file alone is the database and
    // is opened `immutable=1`; with one, SQLite reads the file with the -wal's committed
    // transactions, its index in heap memory instead of a -shm. Throws UnfinishedWriteError for
    // a hot -journal (reading it correctly means rolling it back: a write), SqliteError when
    // SQLite cannot read the file.
    explicit Database(const std::string &path);
    ~Database();
    Database(const Database &) = delete;
    Database &operator=(const Database &) = delete;

    sqlite3 *handle() const { return m_db; }
    const std::string &path() const { return m_path; }
    // True when SQLite reads the file together with the -wal beside it: the file alone is then
    // not the database (the -wal is found from the path with symbolic links resolved).
    bool readsWriteAheadLog() const { return m_readsWriteAheadLog; }
    const std::set<std::string, std::less<>> &tables() const { return m_tables; }
    bool hasTable(std::string_view name) const { return m_tables.count(name) != 0; }
    // Column names of a table (empty when the table does not exist).
    std::set<std::string, std::less<>> columns(std::string_view table) const;
    // First column of the first row, or nullopt when there is no row.
    std::optional<std::string> scalarText(const std::string &sql) const;

private:
    std::string m_path;
    sqlite3 *m_db = nullptr;
    bool m_readsWriteAheadLog = false;
    std::set<std::string, std::less<>> m_tables;
};

} // namespace gaplens::core::detail
