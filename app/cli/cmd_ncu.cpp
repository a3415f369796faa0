// SPDX-License-Identifier: MIT
// `ncu`: the hand-off to Nsight Compute, a ready `ncu` command line for one kernel launch.
// The command is the first line; what it assumes or could not know follows as shell comments,
// so the whole output can be pasted into a shell.
#include "command_context.h"

#include "gaplens/core/analysis/ncu_command.h"

#include <cstdio>

namespace gaplens::cli {

int runNcu(const CommandContext &ctx)
{
    core::NcuRequest request;
    request.kernel = ctx.options.ncuKernel;
    request.instance = ctx.options.ncuInstance;
    request.rankNumber = ctx.options.ncuRank;
    const auto ncu = core::buildNcuCommand(ctx.t(), request);
    if (!ncu.error.empty()) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", ncu.error.c_str());
        return 1;
    }
    std::fputs(core::ncuCommandText(ncu).c_str(), stdout);
    return 0;
}

} // namespace gaplens::cli
