// SPDX-License-Identifier: MIT
#pragma once
// A capture's files dealt over parts, for tests of analyses computed in parts without MPI
// (with thread_parts.h): file i to part i % parts, each part loaded alone, as gaplens-mpi's
// processes load theirs. A part may get no file: an empty capture.
#include "gaplens/core/read/loader.h"
#include "testsupport.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::test {

// The files loaded on one thread: the parts already run on threads of their own.
inline std::shared_ptr<core::TraceSet> loadOnOneThread(const std::vector<std::string> &files)
{
    core::LoadOptions options;
    options.files = files;
    options.threads = 1;
    return core::loadTraceSet(options);
}

inline std::vector<std::shared_ptr<core::TraceSet>> loadInParts(
    const std::vector<std::string> &files, std::size_t partCount)
{
    std::vector<std::shared_ptr<core::TraceSet>> parts(partCount);
    for (std::size_t p = 0; p < partCount; ++p) {
        std::vector<std::string> mine;
        for (std::size_t f = p; f < files.size(); f += partCount)
            mine.push_back(files[f]);
        parts[p] = mine.empty() ? std::make_shared<core::TraceSet>() : loadOnOneThread(mine);
    }
    return parts;
}

// A rank is one process of one report, and a report is one file: that names it in every part
// and in the whole capture.
using RankKey = std::pair<std::string, std::uint32_t>;
inline RankKey rankKey(const core::TraceSet &trace, std::uint32_t rank)
{
    return { trace.reports[trace.ranks[rank].report].path, trace.ranks[rank].pid };
}

// The files of a real export or folder under realDataDir(); none when it cannot be read.
inline std::vector<std::string> realFiles(const std::string &relative)
{
    std::vector<core::LoadError> errors;
    auto files = core::expandInputs({ realDataDir() + "/" + relative }, errors);
    return errors.empty() ? files : std::vector<std::string> {};
}

// Doubles computed in parts must be the whole capture's bit for bit.
inline bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, sizeof a) == 0;
}

} // namespace gaplens::test
