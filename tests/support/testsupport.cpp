// SPDX-License-Identifier: MIT
#include "testsupport.h"

#include <cstdlib>
#include <filesystem>

namespace gaplens::test {

std::string realDataDir()
{
    const char *dir = std::getenv("GAPLENS_REAL_DATA_DIR");
    if (!dir || !std::filesystem::is_directory(dir))
        return {};
    return dir;
}

std::string realFile(const char *relativePath)
{
    const auto dir = realDataDir();
    if (dir.empty())
        return {};
    auto path = std::filesystem::path(dir) / relativePath;
    return std::filesystem::exists(path) ? path.string() : std::string();
}

} // namespace gaplens::test
