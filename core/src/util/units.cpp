// SPDX-License-Identifier: MIT
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

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

std::optional<TimeNs> parseDuration(std::string_view text)
{
    const auto isBlank = [](char c) { return c == ' ' || c == '\t'; };
    while (!text.empty() && isBlank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isBlank(text.back()))
        text.remove_suffix(1);
    // from_chars takes no '+' and would read "inf" and "nan": only digits, '.', '-' and an
    // exponent may start the number.
    if (text.empty()
        || !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.' || text.front() == '-'))
        return std::nullopt;
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
    if (ec != std::errc())
        return std::nullopt;
    std::string_view unit(ptr, std::size_t(text.data() + text.size() - ptr));
    while (!unit.empty() && isBlank(unit.front()))
        unit.remove_prefix(1);
    double scale = 0;
    if (unit.empty() || unit == "s")
        scale = 1e9;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "us")
        scale = 1e3;
    else if (unit == "ns")
        scale = 1;
    else
        return std::nullopt;
    const double ns = std::round(value * scale);
    constexpr double kLimit = 4611686018427387904.0; // 2^62
    if (!std::isfinite(ns) || std::fabs(ns) > kLimit)
        return std::nullopt;
    return TimeNs(ns);
}

} // namespace gaplens::core
