// SPDX-License-Identifier: MIT
#pragma once
// Which tables of the exports a command reads: the union of what the analyses it runs
// declare (core's k...Tables), so `kernels` reads the kernel table and not NVTX.
#include "cli_options.h"

#include "gaplens/core/model/table_set.h"

namespace gaplens::cli {

// The tables `options.command` needs with these options; every table for a command that
// does not say (and for --all-tables, which tests compare against).
core::TableSet commandTables(const Options &options);

} // namespace gaplens::cli
