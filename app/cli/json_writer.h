// SPDX-License-Identifier: MIT
#pragma once
// A small streaming JSON writer: stable key order (as written), integers exact, doubles
// with enough digits, strings escaped. Enough for gaplens-cli's documented output.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::cli {

class JsonWriter
{
public:
    JsonWriter &beginObject();
    JsonWriter &endObject();
    JsonWriter &beginArray();
    JsonWriter &endArray();
    JsonWriter &key(std::string_view name);

    JsonWriter &value(std::string_view text);
    JsonWriter &value(const char *text) { return value(std::string_view(text)); }
    JsonWriter &value(const std::string &text) { return value(std::string_view(text)); }
    JsonWriter &value(std::int64_t number);
    JsonWriter &value(std::uint64_t number);
    JsonWriter &value(int number) { return value(std::int64_t(number)); }
    JsonWriter &value(unsigned number) { return value(std::uint64_t(number)); }
    JsonWriter &value(double number);
    JsonWriter &value(bool flag);
    JsonWriter &null();

    // key(name).value(v) in one call.
    template<typename T>
    JsonWriter &field(std::string_view name, const T &v)
    {
        key(name);
        return value(v);
    }

    const std::string &str() const { return m_out; }

private:
    void separate();
    void indent();
    std::string m_out;
    std::vector<bool> m_hasItems; // one per open container
    bool m_afterKey = false;
};

std::string jsonEscape(std::string_view text);

} // namespace gaplens::cli
