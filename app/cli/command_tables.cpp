// SPDX-License-Identifier: MIT
#include "command_tables.h"

#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/gpu_busy.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/kernel_histogram.h"
#include "gaplens/core/analysis/ncu_command.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/run_scorecard.h"
#include "gaplens/core/analysis/step_range.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/analysis/transfers.h"
#include "gaplens/core/read/rank_identity.h"

namespace gaplens::cli {
namespace {

using core::TableSet;

// Tables and CSV show times relative to the capture's start ("+12.345 ms"), JSON absolute ns.
TableSet relativeTimeTables(const Options &o)
{
    return o.format == Format::Json ? TableSet::none() : core::kCaptureSpanTables;
}

// Without --range the step range is chosen from the capture.
TableSet stepRangeTables(const Options &o)
{
    return o.range ? TableSet::none() : core::kStepRangeTables;
}

} // namespace

TableSet commandTables(const Options &o)
{
    if (o.allTables)
        return TableSet::all();
    const auto &c = o.command;
    if (c == "summary")
        return core::kCaptureSummaryTables;
    if (c == "ranks")
        return core::kRankMappingTables;
    if (c == "kernels")
        return o.histKernel ? core::kKernelHistogramTables | relativeTimeTables(o) : core::kKernelSummaryTables;
    if (c == "nvtx")
        return o.gpuProjection ? core::kNvtxProjectionSummaryTables : core::kNvtxSummaryTables;
    if (c == "api")
        return core::kApiSummaryTables;
    if (c == "gaps" || c == "blame")
        return core::kGapBlameTables | relativeTimeTables(o);
    if (c == "pace")
        return stepRangeTables(o) | (o.gpuProjection ? core::kPaceGpuProjectionTables : core::kPaceTables)
            | core::kStepAccountingTables;
    if (c == "overlap")
        return core::kOverlapTables;
    if (c == "ncu")
        return core::kNcuCommandTables;
    if (c == "intervals")
        return core::kIntervalTables | relativeTimeTables(o);
    if (c == "transfers")
        return core::kTransferTables | relativeTimeTables(o);
    // check against a stored summary: busy % per GPU (copies read, in case the baseline counted
    // them) and the median step.
    if (c == "check" && !o.minSustainedGainPercent)
        return stepRangeTables(o) | core::gpuBusyTables(true) | core::kPaceTables;
    // check --min-sustained-gain: each capture's windows accounted as throughput accounts them.
    if (c == "check")
        return stepRangeTables(o) | core::kRunAccountingTables;
    if (c == "diff")
        return core::kCompareTables;
    if (c == "throughput")
        return stepRangeTables(o)
            | (o.format == Format::Markdown ? core::kRunScorecardTables : core::kRunAccountingTables);
    return TableSet::all();
}

} // namespace gaplens::cli
