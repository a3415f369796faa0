// SPDX-License-Identifier: MIT
#pragma once
// The hand-off to Nsight Compute: an `ncu` command line that profiles exactly one launch of a
// kernel seen in the capture, the K-th launch of that name in its process, with the program
// and arguments nsys launched (META_DATA_CAPTURE), and what the export could not say (working
// directory, environment, launches before the capture began). Used by `gaplens-cli ncu` and
// the GUI's "Copy Nsight Compute command".
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

// The tables the ncu command reads: kernels (the program comes from the export's metadata).
inline constexpr TableSet kNcuCommandTables = ExportTable::Kernels;

struct NcuRequest
{
    std::string kernel; // a short name, or else a demangled name, exactly as the capture has it
    std::uint32_t instance = 1; // 1-based: the K-th launch of that name in the process
    std::optional<std::int32_t> rankNumber; // default: the lowest rank that launched it
};

struct NcuCommand
{
    std::string error; // non-empty: no command, and why (no such kernel, rank or instance)
    std::uint32_t rank = kNoIndex; // index into TraceSet::ranks
    std::uint32_t launches = 0; // launches of the kernel in that process
    std::uint32_t launchSkip = 0; // the earlier launches of it in that process (instance - 1)
    bool demangled = false; // matched on the demangled name (--kernel-name-base demangled)
    bool programKnown = false; // false: `<program> <args>` stands in for it
    std::vector<std::string> argv; // the command's words, unquoted
    std::string commandLine; // argv quoted for a POSIX shell, one line
    std::vector<std::string> notes; // what the command assumes or could not know, one sentence each
};

NcuCommand buildNcuCommand(const TraceSet &trace, const NcuRequest &request);

// buildNcuCommand in its steps, which gaplens-mpi takes over processes that each hold
// some of the ranks: which ranks launched the kernel (united over the processes), the rank
// chosen from them over the whole capture's rank numbers, the rank's launches counted over the
// parts of its report (ncuLaunchCount, below), and the command built where that rank is.
//
// The rank numbers whose process launched a kernel of that name, sorted: by its short name,
// and by its demangled name (used only when no rank launched it by its short name).
struct NcuLaunchers
{
    std::vector<std::int32_t> byShortName, byDemangledName;
};
NcuLaunchers ncuLaunchers(const TraceSet &trace, std::string_view kernel);
// Adds `other`'s ranks to `into`, keeping both lists sorted and without repeats.
void uniteNcuLaunchers(NcuLaunchers &into, const NcuLaunchers &other);

// The rank whose launch is profiled: the requested one, or the lowest that launched the kernel;
// or an error (no such kernel, launch 0, no such rank, a rank that did not launch it).
struct NcuChoice
{
    std::string error;
    std::int32_t rankNumber = 0;
    bool demangled = false; // no rank launched it by its short name
    std::vector<std::int32_t> launchers; // every rank that launched it, sorted
};
// `rankNumbers`: every rank number of the capture.
NcuChoice chooseNcuRank(
    const NcuLaunchers &launchers, const NcuRequest &request, const std::vector<std::int32_t> &rankNumbers);
// The command for a choice without error whose rank is one of `trace`'s (an error when the
// rank did not launch it `request.instance` times).
NcuCommand buildNcuCommand(const TraceSet &trace, const NcuRequest &request, const NcuChoice &choice);

// The chosen rank's launches of the kernel that `trace` holds (none when it does not hold the
// rank). Time shards of one report each hold the launches that start in them: their counts
// add up, and their orders are by start time when any shard's is.
struct NcuLaunchCount
{
    std::uint32_t launches = 0;
    bool byStart = false; // some launch has no correlation id: ordered by GPU start instead
};
NcuLaunchCount ncuLaunchCount(const TraceSet &trace, const NcuRequest &request, const NcuChoice &choice);
// The command as above, with the rank's launches counted over every part of its report
// (`trace` holds the rank, and its report's metadata and ranks).
NcuCommand buildNcuCommand(
    const TraceSet &trace, const NcuRequest &request, const NcuChoice &choice, const NcuLaunchCount &counted);

// What `gaplens-cli ncu` prints and the GUI copies: the command line, then each note as a
// "# " shell comment, each line ending in '\n', so all of it can be pasted into a shell.
std::string ncuCommandText(const NcuCommand &command);

// The 1-based launch number, in its process, of kernel `index` of a stream among the kernels of
// its short name: what NcuRequest::instance takes for that kernel.
std::uint32_t kernelInstance(const TraceSet &trace, std::uint32_t gpu, std::uint32_t stream, std::uint32_t index);

// A word for a POSIX shell: as is when it is made of safe characters only, else in single
// quotes (a single quote inside becomes '\'').
std::string shellQuote(std::string_view word);

// "gaplens_<kernel>_<instance>", the kernel's characters other than letters, digits, '_', '-'
// and '.' as '_', at most 80 of them.
std::string ncuOutputName(std::string_view kernel, std::uint32_t instance);

} // namespace gaplens::core
