// SPDX-License-Identifier: MIT
#pragma once
// Which rank is which: ranks are not a column of the export, so they are inferred, and the
// mapping is always shown to the user and can be overridden.
#include "gaplens/core/model/table_set.h"
#include "gaplens/core/model/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace gaplens::core {

// The tables the rank mapping reads: the kernels that make the GPUs of each rank (ranks and
// processes themselves are a full load's whatever the table set).
inline constexpr TableSet kRankMappingTables = ExportTable::Kernels;

// Pins a rank number on a file (and optionally one process of it), e.g. from
// `--rank-map train_3.sqlite=3` or `--rank-map file.sqlite:1234=0`.
struct RankOverride
{
    std::string file; // matched against the path or its file name
    std::optional<std::uint32_t> pid;
    std::int32_t rank = 0;
};

// Parses "FILE=RANK" or "FILE:PID=RANK"; returns nullopt on a malformed spec.
std::optional<RankOverride> parseRankOverride(const std::string &spec);

// One rank candidate: a report, or one GPU process of a report holding several.
struct RankCandidate
{
    std::uint32_t report = 0;
    std::string path;
    std::uint32_t pid = 0;
    bool oneOfSeveralProcesses = false;
    std::optional<std::pair<std::int32_t, std::string>> environmentRank; // (rank, "PMI_RANK=\"3\"")
};

struct RankAssignment
{
    std::int32_t rank = 0;
    RankSource source = RankSource::FileOrder;
    std::string detail;
};

// In order of trust: the process environment (when every candidate has one and they are
// distinct); else the numbers in the file names when they are exactly 0..N-1 across the set;
// else the files' natural sort order, processes of one report in pid order. Overrides last.
// Returns one assignment per candidate, in candidate order; warnings get duplicate ranks.
std::vector<RankAssignment> assignRanks(const std::vector<RankCandidate> &candidates,
    const std::vector<RankOverride> &overrides, std::vector<std::string> &warnings);

// Whether `o` names the rank candidate of file `path` and process `pid`: the path or its file
// name, and the pid when the override gives one.
bool rankOverrideMatches(const RankOverride &o, const std::string &path, std::uint32_t pid);

// One row of the rank mapping, the facts `gaplens-cli ranks` prints and the GUI's Ranks
// dialog shows, in the same words.
struct RankMappingRow
{
    std::uint32_t rankIndex = 0; // into TraceSet::ranks
    std::int32_t rank = 0;
    std::string file; // the report's path
    std::uint32_t pid = 0;
    std::string process;
    std::string host;
    std::vector<std::uint32_t> deviceIds;
    std::string gpus; // "0,1"; "-" without GPU work
    std::string decidedBy; // rankSourceName: "environment", "file-name", "file-order", "process", "override"
    std::string detail; // PMI_RANK="3", "3 in the file name", "position in file order", "set by the user"
};
std::vector<RankMappingRow> rankMapping(const TraceSet &trace);

// What is wrong with a set of rank numbers: numbers claimed more than once, and numbers
// missing between 0 and the largest (ranks 0, 1, 3: rank 2 is missing).
struct RankNumberCheck
{
    std::vector<std::int32_t> duplicates; // ascending
    std::vector<std::int32_t> missing; // ascending
    bool ok() const { return duplicates.empty() && missing.empty(); }
};
RankNumberCheck checkRankNumbers(const std::vector<std::int32_t> &numbers);
// "rank 2 is claimed 2 times; no rank 4"; empty when ok.
std::string describeRankNumberCheck(const RankNumberCheck &check);

// The overrides that give each rank of `trace` the number in `numbers` (one per rank, in
// TraceSet::ranks order), starting from `current`, the overrides `trace` was loaded with: a
// rank whose number changes gets an override pinning its file (and its pid when its report
// holds several ranks) and loses the ones that named it alone; the other ranks keep theirs.
std::vector<RankOverride> reassignRanks(
    const TraceSet &trace, const std::vector<RankOverride> &current, const std::vector<std::int32_t> &numbers);

// "train_10.sqlite" < "train_9.sqlite" is wrong for people: digit runs compare as numbers.
bool naturalLess(const std::string &a, const std::string &b);

// The last run of digits in a file's name without extension ("train_3.sqlite" -> 3).
std::optional<std::int64_t> numberInFileName(const std::string &path);

} // namespace gaplens::core
