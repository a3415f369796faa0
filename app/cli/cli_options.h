// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/loader.h"
#include "gaplens/core/time.h"

#include <optional>
#include <string>
#include <vector>

namespace gaplens::cli {

enum class Format { Table, Csv, Json, Markdown }; // Markdown: diff and check only

// Thrown for a malformed command line; main prints it with the usage hint, exit code 2.
struct UsageError
{
    std::string message;
};

struct Options
{
    std::string command;
    std::vector<std::string> files;
    Format format = Format::Table;
    core::TimeNs minGapNs = 100'000;
    bool withCopies = false;
    bool demangled = false;
    bool perRank = false;
    bool gpuProjection = false;
    std::optional<std::string> range;   // pace: NVTX range name
    std::vector<std::int32_t> rankNumbers; // --ranks 0,3: restrict to these rank numbers
    std::vector<core::RankOverride> rankOverrides;
    std::size_t top = 0; // 0 = all rows
    unsigned threads = 0;
    // synth
    std::string outputDir;
    int synthRanks = 4;
    int synthSteps = 20;
    std::size_t synthKernelsPerRank = 0;
    // diff: --before A... --after B... (each one or many files or folders)
    std::vector<std::string> beforeFiles, afterFiles;
    // check: --baseline FILE (a `summary --format json` document), --tolerance 3%
    std::string baselinePath;
    double tolerancePercent = 3.0;
};

// Parses argv after the program name; throws UsageError.
Options parseOptions(int argc, char **argv);
std::string usageText();

} // namespace gaplens::cli
