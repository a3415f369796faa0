// SPDX-License-Identifier: MIT
#include "json_reader.h"

#include <charconv>
#include <cstdlib>

namespace gaplens::cli {

const JsonValue *JsonValue::find(std::string_view key) const
{
    const JsonValue *found = nullptr;
    for (const auto &[name, value] : m_members)
        if (name == key)
            found = &value;
    return found;
}

JsonValue JsonValue::makeBool(bool value)
{
    JsonValue v(Type::Bool);
    v.m_bool = value;
    return v;
}

JsonValue JsonValue::makeNumber(double value, std::optional<std::int64_t> integer)
{
    JsonValue v(Type::Number);
    v.m_number = value;
    v.m_integer = integer;
    return v;
}

JsonValue JsonValue::makeString(std::string value)
{
    JsonValue v(Type::String);
    v.m_string = std::move(value);
    return v;
}

JsonValue JsonValue::makeArray(std::vector<JsonValue> items)
{
    JsonValue v(Type::Array);
    v.m_items = std::move(items);
    return v;
}

JsonValue JsonValue::makeObject(std::vector<std::pair<std::string, JsonValue>> members)
{
    JsonValue v(Type::Object);
    v.m_members = std::move(members);
    return v;
}

std::string JsonParseError::describe() const
{
    return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message;
}

namespace {

// Deep enough for any document gaplens writes, shallow enough that "[[[[..." cannot
// overflow the stack.
constexpr int kMaxDepth = 256;

class Parser
{
public:
    explicit Parser(std::string_view text) : m_text(text) {}

    JsonValue document()
    {
        skipSpace();
        auto value = parseValue(0);
        skipSpace();
        if (m_pos != m_text.size())
            fail("unexpected text after the JSON value");
        return value;
    }

private:
    [[noreturn]] void fail(std::string message) const
    {
        JsonParseError error{std::move(message), 1, 1};
        for (std::size_t i = 0; i < m_pos && i < m_text.size(); ++i) {
            if (m_text[i] == '\n') {
                ++error.line;
                error.column = 1;
            } else {
                ++error.column;
            }
        }
        throw error;
    }

    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek() const { return atEnd() ? '\0' : m_text[m_pos]; }

    void skipSpace()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++m_pos;
    }

    void expect(char c, const char *what)
    {
        if (peek() != c)
            fail(atEnd() ? std::string("unexpected end of input, expected ") + what : std::string("expected ") + what);
        ++m_pos;
    }

    void literal(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            fail("invalid literal (expected a value)");
        m_pos += word.size();
    }

    JsonValue parseValue(int depth)
    {
        if (depth > kMaxDepth)
            fail("nested too deeply");
        switch (peek()) {
        case '{': return parseObject(depth);
        case '[': return parseArray(depth);
        case '"': return JsonValue::makeString(parseString());
        case 't': literal("true"); return JsonValue::makeBool(true);
        case 'f': literal("false"); return JsonValue::makeBool(false);
        case 'n': literal("null"); return JsonValue::makeNull();
        default:
            if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
                return parseNumber();
            fail(atEnd() ? "unexpected end of input, expected a value" : "expected a value");
        }
    }

    JsonValue parseObject(int depth)
    {
        ++m_pos; // '{'
        std::vector<std::pair<std::string, JsonValue>> members;
        skipSpace();
        if (peek() == '}') {
            ++m_pos;
            return JsonValue::makeObject(std::move(members));
        }
        for (;;) {
            skipSpace();
            if (peek() != '"')
                fail("expected a string key in an object");
            std::string key = parseString();
            skipSpace();
            expect(':', "':' after an object key");
            skipSpace();
            members.emplace_back(std::move(key), parseValue(depth + 1));
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            expect('}', "',' or '}' in an object");
            return JsonValue::makeObject(std::move(members));
        }
    }

    JsonValue parseArray(int depth)
    {
        ++m_pos; // '['
        std::vector<JsonValue> items;
        skipSpace();
        if (peek() == ']') {
            ++m_pos;
            return JsonValue::makeArray(std::move(items));
        }
        for (;;) {
            skipSpace();
            items.push_back(parseValue(depth + 1));
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            expect(']', "',' or ']' in an array");
            return JsonValue::makeArray(std::move(items));
        }
    }

    unsigned hex4()
    {
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = peek();
            unsigned digit = 0;
            if (c >= '0' && c <= '9')
                digit = unsigned(c - '0');
            else if (c >= 'a' && c <= 'f')
                digit = unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                digit = unsigned(c - 'A' + 10);
            else
                fail("invalid \\u escape (expected 4 hex digits)");
            code = code * 16 + digit;
            ++m_pos;
        }
        return code;
    }

    static void appendUtf8(std::string &out, unsigned code)
    {
        if (code < 0x80) {
            out += char(code);
        } else if (code < 0x800) {
            out += char(0xC0 | (code >> 6));
            out += char(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += char(0xE0 | (code >> 12));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        } else {
            out += char(0xF0 | (code >> 18));
            out += char(0x80 | ((code >> 12) & 0x3F));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        }
    }

    std::string parseString()
    {
        ++m_pos; // '"'
        std::string out;
        for (;;) {
            if (atEnd())
                fail("unterminated string");
            const char c = m_text[m_pos];
            if (c == '"') {
                ++m_pos;
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character in a string (must be escaped)");
            if (c != '\\') {
                out += c;
                ++m_pos;
                continue;
            }
            ++m_pos;
            const char e = peek();
            ++m_pos;
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned code = hex4();
                if (code >= 0xD800 && code <= 0xDBFF) {
                    // A high surrogate must be followed by \u and a low one.
                    if (m_text.substr(m_pos, 2) != "\\u")
                        fail("unpaired UTF-16 surrogate in \\u escape");
                    m_pos += 2;
                    const unsigned low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF)
                        fail("unpaired UTF-16 surrogate in \\u escape");
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                } else if (code >= 0xDC00 && code <= 0xDFFF) {
                    fail("unpaired UTF-16 surrogate in \\u escape");
                }
                appendUtf8(out, code);
                break;
            }
            default:
                --m_pos;
                fail("invalid escape in a string");
            }
        }
    }

    JsonValue parseNumber()
    {
        const std::size_t start = m_pos;
        auto digits = [&] {
            const std::size_t from = m_pos;
            while (!atEnd() && peek() >= '0' && peek() <= '9')
                ++m_pos;
            return m_pos - from;
        };
        if (peek() == '-')
            ++m_pos;
        if (peek() == '0') {
            ++m_pos;
        } else if (digits() == 0) {
            fail("invalid number");
        }
        bool integral = true;
        if (peek() == '.') {
            ++m_pos;
            integral = false;
            if (digits() == 0)
                fail("invalid number (digits expected after '.')");
        }
        if (peek() == 'e' || peek() == 'E') {
            ++m_pos;
            integral = false;
            if (peek() == '+' || peek() == '-')
                ++m_pos;
            if (digits() == 0)
                fail("invalid number (digits expected in the exponent)");
        }
        const std::string_view text = m_text.substr(start, m_pos - start);
        double value = 0;
        // strtod, not from_chars: the grammar is already checked, and strtod gives +-inf
        // for out-of-range exponents instead of an error. The CLI never sets a locale.
        const std::string copy(text);
        value = std::strtod(copy.c_str(), nullptr);
        std::optional<std::int64_t> integer;
        if (integral) {
            std::int64_t i = 0;
            const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
            if (ec == std::errc() && ptr == text.data() + text.size())
                integer = i;
        }
        return JsonValue::makeNumber(value, integer);
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
};

} // namespace

JsonValue parseJson(std::string_view text) { return Parser(text).document(); }

} // namespace gaplens::cli
