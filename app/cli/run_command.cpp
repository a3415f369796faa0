// SPDX-License-Identifier: MIT
#include "run_command.h"

#include "command_context.h"
#include "command_tables.h"

#include <cstdio>
#include <string_view>
#include <utility>

namespace gaplens::cli {

int runCommand(const Options &options)
{
    if (options.command == "synth")
        return runSynth(options);
    if (options.command == "diff")
        return runDiff(options);
    if (options.command == "check")
        return runCheck(options);

    // Only the tables the command's analyses read.
    CommandContext ctx { options, loadCapture(options, options.files, "", commandTables(options)) };
    if (ctx.t().ranks.empty()) {
        std::fprintf(
            stderr, "gaplens-cli: error: none of the %zu input file(s) could be loaded\n", options.files.size());
        return 1;
    }
    // The commands that analyse the one capture loaded above.
    using Run = int (*)(const CommandContext &);
    constexpr std::pair<std::string_view, Run> kCommands[] = { { "summary", runSummary }, { "ranks", runRanks },
        { "kernels", runKernels }, { "nvtx", runNvtx }, { "api", runApi }, { "gaps", runGaps }, { "blame", runBlame },
        { "pace", runPace }, { "overlap", runOverlap }, { "ncu", runNcu }, { "intervals", runIntervals },
        { "transfers", runTransfers }, { "throughput", runThroughput }, { "digest", runDigest } };
    int rc = 0;
    for (const auto &[name, run] : kCommands)
        if (options.command == name)
            rc = run(ctx);
    return rc != 0 ? rc : (ctx.t().errors.empty() ? 0 : 1);
}

} // namespace gaplens::cli
