// SPDX-License-Identifier: MIT
// gaplens-cli: the headless front end. Loads the capture once, runs one command, prints
// a table, CSV or JSON. Bad files are reported on stderr; the good ones are still analysed.
#include "run_command.h"

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
        return cli::runCommand(options);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", e.what());
        return 1;
    }
}
