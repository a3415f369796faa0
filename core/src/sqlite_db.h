// SPDX-License-Identifier: MIT
#pragma once
// Thin RAII wrappers over the SQLite C API for the reader: a read-only connection and a
// prepared statement. Errors throw SqliteError carrying SQLite's own message.
#include <sqlite3.h>

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
    SqliteError(const std::string &what, int code) : std::runtime_error(what), m_code(code) {}
    int code() const { return m_code; }

private:
    int m_code;
};

class Statement
{
public:
    Statement(sqlite3 *db, const std::string &sql);
    ~Statement();
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    // Advances to the next row; false when done. Throws on error (corrupt, truncated).
    bool step();
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

private:
    sqlite3 *m_db;
    sqlite3_stmt *m_stmt = nullptr;
};

class Database
{
public:
    // Opens read-only; throws SqliteError when SQLite cannot open the file.
    explicit Database(const std::string &path);
    ~Database();
    Database(const Database &) = delete;
    Database &operator=(const Database &) = delete;

    sqlite3 *handle() const { return m_db; }
    const std::string &path() const { return m_path; }
    const std::set<std::string, std::less<>> &tables() const { return m_tables; }
    bool hasTable(std::string_view name) const { return m_tables.count(name) != 0; }
    // Column names of a table (empty when the table does not exist).
    std::set<std::string, std::less<>> columns(std::string_view table) const;
    // First column of the first row, or nullopt when there is no row.
    std::optional<std::string> scalarText(const std::string &sql) const;

private:
    std::string m_path;
    sqlite3 *m_db = nullptr;
    std::set<std::string, std::less<>> m_tables;
};

} // namespace gaplens::core::detail
