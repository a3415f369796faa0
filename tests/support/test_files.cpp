// SPDX-License-Identifier: MIT
#include "test_files.h"

#include <QFile>
#include <QtGlobal>

#include <fstream>
#include <iterator>

namespace gaplens::test {

std::string pathIn(const QTemporaryDir &dir, const std::string &name)
{
    return (std::filesystem::path(dir.path().toStdString()) / name).string();
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

bool writeFile(const std::filesystem::path &path, const std::string &bytes)
{
    std::error_code ignored; // a folder that cannot be made shows as the write failing
    if (path.has_parent_path())
        std::filesystem::create_directories(path.parent_path(), ignored);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    return bool(out);
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

void patchFile(const std::string &path, std::uint64_t offset, const std::string &bytes)
{
    std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(std::streamoff(offset));
    file.write(bytes.data(), std::streamsize(bytes.size()));
    if (!file.good())
        qFatal("cannot patch %s", path.c_str());
}

} // namespace gaplens::test
