// SPDX-License-Identifier: MIT
#include "synth_sample.h"

namespace gaplens::test {

core::SynthOptions synthOptions(int ranks, int steps, int stragglerRank)
{
    core::SynthOptions options;
    options.ranks = ranks;
    options.steps = steps;
    options.stragglerRank = stragglerRank;
    return options;
}

core::SynthOptions eightyFourStepJob(int stragglerRank)
{
    auto options = synthOptions(2, 1, stragglerRank);
    options.layers = 2;
    options.scaleKernelsPerRank = 1000;
    return options;
}

bool SynthSample::write(const core::SynthOptions &options)
{
    if (!dir.isValid())
        return false;
    path = dir.filePath(QStringLiteral("sample"));
    synth = core::writeSyntheticCapture(path.toStdString(), options);
    return true;
}

} // namespace gaplens::test
