// SPDX-License-Identifier: MIT
// libFuzzer target: the direct table scan (core/src/table_scan.h) must give exactly what
// SQLite gives. Each input is loaded through SQLite only and with the direct scan, on one
// thread, on two (one file read as two parts and joined, each big table's leaves split into
// page ranges decoded by one more thread) and on three (two page-range threads per table,
// so ranges are handed out by several threads at once); any difference in outcome
// (loaded or not, the errors' text), in any row of any column, in the data problems or the
// notes aborts, printing the differences, so libFuzzer keeps the input.
#include "fuzz_input_file.h"
#include "fuzz_load.h"
#include "trace_compare.h"

#include <cstdio>
#include <cstdlib>

namespace {

struct Variant
{
    const char *name;
    bool directTableScan;
    unsigned threads;
};

constexpr Variant kReference { "SQLite only, 1 thread", false, 1 };
constexpr Variant kCandidates[] = {
    { "direct scan, 1 thread", true, 1 },
    { "direct scan, 2 threads", true, 2 },
    { "direct scan, 3 threads", true, 3 },
};
// Loaded only to say which change makes a difference: the scan or the thread count.
constexpr Variant kTieBreaker { "SQLite only, 2 threads", false, 2 };

std::shared_ptr<gaplens::core::TraceSet> load(const std::string &path, const Variant &variant)
{
    auto trace = loadTraceSet(gaplens::fuzz::fuzzLoadOptions(path, variant.directTableScan, variant.threads));
    gaplens::fuzz::FuzzInputFile::instance().abortIfWrittenBeside(variant.name);
    return trace;
}

[[noreturn]] void reportDifference(
    const std::string &path, const Variant &candidate, const std::vector<std::string> &differences, std::size_t size)
{
    std::fprintf(stderr, "gaplens fuzz: %s differs from %s (%zu input bytes); differences as \"where: %s | %s\":\n",
        candidate.name, kReference.name, size, kReference.name, candidate.name);
    for (const auto &line : differences)
        std::fprintf(stderr, "  %s\n", line.c_str());
    if (candidate.threads != kReference.threads) {
        const auto tieBreaker = load(path, kTieBreaker);
        const bool likeReference = gaplens::test::traceDifferences(*load(path, kReference), *tieBreaker, 1).empty();
        const bool likeCandidate = gaplens::test::traceDifferences(*load(path, candidate), *tieBreaker, 1).empty();
        std::fprintf(stderr, "  %s is like %s\n", kTieBreaker.name,
            likeCandidate       ? candidate.name
                : likeReference ? kReference.name
                                : "neither");
    }
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto &path = gaplens::fuzz::FuzzInputFile::instance().write(data, size);
    const auto reference = load(path, kReference);
    for (const auto &candidate : kCandidates) {
        const auto differences = gaplens::test::traceDifferences(*reference, *load(path, candidate));
        if (!differences.empty())
            reportDifference(path, candidate, differences, size);
    }
    return 0;
}
