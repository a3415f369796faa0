// SPDX-License-Identifier: MIT
#pragma once
#include <QTemporaryDir>
#include <QString>

#include <string>

namespace gaplens::test {

// Folder of the real exports (../shared/nsys-real beside the checkout), from the
// GAPLENS_REAL_DATA_DIR environment CTest sets. Empty when it does not exist.
std::string realDataDir();
// Full path of one real export; fails the calling test (QVERIFY in the caller) when absent.
std::string realFile(const char *relativePath);

} // namespace gaplens::test
