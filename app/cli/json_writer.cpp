// SPDX-License-Identifier: MIT
#include "json_writer.h"

#include <fmt/format.h>

#include <cmath>

namespace gaplens::cli {

std::string jsonEscape(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    for (unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20)
                out += fmt::format("\\u{:04x}", c);
            else
                out += char(c);
        }
    }
    return out;
}

void JsonWriter::indent()
{
    m_out += '\n';
    m_out.append(m_hasItems.size() * 2, ' ');
}

void JsonWriter::separate()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (m_hasItems.empty())
        return;
    if (m_hasItems.back())
        m_out += ',';
    m_hasItems.back() = true;
    indent();
}

JsonWriter &JsonWriter::beginObject()
{
    separate();
    m_out += '{';
    m_hasItems.push_back(false);
    return *this;
}

JsonWriter &JsonWriter::endObject()
{
    const bool had = m_hasItems.back();
    m_hasItems.pop_back();
    if (had)
        indent();
    m_out += '}';
    if (m_hasItems.empty())
        m_out += '\n';
    return *this;
}

JsonWriter &JsonWriter::beginArray()
{
    separate();
    m_out += '[';
    m_hasItems.push_back(false);
    return *this;
}

JsonWriter &JsonWriter::endArray()
{
    const bool had = m_hasItems.back();
    m_hasItems.pop_back();
    if (had)
        indent();
    m_out += ']';
    return *this;
}

JsonWriter &JsonWriter::key(std::string_view name)
{
    separate();
    m_out += fmt::format("\"{}\": ", jsonEscape(name));
    m_afterKey = true;
    return *this;
}

JsonWriter &JsonWriter::value(std::string_view text)
{
    separate();
    m_out += fmt::format("\"{}\"", jsonEscape(text));
    return *this;
}

JsonWriter &JsonWriter::value(std::int64_t number)
{
    separate();
    m_out += fmt::format("{}", number);
    return *this;
}

JsonWriter &JsonWriter::value(std::uint64_t number)
{
    separate();
    m_out += fmt::format("{}", number);
    return *this;
}

JsonWriter &JsonWriter::value(double number)
{
    separate();
    // JSON has no NaN or infinity: a missing statistic is null.
    m_out += std::isfinite(number) ? fmt::format("{}", number) : std::string("null");
    return *this;
}

JsonWriter &JsonWriter::value(bool flag)
{
    separate();
    m_out += flag ? "true" : "false";
    return *this;
}

JsonWriter &JsonWriter::null()
{
    separate();
    m_out += "null";
    return *this;
}

} // namespace gaplens::cli
