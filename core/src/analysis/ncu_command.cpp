// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/ncu_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <tuple>

namespace gaplens::core {
namespace {

// One launch of the kernel: launch order is correlation-id order within a process (CUPTI hands
// them out as the API calls are made), which is the order ncu counts launches in; GPU start
// order differs across streams.
struct Launch
{
    std::uint32_t correlationId;
    TimeNs start;
    std::uint32_t gpu, stream, index;
};

struct Match
{
    std::vector<Launch> launches;
    bool byStart = false; // some launch has no correlation id: ordered by GPU start instead
};

Match launchesOf(const TraceSet &trace, std::uint32_t report, std::uint32_t pid, StringId name, bool demangled)
{
    Match match;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        const auto &gpu = trace.gpus[g];
        if (gpu.report != report)
            continue;
        for (std::uint32_t s = 0; s < gpu.streams.size(); ++s) {
            const auto &stream = gpu.streams[s];
            if (stream.pid != pid)
                continue;
            const auto &names = demangled ? stream.kernels.demangledName : stream.kernels.shortName;
            for (std::uint32_t i = 0; i < names.size(); ++i)
                if (names[i] == name)
                    match.launches.push_back({ stream.kernels.correlationId[i], stream.kernels.start[i], g, s, i });
        }
    }
    match.byStart = std::any_of(
        match.launches.begin(), match.launches.end(), [](const Launch &l) { return l.correlationId == 0; });
    const bool byStart = match.byStart;
    std::sort(match.launches.begin(), match.launches.end(), [byStart](const Launch &a, const Launch &b) {
        const auto key = [byStart](const Launch &l) {
            return std::tuple(byStart ? 0u : l.correlationId, l.start, l.gpu, l.stream, l.index);
        };
        return key(a) < key(b);
    });
    return match;
}

// Rank numbers whose process launched a kernel of that name, sorted.
std::vector<std::int32_t> ranksWith(const TraceSet &trace, StringId name, bool demangled)
{
    std::vector<std::int32_t> ranks;
    for (const auto &gpu : trace.gpus)
        for (const auto &stream : gpu.streams) {
            const auto &names = demangled ? stream.kernels.demangledName : stream.kernels.shortName;
            if (stream.rank != kNoIndex && std::find(names.begin(), names.end(), name) != names.end())
                ranks.push_back(trace.ranks[stream.rank].rank);
        }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
}

void unite(std::vector<std::int32_t> &into, const std::vector<std::int32_t> &other)
{
    into.insert(into.end(), other.begin(), other.end());
    std::sort(into.begin(), into.end());
    into.erase(std::unique(into.begin(), into.end()), into.end());
}

bool safeShellChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

std::string regexEscape(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

std::string rankList(const std::vector<std::int32_t> &rankNumbers)
{
    std::string out;
    for (const auto r : rankNumbers)
        out += fmt::format("{}{}", out.empty() ? "" : ", ", r);
    return out;
}

// The index in `trace.ranks` of the chosen rank, if `trace` holds it.
std::optional<std::uint32_t> chosenRank(const TraceSet &trace, const NcuChoice &choice)
{
    const auto chosen = std::find_if(
        trace.ranks.begin(), trace.ranks.end(), [&](const Rank &r) { return r.rank == choice.rankNumber; });
    if (chosen == trace.ranks.end())
        return std::nullopt;
    return std::uint32_t(chosen - trace.ranks.begin());
}

} // namespace

std::string shellQuote(std::string_view word)
{
    if (!word.empty() && std::all_of(word.begin(), word.end(), safeShellChar))
        return std::string(word);
    std::string out = "'";
    for (const char c : word) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}

std::string ncuOutputName(std::string_view kernel, std::uint32_t instance)
{
    std::string name;
    for (const char c : kernel.substr(0, 80))
        name += ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
                    || c == '.')
            ? c
            : '_';
    return fmt::format("gaplens_{}_{}", name, instance);
}

std::string ncuCommandText(const NcuCommand &command)
{
    std::string text = command.commandLine + "\n";
    for (const auto &note : command.notes)
        text += "# " + note + "\n";
    return text;
}

std::uint32_t kernelInstance(const TraceSet &trace, std::uint32_t gpu, std::uint32_t stream, std::uint32_t index)
{
    const auto &g = trace.gpus.at(gpu);
    const auto &s = g.streams.at(stream);
    const auto match = launchesOf(trace, g.report, s.pid, s.kernels.shortName.at(index), false);
    for (std::size_t k = 0; k < match.launches.size(); ++k) {
        const auto &l = match.launches[k];
        if (l.gpu == gpu && l.stream == stream && l.index == index)
            return std::uint32_t(k + 1);
    }
    return 0; // unreachable: the kernel is one of its own name's launches
}

NcuLaunchers ncuLaunchers(const TraceSet &trace, std::string_view kernel)
{
    // A short name first, as Top kernels and the timeline name kernels; else a demangled one.
    const StringId name = trace.strings.find(kernel);
    if (kernel.empty() || name == kEmptyString)
        return {};
    return { ranksWith(trace, name, false), ranksWith(trace, name, true) };
}

void uniteNcuLaunchers(NcuLaunchers &into, const NcuLaunchers &other)
{
    unite(into.byShortName, other.byShortName);
    unite(into.byDemangledName, other.byDemangledName);
}

NcuChoice chooseNcuRank(
    const NcuLaunchers &launchers, const NcuRequest &request, const std::vector<std::int32_t> &rankNumbers)
{
    NcuChoice out;
    out.demangled = launchers.byShortName.empty() && !launchers.byDemangledName.empty();
    out.launchers = out.demangled ? launchers.byDemangledName : launchers.byShortName;
    const auto &ranks = out.launchers;
    if (ranks.empty() || request.kernel.empty()) {
        out.error
            = fmt::format("no kernel named '{}' in the capture (`gaplens-cli kernels` lists them)", request.kernel);
        return out;
    }
    if (request.instance == 0) {
        out.error = "launches are counted from 1: there is no launch 0";
        return out;
    }
    if (request.rankNumber) {
        if (std::find(rankNumbers.begin(), rankNumbers.end(), *request.rankNumber) == rankNumbers.end()) {
            out.error = fmt::format("no rank {} in the capture", *request.rankNumber);
            return out;
        }
        if (!std::binary_search(ranks.begin(), ranks.end(), *request.rankNumber)) {
            out.error = fmt::format("rank {} launched no kernel named '{}' (rank{} {} did)", *request.rankNumber,
                request.kernel, ranks.size() == 1 ? "" : "s", rankList(ranks));
            return out;
        }
        out.rankNumber = *request.rankNumber;
    } else {
        out.rankNumber = ranks.front();
    }
    return out;
}

NcuCommand buildNcuCommand(const TraceSet &trace, const NcuRequest &request)
{
    std::vector<std::int32_t> rankNumbers;
    for (const auto &rank : trace.ranks)
        rankNumbers.push_back(rank.rank);
    const auto choice = chooseNcuRank(ncuLaunchers(trace, request.kernel), request, rankNumbers);
    if (!choice.error.empty())
        return { .error = choice.error };
    return buildNcuCommand(trace, request, choice);
}

NcuLaunchCount ncuLaunchCount(const TraceSet &trace, const NcuRequest &request, const NcuChoice &choice)
{
    const auto chosen = chosenRank(trace, choice);
    if (!chosen)
        return {};
    // A part without a kernel of that name does not have the name (find gives the empty string,
    // which must not match kernels without a name).
    const StringId name = trace.strings.find(request.kernel);
    if (name == kEmptyString)
        return {};
    const auto &rank = trace.ranks[*chosen];
    const auto match = launchesOf(trace, rank.report, rank.pid, name, choice.demangled);
    return { std::uint32_t(match.launches.size()), match.byStart };
}

NcuCommand buildNcuCommand(const TraceSet &trace, const NcuRequest &request, const NcuChoice &choice)
{
    return buildNcuCommand(trace, request, choice, ncuLaunchCount(trace, request, choice));
}

NcuCommand buildNcuCommand(
    const TraceSet &trace, const NcuRequest &request, const NcuChoice &choice, const NcuLaunchCount &counted)
{
    NcuCommand out;
    out.demangled = choice.demangled;
    const auto chosen = chosenRank(trace, choice);
    if (!chosen) {
        out.error = fmt::format("no rank {} in the capture", choice.rankNumber);
        return out;
    }
    out.rank = *chosen;
    const auto &rank = trace.ranks[out.rank];
    out.launches = counted.launches;
    if (request.instance > out.launches) {
        out.error = fmt::format("rank {} launched '{}' {}: there is no launch {}", rank.rank, request.kernel,
            out.launches == 1 ? std::string("once") : fmt::format("{} times", out.launches), request.instance);
        return out;
    }
    out.launchSkip = request.instance - 1;

    const bool regexName = request.kernel.starts_with("regex:"); // ncu would read it as a regex
    out.argv = { "ncu", "--kernel-name-base", out.demangled ? "demangled" : "function", "--kernel-name",
        regexName ? "regex:^" + regexEscape(request.kernel) + "$" : request.kernel, "--launch-skip",
        std::to_string(out.launchSkip), "--launch-count", "1", "-o", ncuOutputName(request.kernel, request.instance) };

    const auto &report = trace.reports[rank.report];
    const auto program = std::find_if(
        report.programs.begin(), report.programs.end(), [](const LaunchedProgram &p) { return !p.command.empty(); });
    out.programKnown = program != report.programs.end();
    if (out.programKnown) {
        out.argv.push_back(program->command);
        out.argv.insert(out.argv.end(), program->arguments.begin(), program->arguments.end());
    }
    for (const auto &word : out.argv)
        out.commandLine += (out.commandLine.empty() ? "" : " ") + shellQuote(word);
    if (!out.programKnown) {
        // Left unquoted so that a shell refuses it rather than running something.
        out.argv.insert(out.argv.end(), { "<program>", "<args>" });
        out.commandLine += " <program> <args>";
    }

    auto &notes = out.notes;
    notes.push_back(fmt::format("It profiles launch {} of {} of {} in rank {} (pid {}): --launch-skip {} skips the {} "
                                "earlier launch{} of it in that process, in launch order ({}).",
        request.instance, out.launches, request.kernel, rank.rank, rank.pid, out.launchSkip, out.launchSkip,
        out.launchSkip == 1 ? "" : "es",
        counted.byStart ? "GPU start times: some launches have no correlation id" : "correlation ids"));
    if (out.demangled)
        notes.push_back("The name is a demangled name, so ncu matches it with --kernel-name-base demangled.");
    if (!request.rankNumber && choice.launchers.size() > 1) {
        std::vector<std::int32_t> others;
        for (const auto r : choice.launchers)
            if (r != rank.rank)
                others.push_back(r);
        notes.push_back(fmt::format(
            "Rank{} {} launched it too: --rank picks another.", others.size() == 1 ? "" : "s", rankList(others)));
    }
    notes.push_back("Launches before the capture began are not in the export: if it started late (a delay, a capture "
                    "range, a cut window), add them to --launch-skip.");
    if (!out.programKnown) {
        notes.push_back(report.hasCaptureMetadata
                ? "<program> <args> is a placeholder: META_DATA_CAPTURE names no program (no PROCESS_<n>:COMMAND "
                  "row); put the profiled program and its arguments there."
                : "<program> <args> is a placeholder: the export has no META_DATA_CAPTURE table, so the program and "
                  "its arguments are not known; put them there.");
        notes.push_back("The working directory and the environment are not in the export: run it where and as the "
                        "program ran.");
    } else {
        const auto named = std::count_if(report.programs.begin(), report.programs.end(),
            [](const LaunchedProgram &p) { return !p.command.empty(); });
        notes.push_back(fmt::format("The program and its arguments are PROCESS_{}'s in META_DATA_CAPTURE{}.",
            program->index, named > 1 ? fmt::format(", the first of the {} programs it names", named) : ""));
        if (!program->argumentsComplete)
            notes.push_back(
                fmt::format("META_DATA_CAPTURE lacks some of PROCESS_{}'s arguments: the command line is incomplete.",
                    program->index));
        notes.push_back(program->workingDir.empty()
                ? std::string("The working directory is not in the export: run it where the program was started.")
                : fmt::format("Run it in the program's working directory at capture time: {}", program->workingDir));
        notes.push_back(program->environmentCount == 0
                ? std::string("The environment is not in the export: run it with the one the program had "
                              "(CUDA_VISIBLE_DEVICES, rank variables).")
                : fmt::format("The environment is not reproduced: the export recorded {} variable{} of the program; "
                              "run it with the same (CUDA_VISIBLE_DEVICES, rank variables).",
                    program->environmentCount, program->environmentCount == 1 ? "" : "s"));
    }
    std::vector<std::int32_t> sameReport;
    for (const auto &r : trace.ranks)
        if (r.report == rank.report)
            sameReport.push_back(r.rank);
    if (sameReport.size() > 1)
        notes.push_back(fmt::format("The report holds {} GPU processes (ranks {}); ncu follows the program's child "
                                    "processes by default (--target-processes all) and may profile this launch in "
                                    "each: rank {}'s result is the one from pid {}.",
            sameReport.size(), rankList(sameReport), rank.rank, rank.pid));
    return out;
}

} // namespace gaplens::core
