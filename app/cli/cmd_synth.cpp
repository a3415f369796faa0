// SPDX-License-Identifier: MIT
// `synth`: writes the bundled sample capture (and benchmark captures) with the generator.
#include "command_context.h"

#include "gaplens/core/write/synth.h"

#include <cstdio>

namespace gaplens::cli {

int runSynth(const Options &options)
{
    core::SynthOptions synth;
    synth.ranks = options.synthRanks;
    synth.steps = options.synthSteps;
    synth.scaleKernelsPerRank = options.synthKernelsPerRank;
    if (options.synthPhases)
        synth = core::withRunPhases(synth);
    const auto result = core::writeSyntheticCapture(options.outputDir, synth);
    for (const auto &file : result.files)
        std::printf("%s\n", file.c_str());
    return 0;
}

} // namespace gaplens::cli
