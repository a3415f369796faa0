// SPDX-License-Identifier: MIT
#pragma once
// How the benchmark's parent runs a measurement: in a child process of its own (so peaks and
// caches of one do not leak into the next), and the median over repeated runs.
#include <map>
#include <string>
#include <vector>

namespace gaplens::bench {

// What one child process printed and what it cost, seen from the parent.
struct ProcessRun
{
    std::string out; // its stdout
    double wallSeconds = 0; // fork to exit
    double maxRssBytes = 0; // its peak resident memory
    double cpuSeconds = 0; // its user and system time
};

// Runs argv[0] (searched in PATH unless it holds a '/') with its stdout captured, or sent to
// /dev/null with `discardStdout` (a command's output as a user redirects it to a file); throws
// std::runtime_error when it cannot be started or does not exit with status 0.
ProcessRun runProcess(const std::vector<std::string> &argv, bool discardStdout = false);

// A measurement's figures, printed by the child as "key value" lines.
std::map<std::string, double> parseFigures(const std::string &text);

double median(std::vector<double> v);

} // namespace gaplens::bench
