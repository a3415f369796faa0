// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>

namespace gaplens::core {

// All times are signed 64-bit nanoseconds, absolute (Unix epoch) after loading, so
// ranks from different reports line up and differences never wrap.
using TimeNs = std::int64_t;

struct TimeRange
{
    TimeNs start = 0;
    TimeNs end = 0;
    TimeNs duration() const { return end - start; }
    bool contains(TimeNs t) const { return start <= t && t < end; }
    bool operator==(const TimeRange &) const = default;
};

} // namespace gaplens::core
