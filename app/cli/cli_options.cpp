// SPDX-License-Identifier: MIT
#include "cli_options.h"

#include <fmt/format.h>

#include <charconv>
#include <set>

namespace gaplens::cli {
namespace {

const std::set<std::string> kCommands = {"summary", "kernels", "gaps",  "blame", "pace", "nvtx",
                                         "api",     "ranks",   "synth", "diff",  "check"};

template<typename T>
T parseNumber(const std::string &text, const std::string &option)
{
    T value{};
    const auto *end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end)
        throw UsageError{fmt::format("{} expects a number, got '{}'", option, text)};
    return value;
}

double parseDouble(const std::string &text, const std::string &option)
{
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used == text.size())
            return v;
    } catch (const std::exception &) {
    }
    throw UsageError{fmt::format("{} expects a number, got '{}'", option, text)};
}

} // namespace

std::string usageText()
{
    return R"(Usage: gaplens-cli COMMAND [OPTIONS] FILES...

Reads Nsight Systems SQLite exports (`nsys export -t sqlite`), one per rank, or folders of them.

Commands:
  summary   per rank and GPU: busy %, window, idle gaps, kernels, data problems
  kernels   top kernels (like cuda_gpu_kern_sum): calls, total, %, avg, median, min, max, stddev
  gaps      every idle gap with its blame: cause, CUDA API call, NVTX phase
  blame     idle time totals by cause and by NVTX phase, overall and per rank
  pace      per-rank pace of a repeating NVTX range (--range NAME, default: the step-like one)
  nvtx      NVTX range summary (like nvtx_sum)
  api       CUDA API summary (like cuda_api_sum)
  ranks     which file and process is which rank, and how that was decided
  synth     write a synthetic training capture: synth --out DIR [--ranks N] [--steps N]
  diff      compare two captures: diff --before A... --after B... [--format table|csv|json|md]
            headline per step with a noise verdict, kernels, idle time by cause and phase, NVTX
  check     regression check against a stored summary:
            check --baseline BASELINE.json [--tolerance 3%] FILES...
            (BASELINE.json from `gaplens-cli summary --format json`); exit 3 when a GPU's busy %
            fell or a rank's median step time rose by more than the tolerance (% of the baseline)

Options:
  --format table|csv|json|md  output format (default: table; md = Markdown, diff and check only)
  --min-gap-us N            idle-gap threshold in microseconds (default: 100)
  --with-copies             count copies and memsets as GPU busy time (default: kernels only)
  --ranks LIST              only these rank numbers, e.g. --ranks 0,3
  --rank-map FILE[:PID]=N   set the rank of a file (or one process of it); repeatable
  --range NAME              NVTX range for pace and diff steps (e.g. train_step)
  --gpu                     pace: use the GPU projection of the range instead of CPU time
  --demangled               kernels: group by demangled name instead of short name
  --per-rank                kernels, blame: also one table per rank
  --top N                   kernels, nvtx, api, diff: only the first N rows (diff: kernels, NVTX)
  --before FILES...         diff: the capture before the change (files or folders)
  --after FILES...          diff: the capture after the change
  --baseline FILE           check: a `gaplens-cli summary --format json` document
  --tolerance P[%]          check: allowed change, % of the baseline value (default: 3%)
  --threads N               reports read in parallel (default: all cores)
  -h, --help                this text

Exit status: 0 on success; 1 when an input file could not be loaded (the others are still
reported) or the check baseline is unusable; 2 for a usage error; 3 when check finds a
regression.
)";
}

Options parseOptions(int argc, char **argv)
{
    Options o;
    if (argc < 1)
        throw UsageError{"missing command"};
    o.command = argv[0];
    if (o.command == "-h" || o.command == "--help")
        return o;
    if (!kCommands.count(o.command))
        throw UsageError{fmt::format("unknown command '{}'", o.command)};

    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc)
                throw UsageError{fmt::format("{} needs a value", arg)};
            return argv[++i];
        };
        if (arg == "-h" || arg == "--help") {
            o.command = "--help";
        } else if (arg == "--format") {
            const auto f = next();
            if (f == "table")
                o.format = Format::Table;
            else if (f == "csv")
                o.format = Format::Csv;
            else if (f == "json")
                o.format = Format::Json;
            else if (f == "md")
                o.format = Format::Markdown;
            else
                throw UsageError{fmt::format("--format must be table, csv, json or md, not '{}'", f)};
        } else if (arg == "--before" || arg == "--after") {
            // Takes every following argument up to the next option: shells expand
            // `--before runs/base/*.sqlite` into many words.
            auto &list = arg == "--before" ? o.beforeFiles : o.afterFiles;
            const auto first = list.size();
            while (i + 1 < argc && !(argv[i + 1][0] == '-' && argv[i + 1][1] != '\0'))
                list.push_back(argv[++i]);
            if (list.size() == first)
                throw UsageError{fmt::format("{} needs at least one file or folder", arg)};
        } else if (arg == "--baseline") {
            o.baselinePath = next();
        } else if (arg == "--tolerance") {
            auto text = next();
            if (!text.empty() && text.back() == '%')
                text.pop_back();
            o.tolerancePercent = parseDouble(text, arg);
            if (!(o.tolerancePercent >= 0))
                throw UsageError{"--tolerance must not be negative"};
        } else if (arg == "--min-gap-us") {
            const double us = parseDouble(next(), arg);
            if (us < 0)
                throw UsageError{"--min-gap-us must not be negative"};
            o.minGapNs = core::TimeNs(us * 1000.0 + 0.5);
        } else if (arg == "--with-copies") {
            o.withCopies = true;
        } else if (arg == "--demangled") {
            o.demangled = true;
        } else if (arg == "--per-rank") {
            o.perRank = true;
        } else if (arg == "--gpu") {
            o.gpuProjection = true;
        } else if (arg == "--range") {
            o.range = next();
        } else if (arg == "--ranks") {
            const auto list = next();
            std::size_t pos = 0;
            while (pos <= list.size()) {
                const auto comma = std::min(list.find(',', pos), list.size());
                o.rankNumbers.push_back(parseNumber<std::int32_t>(list.substr(pos, comma - pos), arg));
                pos = comma + 1;
            }
        } else if (arg == "--rank-map") {
            const auto spec = next();
            auto parsed = core::parseRankOverride(spec);
            if (!parsed)
                throw UsageError{fmt::format("--rank-map expects FILE=RANK or FILE:PID=RANK, got '{}'", spec)};
            o.rankOverrides.push_back(*parsed);
        } else if (arg == "--top") {
            o.top = parseNumber<std::size_t>(next(), arg);
        } else if (arg == "--threads") {
            o.threads = parseNumber<unsigned>(next(), arg);
        } else if (arg == "--out" || arg == "-o") {
            o.outputDir = next();
        } else if (arg == "--steps") {
            o.synthSteps = parseNumber<int>(next(), arg);
        } else if (arg == "--kernels-per-rank") {
            o.synthKernelsPerRank = parseNumber<std::size_t>(next(), arg);
        } else if (arg.starts_with("-") && arg.size() > 1) {
            throw UsageError{fmt::format("unknown option '{}'", arg)};
        } else {
            o.files.push_back(arg);
        }
    }
    if (o.command == "synth") {
        // synth --ranks N means a count, not a selection.
        if (!o.rankNumbers.empty()) {
            if (o.rankNumbers.size() != 1)
                throw UsageError{"synth --ranks expects one number (how many ranks)"};
            o.synthRanks = o.rankNumbers.front();
            o.rankNumbers.clear();
        }
        if (o.outputDir.empty())
            throw UsageError{"synth needs --out DIR"};
        if (o.synthRanks < 1 || o.synthSteps < 1)
            throw UsageError{"synth needs at least one rank and one step"};
    } else if (o.command == "diff") {
        if (o.beforeFiles.empty() || o.afterFiles.empty())
            throw UsageError{"diff needs --before FILES... and --after FILES..."};
        if (!o.files.empty())
            throw UsageError{fmt::format("diff takes its files after --before and --after, not '{}'", o.files.front())};
    } else if (o.command == "check") {
        if (o.baselinePath.empty())
            throw UsageError{"check needs --baseline BASELINE.json (from `gaplens-cli summary --format json`)"};
        if (o.files.empty())
            throw UsageError{"no input files"};
    } else if (o.command != "--help" && o.files.empty()) {
        throw UsageError{"no input files"};
    }
    if (o.command != "--help" && o.format == Format::Markdown && o.command != "diff" && o.command != "check")
        throw UsageError{"--format md is for diff and check only"};
    if (o.command != "--help" && o.command != "diff" && (!o.beforeFiles.empty() || !o.afterFiles.empty()))
        throw UsageError{"--before and --after are for diff only"};
    return o;
}

} // namespace gaplens::cli
