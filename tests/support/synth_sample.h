// SPDX-License-Identifier: MIT
#pragma once
// Synthetic captures for tests that run on one: the generator's options they vary, and a
// capture written into a temporary folder of its own.
#include "gaplens/core/write/synth.h"

#include <QString>
#include <QTemporaryDir>

namespace gaplens::test {

// The generator's defaults but for the number of ranks and of steps, and the straggler
// (-1 for none).
core::SynthOptions synthOptions(int ranks, int steps, int stragglerRank = core::SynthOptions().stragglerRank);

// A generated training job of 84 steps: two ranks, two layers (12 kernels per step), steps
// added until each rank has 1000 kernels; rank 1 the straggler unless said otherwise.
core::SynthOptions eightyFourStepJob(int stragglerRank = 1);

// One synthetic capture in a temporary folder: `path` is its "sample" folder, where the
// capture is written, and `dir` may hold other files beside it.
struct SynthSample
{
    QTemporaryDir dir;
    QString path;
    core::SynthResult synth; // what the generator wrote and the answers it knows

    // Writes the capture with `options`; false when the temporary folder could not be made.
    bool write(const core::SynthOptions &options);
};

} // namespace gaplens::test
