// SPDX-License-Identifier: MIT
#include "table_writer.h"

#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>

namespace gaplens::cli {

Cell textCell(std::string text)
{
    Cell c { text, text, false };
    return c;
}

Cell countCell(std::uint64_t n)
{
    return { fmt::format("{}", n), fmt::format("{}", n), true };
}

Cell durationCell(double ns)
{
    return { core::formatDuration(ns), fmt::format("{:.0f}", ns), true };
}

Cell percentCell(double percent)
{
    return { core::formatPercent(percent), fmt::format("{:.3f}", percent), true };
}

Cell bytesCell(std::uint64_t bytes)
{
    return { core::formatBytes(bytes), fmt::format("{}", bytes), true };
}

Cell rightText(std::string text)
{
    auto cell = textCell(std::move(text));
    cell.alignRight = true;
    return cell;
}

Cell changeCell(std::optional<double> percent)
{
    if (!percent)
        return rightText("-");
    return { fmt::format("{:+.1f}%", *percent), fmt::format("{:.3f}", *percent), true };
}

void Table::addColumn(std::string header, std::string csvHeader)
{
    m_csvHeaders.push_back(csvHeader.empty() ? header : std::move(csvHeader));
    m_headers.push_back(std::move(header));
}

void Table::addColumns(std::initializer_list<std::pair<const char *, const char *>> headers)
{
    for (const auto &[header, csvHeader] : headers)
        addColumn(header, csvHeader);
}

std::string Table::toText() const
{
    std::vector<std::size_t> width(m_headers.size());
    for (std::size_t c = 0; c < m_headers.size(); ++c)
        width[c] = m_headers[c].size();
    for (const auto &row : m_rows)
        for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
            width[c] = std::max(width[c], row[c].text.size());

    std::string out;
    if (!m_title.empty())
        out += m_title + "\n";
    auto line = [&](auto cellText, auto right) {
        std::string s;
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string text = cellText(c);
            s += c ? "  " : "";
            s += right(c) ? fmt::format("{:>{}}", text, width[c]) : fmt::format("{:<{}}", text, width[c]);
        }
        while (!s.empty() && s.back() == ' ')
            s.pop_back();
        return s + "\n";
    };
    const auto &firstRow = m_rows.empty() ? std::vector<Cell> {} : m_rows.front();
    auto headerRight = [&](std::size_t c) { return c < firstRow.size() && firstRow[c].alignRight; };
    out += line([&](std::size_t c) { return m_headers[c]; }, headerRight);
    std::size_t total = 0;
    for (auto w : width)
        total += w;
    out += std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') + "\n";
    for (const auto &row : m_rows)
        out += line([&](std::size_t c) { return c < row.size() ? row[c].text : std::string(); },
            [&](std::size_t c) { return c < row.size() && row[c].alignRight; });
    return out;
}

namespace {
std::string csvField(const std::string &s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char ch : s)
        out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
}
} // namespace

std::string Table::toCsv() const
{
    std::string out;
    for (std::size_t c = 0; c < m_csvHeaders.size(); ++c)
        out += (c ? "," : "") + csvField(m_csvHeaders[c]);
    out += "\n";
    for (const auto &row : m_rows) {
        for (std::size_t c = 0; c < row.size(); ++c)
            out += (c ? "," : "") + csvField(row[c].raw);
        out += "\n";
    }
    return out;
}

std::string Table::toMarkdown() const
{
    auto escape = [](const std::string &text) {
        std::string out;
        for (char c : text)
            out += c == '|' ? std::string("\\|") : std::string(1, c);
        return out;
    };
    std::string out = m_title.empty() ? std::string() : "### " + escape(m_title) + "\n\n";
    out += "|";
    for (const auto &header : m_headers)
        out += " " + escape(header) + " |";
    out += "\n|";
    for (std::size_t c = 0; c < m_headers.size(); ++c) {
        const bool right = !m_rows.empty() && c < m_rows.front().size() && m_rows.front()[c].alignRight;
        out += right ? "---:|" : "---|";
    }
    out += "\n";
    for (const auto &row : m_rows) {
        out += "|";
        for (std::size_t c = 0; c < m_headers.size(); ++c)
            out += " " + (c < row.size() ? escape(row[c].text) : std::string()) + " |";
        out += "\n";
    }
    return out;
}

} // namespace gaplens::cli
