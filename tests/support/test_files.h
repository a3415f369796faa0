// SPDX-License-Identifier: MIT
#pragma once
// Reading, writing and patching fixture files byte for byte.
#include <QByteArray>
#include <QString>
#include <QTemporaryDir>

#include <cstdint>
#include <filesystem>
#include <string>

namespace gaplens::test {

// The path of `name` inside the temporary folder.
std::string pathIn(const QTemporaryDir &dir, const std::string &name);
// The file's bytes; empty when it cannot be read.
std::string readFile(const std::string &path);
// Replaces the file with `bytes`, creating the folders above it; false when it cannot.
bool writeFile(const std::filesystem::path &path, const std::string &bytes);
bool writeFile(const QString &path, const QByteArray &bytes);
// Writes `bytes` over the file at `offset`, in place; past the end the file grows (sparse
// where it skips ahead). Aborts the test binary when it cannot (a broken fixture).
void patchFile(const std::string &path, std::uint64_t offset, const std::string &bytes);

} // namespace gaplens::test
