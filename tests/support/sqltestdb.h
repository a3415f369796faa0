// SPDX-License-Identifier: MIT
#pragma once
// Raw SQL for tests: builds fixtures and computes expected answers independently of the
// reader under test.
#include <cstdint>
#include <string>
#include <vector>

struct sqlite3;

namespace gaplens::test {

class SqlTestDb
{
public:
    enum class Mode { ReadOnly, Create };
    explicit SqlTestDb(const std::string &path, Mode mode = Mode::ReadOnly);
    ~SqlTestDb();
    SqlTestDb(const SqlTestDb &) = delete;
    SqlTestDb &operator=(const SqlTestDb &) = delete;

    bool isOpen() const { return m_db != nullptr; }
    // For fixtures that need bound values or file controls.
    sqlite3 *handle() const { return m_db; }
    // Runs statements; aborts the test binary with SQLite's message on failure (a broken
    // fixture is a bug in the test, not a result).
    void exec(const std::string &sql) const;
    // All rows of a query, every value as text ("NULL" for NULL); a failing query yields one
    // row "SQL ERROR: ..." so comparisons show it.
    std::vector<std::vector<std::string>> rows(const std::string &sql) const;
    std::vector<std::vector<std::int64_t>> ints(const std::string &sql) const;
    std::string text(const std::string &sql) const;
    std::int64_t integer(const std::string &sql) const;
    bool hasTable(const std::string &name) const;
    // (name, declared type, notnull, pk) of every column, in order.
    std::vector<std::vector<std::string>> columns(const std::string &table) const;

private:
    sqlite3 *m_db = nullptr;
};

// One-shot helpers.
void execSql(const std::string &path, const std::string &sql);
std::int64_t sqlInt(const std::string &path, const std::string &sql);

} // namespace gaplens::test
