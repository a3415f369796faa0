// SPDX-License-Identifier: MIT
#include "sqltestdb.h"

#include <QtGlobal>
#include <sqlite3.h>

namespace gaplens::test {

SqlTestDb::SqlTestDb(const std::string &path, Mode mode)
{
    const int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
        sqlite3_close(m_db);
        m_db = nullptr;
    }
}

SqlTestDb::~SqlTestDb()
{
    sqlite3_close(m_db);
}

void SqlTestDb::exec(const std::string &sql) const
{
    char *err = nullptr;
    if (!m_db || sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string message = err ? err : "database not open";
        sqlite3_free(err);
        qFatal("fixture SQL failed: %s", message.c_str());
    }
}

std::vector<std::vector<std::string>> SqlTestDb::rows(const std::string &sql) const
{
    std::vector<std::vector<std::string>> out;
    sqlite3_stmt *stmt = nullptr;
    if (!m_db || sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
        out.push_back({ "SQL ERROR: " + std::string(m_db ? sqlite3_errmsg(m_db) : "database not open") });
        return out;
    }
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
            const auto *text = sqlite3_column_text(stmt, c);
            row.push_back(text ? reinterpret_cast<const char *>(text) : "NULL");
        }
        out.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    return out;
}

std::vector<std::vector<std::int64_t>> SqlTestDb::ints(const std::string &sql) const
{
    std::vector<std::vector<std::int64_t>> out;
    sqlite3_stmt *stmt = nullptr;
    if (!m_db || sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
        qFatal("SQL failed: %s: %s", sql.c_str(), m_db ? sqlite3_errmsg(m_db) : "database not open");
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        std::vector<std::int64_t> row;
        for (int c = 0; c < sqlite3_column_count(stmt); ++c)
            row.push_back(sqlite3_column_int64(stmt, c));
        out.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    return out;
}

std::string SqlTestDb::text(const std::string &sql) const
{
    const auto r = rows(sql);
    return r.empty() || r[0].empty() ? std::string("<no row>") : r[0][0];
}

std::int64_t SqlTestDb::integer(const std::string &sql) const
{
    const auto r = ints(sql);
    return r.empty() || r[0].empty() ? -1 : r[0][0];
}

bool SqlTestDb::hasTable(const std::string &name) const
{
    return integer("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='" + name + "'") == 1;
}

std::vector<std::vector<std::string>> SqlTestDb::columns(const std::string &table) const
{
    return rows("SELECT name, type, \"notnull\", pk FROM pragma_table_info('" + table + "') ORDER BY cid");
}

void execSql(const std::string &path, const std::string &sql)
{
    SqlTestDb(path, SqlTestDb::Mode::Create).exec(sql);
}

std::int64_t sqlInt(const std::string &path, const std::string &sql)
{
    return SqlTestDb(path).integer(sql);
}

} // namespace gaplens::test
