// SPDX-License-Identifier: MIT
#include "testsupport.h"

#include <cstdlib>
#include <filesystem>

namespace gaplens::test {

std::string realDataDir()
{
    // CTest sets the variable; a test run by hand falls back to the configured folder.
    const char *dir = std::getenv("GAPLENS_REAL_DATA_DIR");
    if (!dir || !*dir)
        dir = GAPLENS_REAL_DATA_DIR_DEFAULT;
    if (!std::filesystem::is_directory(dir))
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
