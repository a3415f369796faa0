// SPDX-License-Identifier: MIT
#pragma once
// The reader opens paths, not buffers: each fuzz input becomes the one file of a private
// folder made once per process (removed at exit), so nothing else can sit beside it and
// anything that appears there was written by the reader.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gaplens::fuzz {

class FuzzInputFile
{
public:
    // The process's input file; the folder is made on first use (aborts if it cannot be).
    static FuzzInputFile &instance();

    // Replaces the file's content with the input's bytes; returns the file's path.
    const std::string &write(const std::uint8_t *data, std::size_t size);
    const std::string &path() const { return m_path; }

    // Names of the folder's entries other than the input file: files the reader wrote beside
    // a report (a -journal, -wal or -shm file), which it must never do.
    std::vector<std::string> entriesBesideInput() const;
    // Aborts with their names when there are such entries, so libFuzzer keeps the input.
    void abortIfWrittenBeside(const char *afterWhat) const;

    ~FuzzInputFile();
    FuzzInputFile(const FuzzInputFile &) = delete;
    FuzzInputFile &operator=(const FuzzInputFile &) = delete;

private:
    FuzzInputFile();
    std::string m_dir;
    std::string m_path;
};

} // namespace gaplens::fuzz
