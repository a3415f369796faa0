// SPDX-License-Identifier: MIT
#include "gaplens/core/read/rank_identity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>

namespace gaplens::core {
namespace {

bool isDigit(char c)
{
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

} // namespace

bool rankOverrideMatches(const RankOverride &o, const std::string &path, std::uint32_t pid)
{
    namespace fs = std::filesystem;
    const bool fileMatches = o.file == path || fs::path(path).filename() == fs::path(o.file).filename();
    return fileMatches && (!o.pid || *o.pid == pid);
}

std::vector<RankMappingRow> rankMapping(const TraceSet &trace)
{
    std::vector<RankMappingRow> rows;
    rows.reserve(trace.ranks.size());
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
        const auto &rank = trace.ranks[r];
        RankMappingRow row { r, rank.rank, trace.reports[rank.report].path, rank.pid, rank.processName, rank.host, {},
            {}, std::string(rankSourceName(rank.source)), rank.sourceDetail };
        for (auto g : rank.gpus) {
            row.deviceIds.push_back(trace.gpus[g].deviceId);
            row.gpus += (row.gpus.empty() ? "" : ",") + std::to_string(trace.gpus[g].deviceId);
        }
        if (row.gpus.empty())
            row.gpus = "-";
        rows.push_back(std::move(row));
    }
    return rows;
}

RankNumberCheck checkRankNumbers(const std::vector<std::int32_t> &numbers)
{
    RankNumberCheck check;
    std::map<std::int32_t, int> counts;
    for (auto n : numbers)
        ++counts[n];
    std::int32_t expected = 0;
    for (const auto &[number, count] : counts) {
        if (count > 1)
            check.duplicates.push_back(number);
        for (; expected < number; ++expected)
            check.missing.push_back(expected);
        expected = number + 1;
    }
    return check;
}

std::string describeRankNumberCheck(const RankNumberCheck &check)
{
    std::vector<std::string> parts;
    for (auto n : check.duplicates)
        parts.push_back(fmt::format("rank {} is claimed more than once", n));
    if (!check.missing.empty()) {
        std::string list;
        for (auto n : check.missing)
            list += (list.empty() ? "" : ", ") + std::to_string(n);
        parts.push_back(fmt::format("no rank {}", list));
    }
    std::string text;
    for (const auto &p : parts)
        text += (text.empty() ? "" : "; ") + p;
    return text;
}

std::vector<RankOverride> reassignRanks(
    const TraceSet &trace, const std::vector<RankOverride> &current, const std::vector<std::int32_t> &numbers)
{
    std::vector<RankOverride> result = current;
    std::map<std::uint32_t, int> ranksOfReport;
    for (const auto &rank : trace.ranks)
        ++ranksOfReport[rank.report];
    for (std::size_t r = 0; r < trace.ranks.size() && r < numbers.size(); ++r) {
        const auto &rank = trace.ranks[r];
        if (numbers[r] == rank.rank)
            continue;
        const auto &path = trace.reports[rank.report].path;
        const bool alone = ranksOfReport[rank.report] == 1;
        // An override without a pid over a report of several ranks names the others too: it stays,
        // and the new one, applied after it, wins for this rank.
        std::erase_if(
            result, [&](const RankOverride &o) { return rankOverrideMatches(o, path, rank.pid) && (o.pid || alone); });
        RankOverride pinned { path, alone ? std::nullopt : std::optional<std::uint32_t>(rank.pid), numbers[r] };
        result.push_back(std::move(pinned));
    }
    return result;
}

bool naturalLess(const std::string &a, const std::string &b)
{
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (isDigit(a[i]) && isDigit(b[j])) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && isDigit(a[ie]))
                ++ie;
            while (je < b.size() && isDigit(b[je]))
                ++je;
            // Compare digit runs by value: strip leading zeros, then length, then digits.
            auto ia = a.find_first_not_of('0', i), jb = b.find_first_not_of('0', j);
            ia = std::min(ia == std::string::npos ? ie : ia, ie);
            jb = std::min(jb == std::string::npos ? je : jb, je);
            if (ie - ia != je - jb)
                return ie - ia < je - jb;
            if (int c = a.compare(ia, ie - ia, b, jb, je - jb); c != 0)
                return c < 0;
            i = ie;
            j = je;
            continue;
        }
        if (a[i] != b[j])
            return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

std::optional<std::int64_t> numberInFileName(const std::string &path)
{
    const auto stem = std::filesystem::path(path).stem().string();
    auto end = stem.size();
    while (end > 0 && !isDigit(stem[end - 1]))
        --end;
    if (end == 0)
        return std::nullopt;
    auto begin = end;
    while (begin > 0 && isDigit(stem[begin - 1]))
        --begin;
    if (end - begin > 12)
        return std::nullopt;
    return std::stoll(stem.substr(begin, end - begin));
}

std::vector<RankAssignment> assignRanks(const std::vector<RankCandidate> &candidates,
    const std::vector<RankOverride> &overrides, std::vector<std::string> &warnings)
{
    const std::size_t n = candidates.size();
    std::vector<RankAssignment> result(n);

    // 1. Environment: only when it tells every rank apart.
    std::set<std::int32_t> envRanks;
    bool allEnv = n > 0;
    for (const auto &c : candidates) {
        if (!c.environmentRank || c.oneOfSeveralProcesses)
            allEnv = false;
        else
            envRanks.insert(c.environmentRank->first);
    }
    if (allEnv && envRanks.size() == n) {
        for (std::size_t i = 0; i < n; ++i)
            result[i] = { candidates[i].environmentRank->first, RankSource::Environment,
                candidates[i].environmentRank->second };
    } else {
        // 2. File-name numbers, when one rank per file and the numbers are exactly 0..N-1.
        std::set<std::int64_t> numbers;
        bool byName = n > 1;
        for (const auto &c : candidates) {
            const auto number = numberInFileName(c.path);
            if (!number || c.oneOfSeveralProcesses)
                byName = false;
            else
                numbers.insert(*number);
        }
        byName = byName && numbers.size() == n && *numbers.begin() == 0 && *numbers.rbegin() == std::int64_t(n - 1);
        if (byName) {
            for (std::size_t i = 0; i < n; ++i) {
                const auto number = *numberInFileName(candidates[i].path);
                result[i] = { std::int32_t(number), RankSource::FileName, fmt::format("{} in the file name", number) };
            }
        } else {
            // 3. Natural order of files, then pid within a file.
            std::vector<std::size_t> order(n);
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                const auto &ca = candidates[a], &cb = candidates[b];
                if (ca.path != cb.path)
                    return naturalLess(ca.path, cb.path);
                return ca.pid < cb.pid;
            });
            for (std::size_t r = 0; r < n; ++r) {
                const auto &c = candidates[order[r]];
                result[order[r]] = c.oneOfSeveralProcesses
                    ? RankAssignment { std::int32_t(r), RankSource::Process,
                          fmt::format("process {} of several in one report", c.pid) }
                    : RankAssignment { std::int32_t(r), RankSource::FileOrder, "position in file order" };
            }
        }
    }

    for (const auto &o : overrides) {
        bool used = false;
        for (std::size_t i = 0; i < n; ++i)
            if (rankOverrideMatches(o, candidates[i].path, candidates[i].pid)) {
                result[i] = { o.rank, RankSource::Override, "set by the user" };
                used = true;
            }
        if (!used)
            warnings.push_back(fmt::format("rank override for {} matches no loaded report", o.file));
    }

    std::map<std::int32_t, int> counts;
    for (const auto &a : result)
        ++counts[a.rank];
    for (const auto &[rank, count] : counts)
        if (count > 1)
            warnings.push_back(fmt::format("{} reports claim rank {}: check the rank mapping", count, rank));
    return result;
}

std::optional<RankOverride> parseRankOverride(const std::string &spec)
{
    const auto eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 >= spec.size())
        return std::nullopt;
    RankOverride result;
    try {
        std::size_t used = 0;
        const auto rankText = spec.substr(eq + 1);
        const long rank = std::stol(rankText, &used);
        if (used != rankText.size() || rank < 0)
            return std::nullopt;
        result.rank = std::int32_t(rank);
        result.file = spec.substr(0, eq);
        // FILE:PID=RANK — a trailing ":digits" names one process of the file.
        if (const auto colon = result.file.rfind(':'); colon != std::string::npos && colon + 1 < result.file.size()) {
            const auto pidText = result.file.substr(colon + 1);
            if (pidText.find_first_not_of("0123456789") == std::string::npos) {
                result.pid = std::uint32_t(std::stoul(pidText));
                result.file = result.file.substr(0, colon);
            }
        }
    } catch (const std::exception &) {
        return std::nullopt;
    }
    return result;
}

} // namespace gaplens::core
