// SPDX-License-Identifier: MIT
#include "fuzz_input_file.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace gaplens::fuzz {

namespace fs = std::filesystem;

FuzzInputFile &FuzzInputFile::instance()
{
    static FuzzInputFile file;
    return file;
}

namespace {

constexpr std::string_view kDirPrefix = "gaplens-fuzz-";

// A crashing input ends the process without destructors, leaving its folder; fork mode
// (--keep-going) may crash thousands of times a night. Folders are named after their
// process, so those of processes that are gone can be removed by the next one.
void removeFoldersOfEndedProcesses(const fs::path &tmp)
{
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(tmp, ec)) {
        const auto name = entry.path().filename().string();
        if (!name.starts_with(kDirPrefix))
            continue;
        char *end = nullptr;
        const long pid = std::strtol(name.c_str() + kDirPrefix.size(), &end, 10);
        if (pid <= 0 || *end != '-' || ::kill(pid_t(pid), 0) == 0 || errno != ESRCH)
            continue;
        fs::remove_all(entry.path(), ec);
    }
}

} // namespace

FuzzInputFile::FuzzInputFile()
{
    const char *tmpEnv = std::getenv("TMPDIR");
    const std::string tmp = tmpEnv && *tmpEnv ? tmpEnv : "/tmp";
    removeFoldersOfEndedProcesses(tmp);
    std::string pattern = tmp + "/" + std::string(kDirPrefix) + std::to_string(::getpid()) + "-XXXXXX";
    if (!mkdtemp(pattern.data())) {
        std::fprintf(
            stderr, "gaplens fuzz: cannot make a private folder %s: %s\n", pattern.c_str(), std::strerror(errno));
        std::abort();
    }
    m_dir = pattern;
    m_path = m_dir + "/input.sqlite";
}

FuzzInputFile::~FuzzInputFile()
{
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
}

const std::string &FuzzInputFile::write(const std::uint8_t *data, std::size_t size)
{
    const int fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        std::fprintf(stderr, "gaplens fuzz: cannot write %s: %s\n", m_path.c_str(), std::strerror(errno));
        std::abort();
    }
    for (std::size_t done = 0; done < size;) {
        const auto n = ::write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            std::fprintf(stderr, "gaplens fuzz: cannot write %s: %s\n", m_path.c_str(), std::strerror(errno));
            std::abort();
        }
        done += std::size_t(n);
    }
    ::close(fd);
    return m_path;
}

std::vector<std::string> FuzzInputFile::entriesBesideInput() const
{
    std::vector<std::string> names;
    for (const auto &entry : fs::directory_iterator(m_dir))
        if (entry.path() != m_path)
            names.push_back(entry.path().filename().string());
    return names;
}

void FuzzInputFile::abortIfWrittenBeside(const char *afterWhat) const
{
    const auto names = entriesBesideInput();
    if (names.empty())
        return;
    std::fprintf(stderr, "gaplens fuzz: %s wrote beside the report %s:", afterWhat, m_path.c_str());
    for (const auto &name : names)
        std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    std::abort();
}

} // namespace gaplens::fuzz
