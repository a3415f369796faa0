// SPDX-License-Identifier: MIT
// gaplens-cli: the headless front end. Loads the capture once, runs one command, prints
// a table, CSV or JSON. Bad files are reported on stderr; the good ones are still analysed.
#include "command_context.h"
#include "command_tables.h"

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

using namespace gaplens;

int main(int argc, char **argv)
{
    cli::Options options;
    try {
        options = cli::parseOptions(argc, argv);
    } catch (const cli::UsageError &e) {
        const auto helpCommand = e.command.empty() ? std::string("gaplens-cli") : "gaplens-cli " + e.command;
        std::fprintf(stderr, "gaplens-cli: %s\nRun `%s --help` for usage.\n", e.message.c_str(), helpCommand.c_str());
        return 2;
    }
    if (!options.infoText.empty()) {
        std::fputs(options.infoText.c_str(), stdout);
        return 0;
    }
    try {
        if (options.command == "synth")
            return cli::runSynth(options);
        if (options.command == "diff")
            return cli::runDiff(options);
        if (options.command == "check")
            return cli::runCheck(options);

        // Only the tables the command's analyses read.
        cli::CommandContext ctx { options, cli::loadCapture(options, options.files, "", cli::commandTables(options)) };
        if (ctx.t().ranks.empty()) {
            std::fprintf(
                stderr, "gaplens-cli: error: none of the %zu input file(s) could be loaded\n", options.files.size());
            return 1;
        }
        // The commands that analyse the one capture loaded above.
        using Run = int (*)(const cli::CommandContext &);
        constexpr std::pair<std::string_view, Run> kCommands[] = { { "summary", cli::runSummary },
            { "ranks", cli::runRanks }, { "kernels", cli::runKernels }, { "nvtx", cli::runNvtx },
            { "api", cli::runApi }, { "gaps", cli::runGaps }, { "blame", cli::runBlame }, { "pace", cli::runPace },
            { "overlap", cli::runOverlap }, { "ncu", cli::runNcu }, { "intervals", cli::runIntervals },
            { "transfers", cli::runTransfers }, { "throughput", cli::runThroughput } };
        int rc = 0;
        for (const auto &[name, run] : kCommands)
            if (options.command == name)
                rc = run(ctx);
        return rc != 0 ? rc : (ctx.t().errors.empty() ? 0 : 1);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", e.what());
        return 1;
    }
}
