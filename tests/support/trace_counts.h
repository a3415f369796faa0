// SPDX-License-Identifier: MIT
#pragma once
// Loading a capture with the default options, and totals over a whole TraceSet to compare
// with a count of the same rows in SQL.
#include "gaplens/core/model/trace.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gaplens::test {

// loadTraceSet() of `files` with the default options.
std::shared_ptr<core::TraceSet> load(const std::vector<std::string> &files);

std::size_t kernelCount(const core::TraceSet &t);
std::size_t copyCount(const core::TraceSet &t);
std::size_t apiCallCount(const core::TraceSet &t);
std::size_t nvtxRangeCount(const core::TraceSet &t);

} // namespace gaplens::test
