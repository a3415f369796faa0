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
