// SPDX-License-Identifier: MIT
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>

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
    // "ms", "us" and "ns" before "s", which ends all of them.
    constexpr Unit kUnits[] = { { "ms", 6 }, { "us", 3 }, { "ns", 0 }, { "s", 9 } };
    const Unit *unit = nullptr;
    for (const auto &u : kUnits)
        if (text.ends_with(u.suffix)) {
            unit = &u;
            break;
        }
    // No unit: seconds.
    static constexpr Unit kSeconds { "", 9 };
    if (!unit)
        unit = &kSeconds;
    text.remove_suffix(unit->suffix.size());
    trim(text);
    const bool negative = !text.empty() && text.front() == '-';
    if (negative)
        text.remove_prefix(1);
    const auto dot = text.find('.');
    const auto whole = text.substr(0, dot);
    const auto fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
    if ((whole.empty() && fraction.empty()) || (dot != std::string_view::npos && fraction.empty()))
        return std::nullopt;
    // Exact: whole * 10^digits + the fraction's digits, in unsigned 64-bit arithmetic checked
    // against the int64 range at every step.
    constexpr std::uint64_t kMax = std::uint64_t(std::numeric_limits<TimeNs>::max());
    std::uint64_t ns = 0;
    auto push = [&ns](char c) {
        if (c < '0' || c > '9' || ns > (kMax - std::uint64_t(c - '0')) / 10)
            return false;
        ns = ns * 10 + std::uint64_t(c - '0');
        return true;
    };
    for (const char c : whole)
        if (!push(c))
            return std::nullopt;
    for (int i = 0; i < unit->digits; ++i)
        if (!push(i < int(fraction.size()) ? fraction[std::size_t(i)] : '0'))
            return std::nullopt;
    for (std::size_t i = std::size_t(unit->digits); i < fraction.size(); ++i)
        if (fraction[i] != '0') // finer than 1 ns, or no digit
            return std::nullopt;
    return negative ? -TimeNs(ns) : TimeNs(ns);
}

} // namespace gaplens::core
