// SPDX-License-Identifier: MIT
#pragma once
// Exports for the run-accounting tests, written with export_writer: the 20-minute
// window, and runs of checkpoint cycles whose windows' sustained rates are known exactly.
#include "gaplens/core/model/time.h"

#include <string>
#include <vector>

namespace gaplens::test {

// The session start of these exports: session time 0 is their first step's start.
inline constexpr core::TimeNs kRunSessionStart = 1'700'000'000'000'000'000;

// 32 steps, a blocking checkpoint of 45 s, 32 steps, a validation of 210 s, 32 steps, a
// checkpoint of 45 s, on one thread: 96 steps of 9.375 s (900 s), 1,200 s in all. Each step
// carries 100,000 tokens as an int64 NVTX payload when `payload`.
void writeTwentyMinutes(const std::string &path, bool payload);

// Cycles of `stepsPerCycle` back-to-back `train_step` ranges (each with `tokensPerStep` as
// its payload) then a blocking `checkpoint` of checkpointNs[k] on the same thread, from
// session time 0. With stagingNs > 0, each checkpoint's end starts a `checkpoint_staging`
// range of that length on a second thread: the commit is then its end.
struct CheckpointCycles
{
    core::TimeNs stepNs = 100'000'000;
    int stepsPerCycle = 10;
    std::vector<core::TimeNs> checkpointNs; // one per cycle
    core::TimeNs stagingNs = 0;
    std::int64_t tokensPerStep = 1000;
};
void writeCheckpointCycles(const std::string &path, const CheckpointCycles &run);

} // namespace gaplens::test
