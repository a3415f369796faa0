// SPDX-License-Identifier: MIT
#include "testsupport.h"

#include <algorithm>
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

std::vector<std::string> realExportFiles()
{
    std::vector<std::string> files;
    const auto dir = realDataDir();
    if (dir.empty())
        return files;
    for (const auto &e : std::filesystem::recursive_directory_iterator(dir))
        if (e.path().extension() == ".sqlite")
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

void listRealExports(std::vector<std::string> &files, std::size_t expectedCount)
{
    QVERIFY2(!realDataDir().empty(), gaplens::test::kRealDataMissing);
    files = realExportFiles();
    QCOMPARE(files.size(), expectedCount);
}

void addFileRows(const std::vector<std::string> &files)
{
    QTest::addColumn<QString>("file");
    for (const auto &f : files)
        QTest::newRow(std::filesystem::path(f).filename().string().c_str()) << QString::fromStdString(f);
}

} // namespace gaplens::test
