// SPDX-License-Identifier: MIT
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

namespace gaplens::core {

std::string formatDuration(double ns)
{
    if (!std::isfinite(ns))
        return "-";
    const double a = std::fabs(ns);
    if (a < 1e3)
        return fmt::format("{:.0f} ns", ns);
    if (a < 1e6)
        return fmt::format("{:.3f} us", ns / 1e3);
    if (a < 1e9)
        return fmt::format("{:.3f} ms", ns / 1e6);
    return fmt::format("{:.3f} s", ns / 1e9);
}

std::string formatBytes(std::uint64_t bytes)
{
    static constexpr const char *kUnits[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = double(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::string formatBandwidth(std::uint64_t bytes, TimeNs ns)
{
    if (ns <= 0)
        return "-";
    static constexpr const char *kUnits[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
    double v = double(bytes) * 1e9 / double(ns);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    return fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::string formatPercent(double percent)
{
    return std::isfinite(percent) ? fmt::format("{:.1f}%", percent) : std::string("-");
}

std::string formatGrouped(double value, int decimals)
{
    if (!std::isfinite(value))
        return "-";
    std::string text = fmt::format("{:.{}f}", std::fabs(value), std::max(decimals, 0));
    const auto point = text.find('.');
    for (auto at = point == std::string::npos ? text.size() : point; at > 3; at -= 3)
        text.insert(at - 3, 1, ',');
    return (value < 0 && text.find_first_not_of("0.,") != std::string::npos ? "-" : "") + text;
}

std::optional<TimeNs> parseDuration(std::string_view text)
{
    auto trim = [](std::string_view &s) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
            s.remove_prefix(1);
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
            s.remove_suffix(1);
    };
    trim(text);
    struct Unit
    {
        std::string_view suffix;
        int digits; // ns per unit = 10^digits
    };
    // "ms", "us" and "ns" before "s", which ends all of them; no unit is seconds.
    constexpr Unit kUnits[] = { { "ms", 6 }, { "us", 3 }, { "ns", 0 }, { "s", 9 }, { "", 9 } };
    const Unit *unit = kUnits;
    while (!text.ends_with(unit->suffix))
        ++unit;
    text.remove_suffix(unit->suffix.size());
    trim(text);
    const bool negative = !text.empty() && text.front() == '-';
    if (negative)
        text.remove_prefix(1);

    // The mantissa's digits and where its point is, then an optional exponent: the value is
    // digits x 10^(exponent + unit digits - digits after the point), kept exact.
    std::string digits;
    std::size_t i = 0, point = std::string::npos;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9')
            digits += c;
        else if (c == '.' && point == std::string::npos)
            point = digits.size();
        else
            break;
    }
    if (digits.empty() || point == digits.size()) // "ms", ".", "1."
        return std::nullopt;
    if (point == std::string::npos)
        point = digits.size();
    long exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        const bool down = i < text.size() && text[i] == '-';
        if (i < text.size() && (text[i] == '-' || text[i] == '+'))
            ++i;
        const std::size_t first = i;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
            if ((exponent = exponent * 10 + (text[i] - '0')) > 100) // far beyond int64 either way
                return std::nullopt;
        if (i == first)
            return std::nullopt;
        exponent = down ? -exponent : exponent;
    }
    if (i != text.size())
        return std::nullopt;
    const long shift = exponent + unit->digits - long(digits.size() - point);
    // Digits below 1 ns must be zeros (exact: never rounded).
    std::size_t integerDigits = digits.size();
    if (shift < 0) {
        const auto drop = std::size_t(-shift);
        if (drop > digits.size()) {
            if (digits.find_first_not_of('0') != std::string::npos)
                return std::nullopt;
            return TimeNs(0);
        }
        integerDigits -= drop;
        if (digits.find_first_not_of('0', integerDigits) != std::string::npos)
            return std::nullopt;
    }
    constexpr std::uint64_t kMax = std::uint64_t(std::numeric_limits<TimeNs>::max());
    std::uint64_t ns = 0;
    auto push = [&ns](char c) {
        if (ns > (kMax - std::uint64_t(c - '0')) / 10)
            return false;
        ns = ns * 10 + std::uint64_t(c - '0');
        return true;
    };
    for (std::size_t k = 0; k < integerDigits; ++k)
        if (!push(digits[k]))
            return std::nullopt;
    for (long k = 0; k < shift; ++k)
        if (!push('0'))
            return std::nullopt;
    return negative ? -TimeNs(ns) : TimeNs(ns);
}

} // namespace gaplens::core
