// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/run_scorecard.h"
#include "gaplens/core/model/time.h"
#include "gaplens/core/read/loader.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace gaplens::cli {

enum class Format { Table, Csv, Json, Markdown }; // Markdown: diff, check and throughput only

// Thrown for a malformed command line; main prints it with a hint to the help of
// `command` (empty: the global help), exit code 2.
struct UsageError
{
    std::string message;
    std::string command;
};

struct Options
{
    std::string command;
    // --help and --version: the text to print on stdout; nothing is run and the exit code is 0.
    std::string infoText;
    std::vector<std::string> files;
    Format format = Format::Table;
    core::TimeNs minGapNs = 100'000;
    bool withCopies = false;
    bool demangled = false;
    bool perRank = false;
    bool gpuProjection = false;
    // kernels --hist NAME [--bins N] [--log]: a kernel's duration histogram
    std::optional<std::string> histKernel;
    std::size_t histBins = 20;
    bool histLog = false;
    std::optional<std::string> range; // pace: NVTX range name
    std::vector<std::int32_t> rankNumbers; // --ranks 0,3: restrict to these rank numbers
    std::vector<core::RankOverride> rankOverrides;
    std::size_t top = 0; // 0 = all rows
    unsigned threads = 0;
    std::uint64_t maxMemoryBytes = 0; // --max-memory; 0 = only the process's own limits
    bool noCache = false; // --no-cache: the report cache neither read nor written
    bool allTables = false; // --all-tables (hidden): read every table, not the command's own set
    // synth
    std::string outputDir;
    int synthRanks = 4;
    int synthSteps = 20;
    std::size_t synthKernelsPerRank = 0;
    bool synthPhases = false; // checkpoints, staging, validation, data waits, token payloads
    // diff: --before A... --after B... (each one or many files or folders)
    std::vector<std::string> beforeFiles, afterFiles;
    // check: --baseline FILE (a `summary --format json` document), --tolerance 3%
    std::string baselinePath;
    double tolerancePercent = 3.0;
    // ncu: --kernel NAME, --instance K (1-based), --rank R
    std::string ncuKernel;
    std::uint32_t ncuInstance = 1;
    std::optional<std::int32_t> ncuRank;
    // intervals and transfers: --interval 1s, --origin NS; intervals: --metric, --top (its
    // own default: 5), --top-percent, --pool
    core::TimeNs intervalNs = 1'000'000'000;
    std::optional<core::TimeNs> originNs;
    std::string intervalMetric = "stddev"; // a name core::parseIntervalMetric accepts
    std::size_t anomalyTop = 5;
    double topPercent = 5;
    bool pool = false;
    // throughput: --window / --between (at most one), --state STATE=REGEX (repeatable, the
    // last one of a state wins), --work-per-step N, --work-unit U
    core::RunWindowSpec runWindow;
    std::array<std::string, 4> statePatterns; // kPatternStates order; empty = the default
    std::optional<double> workPerStep;
    std::string workUnit;
    // throughput: --meta KEY=VALUE (repeatable, in order): facts for the scorecard
    std::vector<core::RunMeta> meta;
    // check --before A --after B: --min-sustained-gain P% (set: the sustained-gain rule instead
    // of --baseline), --min-windows N, --windows N (0: split at checkpoint commits)
    std::optional<double> minSustainedGainPercent;
    std::size_t minWindows = 3;
    std::uint32_t windowCount = 0;
    // digest: --out FILE, the digest to write (never an input)
    std::string outputPath;
};

// Parses the whole argv (argv[0] is the program); throws UsageError.
// `program` names the program in the help and --version (gaplens-mpi takes the same options).
Options parseOptions(int argc, char **argv, const char *program = "gaplens-cli");

} // namespace gaplens::cli
