// SPDX-License-Identifier: MIT
#pragma once
// What the GUI side panels need from core besides the analyses themselves: chart series
// reduced to a bounded number of points and the NVTX names a pace chooser offers. Qt-free
// so the CLI can use the same reductions.
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/model/trace.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::core {

// Charts never get more points than this per series (heaptrack's MAX_CHART_DATAPOINTS idea).
inline constexpr std::size_t kMaxChartPoints = 2000;

struct SeriesPoint
{
    double x = 0; // index of the value in the input
    double y = 0;
    bool operator==(const SeriesPoint &) const = default;
};

// Up to maxPoints points of y (x = index). When y has more values than maxPoints, the values
// are cut into consecutive bins and each bin contributes its minimum and its maximum in index
// order, so a single slow iteration (a spike) is never averaged away. maxPoints < 2 is read as 2.
std::vector<SeriesPoint> downsampleMinMax(const std::vector<double> &y, std::size_t maxPoints = kMaxChartPoints);

struct RangeNameCount
{
    std::string name;
    std::uint64_t count = 0; // instances over all threads of all ranks
    std::uint64_t topLevel = 0; // of them at NVTX depth 0
};

// NVTX range names with at least two instances on some rank, most instances first (ties:
// more top-level instances, then the name); at most `limit` names. The pace chooser's list.
std::vector<RangeNameCount> repeatingRangeNames(const TraceSet &trace, std::size_t limit = 200);

} // namespace gaplens::core
