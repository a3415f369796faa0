// SPDX-License-Identifier: MIT
// gaplens-cli: the headless front end. Loads the capture once, runs one command, prints
// a table, CSV or JSON. Bad files are reported on stderr; the good ones are still analysed.
#include "command_context.h"

#include "gaplens/core/read/loader.h"

#include <cstdio>
#include <exception>
#include <string>

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

        core::LoadOptions load;
        load.files = options.files;
        load.rankOverrides = options.rankOverrides;
        load.threads = options.threads;
        load.memoryLimitBytes = options.maxMemoryBytes;
        cli::CommandContext ctx { options, core::loadTraceSet(load) };
        for (const auto &error : ctx.t().errors)
            std::fprintf(stderr, "gaplens-cli: error: %s\n", error.message.c_str());
        if (ctx.t().ranks.empty()) {
            std::fprintf(
                stderr, "gaplens-cli: error: none of the %zu input file(s) could be loaded\n", options.files.size());
            return 1;
        }
        int rc = 0;
        const auto &c = options.command;
        if (c == "summary")
            rc = cli::runSummary(ctx);
        else if (c == "ranks")
            rc = cli::runRanks(ctx);
        else if (c == "kernels")
            rc = cli::runKernels(ctx);
        else if (c == "nvtx")
            rc = cli::runNvtx(ctx);
        else if (c == "api")
            rc = cli::runApi(ctx);
        else if (c == "gaps")
            rc = cli::runGaps(ctx);
        else if (c == "blame")
            rc = cli::runBlame(ctx);
        else if (c == "pace")
            rc = cli::runPace(ctx);
        return rc != 0 ? rc : (ctx.t().errors.empty() ? 0 : 1);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", e.what());
        return 1;
    }
}
