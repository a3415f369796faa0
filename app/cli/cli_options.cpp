// SPDX-License-Identifier: MIT
// The command line: one CLI11 subcommand per command, each declaring only the options that
// command reads. Values are converted here, with messages that name the option and the text.
#include "cli_options.h"

#include "gaplens/core/analysis/intervals.h"
#include "gaplens/core/util/memory_limit.h"
#include "gaplens/core/util/units.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <regex>

namespace gaplens::cli {
namespace {

constexpr std::uint32_t kMaxSustainedWindows = 10'000;

template <typename T> T parseNumber(const std::string &text, const std::string &option)
{
    T value {};
    const auto *end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end)
        throw UsageError { fmt::format("{} expects a number, got '{}'", option, text) };
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
    throw UsageError { fmt::format("{} expects a number, got '{}'", option, text) };
}

// Usage first, then what the command does: the layout most tools' --help has, and the one
// help2man turns into the man page's SYNOPSIS and DESCRIPTION.
class HelpFormatter : public CLI::Formatter
{
public:
    std::string make_help(const CLI::App *app, std::string name, CLI::AppFormatMode mode) const override
    {
        if (mode == CLI::AppFormatMode::Sub)
            return make_expanded(app);
        return make_usage(app, name) + "\n" + make_description(app) + make_positionals(app) + make_groups(app, mode)
            + make_subcommands(app, mode) + "\n" + make_footer(app);
    }

    // Command names are short: their list needs no column as wide as the options'.
    std::string make_subcommand(const CLI::App *command) const override
    {
        // At least one space after the name: "throughput" fills the column.
        return fmt::format("  {:<10}{}{}\n", command->get_name(), command->get_name().size() < 10 ? "" : " ",
            command->get_description());
    }
};

// An option with one value per use, handed to `store` (which throws UsageError for bad text).
// Every use is stored in order: a repeated option keeps its last value, or appends to a list.
CLI::Option *addValueOption(CLI::App &command, const std::string &name, const std::string &valueName,
    const std::string &description, std::function<void(const std::string &)> store)
{
    return command.add_option(name)
        ->type_name(valueName)
        ->description(description)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->each(std::move(store));
}

void addFormatOption(CLI::App &command, Options &o, bool markdownAllowed)
{
    const auto choices = markdownAllowed ? "table, csv, json or md" : "table, csv or json";
    addValueOption(command, "--format", markdownAllowed ? "table|csv|json|md" : "table|csv|json",
        markdownAllowed ? "output format (default: table; md = Markdown, for a review)"
                        : "output format (default: table)",
        [&o, markdownAllowed, choices](const std::string &name) {
            if (name == "table")
                o.format = Format::Table;
            else if (name == "csv")
                o.format = Format::Csv;
            else if (name == "json")
                o.format = Format::Json;
            else if (name == "md" && markdownAllowed)
                o.format = Format::Markdown;
            else if (name == "md")
                throw UsageError { "--format md is for diff, check and throughput only" };
            else
                throw UsageError { fmt::format("--format must be {}, not '{}'", choices, name) };
        });
}

void addInputFiles(CLI::App &command, Options &o)
{
    command.add_option("FILES", o.files, "Nsight Systems SQLite exports (nsys export -t sqlite), or folders of them")
        ->type_name("");
}

// How the reports are read: which rank each one is, and how many are read at once.
void addLoadOptions(CLI::App &command, Options &o)
{
    addValueOption(command, "--rank-map", "FILE[:PID]=N", "set the rank of a file (or one process of it); repeatable",
        [&o](const std::string &spec) {
            const auto parsed = core::parseRankOverride(spec);
            if (!parsed)
                throw UsageError { fmt::format("--rank-map expects FILE=RANK or FILE:PID=RANK, got '{}'", spec) };
            o.rankOverrides.push_back(*parsed);
        });
    addValueOption(command, "--threads", "N", "reports read in parallel (default: all cores)",
        [&o](const std::string &text) { o.threads = parseNumber<unsigned>(text, "--threads"); });
    // The unit rules (K = 1024, KB = 1000) are parseMemorySize's, spelled out in README.md.
    addValueOption(command, "--max-memory", "SIZE", "refuse captures estimated to need more, e.g. 512M, 4G, 1.5GiB",
        [&o](const std::string &text) {
            const auto bytes = core::parseMemorySize(text);
            if (!bytes)
                throw UsageError { fmt::format(
                    "--max-memory expects a size such as 512M, 4G, 1.5GiB or a number of bytes, got '{}'", text) };
            if (*bytes == 0)
                throw UsageError { fmt::format("--max-memory must be at least 1 byte, got '{}'", text) };
            o.maxMemoryBytes = *bytes;
        });
    command.add_flag("--no-cache", o.noCache,
        "read the exports themselves: neither use nor write the report cache ($XDG_CACHE_HOME/gaplens)");
    // Hidden (no group): every table read whatever the command needs, so the tests can check
    // that a command's own table set answers exactly as everything does.
    command.add_flag("--all-tables", o.allTables, "read every table of the exports")->group("");
}

void addRankSelection(CLI::App &command, Options &o)
{
    addValueOption(
        command, "--ranks", "LIST", "only these rank numbers, e.g. --ranks 0,3", [&o](const std::string &list) {
            std::size_t pos = 0;
            while (pos <= list.size()) {
                const auto comma = std::min(list.find(',', pos), list.size());
                o.rankNumbers.push_back(parseNumber<std::int32_t>(list.substr(pos, comma - pos), "--ranks"));
                pos = comma + 1;
            }
        });
}

void addMinGapOption(CLI::App &command, Options &o)
{
    addValueOption(command, "--min-gap-us", "N", "idle-gap threshold in microseconds (default: 100)",
        [&o](const std::string &text) {
            const double us = parseDouble(text, "--min-gap-us");
            if (us < 0)
                throw UsageError { "--min-gap-us must not be negative" };
            o.minGapNs = core::TimeNs(us * 1000.0 + 0.5);
        });
}

void addWithCopiesFlag(CLI::App &command, Options &o)
{
    command.add_flag(
        "--with-copies", o.withCopies, "count copies and memsets as GPU busy time (default: kernels only)");
}

// What counts as an idle gap: the threshold, and whether copies keep the GPU busy.
void addGapOptions(CLI::App &command, Options &o)
{
    addMinGapOption(command, o);
    addWithCopiesFlag(command, o);
}

void addRangeOption(CLI::App &command, Options &o, const std::string &description)
{
    addValueOption(command, "--range", "NAME", description, [&o](const std::string &name) { o.range = name; });
}

void addTopOption(CLI::App &command, Options &o, const std::string &description)
{
    addValueOption(command, "--top", "N", description,
        [&o](const std::string &text) { o.top = parseNumber<std::size_t>(text, "--top"); });
}

// The fixed intervals of `intervals` and `transfers`: their length and origin.
void addIntervalOptions(CLI::App &command, Options &o)
{
    addValueOption(command, "--interval", "DURATION", "interval length: a number and s, ms, us or ns (default: 1s)",
        [&o](const std::string &text) {
            const auto ns = core::parseDuration(text);
            if (!ns)
                throw UsageError { fmt::format(
                    "--interval expects a duration such as 1s, 10ms, 250us or 5000ns, got '{}'", text) };
            if (*ns <= 0)
                throw UsageError { fmt::format("--interval must be at least 1 ns, got '{}'", text) };
            o.intervalNs = *ns;
        });
    addValueOption(command, "--origin", "NS",
        "start of interval 0, absolute ns (default: the earliest kernel, copy or memset)",
        [&o](const std::string &text) { o.originNs = parseNumber<core::TimeNs>(text, "--origin"); });
}

// The commands that analyse one capture given as FILES.
void requireInputFiles(CLI::App &command, const Options &o)
{
    command.callback([&o] {
        if (o.files.empty())
            throw UsageError { "no input files" };
    });
}

CLI::App &addCommand(CLI::App &app, const std::string &name, const std::string &description, const std::string &footer)
{
    auto *command = app.add_subcommand(name, description);
    command->group("Commands");
    command->footer(footer);
    return *command;
}

// A command that analyses one capture given as FILES. Its help lists FILES and --format
// first, then the command's own options, then (addRankAndLoadOptions) the common tail.
CLI::App &addAnalysisCommand(CLI::App &app, Options &o, const std::string &name, const std::string &description,
    const std::string &footer, bool markdownAllowed = false)
{
    auto &command = addCommand(app, name, description, footer);
    addInputFiles(command, o);
    addFormatOption(command, o, markdownAllowed);
    requireInputFiles(command, o);
    return command;
}

void addRankAndLoadOptions(CLI::App &command, Options &o)
{
    addRankSelection(command, o);
    addLoadOptions(command, o);
}

// `ncu` prints a command line, not a table: it has no --format.
void addNcuCommand(CLI::App &app, Options &o)
{
    auto &ncu = addCommand(app, "ncu", "a ready Nsight Compute (ncu) command line for one launch of a kernel",
        "K counts the launches of that name in the rank's process, in launch order, from 1. The\n"
        "command is the first line; what it assumes or could not know (working directory,\n"
        "environment) follows as # comments. Without META_DATA_CAPTURE in the export the program\n"
        "is the placeholder <program> <args>.\n"
        "\n"
        "Examples:\n"
        "  gaplens-cli ncu --kernel ampere_sgemm_128x64_nn runs/\n"
        "  gaplens-cli ncu --kernel ncclDevKernel_AllReduce_Sum_f32_RING_LL --instance 3 --rank 1 runs/");
    addInputFiles(ncu, o);
    addValueOption(ncu, "--kernel", "NAME", "the kernel's short name (or demangled name), as `kernels` lists it",
        [&o](const std::string &name) { o.ncuKernel = name; });
    addValueOption(
        ncu, "--instance", "K", "its K-th launch in the process (default: 1)", [&o](const std::string &text) {
            o.ncuInstance = parseNumber<std::uint32_t>(text, "--instance");
            if (o.ncuInstance == 0)
                throw UsageError { "--instance counts launches from 1" };
        });
    addValueOption(ncu, "--rank", "R", "the rank whose process is profiled (default: the lowest that launched it)",
        [&o](const std::string &text) { o.ncuRank = parseNumber<std::int32_t>(text, "--rank"); });
    addLoadOptions(ncu, o);
    ncu.callback([&o] {
        if (o.ncuKernel.empty())
            throw UsageError { "ncu needs --kernel NAME" };
        if (o.files.empty())
            throw UsageError { "no input files" };
    });
}

// What run accounting reads besides the step range: the window (--window or --between),
// the state patterns and the work (throughput, and check --min-sustained-gain).
std::vector<CLI::Option *> addRunAccountingOptions(CLI::App &command, Options &o)
{
    auto *window = addValueOption(command, "--window", "START:END",
        "the window, relative to the session start, e.g. 0s:1200s", [&o](const std::string &text) {
            std::string error;
            const auto spec = core::parseRunWindow(text, error);
            if (!spec)
                throw UsageError { error };
            o.runWindow = *spec;
        });
    auto *between = addValueOption(command, "--between", "NAME[:K:M]",
        "from the end of the K-th to the end of the M-th NAME range (default K=1, M=last)",
        [&o](const std::string &text) {
            std::string error;
            const auto spec = core::parseRunBetween(text, error);
            if (!spec)
                throw UsageError { error };
            o.runWindow = *spec;
        });
    window->excludes(between);
    auto *stateOption = addValueOption(command, "--state", "STATE=REGEX",
        "the pattern of checkpoint, validation, data_wait or barrier; repeatable", [&o](const std::string &text) {
            const auto eq = text.find('=');
            if (eq == std::string::npos || eq == 0)
                throw UsageError { fmt::format("--state expects STATE=REGEX, got '{}'", text) };
            const auto name = text.substr(0, eq);
            const auto regex = text.substr(eq + 1);
            const auto state = core::runStateFromName(name);
            if (state == core::RunState::Active)
                throw UsageError { "--state active: the active state is the step range; choose it with --range NAME" };
            const auto it = state ? std::find(core::kPatternStates.begin(), core::kPatternStates.end(), *state)
                                  : core::kPatternStates.end();
            if (it == core::kPatternStates.end())
                throw UsageError { fmt::format(
                    "--state: unknown state '{}' (checkpoint, validation, data_wait or barrier)", name) };
            if (regex.empty())
                throw UsageError { fmt::format("--state {}= needs a regular expression", name) };
            try {
                std::regex check(regex, std::regex::ECMAScript | std::regex::icase);
            } catch (const std::regex_error &e) {
                throw UsageError { fmt::format(
                    "--state {}: '{}' is not a regular expression ({})", name, regex, e.what()) };
            }
            o.statePatterns[std::size_t(it - core::kPatternStates.begin())] = regex;
        });
    auto *workPerStep = addValueOption(
        command, "--work-per-step", "N", "units of work of a step without a payload", [&o](const std::string &text) {
            const double n = parseDouble(text, "--work-per-step");
            if (!(n > 0) || !std::isfinite(n))
                throw UsageError { fmt::format("--work-per-step must be a positive number, got '{}'", text) };
            o.workPerStep = n;
        });
    auto *workUnit = addValueOption(command, "--work-unit", "UNIT",
        "the unit of work (default: tokens with a payload or --work-per-step, else steps)",
        [&o](const std::string &text) {
            if (text.empty())
                throw UsageError { "--work-unit needs a name" };
            o.workUnit = text;
        });
    return { window, between, stateOption, workPerStep, workUnit };
}

// `throughput`: run accounting (docs/run-accounting.md).
void addThroughputCommand(CLI::App &app, Options &o)
{
    auto &throughput = addAnalysisCommand(app, o, "throughput",
        "active and sustained throughput: where a window's wall time went (steps, checkpoints, ...)",
        "Every instant of the window is in one state: active where a step range is open on any\n"
        "thread of the rank; else the first open of checkpoint, validation, data_wait, barrier\n"
        "(NVTX group names matched by a regex, any case); else unexplained. Active rate = work /\n"
        "active time; sustained rate = work / window time. Work: the step ranges' NVTX payload,\n"
        "else --work-per-step, else the step count. Times of --window are relative to the\n"
        "report's session start (the time zero nsys shows) and need a unit (s, ms, us, ns).\n"
        "Default window: the first to the last instant of any state range. Default patterns:\n"
        "  checkpoint=checkpoint|ckpt|save  validation=valid|eval\n"
        "  data_wait=data_wait|dataloader|next_batch  barrier=barrier|wait_for_peers\n"
        "--format md starts with the scorecard: work, the partition, both formulas with their\n"
        "numbers, checkpoint health, exclusions, the window, the capture's ranks and GPUs, and\n"
        "the --meta facts.\n"
        "\n"
        "Examples:\n"
        "  gaplens-cli throughput runs/\n"
        "  gaplens-cli throughput --window 0s:1200s --work-per-step 524288 runs/\n"
        "  gaplens-cli throughput --between epoch:1:3 --state checkpoint='^ckpt' --format json runs/\n"
        "  gaplens-cli throughput --format md --meta model=llama-8b --meta precision=bf16 \\\n"
        "      --meta 'global batch=1024' runs/ > scorecard.md",
        true);
    addRangeOption(throughput, o, "the step range (default: the step-like one, as pace proposes)");
    addRunAccountingOptions(throughput, o);
    addValueOption(throughput, "--meta", "KEY=VALUE",
        "a fact for the scorecard (--format md): model, precision, global batch...; repeatable",
        [&o](const std::string &text) {
            std::string error;
            const auto meta = core::parseRunMeta(text, error);
            if (!meta)
                throw UsageError { error };
            o.meta.push_back(*meta);
        });
    addRankAndLoadOptions(throughput, o);
}

void addAnalysisCommands(CLI::App &app, Options &o)
{
    auto &summary
        = addAnalysisCommand(app, o, "summary", "per rank and GPU: busy %, window, idle gaps, kernels, data problems",
            "Examples:\n"
            "  gaplens-cli summary runs/\n"
            "  gaplens-cli summary --format json runs/*.sqlite > baseline.json");
    addGapOptions(summary, o);
    addRangeOption(summary, o, "NVTX range for the median step time (default: the step-like one)");
    addRankAndLoadOptions(summary, o);

    auto &kernels = addAnalysisCommand(app, o, "kernels",
        "top kernels (like cuda_gpu_kern_sum): calls, total, %, avg, median, min, max, stddev",
        "Examples:\n"
        "  gaplens-cli kernels --top 10 runs/\n"
        "  gaplens-cli kernels --per-rank --demangled --format csv runs/\n"
        "  gaplens-cli kernels --hist ampere_sgemm_128x64_nn --bins 30 --log runs/");
    kernels.add_flag("--demangled", o.demangled, "group by demangled name instead of short name");
    auto *hist = addValueOption(kernels, "--hist", "NAME",
        "the duration histogram of one kernel (short name, or demangled with --demangled): bins, median, p95, "
        "slowest",
        [&o](const std::string &name) { o.histKernel = name; });
    addValueOption(kernels, "--bins", "N", "--hist: number of bins (default 20)", [&o](const std::string &text) {
        o.histBins = parseNumber<std::size_t>(text, "--bins");
        if (o.histBins == 0 || o.histBins > 10'000)
            throw UsageError { fmt::format("--bins must be between 1 and 10000, got '{}'", text) };
    })->needs(hist);
    kernels.add_flag("--log", o.histLog, "--hist: bins evenly spaced on a log axis")->needs(hist);
    kernels.add_flag("--per-rank", o.perRank, "also one table per rank");
    addTopOption(kernels, o, "only the first N kernels");
    addRankAndLoadOptions(kernels, o);

    auto &gaps = addAnalysisCommand(app, o, "gaps", "every idle gap with its blame: cause, CUDA API call, NVTX phase",
        "Examples:\n"
        "  gaplens-cli gaps --min-gap-us 500 runs/\n"
        "  gaplens-cli gaps --ranks 0 --format csv runs/ > gaps.csv");
    addGapOptions(gaps, o);
    addRankAndLoadOptions(gaps, o);

    auto &blame
        = addAnalysisCommand(app, o, "blame", "idle time totals by cause and by NVTX phase, overall and per rank",
            "Examples:\n"
            "  gaplens-cli blame runs/\n"
            "  gaplens-cli blame --per-rank --min-gap-us 50 runs/");
    addGapOptions(blame, o);
    blame.add_flag("--per-rank", o.perRank, "also the tables of each rank");
    addRankAndLoadOptions(blame, o);

    auto &pace
        = addAnalysisCommand(app, o, "pace", "per-rank pace of a repeating NVTX range: which rank is the straggler",
            "Examples:\n"
            "  gaplens-cli pace runs/\n"
            "  gaplens-cli pace --range train_step --gpu --format json runs/");
    addRangeOption(pace, o, "the repeating NVTX range (default: the step-like one)");
    pace.add_flag("--gpu", o.gpuProjection, "use the GPU projection of the range instead of CPU time");
    addWithCopiesFlag(pace, o);
    addRankAndLoadOptions(pace, o);

    auto &overlap = addAnalysisCommand(app, o, "overlap",
        "NCCL communication hidden behind compute or exposed; start skew of collectives across ranks",
        "Communication is the union of the kernels whose short name starts with nccl (any case), compute\n"
        "the union of all other kernels; exposed = communication - their overlap. Collectives are matched\n"
        "across ranks by order (the k-th kernel of a name on each rank); a rank's skew is its start minus\n"
        "the earliest, and the rank that started last is the one the others waited for.\n"
        "\n"
        "Examples:\n"
        "  gaplens-cli overlap runs/\n"
        "  gaplens-cli overlap --ranks 0,1 --format json runs/");
    addRankAndLoadOptions(overlap, o);

    auto &intervals = addAnalysisCommand(app, o, "intervals",
        "per rank and fixed interval: kernel statistics, busy time, copies; anomalous intervals",
        "Intervals of --interval from the origin (absolute time, so interval k is the same wall time on\n"
        "every rank); an event belongs to the interval its start is in, busy time is clipped to it.\n"
        "An interval is anomalous when its --metric lies beyond Q1 - 1.5 IQR or Q3 + 1.5 IQR of its\n"
        "rank's intervals (all ranks' with --pool); scored by the distance beyond the fence / IQR.\n"
        "The transfer mix of the top --top-percent intervals by the metric is set against the rest.\n"
        "Metrics: stddev (kernel durations), busy, kernels, kernel_ns, stall (copy time), bytes, htod, dtoh.\n"
        "docs/intervals.md defines every figure.\n"
        "\n"
        "Examples:\n"
        "  gaplens-cli intervals --interval 100ms runs/\n"
        "  gaplens-cli intervals --interval 10ms --metric busy --pool --format json runs/");
    addIntervalOptions(intervals, o);
    addValueOption(intervals, "--metric", "M",
        "stddev, busy, kernels, kernel_ns, stall, bytes, htod or dtoh (default: stddev)",
        [&o](const std::string &name) {
            if (!core::parseIntervalMetric(name))
                throw UsageError { fmt::format(
                    "--metric must be stddev, busy, kernels, kernel_ns, stall, bytes, htod or dtoh, not '{}'", name) };
            o.intervalMetric = name;
        });
    addValueOption(intervals, "--top", "N", "anomalous intervals listed per rank (or pool) (default: 5)",
        [&o](const std::string &text) { o.anomalyTop = parseNumber<std::size_t>(text, "--top"); });
    addValueOption(intervals, "--top-percent", "P", "share of intervals whose transfer mix is compared (default: 5)",
        [&o](const std::string &text) {
            const double p = parseDouble(text, "--top-percent");
            if (!(p > 0 && p <= 100))
                throw UsageError { fmt::format("--top-percent must be above 0 and at most 100, got '{}'", text) };
            o.topPercent = p;
        });
    intervals.add_flag("--pool", o.pool, "one set of quartiles over the intervals of every rank");
    addLoadOptions(intervals, o);

    auto &transfers = addAnalysisCommand(app, o, "transfers",
        "copies per rank and direction: count, bytes, time and bandwidth, per interval, and ping-pong",
        "Directions as Nsight names them (HtoD, DtoH, DtoD, ...; memsets their own row). Bandwidth is\n"
        "bytes / copy time in binary units (GiB/s = 2^30 bytes per second), as the GUI shows it.\n"
        "Ping-pong: runs of at least 4 consecutive copies of a rank alternating HtoD and DtoH.\n"
        "\n"
        "Examples:\n"
        "  gaplens-cli transfers runs/\n"
        "  gaplens-cli transfers --interval 10ms --format json runs/");
    addIntervalOptions(transfers, o);
    addLoadOptions(transfers, o);

    auto &nvtx = addAnalysisCommand(app, o, "nvtx", "NVTX range summary (like nvtx_sum)",
        "Examples:\n"
        "  gaplens-cli nvtx --top 20 runs/\n"
        "  gaplens-cli nvtx --gpu runs/    # projected time, like nvtx_gpu_proj_sum");
    nvtx.add_flag("--gpu", o.gpuProjection,
        "GPU-projected time: from the first start to the last end of the GPU work each range launched");
    addTopOption(nvtx, o, "only the first N ranges");
    addRankAndLoadOptions(nvtx, o);

    auto &api = addAnalysisCommand(app, o, "api", "CUDA API summary (like cuda_api_sum)",
        "Examples:\n"
        "  gaplens-cli api --top 10 --ranks 0 runs/");
    addTopOption(api, o, "only the first N calls");
    addRankAndLoadOptions(api, o);

    addNcuCommand(app, o);
    addThroughputCommand(app, o);

    auto &ranks = addAnalysisCommand(app, o, "ranks", "which file and process is which rank, and how that was decided",
        "Examples:\n"
        "  gaplens-cli ranks runs/\n"
        "  gaplens-cli ranks --rank-map runs/node7.sqlite=3 runs/");
    addLoadOptions(ranks, o);
}

void addSynthCommand(CLI::App &app, Options &o)
{
    auto &synth = addCommand(app, "synth", "write a synthetic training capture (one SQLite export per rank)",
        "Examples:\n"
        "  gaplens-cli synth --out sample/ --ranks 4 --steps 20\n"
        "  gaplens-cli synth --out phases/ --steps 48 --phases   # then: gaplens-cli throughput phases/");
    addValueOption(synth, "--out,-o", "DIR", "the folder to write to (required)",
        [&o](const std::string &dir) { o.outputDir = dir; });
    addValueOption(synth, "--ranks", "N", "how many ranks (default: 4)", [&o](const std::string &text) {
        // Here a count, not the selection the analysis commands take.
        if (text.find(',') != std::string::npos)
            throw UsageError { "synth --ranks expects one number (how many ranks)" };
        o.synthRanks = parseNumber<int>(text, "--ranks");
    });
    addValueOption(synth, "--steps", "N", "measured training steps (default: 20)",
        [&o](const std::string &text) { o.synthSteps = parseNumber<int>(text, "--steps"); });
    addValueOption(synth, "--kernels-per-rank", "N", "add steps until each rank has at least N kernels (benchmarks)",
        [&o](const std::string &text) {
            // 0, the default, writes the plain sample without extra steps.
            o.synthKernelsPerRank = parseNumber<std::size_t>(text, "--kernels-per-rank");
        });
    synth.add_flag("--phases", o.synthPhases,
        "add run-accounting phases: checkpoints with async staging, validation, data waits, tokens per step");
    synth.callback([&o] {
        if (o.outputDir.empty())
            throw UsageError { "synth needs --out DIR" };
        if (o.synthRanks < 1 || o.synthSteps < 1)
            throw UsageError { "synth needs at least one rank and one step" };
    });
}

// `digest`: every rank's figures in one file for the desktop app's overview (docs/digest.md).
void addDigestCommand(CLI::App &app, Options &o)
{
    auto &digest = addCommand(app, "digest",
        "one file with every rank's figures and its report's path, for the desktop app's overview",
        "Per rank: busy and idle time, gap blame totals, the top 10 kernels, intervals and transfers,\n"
        "run accounting and findings; the pace matrix of the step range. The app opens the file as an\n"
        "overview of all ranks and loads the reports of the ranks chosen there. The file is written\n"
        "only where --out says (through FILE.tmp and a rename), never over an input. docs/digest.md\n"
        "documents the format.\n"
        "\n"
        "Examples:\n"
        "  gaplens-cli digest --out run.gldigest runs/\n"
        "  gaplens-cli digest --out run.gldigest --interval 100ms --range train_step runs/");
    addInputFiles(digest, o);
    addValueOption(digest, "--out,-o", "FILE", "the digest to write (required), e.g. run.gldigest",
        [&o](const std::string &path) { o.outputPath = path; });
    addIntervalOptions(digest, o);
    addRangeOption(digest, o, "the step range of the pace matrix (default: the step-like one)");
    addGapOptions(digest, o);
    addLoadOptions(digest, o);
    digest.callback([&o] {
        if (o.outputPath.empty())
            throw UsageError { "digest needs --out FILE" };
        if (o.files.empty())
            throw UsageError { "no input files" };
    });
}

// --before FILES... and --after FILES... (diff, check --min-sustained-gain). Shells expand
// `--before runs/base/*.sqlite` into many words: take them all, and the words of a repeated
// --before too. None at all is allowed here to say so in requireCaptureWords.
std::pair<CLI::Option *, CLI::Option *> addBeforeAfter(CLI::App &command, Options &o)
{
    auto addCapture = [&command](const std::string &name, std::vector<std::string> &files, const std::string &what) {
        return command.add_option(name, files, what)
            ->type_name("FILES")
            ->expected(0, CLI::detail::expected_max_vector_size)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    };
    return { addCapture("--before", o.beforeFiles, "the capture before the change (files or folders)"),
        addCapture("--after", o.afterFiles, "the capture after the change (files or folders)") };
}

// CLI11 records a use without any word as an empty word; no file or folder has that name.
void requireCaptureWords(const Options &o, const CLI::Option *before, const CLI::Option *after)
{
    for (const auto &[option, files] : { std::pair { before, &o.beforeFiles }, std::pair { after, &o.afterFiles } })
        if (std::find(files->begin(), files->end(), std::string()) != files->end())
            throw UsageError { fmt::format("{} needs at least one file or folder", option->get_name()) };
}

void addDiffCommand(CLI::App &app, Options &o)
{
    auto &diff = addCommand(app, "diff",
        "compare two captures: per-step headline with a noise verdict, kernels, idle time, NVTX",
        "Each capture is one or many files or folders; --before and --after take every following\n"
        "word up to the next option, so shell globs work.\n"
        "\n"
        "Examples:\n"
        "  gaplens-cli diff --before runs/base/*.sqlite --after runs/new/*.sqlite\n"
        "  gaplens-cli diff --before base/ --after new/ --format md --top 10 > review.md");
    auto [before, after] = addBeforeAfter(diff, o);
    addFormatOption(diff, o, true);
    addRangeOption(diff, o, "NVTX range whose iterations are the steps (default: the step-like one)");
    addGapOptions(diff, o);
    addTopOption(diff, o, "only the first N kernels and NVTX ranges");
    addLoadOptions(diff, o);
    // diff has no FILES of its own: a stray word is checked below, not called unexpected.
    diff.allow_extras();
    diff.callback([&o, &diff, before, after] {
        std::vector<std::string> unknownOptions, strayFiles;
        for (const auto &extra : diff.remaining())
            (extra.size() > 1 && extra.front() == '-' ? unknownOptions : strayFiles).push_back(extra);
        if (!unknownOptions.empty())
            throw CLI::ExtrasError(diff.get_name(), unknownOptions);
        requireCaptureWords(o, before, after);
        if (o.beforeFiles.empty() || o.afterFiles.empty())
            throw UsageError { "diff needs --before FILES... and --after FILES..." };
        if (!strayFiles.empty())
            throw UsageError { fmt::format(
                "diff takes its files after --before and --after, not '{}'", strayFiles.front()) };
    });
}

void addCheckCommand(CLI::App &app, Options &o)
{
    auto &check = addCommand(app, "check",
        "regression check against a stored `gaplens-cli summary --format json`, or the sustained-gain rule",
        "With --baseline: exit status 3 when a GPU's busy % fell or a rank's median step time rose\n"
        "by more than the tolerance (a percentage of the baseline value).\n"
        "With --min-sustained-gain: the decision rule of a change meant to speed a run up. Each\n"
        "capture's window (run accounting: default or --window/--between) is split at checkpoint\n"
        "commits (one window per commit-to-commit interval) or into --windows N equal ones; a\n"
        "window with at least one step is comparable. Exit status 3, with one line per failed\n"
        "condition, unless both captures have at least --min-windows comparable windows, no rank\n"
        "of the after capture has a growing checkpoint backlog, and the gain of the median\n"
        "sustained rate (after / before - 1) is above the threshold and beyond run-to-run noise\n"
        "(bootstrap half-width and rank-sum test, as diff judges). docs/run-accounting.md.\n"
        "\n"
        "Examples:\n"
        "  gaplens-cli summary --format json runs/base/ > baseline.json\n"
        "  gaplens-cli check --baseline baseline.json --tolerance 3% runs/nightly/\n"
        "  gaplens-cli check --before base/ --after new/ --min-sustained-gain 3% --min-windows 3\n"
        "  gaplens-cli check --before base/ --after new/ --min-sustained-gain 2% --windows 8 --format json");
    addInputFiles(check, o);
    addValueOption(check, "--baseline", "BASELINE.json", "a `gaplens-cli summary --format json` document",
        [&o](const std::string &path) { o.baselinePath = path; });
    addValueOption(
        check, "--tolerance", "P[%]", "allowed change, % of the baseline value (default: 3%)", [&o](std::string text) {
            if (!text.empty() && text.back() == '%')
                text.pop_back();
            o.tolerancePercent = parseDouble(text, "--tolerance");
            if (!(o.tolerancePercent >= 0))
                throw UsageError { "--tolerance must not be negative" };
        });
    addFormatOption(check, o, true);
    addRangeOption(check, o, "NVTX range of the step check (default: the baseline's step_range)");
    addWithCopiesFlag(check, o);
    auto [before, after] = addBeforeAfter(check, o);
    std::vector<CLI::Option *> sustainedOnly { before, after };
    sustainedOnly.push_back(addValueOption(check, "--min-sustained-gain", "P[%]",
        "the sustained-gain rule: the median sustained rate must rise by more than P%", [&o](std::string text) {
            if (!text.empty() && text.back() == '%')
                text.pop_back();
            const double p = parseDouble(text, "--min-sustained-gain");
            if (!std::isfinite(p))
                throw UsageError { "--min-sustained-gain must be a finite percentage" };
            o.minSustainedGainPercent = p;
        }));
    sustainedOnly.push_back(addValueOption(check, "--min-windows", "N",
        "comparable windows each capture needs (default: 3)", [&o](const std::string &text) {
            o.minWindows = parseNumber<std::size_t>(text, "--min-windows");
            if (o.minWindows == 0)
                throw UsageError { "--min-windows must be at least 1" };
        }));
    sustainedOnly.push_back(addValueOption(check, "--windows", "N",
        "split each window into N equal ones (default: at checkpoint commits)", [&o](const std::string &text) {
            o.windowCount = parseNumber<std::uint32_t>(text, "--windows");
            // Each window is accounted on its own: a bound keeps a typo from running for hours.
            if (o.windowCount == 0 || o.windowCount > kMaxSustainedWindows)
                throw UsageError { fmt::format(
                    "--windows must be from 1 to {}, got '{}'", kMaxSustainedWindows, text) };
        }));
    for (auto *option : addRunAccountingOptions(check, o))
        sustainedOnly.push_back(option);
    addLoadOptions(check, o);
    check.callback([&o, before, after, sustainedOnly] {
        if (o.minSustainedGainPercent) {
            requireCaptureWords(o, before, after);
            if (!o.baselinePath.empty())
                throw UsageError { "check takes --baseline or --min-sustained-gain, not both" };
            if (o.beforeFiles.empty() || o.afterFiles.empty())
                throw UsageError { "check --min-sustained-gain needs --before FILES... and --after FILES..." };
            if (!o.files.empty())
                throw UsageError { fmt::format(
                    "check --min-sustained-gain takes its files after --before and --after, not '{}'",
                    o.files.front()) };
            return;
        }
        for (const auto *option : sustainedOnly)
            if (option->count() > 0)
                throw UsageError { fmt::format("{} is for check --min-sustained-gain", option->get_name()) };
        if (o.baselinePath.empty())
            throw UsageError { "check needs --baseline BASELINE.json (from `gaplens-cli summary --format json`) or "
                               "--min-sustained-gain P% with --before and --after" };
        if (o.files.empty())
            throw UsageError { "no input files" };
    });
}

// The command named on the command line so far, or "" when there is none.
std::string chosenCommand(const CLI::App &app)
{
    const auto chosen = app.get_subcommands();
    return chosen.empty() ? std::string() : chosen.front()->get_name();
}

} // namespace

Options parseOptions(int argc, char **argv, const char *program)
{
    Options o;
    CLI::App app("Reads Nsight Systems SQLite exports (`nsys export -t sqlite`), one per rank, or folders of them,\n"
                 "and shows how busy each GPU was, where it sat idle and why.",
        program);
    app.formatter(std::make_shared<HelpFormatter>());
    app.get_formatter()->label("SUBCOMMAND", "COMMAND");
    // Exactly one command: a command name after it is one of its FILES.
    app.require_subcommand(1);
    app.set_version_flag("--version", fmt::format("{} {}", program, GAPLENS_VERSION));
    app.footer(fmt::format("Run `{} COMMAND --help` for the options of one command, with examples.\n", program)
        + "\n"
          "Exit status: 0 on success; 1 when an input file could not be loaded (the others are still\n"
          "reported) or the check baseline is unusable; 2 for a usage error; 3 when check finds a\n"
          "regression or the sustained-gain rule is not met.");
    addAnalysisCommands(app, o);
    addSynthCommand(app, o);
    addDiffCommand(app, o);
    addCheckCommand(app, o);
    addDigestCommand(app, o);
    if (std::string_view(program) != "gaplens-cli") {
        // gaplens-mpi: the same commands, run under MPI; its examples say how.
        app.description(app.get_description() + "\nRun it on an MPI job, `mpirun -np P " + program
            + " COMMAND FILES...` or `srun -n P ...`:\nprocess 0 prints what gaplens-cli prints (docs/mpi.md).");
        for (auto *command : app.get_subcommands([](CLI::App *) { return true; })) {
            auto footer = command->get_footer();
            for (auto at = footer.find("  gaplens-cli "); at != std::string::npos;
                 at = footer.find("  gaplens-cli ", at))
                footer.replace(at, 14, fmt::format("  mpirun -np 4 {} ", program));
            command->footer(footer);
        }
    }

    if (argc < 2)
        throw UsageError { "missing command" };
    // CLI11 would call an unknown first word "not expected"; name it as what it is meant to be.
    const std::string first = argv[1];
    if (!first.starts_with('-') && app.get_subcommands([&](CLI::App *c) { return c->check_name(first); }).empty())
        throw UsageError { fmt::format("unknown command '{}'", first) };
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &) {
        o.infoText = app.help(); // the chosen command's help, if one was named
        return o;
    } catch (const CLI::CallForVersion &version) {
        o.infoText = std::string(version.what()) + "\n";
        return o;
    } catch (const CLI::ParseError &e) {
        throw UsageError { e.what(), chosenCommand(app) };
    } catch (UsageError &e) {
        e.command = chosenCommand(app);
        throw;
    }
    o.command = chosenCommand(app); // require_subcommand(1): there is one
    return o;
}

} // namespace gaplens::cli
