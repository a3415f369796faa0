// SPDX-License-Identifier: MIT
#pragma once
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

// Runs a helper that reports with QVERIFY/QCOMPARE, and ends the calling test if it failed.
#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        call;                                                                                                          \
        if (QTest::currentTestFailed())                                                                                \
            return;                                                                                                    \
    } while (false)

namespace gaplens::test {

// Folder of the real exports (../shared/nsys-real beside the checkout), from the
// GAPLENS_REAL_DATA_DIR environment CTest sets. Empty when it does not exist.
std::string realDataDir();
// Why a test that needs the real exports fails when they are absent (they are part of every
// CI run; a missing folder is a broken checkout, not a reason to skip).
inline constexpr const char *kRealDataMissing
    = "the real exports (../shared/nsys-real) are missing: set GAPLENS_REAL_DATA_DIR";
// Full path of one real export; fails the calling test (QVERIFY in the caller) when absent.
std::string realFile(const char *relativePath);
// Every real export (*.sqlite below realDataDir()), sorted by path; none when the folder is missing.
std::vector<std::string> realExportFiles();
// realExportFiles() into `files`; fails the calling test when the folder is missing or does
// not hold `expectedCount` exports.
void listRealExports(std::vector<std::string> &files, std::size_t expectedCount);
// For a _data function: a column "file" (QString) and a row per file, named by its file name.
void addFileRows(const std::vector<std::string> &files);

// For a _data function of one column: the column and one row per (name, value).
template <class T> void addRows(const char *column, std::initializer_list<std::pair<const char *, T>> rows)
{
    QTest::addColumn<T>(column);
    for (const auto &[name, value] : rows)
        QTest::newRow(name) << value;
}

// The first of `items` that `accepts` holds for, or nullptr.
template <class Items, class Accepts>
auto findFirst(const Items &items, Accepts accepts) -> decltype(&*std::begin(items))
{
    for (const auto &item : items)
        if (accepts(item))
            return &item;
    return nullptr;
}

} // namespace gaplens::test
