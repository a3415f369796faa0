// SPDX-License-Identifier: MIT
#include "run_exports.h"

#include "gaplens/core/write/export_writer.h"

#include <optional>

namespace gaplens::test {

using core::ExportWriter;
using core::TimeNs;

namespace {

constexpr std::uint32_t kPid = 42;

void addRange(ExportWriter &w, const std::string &name, TimeNs start, TimeNs end, std::uint32_t tid,
    std::optional<std::int64_t> payload)
{
    ExportWriter::NvtxRange r;
    r.start = start;
    r.end = end;
    r.pid = kPid;
    r.tid = tid;
    r.text = name;
    r.int64Value = payload;
    w.addNvtx(r);
}

ExportWriter::Options sessionOptions()
{
    ExportWriter::Options options;
    options.sessionStartUtcNs = kRunSessionStart;
    return options;
}

} // namespace

void writeTwentyMinutes(const std::string &path, bool payload)
{
    ExportWriter w(path, sessionOptions());
    w.addProcess(kPid, "python");
    constexpr TimeNs kSecond = 1'000'000'000;
    constexpr TimeNs kStep = 9'375'000'000;
    TimeNs at = 0;
    auto range = [&](const std::string &name, TimeNs length, bool tokens) {
        addRange(w, name, at, at + length, kPid, tokens ? std::optional<std::int64_t>(100'000) : std::nullopt);
        at += length;
    };
    auto steps = [&] {
        for (int i = 0; i < 32; ++i)
            range("train_step", kStep, payload);
    };
    steps();
    range("save_checkpoint", 45 * kSecond, false);
    steps();
    range("validation", 210 * kSecond, false);
    steps();
    range("checkpoint", 45 * kSecond, false);
}

void writeCheckpointCycles(const std::string &path, const CheckpointCycles &run)
{
    ExportWriter w(path, sessionOptions());
    w.addProcess(kPid, "python");
    constexpr std::uint32_t kStagingTid = kPid + 1;
    TimeNs at = 0;
    for (const auto checkpoint : run.checkpointNs) {
        for (int i = 0; i < run.stepsPerCycle; ++i, at += run.stepNs)
            addRange(w, "train_step", at, at + run.stepNs, kPid, run.tokensPerStep);
        addRange(w, "checkpoint", at, at + checkpoint, kPid, std::nullopt);
        at += checkpoint;
        if (run.stagingNs > 0)
            addRange(w, "checkpoint_staging", at, at + run.stagingNs, kStagingTid, std::nullopt);
    }
}

} // namespace gaplens::test
