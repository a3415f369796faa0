// SPDX-License-Identifier: MIT
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

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

} // namespace gaplens::core
