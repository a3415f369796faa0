// SPDX-License-Identifier: MIT
#pragma once
// What every gaplens-cli command shares: the options, the loaded capture, and the small
// helpers that name ranks and GPUs the same way in every table and JSON document.
#include "cli_options.h"
#include "table_writer.h"

#include "gaplens/core/analysis/compare.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/analysis/kernel_histogram.h"
#include "gaplens/core/analysis/ncu_command.h"
#include "gaplens/core/analysis/overlap.h"
#include "gaplens/core/analysis/pace.h"
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/selection.h"
#include "gaplens/core/analysis/summaries.h"
#include "gaplens/core/analysis/sustained_gain.h"
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::cli {

// JSON documents keep their keys in the order they are set: the order docs/cli-json.md
// documents, and the one users diff.
using Json = nlohmann::ordered_json;

// The exit status of a check that found a regression (gaplens-cli --help says so).
inline constexpr int kExitRegression = 3;

struct CommandContext
{
    Options options;
    std::shared_ptr<const core::TraceSet> trace;
    // A time shard's carry from the earlier shards of its file (gaplens-mpi's gaps and
    // blame): derived() finds and blames the shard's gaps from it.
    core::EarlierShards earlierShards;

    // Busy time, gaps and blame at --min-gap and --with-copies: derived once per run, on first use.
    const core::DerivedCapture &derived() const;
    // The same without copies, for the findings (they always count kernels only); derived()
    // itself when --with-copies is not given.
    const core::DerivedCapture &derivedKernelsOnly() const;

    const core::TraceSet &t() const { return *trace; }
    core::RankSelection rankSelection() const; // from --ranks (rank numbers -> indices)
    bool rankSelected(std::uint32_t rankIndex) const { return rankSelection().includes(rankIndex); }
    // "rank 3" label parts.
    std::int32_t rankNumber(std::uint32_t rankIndex) const;
    std::string gpuLabel(std::uint32_t gpuIndex) const; // "GPU 0 (NVIDIA H100)"
    // Offset from the capture's first event, for readable tables ("+12.345 ms").
    std::string relativeTime(core::TimeNs t) const;
    const std::string &str(core::StringId id) const { return trace->str(id); }

    // Built by derived() / derivedKernelsOnly(); a run is single-threaded.
    mutable std::shared_ptr<const core::DerivedCapture> derivedCache, derivedKernelsOnlyCache;
};

// Loads `tables` of `files` with the options' rank map, threads and memory limit; prints each
// input that failed on stderr, its message after `label` ("before: " for diff's first capture).
std::shared_ptr<core::TraceSet> loadCapture(const Options &options, const std::vector<std::string> &files,
    const char *label = "", core::TableSet tables = core::TableSet::all());

// The two captures of diff and check --min-sustained-gain (--before and --after), each of the
// tables the command reads (commandTables). Both null, after saying so on stderr, when either
// loaded no file at all.
struct BeforeAfter
{
    std::shared_ptr<core::TraceSet> before, after;
};
BeforeAfter loadBeforeAfter(const Options &options);

// Run accounting as --range, --window/--between, --state, --work-per-step and --work-unit
// ask (every rank; throughput narrows them to --ranks).
core::RunAccountingOptions runAccountingOptions(const Options &options);

// Prints tables, CSV or Markdown (several tables are separated by a blank line) to stdout.
void printTables(Format format, const std::vector<Table> &tables);
// Prints a finished JSON document to stdout.
void printJson(const Json &document);
// Prints what printJson(document) prints once document[key] holds the `count` elements
// element(i) builds, in order. They are built and written in blocks on up to `threads` threads,
// so a large array (gaps: 24K gaps, 21 MB on a big capture) is never one DOM
// and is not written by one core alone. element must be safe to call from several threads.
void printJsonWithArray(Json document, const std::string &key, std::size_t count, unsigned threads,
    const std::function<Json(std::size_t)> &element);
// `files` (the reports that loaded) and `errors` (the inputs that did not) of the captures.
void addFilesAndErrors(Json &object, std::initializer_list<const core::TraceSet *> captures);
// A JSON document with the fields every command writes first: tool, format_version, command,
// then files and errors of all the captures.
Json jsonDocument(const std::string &command, std::initializer_list<const core::TraceSet *> captures);
Json jsonDocument(const CommandContext &ctx);
// A number, or null for a statistic that does not exist.
Json numberOrNull(std::optional<double> value);
// A rank index as its number, or null for kNoIndex (no rank, or ranks that tie).
Json rankNumberOrNull(const CommandContext &ctx, std::uint32_t rankIndex);

// A JSON array with an object per entry of `entries` (each with a rank index `rank`): first
// "rank", the rank's number, then what fields(entry, index of the entry, object) adds.
template <class Entries, class Fields>
Json perRankJson(const CommandContext &ctx, const Entries &entries, Fields fields)
{
    Json out = Json::array();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        Json entry;
        entry["rank"] = ctx.rankNumber(entries[i].rank);
        fields(entries[i], i, entry);
        out.push_back(std::move(entry));
    }
    return out;
}

int runSummary(const CommandContext &ctx);
int runRanks(const CommandContext &ctx);
int runKernels(const CommandContext &ctx);
int runNvtx(const CommandContext &ctx);
int runApi(const CommandContext &ctx);
int runGaps(const CommandContext &ctx);
int runBlame(const CommandContext &ctx);
int runPace(const CommandContext &ctx);
int runOverlap(const CommandContext &ctx);
int runNcu(const CommandContext &ctx);
int runIntervals(const CommandContext &ctx);
int runTransfers(const CommandContext &ctx);
int runThroughput(const CommandContext &ctx);
int runDigest(const CommandContext &ctx); // writes --out
int runSynth(const Options &options);

// intervals and transfers in their parts, for gaplens-mpi, which computes the report in pieces
// and prints it as gaplens-cli does: the options they ask of core, the report of the whole
// capture, and the output from a finished report.
core::IntervalOptions intervalOptions(const Options &options);
core::IntervalReport intervalReport(const CommandContext &ctx);
int printIntervals(const CommandContext &ctx, const core::IntervalReport &report);
int printTransfers(const CommandContext &ctx, const core::IntervalReport &report);
// kernels, nvtx and api in parts, for gaplens-mpi: the kernel summaries' options, and the
// output from finished summaries (perRank printed with --per-rank).
core::KernelSummaryOptions kernelSummaryOptions(const CommandContext &ctx);
int printKernels(
    const CommandContext &ctx, const core::KernelSummary &overall, const std::vector<core::KernelSummary> &perRank);
int printNvtx(const CommandContext &ctx, const core::NvtxSummary &summary);
int printNvtxProjection(const CommandContext &ctx, const core::NvtxProjectionSummary &summary);
int printApi(const CommandContext &ctx, const core::ApiSummary &summary);
// kernels --hist in parts, for gaplens-mpi: its options, how many slowest launches it prints,
// and the output from finished figures (status 1 and an error when there is no instance).
constexpr std::size_t kSlowestKernels = 10;
core::KernelHistogramOptions kernelHistogramOptions(const CommandContext &ctx);
int printKernelHistogram(const CommandContext &ctx, const core::KernelHistogramFigures &figures);
// blame in parts, for gaplens-mpi: the report of a capture (its totals, without the gaps), and
// the output from a finished report.
core::GapBlameReport blameReport(const CommandContext &ctx);
int printBlame(const CommandContext &ctx, const core::GapBlameReport &report);
// gaps in parts, for gaplens-mpi: one gap's JSON object and table row, and the document
// (without "gaps") and the table (without rows) they go in.
Json gapJson(const CommandContext &ctx, const core::GapBlame &gap);
std::vector<Cell> gapRow(const CommandContext &ctx, const core::GapBlame &gap);
Json gapsDocument(const CommandContext &ctx);
Table gapTable(const Options &options);
// pace in parts, for gaplens-mpi: the options it asks of core for a range name, the message
// when no step range is proposed (status 1), and the output from a finished report and its
// step accounting (one entry per rank of the report).
core::PaceOptions paceOptions(const CommandContext &ctx, const std::string &rangeName);
core::StepAccountingOptions stepAccountingOptions(const Options &options);
int printNoStepRange(const core::StepRangeChoice &choice);
int printPace(const CommandContext &ctx, const core::PaceReport &pace, const std::vector<core::RankSteps> &steps);
// overlap in parts, for gaplens-mpi: the options it asks of core, and the output from a
// finished report.
core::OverlapOptions overlapOptions(const CommandContext &ctx);
int printOverlap(const CommandContext &ctx, const core::OverlapReport &report);
// ncu in parts, for gaplens-mpi: the request from the options, and the output of a built
// command (its text, or its error with status 1).
core::NcuRequest ncuRequest(const Options &options);
int printNcu(const core::NcuCommand &ncu);
// throughput in parts, for gaplens-mpi: the output from a finished accounting (its error
// with status 1).
int printThroughput(const CommandContext &ctx, const core::RunAccounting &a);
// summary in parts, for gaplens-mpi: the options of its findings, what it prints of one rank
// (computed where the rank's report is: its JSON object, its table rows, its GPU memory
// figures), and the output from the selected ranks' (in rank order) and the findings.
core::CaptureSummaryOptions summaryFindingOptions(
    const CommandContext &ctx, const std::optional<std::string> &stepRange);
struct SummaryGpuMemory
{
    std::int32_t rank = 0; // the rank's number
    std::string gpu; // gpuLabel
    std::uint64_t peakBytes = 0;
    core::TimeNs peakTime = 0;
    std::uint64_t allocations = 0, frees = 0, unmatchedFrees = 0;
};
struct SummaryRank
{
    Json json; // its ranks[] object
    std::vector<std::vector<Cell>> rows; // its table rows, one per GPU (one without GPU work)
    std::vector<SummaryGpuMemory> memory; // per GPU, when the capture recorded GPU memory
};
SummaryRank summaryRank(const CommandContext &ctx, std::uint32_t rankIndex, std::optional<double> medianStep);
struct SummaryOutput
{
    std::optional<std::string> stepRange; // the step range of the median steps, nullopt without one
    std::vector<std::string> findings;
    bool memoryRecorded = false; // the capture recorded GPU memory
    std::vector<SummaryRank> ranks;
};
int printSummary(const CommandContext &ctx, const SummaryOutput &out);
// digest in parts, for gaplens-mpi: what the per-rank objects are made of; one rank's object
// (without its findings); and the file from every rank's object in rank order, written to
// --out. The file reads, of `parts`: pace and steps (the pace matrix and step range), the
// interval report's settings (length, origin, metric) and the findings.
struct DigestParts
{
    std::optional<core::PaceReport> pace; // nullopt without a step range that some rank has
    std::vector<core::RankSteps> steps; // one per rank of pace
    std::vector<core::KernelSummary> kernels; // one per rank
    core::IntervalReport intervals; // every anomalous interval
    std::vector<std::size_t> slots; // the copy slots present anywhere in the capture's intervals
    std::optional<core::RunAccounting> accounting; // only without an error
    std::vector<core::Finding> findings;
};
Json digestRankJson(const CommandContext &ctx, const DigestParts &parts, std::uint32_t rankIndex);
int writeDigest(const CommandContext &ctx, const DigestParts &parts, std::vector<Json> ranks);
// check against a stored summary in parts, for gaplens-mpi: the baseline (--baseline; nullopt
// after saying why it cannot be used), whether busy time counts copies (the baseline's
// setting unless it has none), every rank's figures now (in rank order; computed where the
// rank's report is), and the check from them, with its exit status.
struct CheckBaselineDevice
{
    std::int32_t device = 0;
    double busyPercent = 0;
};
struct CheckBaselineRank
{
    std::int32_t rank = 0;
    std::optional<double> medianStepNs;
    std::vector<CheckBaselineDevice> devices;
};
struct CheckBaseline
{
    std::string stepRange;
    std::optional<bool> withCopies;
    std::vector<CheckBaselineRank> ranks;
};
std::optional<CheckBaseline> readCheckBaseline(const Options &options);
bool checkWithCopies(const Options &options, const CheckBaseline &baseline);
struct CheckRankFigures
{
    std::int32_t rank = 0; // the rank's number
    std::vector<std::pair<std::int32_t, double>> busyPercent; // (device id, busy %) in the rank's GPU order
    std::optional<double> medianStepNs; // of rangeName's iterations
};
std::vector<CheckRankFigures> checkFigures(const std::shared_ptr<const core::TraceSet> &trace, const Options &options,
    const CheckBaseline &baseline, const std::string &rangeName);
// What checkFigures measures with: the busy union as the baseline counted it, the steps of
// rangeName (gaplens-mpi measures time shards with the same).
core::DerivedOptions checkDerivedOptions(const Options &options, const CheckBaseline &baseline);
// The options check loads with: the baseline's step range unless --range says otherwise (none
// when neither names one: it is proposed from the capture), and its copies setting. Which
// tables it reads (commandTables), and gaplens-mpi's division into time shards, follow them.
Options checkLoadOptions(const Options &options, const CheckBaseline &baseline);
core::PaceOptions checkPaceOptions(const std::string &rangeName);
int printCheck(const Options &options, const core::TraceSet &trace, const CheckBaseline &baseline,
    const std::string &rangeName, const std::vector<CheckRankFigures> &ranks);
// diff and check load their own captures (diff two of them; check reads a baseline first).
int runDiff(const Options &options);
// diff's settings (the comparison's and each side's derived capture's), and its output from
// a comparison with its exit status: for gaplens-mpi, which measures each capture in parts
// (the captures name the files and errors: the skeletons do).
core::CompareOptions compareOptions(const Options &options);
core::DerivedOptions compareDerivedOptions(const Options &options);
int printDiff(
    const Options &options, const core::TraceSet &before, const core::TraceSet &after, const core::Comparison &c);
int runCheck(const Options &options);
// check --min-sustained-gain: the sustained-gain rule over --before and --after.
int runSustainedGainCheck(const Options &options);
// Its two halves, for gaplens-mpi, which splits each capture's windows in parts: the rule as
// the options give it, and the check's output (the captures name reports and ranks: the
// skeletons do) with its exit status.
core::SustainedGainOptions sustainedGainRule(const Options &options);
int printSustainedGainCheck(const Options &options, const core::TraceSet &before, const core::TraceSet &after,
    const core::SustainedGainOptions &rule, const core::SustainedGainCheck &check);

} // namespace gaplens::cli
