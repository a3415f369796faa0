// SPDX-License-Identifier: MIT
#include "gaplens/core/write/replicate.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gaplens::core {
namespace {

namespace fs = std::filesystem;

constexpr const char *kActivityTables[] = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS" };

class Connection
{
public:
    explicit Connection(const std::string &path)
        : m_path(path)
    {
        if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
            const std::string message = m_db ? sqlite3_errmsg(m_db) : "out of memory";
            sqlite3_close(m_db);
            throw std::runtime_error(fmt::format("{}: cannot open: {}", path, message));
        }
    }
    ~Connection() { sqlite3_close(m_db); }
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    void exec(const std::string &sql)
    {
        char *error = nullptr;
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
            const std::string message = error ? error : sqlite3_errmsg(m_db);
            sqlite3_free(error);
            throw std::runtime_error(fmt::format("{}: {}", m_path, message));
        }
    }

    sqlite3_stmt *prepare(const std::string &sql)
    {
        sqlite3_stmt *stmt = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
            throw std::runtime_error(fmt::format("{}: {}: {}", m_path, sql, sqlite3_errmsg(m_db)));
        return stmt;
    }

    // First column of the first row as an integer; nullopt for no row or NULL.
    std::optional<std::int64_t> integer(const std::string &sql)
    {
        sqlite3_stmt *stmt = prepare(sql);
        std::optional<std::int64_t> value;
        if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_type(stmt, 0) != SQLITE_NULL)
            value = sqlite3_column_int64(stmt, 0);
        sqlite3_finalize(stmt);
        return value;
    }

    std::vector<std::string> columns(const char *table)
    {
        std::vector<std::string> names;
        sqlite3_stmt *stmt = prepare(fmt::format("PRAGMA table_info(\"{}\")", table));
        while (sqlite3_step(stmt) == SQLITE_ROW)
            names.emplace_back(reinterpret_cast<const char *>(sqlite3_column_text(stmt, 1)));
        sqlite3_finalize(stmt);
        return names;
    }

    bool hasTable(const char *table)
    {
        return integer(fmt::format("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '{}'", table))
                   .value_or(0)
            > 0;
    }

private:
    std::string m_path;
    sqlite3 *m_db = nullptr;
};

// Domain creation/destruction rows describe the process, not activity: copied once.
const char *filterOf(const std::string &table)
{
    return table == "NVTX_EVENTS" ? " AND (eventType IS NULL OR eventType NOT IN (75, 76))" : "";
}

} // namespace

ReplicateResult replicateExport(const std::string &source, const std::string &target, const ReplicateOptions &options)
{
    if (options.repeat < 1 || options.gapNs < 0)
        throw std::runtime_error(fmt::format("{}: replicate: repeat must be >= 1 and the gap >= 0", source));
    std::error_code ec;
    fs::remove(target, ec);
    if (!fs::copy_file(source, target, fs::copy_options::overwrite_existing, ec))
        throw std::runtime_error(fmt::format("{}: cannot copy to {}: {}", source, target, ec.message()));
    // Real exports are often read-only; the copy must take the new rows.
    fs::permissions(target, fs::perms::owner_write, fs::perm_options::add, ec);

    Connection db(target);
    db.exec("PRAGMA journal_mode=OFF");
    db.exec("PRAGMA synchronous=OFF");

    struct Table
    {
        std::string name;
        std::vector<std::string> columns;
        std::int64_t lastRowid = 0;
    };
    std::vector<Table> tables;
    TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
    std::int64_t maxCorrelation = 0;
    ReplicateResult result;
    for (const char *name : kActivityTables) {
        if (!db.hasTable(name))
            continue;
        Table table { name, db.columns(name),
            db.integer(fmt::format("SELECT max(rowid) FROM \"{}\"", name)).value_or(0) };
        const auto has = [&](const char *c) {
            return std::find(table.columns.begin(), table.columns.end(), c) != table.columns.end();
        };
        if (!has("start"))
            continue;
        const std::string where = fmt::format(" WHERE 1{}", filterOf(table.name));
        if (auto lo = db.integer(fmt::format("SELECT min(start) FROM \"{}\"{}", name, where)))
            first = std::min(first, *lo);
        const std::string endExpr = has("end") ? "max(coalesce(\"end\", start))" : "max(start)";
        if (auto hi = db.integer(fmt::format("SELECT {} FROM \"{}\"{}", endExpr, name, where)))
            last = std::max(last, *hi);
        if (has("correlationId"))
            maxCorrelation = std::max(
                maxCorrelation, db.integer(fmt::format("SELECT max(correlationId) FROM \"{}\"", name)).value_or(0));
        result.rowsPerCopy
            += std::uint64_t(db.integer(fmt::format("SELECT count(*) FROM \"{}\"{}", name, where)).value_or(0));
        tables.push_back(std::move(table));
    }
    // Shift by the whole span: copy k + 1 starts where copy k ended (plus the gap), so
    // nothing of one copy overlaps the next in any table.
    result.periodNs = (first <= last ? last - first : 0) + options.gapNs;
    if (result.periodNs == 0)
        result.periodNs = 1;
    result.correlationPeriod = std::uint32_t(std::max<std::int64_t>(maxCorrelation, 0) + 1);
    if (std::uint64_t(result.correlationPeriod) * std::uint64_t(options.repeat) > 0xFFFFFFFFull)
        throw std::runtime_error(
            fmt::format("{}: {} copies would overflow 32-bit correlation ids", source, options.repeat));

    db.exec("BEGIN");
    for (const auto &table : tables) {
        std::string columns, values;
        for (const auto &c : table.columns) {
            const auto quoted = fmt::format("\"{}\"", c);
            columns += (columns.empty() ? "" : ", ") + quoted;
            std::string value = quoted;
            if (c == "start" || c == "end")
                value = quoted + " + ?1";
            else if (c == "correlationId")
                value = quoted + " + ?2";
            values += (values.empty() ? "" : ", ") + value;
        }
        // Only the source's rows (rowid <= lastRowid) are copied, never an earlier copy.
        sqlite3_stmt *insert
            = db.prepare(fmt::format("INSERT INTO \"{}\" ({}) SELECT {} FROM \"{}\" WHERE rowid <= {}{}", table.name,
                columns, values, table.name, table.lastRowid, filterOf(table.name)));
        for (int k = 1; k < options.repeat; ++k) {
            sqlite3_bind_int64(insert, 1, TimeNs(k) * result.periodNs);
            sqlite3_bind_int64(insert, 2, std::int64_t(k) * result.correlationPeriod);
            if (sqlite3_step(insert) != SQLITE_DONE) {
                sqlite3_finalize(insert);
                throw std::runtime_error(fmt::format("{}: cannot append to {}", target, table.name));
            }
            sqlite3_reset(insert);
        }
        sqlite3_finalize(insert);
    }
    db.exec("COMMIT");
    result.rowsAdded = result.rowsPerCopy * std::uint64_t(options.repeat - 1);
    return result;
}

} // namespace gaplens::core
