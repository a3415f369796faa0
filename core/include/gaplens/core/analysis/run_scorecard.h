// SPDX-License-Identifier: MIT
#pragma once
// The run scorecard: run accounting (run_accounting.h) written out for a review, as rows of
// text in sections (the work, the window's partition, both rates with their formulas and
// numbers, checkpoint health, every exclusion, the window and where it came from), beside
// what the capture knows (ranks, GPUs per rank and their names) and what the user supplied
// (--meta KEY=VALUE: model, precision, global batch...). The report's HTML and
// `gaplens-cli throughput --format md` render the same rows.
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

// The tables the run scorecard reads: run accounting's, and the kernels that make the GPUs
// of each rank.
inline constexpr TableSet kRunScorecardTables = kRunAccountingTables | ExportTable::Kernels;

// One --meta KEY=VALUE: a fact about the run the capture cannot know.
struct RunMeta
{
    std::string key, value;
};
// "KEY=VALUE" (the first '=' splits; the key is trimmed and not empty, the value may be);
// nullopt and `error` set otherwise.
std::optional<RunMeta> parseRunMeta(std::string_view text, std::string &error);

struct ScorecardRow
{
    std::string item; // "active rate"
    std::string value; // "10,666.67 tokens/s"
    std::string how; // "work / active time = 9,600,000 tokens / 900.000 s"
};

struct ScorecardSection
{
    std::string title;
    std::vector<ScorecardRow> rows;
};

struct RunScorecard
{
    // Why there is no accounting (no step range, a bad pattern...); empty when there is one.
    // Without one, only the capture and supplied sections are filled.
    std::string unavailable;
    std::vector<ScorecardSection> sections;
    const ScorecardSection *section(std::string_view title) const; // nullptr when absent
    const ScorecardRow *row(std::string_view title, std::string_view item) const; // nullptr when absent
};

// Section titles, in order (the accounting ones only with an accounting).
inline constexpr std::string_view kScorecardRates = "Throughput";
inline constexpr std::string_view kScorecardPartition = "Where the window went";
inline constexpr std::string_view kScorecardCheckpoints = "Checkpoints";
inline constexpr std::string_view kScorecardExclusions = "Exclusions";
inline constexpr std::string_view kScorecardWindow = "Window";
inline constexpr std::string_view kScorecardCapture = "What the capture knows";
inline constexpr std::string_view kScorecardSupplied = "What you supplied (--meta)";

// The scorecard of `accounting.overall` (the job: summed work over the slowest rank's window)
// of `trace`. `accounting.error` set: the unavailable scorecard.
RunScorecard buildRunScorecard(
    const TraceSet &trace, const RunAccounting &accounting, const std::vector<RunMeta> &meta);

} // namespace gaplens::core
