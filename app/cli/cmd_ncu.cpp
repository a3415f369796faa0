// SPDX-License-Identifier: MIT
// `ncu`: the hand-off to Nsight Compute, a ready `ncu` command line for one kernel launch.
// The command is the first line; what it assumes or could not know follows as shell comments,
// so the whole output can be pasted into a shell.
#include "command_context.h"

#include <cstdio>

namespace gaplens::cli {

core::NcuRequest ncuRequest(const Options &options)
{
    core::NcuRequest request;
    request.kernel = options.ncuKernel;
    request.instance = options.ncuInstance;
    request.rankNumber = options.ncuRank;
    return request;
}

int printNcu(const core::NcuCommand &ncu)
{
    if (!ncu.error.empty()) {
        std::fprintf(stderr, "gaplens-cli: error: %s\n", ncu.error.c_str());
        return 1;
    }
    std::fputs(core::ncuCommandText(ncu).c_str(), stdout);
    return 0;
}

int runNcu(const CommandContext &ctx)
{
    return printNcu(core::buildNcuCommand(ctx.t(), ncuRequest(ctx.options)));
}

} // namespace gaplens::cli
