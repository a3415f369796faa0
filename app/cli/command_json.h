// SPDX-License-Identifier: MIT
#pragma once
// The JSON pieces several documents share: each command builds its own document from these,
// and `digest` puts the same pieces per rank into one file (docs/digest.md), so a figure is
// written the same way wherever it appears.
#include "command_context.h"

#include "gaplens/core/analysis/gap_blame.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/analysis/transfers.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gaplens::cli {

// The capture's warnings and each report's ("PATH: text"), as summary writes them.
Json captureWarningsJson(const core::TraceSet &trace);

// blame: gap_count, gap_ns, copy_ns, copy_cause_ns and the four bucket arrays.
void addBlameTotals(Json &object, const CommandContext &ctx, const core::BlameTotals &totals);
// kernels: total_ns, instances and the first `top` rows of "kernels".
void addKernelSummaryRows(Json &object, const CommandContext &ctx, const core::KernelSummary &summary, std::size_t top);
// summary: one GPU of a rank (busy, window, gaps, idle outside the window, counts, memory).
Json deviceSummaryJson(const CommandContext &ctx, std::uint32_t rankIndex, std::uint32_t gpu);
// pace: range, time, ranks, iterations, straggler and verdict.
void addPaceFields(
    Json &doc, const CommandContext &ctx, const core::PaceReport &pace, const std::vector<core::RankSteps> &steps);
std::string paceVerdict(const core::TraceSet &trace, const core::PaceReport &pace);
// intervals: the copy slots present anywhere in the report (every interval lists these), one
// rank's fields (events before the origin, intervals, and without --pool its fences and anomalies).
std::vector<std::size_t> presentCopySlots(const core::IntervalReport &report);
void addIntervalRankFields(Json &rank, const CommandContext &ctx, const core::IntervalReport &report, std::size_t entry,
    const std::vector<std::size_t> &slots);
// transfers: copy figures by direction (with bandwidth_gib_s when `bandwidth`), a rank's totals
// over its intervals, its ping-pong.
Json copyJson(const core::CopyFigures &figures, bool bandwidth);
Json copiesJson(const core::CopyMix &mix, const std::vector<std::size_t> &slots, bool bandwidth = false);
core::CopyMix rankCopyTotals(const core::IntervalReport &report, std::size_t entry);
Json pingPongJson(const core::PingPong &pingPong);
// throughput: one rank's run accounting.
Json runAccountingRankJson(const core::RankRunAccounting &rank, const core::RunAccounting &accounting);

} // namespace gaplens::cli
