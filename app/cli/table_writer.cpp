// SPDX-License-Identifier: MIT
#include "table_writer.h"

#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

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

    // Appended in place, a cell at a time: a table of tens of thousands of gaps is 100K cells.
    std::string out;
    if (!m_title.empty())
        out += m_title + "\n";
    auto line = [&](auto cellText, auto right) {
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string &text = cellText(c);
            if (c)
                out += "  ";
            if (right(c))
                fmt::format_to(std::back_inserter(out), "{:>{}}", text, width[c]);
            else
                fmt::format_to(std::back_inserter(out), "{:<{}}", text, width[c]);
        }
        while (!out.empty() && out.back() == ' ')
            out.pop_back();
        out += '\n';
    };
    static const std::string kNoText;
    const auto &firstRow = m_rows.empty() ? std::vector<Cell> {} : m_rows.front();
    auto headerRight = [&](std::size_t c) { return c < firstRow.size() && firstRow[c].alignRight; };
    line([&](std::size_t c) -> const std::string & { return m_headers[c]; }, headerRight);
    std::size_t total = 0;
    for (auto w : width)
        total += w;
    out += std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') + "\n";
    for (const auto &row : m_rows)
        line([&](std::size_t c) -> const std::string & { return c < row.size() ? row[c].text : kNoText; },
            [&](std::size_t c) { return c < row.size() && row[c].alignRight; });
    return out;
}

namespace {
void appendCsvField(std::string &out, const std::string &s)
{
    if (s.find_first_of(",\"\n") == std::string::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char ch : s) {
        if (ch == '"')
            out += '"';
        out += ch;
    }
    out += '"';
}
} // namespace

std::string Table::toCsv() const
{
    std::string out;
    for (std::size_t c = 0; c < m_csvHeaders.size(); ++c) {
        if (c)
            out += ',';
        appendCsvField(out, m_csvHeaders[c]);
    }
    out += '\n';
    for (const auto &row : m_rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c)
                out += ',';
            appendCsvField(out, row[c].raw);
        }
        out += '\n';
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
