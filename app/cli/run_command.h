// SPDX-License-Identifier: MIT
#pragma once
// Running one parsed command over its files, as gaplens-cli does: load the tables the
// command needs, run it, and give its exit status. gaplens-mpi runs the commands it does not
// distribute the same way, on one process.
#include "cli_options.h"

namespace gaplens::cli {

// The exit status: the command's own when it failed, else 1 when an input could not be
// loaded, else 0. Throws what the command throws (main prints it).
int runCommand(const Options &options);

} // namespace gaplens::cli
