// SPDX-License-Identifier: MIT
#pragma once
// Digests for the ui tests, written by gaplens-cli's own command (tests link
// gaplens_cli_commands), so they are what users open.
#include "cli_options.h"
#include "run_command.h"

#include <QString>

#include <string>
#include <vector>

namespace gaplens::test {

// `gaplens-cli digest --out OUT --interval 10ms FOLDER`, in this process; its exit code.
inline int writeDigest(const QString &out, const QString &folder)
{
    const std::string args[]
        = { "gaplens-cli", "digest", "--out", out.toStdString(), "--interval", "10ms", folder.toStdString() };
    std::vector<char *> argv;
    for (const auto &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    return cli::runCommand(cli::parseOptions(int(argv.size()), argv.data()));
}

} // namespace gaplens::test
