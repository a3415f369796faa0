// SPDX-License-Identifier: MIT
#include "gaplens/core/util/memory_limit.h"

#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include <sys/resource.h>

namespace gaplens::core {
namespace {

namespace fs = std::filesystem;

constexpr auto kMaxBytes = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturatingSubtract(std::uint64_t a, std::uint64_t b)
{
    return a > b ? a - b : 0;
}

// The whole file; procfs and cgroupfs files report size 0, so it is read as a stream.
std::optional<std::string> readSmallFile(const fs::path &path)
{
    std::ifstream in(path);
    if (!in)
        return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string_view trimmed(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\n");
    if (first == std::string_view::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

std::optional<std::uint64_t> parseUnsigned(std::string_view text)
{
    text = trimmed(text);
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

// The rest of the first line that starts with `key` and then `separator`: "MemAvailable" and
// ':' in /proc/meminfo, "inactive_file" and ' ' in memory.stat.
std::optional<std::string_view> lineValue(std::string_view text, std::string_view key, char separator)
{
    for (std::size_t lineStart = 0; lineStart < text.size();) {
        const auto lineEnd = std::min(text.find('\n', lineStart), text.size());
        const auto line = text.substr(lineStart, lineEnd - lineStart);
        if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == separator)
            return line.substr(key.size() + 1);
        lineStart = lineEnd + 1;
    }
    return std::nullopt;
}

// "Key:   1234 kB" in /proc/meminfo or /proc/self/status, in bytes.
std::optional<std::uint64_t> kibField(std::string_view text, std::string_view key)
{
    auto value = lineValue(text, key, ':');
    if (!value)
        return std::nullopt;
    *value = trimmed(*value);
    if (value->ends_with(" kB"))
        value->remove_suffix(3);
    const auto kib = parseUnsigned(*value);
    if (!kib)
        return std::nullopt;
    return *kib > kMaxBytes / 1024 ? kMaxBytes : *kib * 1024;
}

// "key 1234" (bytes) in a cgroup's memory.stat.
std::optional<std::uint64_t> statField(std::string_view text, std::string_view key)
{
    const auto value = lineValue(text, key, ' ');
    return value ? parseUnsigned(*value) : std::nullopt;
}

// The files that hold a memory limit and the usage it is measured against, per cgroup version.
struct CgroupMemoryFiles
{
    fs::path mount; // the hierarchy's mount point
    const char *limit; // "max" in cgroup v2 sets no limit
    const char *usage;
    const char *inactiveFileStat; // the memory.stat keys of inactive and active page cache
    const char *activeFileStat;
};

// The bound of every cgroup from `relativePath` (the process's, as /proc/self/cgroup names it)
// up to the mount: the process is capped by each ancestor's limit too. A path that does not
// exist below the mount (a container that mounts its own cgroup as the root) leaves the
// ancestors that do exist.
void addCgroupHeadrooms(const CgroupMemoryFiles &files, fs::path relativePath, std::vector<MemoryHeadroom> &headrooms)
{
    while (!relativePath.empty() && !relativePath.has_filename())
        relativePath = relativePath.parent_path(); // "a/b/" -> "a/b"
    while (true) {
        const auto folder = relativePath.empty() ? files.mount : files.mount / relativePath;
        const auto limitText = readSmallFile(folder / files.limit);
        if (const auto limit = limitText ? parseUnsigned(*limitText) : std::nullopt) {
            const auto usageText = readSmallFile(folder / files.usage);
            const auto statText = readSmallFile(folder / "memory.stat");
            // The usage counts page cache, which reading a capture fills and a capture opened
            // from the report cache is made of (its columns are mapped entry pages): the kernel
            // reclaims it, active or not, before the limit bites, so it is not in use.
            const auto pageCache = statText ? statField(*statText, files.inactiveFileStat).value_or(0)
                    + statField(*statText, files.activeFileStat).value_or(0)
                                            : 0;
            const auto usage = saturatingSubtract(usageText ? parseUnsigned(*usageText).value_or(0) : 0, pageCache);
            headrooms.push_back({ saturatingSubtract(*limit, usage),
                fmt::format("{} of cgroup {}: {}, {} in use", files.limit, folder.string(), formatBytes(*limit),
                    formatBytes(usage)) });
        }
        if (relativePath.empty())
            break;
        relativePath = relativePath.parent_path();
    }
}

// /proc/self/cgroup lines are "ID:CONTROLLERS:PATH": ID 0 with no controllers is the cgroup v2
// hierarchy (mounted at the root), a list naming "memory" is cgroup v1's memory controller
// (mounted at <root>/memory).
void addCgroupHeadrooms(const MemoryLimitSources &sources, std::vector<MemoryHeadroom> &headrooms)
{
    const auto membership = readSmallFile(sources.selfCgroup);
    if (!membership)
        return;
    std::istringstream lines(*membership);
    std::string line;
    while (std::getline(lines, line)) {
        const auto firstColon = line.find(':');
        const auto secondColon = line.find(':', firstColon == std::string::npos ? line.size() : firstColon + 1);
        if (secondColon == std::string::npos)
            continue;
        const auto id = std::string_view(line).substr(0, firstColon);
        const auto controllers = std::string_view(line).substr(firstColon + 1, secondColon - firstColon - 1);
        const fs::path path(line.substr(secondColon + 1));
        // "/../x": a cgroup outside this namespace's root, which the mount does not show.
        if (!path.is_absolute() || std::find(path.begin(), path.end(), "..") != path.end())
            continue;
        bool hasMemoryController = false;
        for (std::size_t start = 0; start <= controllers.size();) {
            const auto comma = std::min(controllers.find(',', start), controllers.size());
            hasMemoryController = hasMemoryController || controllers.substr(start, comma - start) == "memory";
            start = comma + 1;
        }
        if (id == "0" && controllers.empty())
            addCgroupHeadrooms({ sources.cgroupRoot, "memory.max", "memory.current", "inactive_file", "active_file" },
                path.lexically_normal().relative_path(), headrooms);
        else if (hasMemoryController)
            addCgroupHeadrooms({ sources.cgroupRoot / "memory", "memory.limit_in_bytes", "memory.usage_in_bytes",
                                   "total_inactive_file", "total_active_file" },
                path.lexically_normal().relative_path(), headrooms);
    }
}

std::uint64_t processAddressSpaceLimit()
{
    rlimit limit {};
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return kNoAddressSpaceLimit;
    return std::uint64_t(limit.rlim_cur);
}

} // namespace

std::vector<MemoryHeadroom> memoryHeadrooms(const MemoryLimitSources &sources)
{
    std::vector<MemoryHeadroom> headrooms;
    if (const auto meminfo = readSmallFile(sources.meminfo))
        if (const auto available = kibField(*meminfo, "MemAvailable"))
            headrooms.push_back({ *available, "MemAvailable" });
    addCgroupHeadrooms(sources, headrooms);
    const auto addressSpaceLimit = sources.addressSpaceLimit ? *sources.addressSpaceLimit : processAddressSpaceLimit();
    if (addressSpaceLimit != kNoAddressSpaceLimit) {
        const auto status = readSmallFile(sources.selfStatus);
        const auto inUse = status ? kibField(*status, "VmSize") : std::nullopt;
        headrooms.push_back({ saturatingSubtract(addressSpaceLimit, inUse.value_or(0)),
            inUse ? fmt::format("RLIMIT_AS (ulimit -v) of {}, {} of address space in use",
                formatBytes(addressSpaceLimit), formatBytes(*inUse))
                  : fmt::format("RLIMIT_AS (ulimit -v) of {}", formatBytes(addressSpaceLimit)) });
    }
    return headrooms;
}

std::optional<MemoryHeadroom> tightestMemoryHeadroom(const MemoryLimitSources &sources)
{
    auto headrooms = memoryHeadrooms(sources);
    const auto tightest = std::min_element(
        headrooms.begin(), headrooms.end(), [](const auto &a, const auto &b) { return a.bytes < b.bytes; });
    if (tightest == headrooms.end())
        return std::nullopt;
    return std::move(*tightest);
}

std::optional<std::uint64_t> parseMemorySize(std::string_view text)
{
    const auto numberEnd = std::min(text.find_first_not_of("0123456789."), text.size());
    const auto number = text.substr(0, numberEnd);
    const auto point = number.find('.');
    const auto wholePart = number.substr(0, point);
    const auto fractionPart = point == std::string_view::npos ? std::string_view() : number.substr(point + 1);
    // Digits before the point, and after it when there is one: no "1.", ".5" or "1.2.3".
    if (wholePart.empty() || (point != std::string_view::npos && fractionPart.empty())
        || fractionPart.find('.') != std::string_view::npos)
        return std::nullopt;

    std::string unit(text.substr(numberEnd));
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    static constexpr struct
    {
        std::string_view name;
        std::uint64_t bytes;
    } kUnits[] = {
        { "", 1 },
        { "b", 1 },
        { "k", 1ull << 10 },
        { "kib", 1ull << 10 },
        { "kb", 1'000 },
        { "m", 1ull << 20 },
        { "mib", 1ull << 20 },
        { "mb", 1'000'000 },
        { "g", 1ull << 30 },
        { "gib", 1ull << 30 },
        { "gb", 1'000'000'000 },
        { "t", 1ull << 40 },
        { "tib", 1ull << 40 },
        { "tb", 1'000'000'000'000 },
    };
    const auto found = std::find_if(
        std::begin(kUnits), std::end(kUnits), [&](const auto &candidate) { return candidate.name == unit; });
    if (found == std::end(kUnits))
        return std::nullopt;

    // The whole part exactly (sizes up to 2^64 - 1 bytes), the fraction as a double: with at
    // most 2^40 bytes per unit it is off by less than a byte.
    std::uint64_t whole = 0;
    if (std::from_chars(wholePart.data(), wholePart.data() + wholePart.size(), whole).ec != std::errc()
        || whole > kMaxBytes / found->bytes)
        return std::nullopt;
    double fraction = 0;
    if (!fractionPart.empty()) {
        const std::string decimal = "0." + std::string(fractionPart);
        std::from_chars(decimal.data(), decimal.data() + decimal.size(), fraction);
    }
    const auto wholeBytes = whole * found->bytes;
    const auto fractionBytes = std::uint64_t(fraction * double(found->bytes));
    if (fractionBytes > kMaxBytes - wholeBytes)
        return std::nullopt;
    return wholeBytes + fractionBytes;
}

} // namespace gaplens::core
