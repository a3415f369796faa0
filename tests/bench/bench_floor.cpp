// SPDX-License-Identifier: MIT
#include "bench_floor.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <initializer_list>
#include <set>
#include <stdexcept>
#include <string_view>

namespace gaplens::bench {
namespace {

class Db
{
public:
    explicit Db(const std::string &path)
        : m_path(path)
    {
        if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
            sqlite3_close(m_db);
            throw std::runtime_error(path + ": cannot open");
        }
    }
    ~Db() { sqlite3_close(m_db); }

    std::set<std::string> columns(std::string_view table) const
    {
        std::set<std::string> names;
        sqlite3_stmt *stmt = nullptr;
        sqlite3_prepare_v2(m_db, fmt::format("PRAGMA table_info(\"{}\")", table).c_str(), -1, &stmt, nullptr);
        while (stmt && sqlite3_step(stmt) == SQLITE_ROW)
            names.emplace(reinterpret_cast<const char *>(sqlite3_column_text(stmt, 1)));
        sqlite3_finalize(stmt);
        return names;
    }

    // SELECT of the listed columns that exist (as the reader does: missing ones are not read);
    // `textColumns` are read as text, the rest as integers.
    void scan(std::string_view table, std::initializer_list<std::string_view> wanted,
        std::initializer_list<std::string_view> textColumns, std::string_view where, FloorResult &out) const
    {
        const auto have = columns(table);
        if (have.empty())
            return;
        std::string list;
        std::vector<bool> isText;
        for (auto c : wanted) {
            if (!have.count(std::string(c)))
                continue;
            list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", c);
            bool text = false;
            for (auto t : textColumns)
                text = text || t == c;
            isText.push_back(text);
        }
        if (list.empty())
            return;
        const auto sql = fmt::format("SELECT {} FROM \"{}\"{}{}", list, table, where.empty() ? "" : " WHERE ", where);
        sqlite3_stmt *stmt = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
            throw std::runtime_error(m_path + ": " + sqlite3_errmsg(m_db));
        const int n = int(isText.size());
        int rc;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            ++out.rows;
            for (int c = 0; c < n; ++c) {
                if (isText[std::size_t(c)]) {
                    const auto *p = sqlite3_column_text(stmt, c);
                    out.checksum += p ? std::uint64_t(sqlite3_column_bytes(stmt, c)) + p[0] : 0;
                } else {
                    out.checksum += std::uint64_t(sqlite3_column_int64(stmt, c));
                }
            }
        }
        sqlite3_finalize(stmt);
        if (rc != SQLITE_DONE)
            throw std::runtime_error(m_path + ": " + sqlite3_errmsg(m_db));
    }

private:
    std::string m_path;
    sqlite3 *m_db = nullptr;
};

} // namespace

FloorResult readFloor(const std::vector<std::string> &files)
{
    FloorResult out;
    for (const auto &file : files) {
        Db db(file);
        // Same tables, columns and filters as core/src/report_reader.cpp, one pass each.
        db.scan("META_DATA_EXPORT", { "name", "value" }, { "name", "value" }, {}, out);
        db.scan("META_DATA_CAPTURE", { "name", "value" }, { "name", "value" }, {}, out);
        db.scan("StringIds", { "id", "value" }, { "value" }, {}, out);
        db.scan("CUPTI_ACTIVITY_KIND_KERNEL",
            { "start", "end", "deviceId", "streamId", "shortName", "correlationId", "globalPid", "demangledName",
                "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
                "dynamicSharedMemory" },
            {}, {}, out);
        for (const char *table : { "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET" })
            db.scan(table,
                { "start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes", "copyKind", "srcKind",
                    "dstKind" },
                {}, {}, out);
        db.scan("CUPTI_ACTIVITY_KIND_RUNTIME", { "start", "end", "nameId", "eventClass", "globalTid", "correlationId" },
            {}, {}, out);
        // No WHERE: the reader filters event types itself (an IN list costs an index probe per row).
        db.scan("NVTX_EVENTS", { "start", "eventType", "end", "text", "textId", "globalTid", "domainId" }, { "text" },
            {}, out);
        db.scan("ThreadNames", { "globalTid", "nameId" }, {}, {}, out);
        db.scan("PROCESSES", { "pid", "name" }, { "name" }, {}, out);
        db.scan("TARGET_INFO_GPU", { "id", "name" }, { "name" }, {}, out);
    }
    return out;
}

} // namespace gaplens::bench
