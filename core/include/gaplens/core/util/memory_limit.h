// SPDX-License-Identifier: MIT
#pragma once
// How much more memory this process may take. The loader's memory guard compares a capture's
// estimated size with the tightest of these bounds (see LoadOptions::memoryLimitBytes).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaplens::core {

// RLIMIT_AS without a limit (RLIM_INFINITY).
inline constexpr std::uint64_t kNoAddressSpaceLimit = ~std::uint64_t(0);

// Where the bounds are read from. The defaults are this process's; tests point the paths at
// fake files in a temporary folder and set addressSpaceLimit.
struct MemoryLimitSources
{
    std::filesystem::path meminfo = "/proc/meminfo"; // MemAvailable
    std::filesystem::path selfCgroup = "/proc/self/cgroup"; // the process's cgroup per hierarchy
    std::filesystem::path cgroupRoot = "/sys/fs/cgroup"; // where the cgroup file systems are mounted
    std::filesystem::path selfStatus = "/proc/self/status"; // VmSize: address space in use
    // RLIMIT_AS's soft limit in bytes (kNoAddressSpaceLimit: none); unset: this process's, from
    // getrlimit.
    std::optional<std::uint64_t> addressSpaceLimit;
};

// One bound on what the process may still allocate, and what sets it, for messages.
struct MemoryHeadroom
{
    std::uint64_t bytes = 0;
    // e.g. "MemAvailable", "memory.max of cgroup /sys/fs/cgroup/app: 4.0 GiB, 3.5 GiB in use"
    std::string source;
};

// Every bound that applies, in this order:
// - MemAvailable from meminfo;
// - per cgroup holding the process, from its own folder up to the mount: cgroup v2 memory.max
//   minus memory.current ("max" sets no bound), cgroup v1 memory.limit_in_bytes minus
//   memory.usage_in_bytes, each usage less the page cache (inactive and active file) of
//   memory.stat; a limit on any ancestor caps the process too;
// - RLIMIT_AS minus the address space in use (VmSize), unless RLIMIT_AS is unlimited.
// Sources that are missing or do not parse are left out (not Linux: no bound at all).
// Usage above a limit leaves 0 bytes, never a wrapped number.
std::vector<MemoryHeadroom> memoryHeadrooms(const MemoryLimitSources &sources = {});

// The smallest of memoryHeadrooms, or nullopt when none applies.
std::optional<MemoryHeadroom> tightestMemoryHeadroom(const MemoryLimitSources &sources = {});

// A memory size as users write it (gaplens-cli --max-memory): a number of bytes, or one with a
// unit, case-insensitive: K, M, G, T or KiB, MiB, GiB, TiB are powers of 1024, KB, MB, GB, TB
// powers of 1000, B is bytes ("512M", "4G", "1.5GiB", "1000"). A fraction rounds down to whole
// bytes. nullopt when the text is not such a size or it exceeds 2^64 - 1 bytes.
std::optional<std::uint64_t> parseMemorySize(std::string_view text);

} // namespace gaplens::core
