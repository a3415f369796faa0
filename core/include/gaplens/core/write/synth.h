// SPDX-License-Identifier: MIT
#pragma once
// A deterministic synthetic capture of synchronous data-parallel training: one Nsight
// Systems 3.25 export per rank (train_<rank>.sqlite, as `nsys profile -o train_%q{RANK}`
// makes them), with NVTX step ranges, an input-bound gap at each step start, launches,
// copies, memsets and an all-reduce that waits for the slowest rank. Used by tests (which
// check the reader against SynthRankTruth) and by benchmarks (scaleKernelsPerRank).
#include "gaplens/core/model/time.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gaplens::core {

struct SynthOptions
{
    int ranks = 4;
    int steps = 20; // measured steps, after the warm-up ones
    int layers = 8; // forward = 2 kernels per layer, backward = 3 per layer
    int stragglerRank = 2; // -1 for none
    double stragglerSlowdown = 1.25; // its forward/backward kernels take this much longer
    TimeNs inputGapNs = 2'000'000; // host data loading at each step start: no CUDA call, GPU idle
    int warmupSteps = 0; // extra first steps whose compute kernels take 2x longer
    std::uint64_t seed = 1;
    double jitter = 0.0; // relative uniform jitter of GPU durations in [-jitter, +jitter), < 0.5; 0 = exact
    std::size_t scaleKernelsPerRank = 0; // if > 0, add steps until each rank has at least this many kernels
    // Benchmarks want real captures' proportions (several runtime calls and NVTX ranges per
    // kernel). If > 0, extra calls (cudaStreamIsCapturing, no GPU work) and nested op ranges
    // ("aten::*", text and registered names mixed) wrap the compute launches, spread evenly,
    // until each rank has at least this many eventClass-0 runtime calls / push-pop ranges.
    // Counts already reached by the base model add nothing; 0 keeps the base model's rows.
    std::size_t scaleRuntimePerRank = 0;
    std::size_t scaleNvtxPerRank = 0;
    TimeNs sessionStartUtcNs = 1'700'000'000'000'000'000; // shared by all files so ranks align
    // Run-accounting phases (docs/run-accounting.md), all off by default, so the default
    // capture is what it always was. After every checkpointEvery-th step (counted from 1,
    // warm-up included) a blocking "save_checkpoint" range of checkpointNs on the main thread,
    // no CUDA call; with asyncStagingNs > 0 also a "ckpt_stage" start/end range of that length
    // on a staging thread from the checkpoint's end, and the compute kernels of steps that
    // start while it is open take stagingSlowdown times longer. After every
    // validationEvery-th step a "validation" range of validationNs; after every step a
    // "data_wait" range of dataWaitNs. tokensPerStep > 0: train_step carries it as its NVTX
    // payload (int64Value).
    int checkpointEvery = 0;
    TimeNs checkpointNs = 0;
    TimeNs asyncStagingNs = 0;
    double stagingSlowdown = 1.0;
    int validationEvery = 0;
    TimeNs validationNs = 0;
    TimeNs dataWaitNs = 0;
    std::int64_t tokensPerStep = 0;
};

// The phases `gaplens-cli synth --phases` writes (steps take about 6 ms): a checkpoint of
// 12 ms after every 8th step with 30 ms of staging slowing the steps it overlaps by 1.3, a
// validation of 25 ms after every 16th, a 1 ms data wait after each step, 8,192 tokens per step.
SynthOptions withRunPhases(SynthOptions options);

// What a correct reader must find in one rank's file; every number is exact (it is what was
// written), for any jitter. Times are session-relative ns.
struct SynthRankTruth
{
    int rank = 0;
    std::string file;
    std::string host; // node<rank/8>
    std::uint32_t pid = 0; // 4000 + rank * 17: deliberately not the rank
    std::uint32_t loaderTid = 0;
    std::int32_t deviceId = 0; // == rank
    int steps = 0; // warm-up + measured (+ scale) steps
    std::uint64_t kernels = 0, computeKernels = 0, ncclKernels = 0;
    std::uint64_t runtimeCalls = 0; // eventClass 0 rows (each launch/copy/memset/sync call once)
    std::uint64_t backtraceRows = 0; // eventClass 67 rows duplicating a call
    std::uint64_t nvtxRanges = 0; // push/pop ranges (eventType 59), all threads and domains
    std::uint64_t nvtxMarks = 0, nvtxDomains = 0;
    std::uint64_t memcpys = 0, memsets = 0;
    std::vector<TimeNs> stepStartNs; // train_step starts: identical on every rank
    std::vector<TimeNs> stepDurationNs; // train_step durations: the straggler's are the longest
    TimeNs computeKernelNs = 0; // sum of non-NCCL kernel durations
    TimeNs ncclKernelNs = 0; // sum of all-reduce kernel durations (waiting included)
    TimeNs busyNs = 0; // union of kernels, copies and memsets on the device
    TimeNs firstGpuNs = 0, lastGpuNs = 0; // first start and last end of GPU work
    std::uint64_t idleGapsAtLeast100us = 0; // holes >= 100 us in that union, between first and last
    // The run-accounting phases written (SynthOptions), each with its start and end.
    std::vector<TimeRange> checkpoints, stagings, validations, dataWaits;
};

struct SynthResult
{
    std::vector<std::string> files; // one per rank, in rank order
    std::vector<SynthRankTruth> ranks;
};

// Writes <outputDir>/train_<rank>.sqlite for every rank (creating outputDir, replacing old
// files) and returns what was written. Same options -> byte-identical rows.
// Throws std::runtime_error on invalid options or I/O errors.
SynthResult writeSyntheticCapture(const std::string &outputDir, const SynthOptions &options);

} // namespace gaplens::core
