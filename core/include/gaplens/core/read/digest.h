// SPDX-License-Identifier: MIT
#pragma once
// The digest of a capture (`gaplens-cli digest`, `gaplens-mpi digest`; docs/digest.md): one
// JSON file with each rank's figures and the path of its report, which the desktop app opens
// as an overview of all ranks without loading any report. This is its reader, and the one
// way it is written to disk (atomically, never over an input).
#include "gaplens/core/model/time.h"
#include "gaplens/core/util/cancel.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

inline constexpr std::string_view kDigestFormat = "gaplens-digest";
inline constexpr int kDigestVersion = 1;
inline constexpr std::string_view kDigestSuffix = ".gldigest";

struct DigestBlameCause
{
    std::string key; // the cause key, as `gaplens-cli blame` names it
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
};

struct DigestKernel
{
    std::string name;
    std::uint64_t calls = 0;
    TimeNs totalNs = 0;
    double percent = 0; // of the rank's kernel time
    double medianNs = 0;
};

struct DigestInterval
{
    std::int64_t index = 0; // from the digest's origin
    TimeNs startNs = 0;
    std::uint64_t kernelCount = 0;
    TimeNs kernelNs = 0;
    std::optional<double> kernelStddevNs; // null with fewer than two kernels
    TimeNs busyNs = 0;
    TimeNs stallNs = 0;
    bool anomalous = false; // among the rank's anomalies by the digest's metric
};

struct DigestRank
{
    std::int32_t rank = 0;
    std::string report; // absolute path of the rank's report
    std::uint32_t pid = 0;
    std::string process, host;
    TimeRange span; // the rank's first to last event
    TimeNs busyNs = 0, windowNs = 0, idleNs = 0; // summed over the rank's GPUs
    // Before each GPU's first kernel and after its last, within the rank's span, summed over
    // its GPUs: with windowNs, each GPU's whole capture, which the idle findings speak of.
    TimeNs idleOutsideNs = 0;
    std::size_t gpuCount = 0; // devices[]: the GPUs the rank ran kernels on (0: its report has none)
    std::uint64_t gapCount = 0;
    TimeNs gapNs = 0;
    std::optional<double> medianStepNs;
    std::vector<DigestBlameCause> blameByCause; // largest first
    std::vector<DigestKernel> topKernels; // largest total first
    std::vector<DigestInterval> intervals;
    bool hasRunAccounting = false;
    std::optional<double> sustainedRate; // run accounting's, when there is one
    std::vector<std::string> findings;

    // Idle share of the GPU windows (first to last kernel); nullopt for a rank without one.
    std::optional<double> idlePercentOfWindow() const
    {
        return windowNs > 0 ? std::optional(100.0 * double(idleNs) / double(windowNs)) : std::nullopt;
    }
    // Idle share of the GPUs' capture (the rank's span, per GPU): what "idle 98% of its
    // capture" counts. A GPU whose kernels ran in a short window is idle 0% of its window and
    // nearly 100% of its capture; the overview shows both. nullopt for a rank without a GPU.
    std::optional<double> idlePercentOfCapture() const
    {
        const double capture = double(windowNs) + double(idleOutsideNs); // a file's sums may not fit
        return capture > 0 ? std::optional(100.0 * (capture - double(busyNs)) / capture) : std::nullopt;
    }
};

struct DigestPaceRank
{
    std::int32_t rank = 0;
    double medianNs = 0;
    TimeNs p95Ns = 0;
    std::uint32_t timesSlowest = 0;
    std::vector<TimeNs> durationsNs; // per iteration
};

struct DigestPace
{
    std::string range;
    std::vector<DigestPaceRank> ranks;
    std::vector<double> iterationMedianNs; // per common iteration
    std::vector<std::optional<std::int32_t>> slowestRank; // per common iteration; nullopt on a tie
    std::optional<std::int32_t> straggler;
    std::string verdict;
};

struct DigestFinding
{
    std::optional<std::int32_t> rank; // the rank it names, if any
    std::string text;
};

struct DigestLoadError
{
    std::string file, message;
};

struct Digest
{
    int version = kDigestVersion;
    TimeRange span;
    TimeNs minGapNs = 0, intervalNs = 0, originNs = 0;
    std::string metric; // the interval metric of the anomalies
    std::vector<std::string> files;
    std::vector<DigestLoadError> errors;
    std::vector<std::string> warnings;
    std::vector<DigestRank> ranks; // ascending rank number
    std::vector<DigestFinding> findings;
    std::optional<DigestPace> pace; // null without a step range
};

// A digest, or why there is none: `error` names the file and the problem ("RUN.gldigest: not
// JSON: ...", "...: ranks[3].busy_ns: expected an integer"). Never throws for bad input.
struct DigestReadResult
{
    std::optional<Digest> digest;
    std::string error;
    bool cancelled = false; // stopped by its CancelToken: no digest, no error
};

// How far a read has come. A read goes through three stages: "reading" the file (done/total
// in bytes), "parsing" the JSON (bytes of the text) and "checking" the fields (ranks);
// `permille` is of the whole read (reading 0-50, parsing 50-750, checking 750-1000: about
// the share of each in the time a large digest takes).
struct DigestReadProgress
{
    std::string_view stage;
    std::uint64_t done = 0, total = 0;
    int permille = 0;
};
// Called on the reading thread, about once per MiB read or parsed and once per rank checked.
using DigestProgressFn = std::function<void(const DigestReadProgress &)>;

// `name` is what the error names (the file's path). A set `cancel` stops the read early
// (polled along with `progress`), returning a result that is `cancelled`.
DigestReadResult parseDigest(std::string_view text, const std::string &name, const DigestProgressFn &progress = {},
    const CancelToken *cancel = nullptr);
DigestReadResult readDigest(
    const std::string &path, const DigestProgressFn &progress = {}, const CancelToken *cancel = nullptr);

// Writes `contents` to `path` through `path`.tmp and a rename, so a reader never sees half a
// file; refuses a `path` that is one of `inputs` (the same file, however it is spelled).
// Returns the error, empty on success.
std::string writeDigestFile(const std::string &path, std::string_view contents, const std::vector<std::string> &inputs);

} // namespace gaplens::core
