// SPDX-License-Identifier: MIT
#pragma once
// What the digest overview shows, made from a read digest (core/read/digest.h) as it is:
// the per-rank table, the pace matrix and the interval heat map's data.
#include "gaplens/core/read/digest.h"
#include "ui/panels/intervalheatmap.h"

namespace gaplens::ui {

class PanelTableModel;

// Per rank: rank, host, busy, capture (the rank's first to last event), idle % of the GPU
// window and of the capture, gaps, top blame cause, median step, times slowest, findings. Row
// keys are indices into digest.ranks.
void setDigestRankTable(PanelTableModel &model, const core::Digest &digest);

// Iterations x ranks as the Rank pace panel shows them (Iteration, Median, a column per rank,
// each cell coloured by its delta from the iteration's median); empty without pace.
void setDigestPaceMatrix(PanelTableModel &model, const core::Digest &digest);

// At most this many intervals are shown, from the first.
inline constexpr std::uint64_t kMaxHeatMapColumns = 100'000;

// Ranks x intervals of `metric` (one the digest holds per interval: spread, busy, kernels,
// kernel time, stall), the digest's anomalous intervals outlined when `metric` is its metric.
HeatMapData digestHeatMapData(const core::Digest &digest, core::IntervalMetric metric);
// The metrics digestHeatMapData can show.
inline constexpr core::IntervalMetric kDigestHeatMapMetrics[]
    = { core::IntervalMetric::Stddev, core::IntervalMetric::Busy, core::IntervalMetric::Kernels,
          core::IntervalMetric::KernelNs, core::IntervalMetric::Stall };

} // namespace gaplens::ui
