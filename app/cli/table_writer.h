// SPDX-License-Identifier: MIT
#pragma once
// Tables for the terminal (aligned, readable units) and CSV (raw numbers: ns, bytes) from
// one description, so the two formats never disagree.
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::cli {

struct Cell
{
    std::string text; // shown in the terminal
    std::string raw; // written to CSV
    bool alignRight = false;
};

Cell textCell(std::string text);
Cell countCell(std::uint64_t n);
Cell durationCell(double ns); // "1.234 ms" / raw ns
Cell percentCell(double percent); // "12.3%" / raw with 3 decimals
Cell bytesCell(std::uint64_t bytes);
Cell rightText(std::string text); // text aligned right, as numbers are
Cell changeCell(std::optional<double> percent); // "+12.3%" / raw with 3 decimals; "-" without one

class Table
{
public:
    explicit Table(std::string title = {})
        : m_title(std::move(title))
    {
    }
    // csvHeader defaults to the header; CSV headers carry units, e.g. "total_ns".
    void addColumn(std::string header, std::string csvHeader = {});
    // Several columns at once: {header, csvHeader} pairs, in order.
    void addColumns(std::initializer_list<std::pair<const char *, const char *>> headers);
    void addRow(std::vector<Cell> row) { m_rows.push_back(std::move(row)); }
    bool empty() const { return m_rows.empty(); }

    std::string toText() const;
    std::string toCsv() const;
    std::string toMarkdown() const; // for pasting into a review

private:
    std::string m_title;
    std::vector<std::string> m_headers, m_csvHeaders;
    std::vector<std::vector<Cell>> m_rows;
};

} // namespace gaplens::cli
