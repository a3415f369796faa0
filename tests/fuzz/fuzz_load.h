// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/read/loader.h"

#include <string>

namespace gaplens::fuzz {

// Bytes of model a fuzz load may need before the memory guard refuses the file: fixed, so a
// run does not depend on the machine's free memory, and well under run-fuzzers.sh's
// -rss_limit_mb, so a file the guard should refuse is refused rather than reported as an OOM.
inline constexpr std::uint64_t kFuzzMemoryLimitBytes = 256ull << 20;

// One file, loaded with the given scan and worker count. With 2 threads and one file the
// loader reads it as two parts on two connections and joins them (loader.cpp).
inline core::LoadOptions fuzzLoadOptions(const std::string &path, bool directTableScan, unsigned threads)
{
    core::LoadOptions options;
    options.files = { path };
    options.threads = threads;
    options.memoryLimitBytes = kFuzzMemoryLimitBytes;
    options.directTableScan = directTableScan;
    return options;
}

} // namespace gaplens::fuzz
