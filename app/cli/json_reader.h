// SPDX-License-Identifier: MIT
#pragma once
// A minimal JSON reader (RFC 8259) for the few documents gaplens-cli reads back, e.g. the
// baseline of `check` written by `summary --format json`. Recursive descent with a nesting
// limit; the CLI has no Qt and needs nothing bigger.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gaplens::cli {

class JsonValue
{
public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isBool() const { return m_type == Type::Bool; }
    bool isNumber() const { return m_type == Type::Number; }
    bool isString() const { return m_type == Type::String; }
    bool isArray() const { return m_type == Type::Array; }
    bool isObject() const { return m_type == Type::Object; }

    bool boolean() const { return m_bool; }
    double number() const { return m_number; }
    // The exact value of an integer literal that fits int64 (ns timestamps exceed 2^53,
    // where a double would round); nullopt for fractions, exponents and other types.
    std::optional<std::int64_t> integer() const { return m_integer; }
    const std::string &string() const { return m_string; }
    const std::vector<JsonValue> &items() const { return m_items; }
    const std::vector<std::pair<std::string, JsonValue>> &members() const { return m_members; }
    // The member named `key` of an object (the last one when repeated), else nullptr.
    const JsonValue *find(std::string_view key) const;

    static JsonValue makeNull() { return JsonValue(Type::Null); }
    static JsonValue makeBool(bool value);
    static JsonValue makeNumber(double value, std::optional<std::int64_t> integer);
    static JsonValue makeString(std::string value);
    static JsonValue makeArray(std::vector<JsonValue> items);
    static JsonValue makeObject(std::vector<std::pair<std::string, JsonValue>> members);

private:
    explicit JsonValue(Type type) : m_type(type) {}
    Type m_type = Type::Null;
    bool m_bool = false;
    double m_number = 0;
    std::optional<std::int64_t> m_integer;
    std::string m_string;
    std::vector<JsonValue> m_items;
    std::vector<std::pair<std::string, JsonValue>> m_members;
};

// Where and why a text is not JSON; line and column are 1-based.
struct JsonParseError
{
    std::string message;
    std::size_t line = 0, column = 0;
    std::string describe() const; // "line 3, column 7: expected ':' after an object key"
};

// Parses one JSON document (surrounding whitespace allowed, nothing else after it).
// Throws JsonParseError.
JsonValue parseJson(std::string_view text);

} // namespace gaplens::cli
