// SPDX-License-Identifier: MIT
#pragma once
// The 20-minute window as a TraceSet, for the run-accounting and scorecard tests.
#include "trace_fixture.h"

#include <memory>
#include <string_view>

namespace gaplens::test {

// 96 steps of 9.375 s (900 s) with 100,000 tokens each, two blocking checkpoints of 45 s and
// one validation of 210 s on the same thread: 32 steps, checkpoint, 32 steps, validation, 32
// steps, checkpoint; 1,200 s from the first step's start to the last checkpoint's end.
inline std::unique_ptr<core::TraceSet> twentyMinutes(bool payload)
{
    FixtureBuilder b;
    const auto r = b.addRank(0);
    const auto t = b.addThread(r);
    constexpr TimeNs kSecond = 1'000'000'000;
    constexpr TimeNs kStep = 9'375'000'000;
    TimeNs at = T0;
    auto steps = [&] {
        for (int i = 0; i < 32; ++i, at += kStep)
            if (payload)
                b.nvtxWithPayload(t, at, at + kStep, "train_step", 100'000.0);
            else
                b.nvtx(t, at, at + kStep, "train_step");
    };
    auto phase = [&](std::string_view name, TimeNs length) {
        b.nvtx(t, at, at + length, name);
        at += length;
    };
    steps();
    phase("save_checkpoint", 45 * kSecond);
    steps();
    phase("validation", 210 * kSecond);
    steps();
    phase("checkpoint", 45 * kSecond);
    auto trace = b.finish();
    trace->reports[0].sessionStartNs = T0;
    return trace;
}

} // namespace gaplens::test
