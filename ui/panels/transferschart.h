// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/intervals.h"

#include <QString>

#include <cstdint>
#include <vector>

class QChart;

namespace gaplens::ui {

// What the transfers chart stacks per interval: bytes or copy time.
enum class TransferQuantity : std::uint8_t { Bytes, Duration };

// One rank's copies per interval by direction (memsets are not transfers: left out), stacked
// as areas over intervals [first, last] of `rank` (an entry of report.ranks), with the
// intervals of `highlighted` (copy stalls on all selected ranks) shaded behind them. Past
// kMaxTransferBars intervals, each bar shows the interval of its bin with the most copies
// (max-preserving), so a stall never disappears at a wide zoom.
inline constexpr int kMaxTransferBars = 1500;
struct TransfersChartInput
{
    const core::IntervalReport *report = nullptr;
    std::size_t entry = 0;
    std::int64_t first = 0, last = -1;
    TransferQuantity quantity = TransferQuantity::Bytes;
    std::vector<std::int64_t> highlighted; // interval indices, ascending
    QString highlightName; // legend of the shading
    QString title;
};

// Where the chart's x axis puts interval k: k * intervalNs / unitNs (the origin at 0).
struct TransfersAxis
{
    double unitNs = 1e9;
    core::TimeNs intervalNs = 1;
    // The interval under x; clamped to [first, last] by the caller.
    std::int64_t intervalAt(double x) const { return std::int64_t(std::floor(x * unitNs / double(intervalNs))); }
};

// Fills `chart` (cleared first; the theme is the chart's) and returns its x axis mapping.
// The area series' clicked(QPointF) gives an x that intervalAt maps back.
TransfersAxis fillTransfersChart(QChart *chart, const TransfersChartInput &input);

} // namespace gaplens::ui
