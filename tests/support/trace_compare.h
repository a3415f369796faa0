// SPDX-License-Identifier: MIT
#pragma once
// Compares two loads of the same files field by field: the differential fuzz target's check
// that the direct table scan gives exactly what SQLite gives, and tst_reader_real's that
// every real export loads alike with each scan and thread count.
#include "gaplens/core/model/trace.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gaplens::test {

// The differences between two TraceSets, one line each ("where: a | b"), at most `limit`
// (then a last line saying more were left out). Empty when they are equal. Names are
// compared by their text, not their StringId: loads intern strings in different orders.
// A column is reported at its first differing element only.
std::vector<std::string> traceDifferences(const core::TraceSet &a, const core::TraceSet &b, std::size_t limit = 20);

} // namespace gaplens::test
