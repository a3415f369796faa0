// SPDX-License-Identifier: MIT
#pragma once
// Result columns read by name. Each table the reader reads has an enum of its columns and
// one list of their names in the enum's order (export_columns.h); the SELECT list and the
// scan's column list are built from that list, so a column's position is written once, by
// its enum, and a read says which column it wants: `rows.int64(KernelColumn::Start)`.
#include "sqlite_db.h"
#include "table_scan.h"

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gaplens::core::detail {

enum class ColumnNeed : std::uint8_t {
    Required, // missing: the table is not read
    Optional, // missing: reads as NULL
};
enum class ColumnKind : std::uint8_t { Integer, Text, Real }; // how the direct scan decodes it

template <typename Column> struct NamedColumn
{
    Column column {}; // its enum value, checked against its place in the list
    std::string_view name;
    ColumnNeed need = ColumnNeed::Required;
    ColumnKind kind = ColumnKind::Integer;
};

// One entry per value of a column enum whose last value is Count.
template <typename Column> using ColumnList = std::array<NamedColumn<Column>, std::size_t(Column::Count)>;

// Specialised for each column enum, listing it in its order.
template <typename Column> inline constexpr ColumnList<Column> kColumnNames {};

template <typename Column> consteval bool namesFollowEnumOrder()
{
    for (std::size_t i = 0; i < kColumnNames<Column>.size(); ++i)
        if (kColumnNames<Column>[i].column != Column(i) || kColumnNames<Column>[i].name.empty())
            return false;
    return true;
}

// The scan's column list from the columns the table has: a missing optional column reads as
// NULL (empty name); a missing required one gives nullopt, with its name in `missingRequired`.
template <typename Column>
std::optional<std::vector<ScanColumn>> scanColumns(
    const std::set<std::string, std::less<>> &have, std::string_view &missingRequired)
{
    static_assert(namesFollowEnumOrder<Column>(), "kColumnNames<Column> must name every column in the enum's order");
    std::vector<ScanColumn> columns;
    for (const auto &c : kColumnNames<Column>) {
        const bool present = have.count(c.name) != 0;
        if (!present && c.need == ColumnNeed::Required) {
            missingRequired = c.name;
            return std::nullopt;
        }
        columns.push_back(
            { present ? std::string(c.name) : std::string(), c.kind == ColumnKind::Text, c.kind == ColumnKind::Real });
    }
    return columns;
}

// SELECT of the columns, NULL in place of a missing one.
inline std::string selectSql(std::string_view table, const std::vector<ScanColumn> &columns)
{
    std::string list;
    for (const auto &c : columns)
        list += fmt::format("{}{}", list.empty() ? "" : ", ", c.name.empty() ? "NULL" : fmt::format("\"{}\"", c.name));
    return fmt::format("SELECT {} FROM \"{}\"", list, table);
}

// The rows of a TableScan or a Statement whose columns were built for `Column`, read by it.
template <typename Column, typename Source> class NamedRows
{
public:
    template <typename... Args>
    explicit NamedRows(Args &&...args)
        : m_source(std::forward<Args>(args)...)
    {
    }

    bool step() { return m_source.step(); }
    // Inlined like TableScan's own accessors: they run for every column of every row.
    [[gnu::always_inline]] bool isNull(Column c) const { return m_source.isNull(int(c)); }
    [[gnu::always_inline]] std::int64_t int64(Column c) const { return m_source.int64(int(c)); }
    [[gnu::always_inline]] std::optional<std::int64_t> optionalInt64(Column c) const
    {
        return m_source.optionalInt64(int(c));
    }
    [[gnu::always_inline]] ExactInteger exactInt64(Column c) const { return m_source.exactInt64(int(c)); }
    [[gnu::always_inline]] std::optional<std::string_view> optionalText(Column c) const
    {
        return m_source.optionalText(int(c));
    }
    std::string_view text(Column c) const { return m_source.text(int(c)); }
    [[gnu::always_inline]] std::optional<double> optionalDouble(Column c) const
    {
        return m_source.optionalDouble(int(c));
    }

private:
    Source m_source;
};

// A big table, decoded by TableScan; a small one, through SQLite.
template <typename Column> using ScanRows = NamedRows<Column, TableScan>;
template <typename Column> using SelectRows = NamedRows<Column, Statement>;

} // namespace gaplens::core::detail
