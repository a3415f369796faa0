// SPDX-License-Identifier: MIT
#pragma once
// What the GUI side panels need from core besides the analyses themselves: chart series
// reduced to a bounded number of points (the pace chooser's names: step_range.h). Qt-free
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

} // namespace gaplens::core
