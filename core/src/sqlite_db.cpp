// SPDX-License-Identifier: MIT
#include "sqlite_db.h"

#include <fmt/format.h>

namespace gaplens::core::detail {

Statement::Statement(sqlite3 *db, const std::string &sql) : m_db(db)
{
    const int rc = sqlite3_prepare_v2(db, sql.c_str(), int(sql.size()), &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        throw SqliteError(sqlite3_errmsg(db), rc);
}

Statement::~Statement() { sqlite3_finalize(m_stmt); }

bool Statement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    throw SqliteError(sqlite3_errmsg(m_db), rc);
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

Database::Database(const std::string &path) : m_path(path)
{
    const int rc = sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw SqliteError(message, rc);
    }
    // Reading sqlite_master is the first real read: a non-database or a broken header fails here.
    try {
        Statement stmt(m_db, "SELECT name FROM sqlite_master WHERE type IN ('table','view')");
        while (stmt.step())
            m_tables.emplace(stmt.text(0));
    } catch (...) {
        sqlite3_close(m_db);
        m_db = nullptr;
        throw;
    }
}

Database::~Database() { sqlite3_close(m_db); }

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
