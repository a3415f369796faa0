// SPDX-License-Identifier: MIT
#pragma once
// Human-readable units, shared by the CLI tables and the GUI, so both say the same thing.
#include "gaplens/core/model/time.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gaplens::core {

// 1234 -> "1.234 us", 2500000 -> "2.500 ms", 3 -> "3 ns"; four significant digits at most.
std::string formatDuration(double ns);
// 1536 -> "1.5 KiB": binary units (B, KiB, MiB, GiB, TiB) everywhere sizes are shown.
std::string formatBytes(std::uint64_t bytes);
// `bytes` moved in `ns` as a rate in the same units: (1 GiB, 1 s) -> "1.0 GiB/s"; "-" when ns <= 0.
std::string formatBandwidth(std::uint64_t bytes, TimeNs ns);
// 12.345 -> "12.3%".
std::string formatPercent(double percent);
// A number with thousands separated by commas: (9600000, 0) -> "9,600,000",
// (10666.666, 2) -> "10,666.67"; "-" when not finite.
std::string formatGrouped(double value, int decimals);

// The one duration parser: a decimal number (a fraction and an exponent allowed) and an
// optional unit, s, ms, us or ns (none: seconds), blanks around and between allowed, as exact
// ns: "1200s", "350ms", "1.5 us", "5ns", "-2s", "2", "1e-3". nullopt for anything else:
// another unit, a '+', a fraction of a nanosecond ("1.5ns"), a value beyond the 64-bit range.
std::optional<TimeNs> parseDuration(std::string_view text);

} // namespace gaplens::core
