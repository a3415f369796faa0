// SPDX-License-Identifier: MIT
#pragma once
// Target 1 of issue #19: `gaplens-cli kernels --top 15` (a load of the kernel table set, then
// the top kernels) against the sqlite3 shell running the top-kernels SQL on the same file, in
// the same run, as a ratio (target <= 0.5).
#include <map>
#include <string>

namespace gaplens::bench {

// Child side: loads `file` with the kernels' table set on `threads` threads (0: all cores),
// takes the top 15 kernels and prints "key value" figures.
int childTopKernels(unsigned threads, const std::string &file);

// Parent side: `runs` alternating runs of the child above and of the sqlite3 shell, medians
// printed as a table; the figures (both answers' top-15 totals included) are returned.
std::map<std::string, double> measureTopKernels(const std::string &file, int runs);

} // namespace gaplens::bench
