// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/step_range.h"

#include <fmt/format.h>

#include "gaplens/core/analysis/parts_reduction.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace gaplens::core {
namespace {

// Steps fill a good part of the capture on every rank that has them.
constexpr double kMinStepCoverage = 0.10;

// PyTorch's emit_nvtx wraps every operator call in a range; they repeat as often as the
// operator runs, cover much of the capture, and are never the step.
bool isOperatorRange(std::string_view name)
{
    return name.starts_with("aten::") || name.starts_with("autograd::");
}

// Names in a message stay short: NCCL's ranges carry their arguments ("ncclNetIsend():
// Data_Size: 699392, Sender_Rank: 5, ...").
std::string shortened(const std::string &name)
{
    constexpr std::size_t kMaxChars = 40;
    return name.size() <= kMaxChars ? name : name.substr(0, kMaxChars - 3) + "...";
}

struct GroupCounts
{
    std::uint64_t count = 0, mostOnARank = 0;
    std::uint32_t ranks = 0;
    std::uint64_t topLevel = 0, topMostOnARank = 0;
    std::uint32_t topRanks = 0;
    TimeNs topLevelNs = 0;
};

// The counts of every group, and what the choice weighs them against. A group's key is its
// StringId in one capture, or its index in the sorted names of a capture in parts; `name`
// gives its text, which is all the choice compares across groups.
struct Tally
{
    std::unordered_map<std::uint32_t, GroupCounts> groups;
    std::uint64_t nvtxRanges = 0;
    std::uint32_t ranksWithNvtx = 0;
    TimeNs spanNs = 0; // the capture's span
    std::function<const std::string &(std::uint32_t)> name;
};

// Counts per group name. The proposal needs only depth-0 ranges, which the nesting index
// lists directly; the chooser counts every depth (allDepths).
Tally tally(const TraceSet &trace, bool allDepths)
{
    Tally out;
    out.spanNs = trace.span.duration();
    out.name = [&trace](std::uint32_t group) -> const std::string & { return trace.str(group); };
    struct OnRank
    {
        std::uint64_t any = 0, top = 0;
    };
    std::unordered_map<StringId, OnRank> onRank;
    for (const auto &rank : trace.ranks) {
        onRank.clear();
        std::uint64_t rangesOnRank = 0;
        for (auto t : rank.threads) {
            const auto &nvtx = trace.threads[t].nvtx;
            rangesOnRank += nvtx.size();
            if (allDepths)
                for (std::size_t i = 0; i < nvtx.size(); ++i)
                    if (nvtx.name[i] != kEmptyString)
                        ++onRank[trace.nvtxGroup(nvtx.name[i])].any;
            if (nvtx.nesting.levelCount() == 0)
                continue;
            for (auto i : nvtx.nesting.level(0)) {
                if (nvtx.name[i] == kEmptyString)
                    continue;
                const StringId group = trace.nvtxGroup(nvtx.name[i]);
                ++onRank[group].top;
                out.groups[group].topLevelNs += nvtx.end[i] - nvtx.start[i];
            }
        }
        out.nvtxRanges += rangesOnRank;
        out.ranksWithNvtx += rangesOnRank > 0;
        for (const auto &[group, n] : onRank) {
            auto &c = out.groups[group];
            c.count += n.any;
            c.mostOnARank = std::max(c.mostOnARank, n.any);
            c.ranks += n.any > 0;
            c.topLevel += n.top;
            c.topMostOnARank = std::max(c.topMostOnARank, n.top);
            c.topRanks += n.top > 0;
        }
    }
    return out;
}

bool isStepLike(const Tally &tally, std::uint32_t group, const GroupCounts &c)
{
    const double span = double(std::max<TimeNs>(1, tally.spanNs));
    return c.topMostOnARank >= 2 && c.topRanks == tally.ranksWithNvtx
        && double(c.topLevelNs) >= kMinStepCoverage * span * c.topRanks && !isOperatorRange(tally.name(group));
}

// Proposal order: most depth-0 instances, then the larger depth-0 time (train_step, not the
// DataLoader call repeated as often inside it), then by name.
bool proposedBefore(const Tally &tally, const std::pair<std::uint32_t, const GroupCounts *> &a,
    const std::pair<std::uint32_t, const GroupCounts *> &b)
{
    if (a.second->topLevel != b.second->topLevel)
        return a.second->topLevel > b.second->topLevel;
    if (a.second->topLevelNs != b.second->topLevelNs)
        return a.second->topLevelNs > b.second->topLevelNs;
    return tally.name(a.first) < tally.name(b.first);
}

std::optional<std::string> propose(const Tally &tally)
{
    std::optional<std::pair<std::uint32_t, const GroupCounts *>> best;
    for (const auto &[group, c] : tally.groups)
        if (isStepLike(tally, group, c)) {
            const std::pair<std::uint32_t, const GroupCounts *> candidate { group, &c };
            if (!best || proposedBefore(tally, candidate, *best))
                best = candidate;
        }
    if (!best)
        return std::nullopt;
    return tally.name(best->first);
}

StepRangeChoice choose(const Tally &counts, std::size_t limit)
{
    StepRangeChoice choice;
    choice.nvtxRanges = counts.nvtxRanges;
    choice.ranksWithNvtx = counts.ranksWithNvtx;
    choice.proposed = propose(counts);

    struct Ranked
    {
        std::uint32_t group;
        const GroupCounts *counts;
        StepRangeCandidate candidate;
        int tier;
    };
    std::vector<Ranked> ranked;
    ranked.reserve(counts.groups.size());
    for (const auto &[group, c] : counts.groups) {
        StepRangeCandidate candidate;
        candidate.name = counts.name(group);
        candidate.count = c.count;
        candidate.topLevel = c.topLevel;
        candidate.mostOnARank = c.mostOnARank;
        candidate.ranks = c.ranks;
        candidate.onEveryRank = c.ranks == counts.ranksWithNvtx;
        candidate.stepLike = isStepLike(counts, group, c);
        const bool repeats = c.mostOnARank >= 2;
        const int tier = candidate.stepLike ? 0 : repeats && candidate.onEveryRank ? 1 : repeats ? 2 : 3;
        ranked.push_back({ group, &c, std::move(candidate), tier });
    }
    std::sort(ranked.begin(), ranked.end(), [&](const Ranked &a, const Ranked &b) {
        if (a.tier != b.tier)
            return a.tier < b.tier;
        if (a.tier == 0)
            return proposedBefore(counts, { a.group, a.counts }, { b.group, b.counts });
        if (a.candidate.count != b.candidate.count)
            return a.candidate.count > b.candidate.count;
        if (a.candidate.topLevel != b.candidate.topLevel)
            return a.candidate.topLevel > b.candidate.topLevel;
        return a.candidate.name < b.candidate.name;
    });
    for (std::size_t i = 0; i < ranked.size() && i < limit; ++i)
        choice.candidates.push_back(std::move(ranked[i].candidate));
    return choice;
}

// The whole capture's tally from this part's: every rank is on one part, so the per-rank
// figures (the most on a rank, ranks that have a group) combine by max and by sum, and the
// groups are matched by their names' texts. Its keys index `names`, the sorted union.
Tally combined(const TraceSet &part, const Tally &mine, const PartsReduction &parts, std::vector<std::string> &names)
{
    std::vector<std::string> myNames;
    myNames.reserve(mine.groups.size());
    for (const auto &entry : mine.groups)
        myNames.push_back(part.str(entry.first));
    names = parts.unionOfKeys(myNames);

    // Per group: 5 sums (count, ranks, topLevel, topRanks, topLevelNs) and 2 maxima (the
    // most on a rank, any depth and depth 0); then the capture's figures. Times are summed as
    // unsigned 64-bit words, which wrap as the whole capture's signed sum does.
    constexpr std::size_t kSums = 5, kMaxima = 2;
    const std::size_t n = names.size();
    std::vector<std::uint64_t> sums(kSums * n + 2, 0);
    std::vector<TimeNs> maxima(kMaxima * n + 1, 0);
    // A part without events has no span ({0, 0}, as TraceSet::span says), so it adds none.
    const bool hasSpan = part.span != TimeRange {};
    std::vector<TimeNs> firstEvent { hasSpan ? part.span.start : std::numeric_limits<TimeNs>::max() };
    maxima[kMaxima * n] = hasSpan ? part.span.end : std::numeric_limits<TimeNs>::min();
    std::size_t mineIndex = 0; // the groups in the order myNames lists them
    for (const auto &entry : mine.groups) {
        const auto &c = entry.second;
        const auto &name = myNames[mineIndex++];
        const auto key = std::size_t(std::lower_bound(names.begin(), names.end(), name) - names.begin());
        std::uint64_t *s = &sums[kSums * key];
        s[0] = c.count;
        s[1] = c.ranks;
        s[2] = c.topLevel;
        s[3] = c.topRanks;
        s[4] = std::uint64_t(c.topLevelNs);
        maxima[kMaxima * key] = TimeNs(c.mostOnARank);
        maxima[kMaxima * key + 1] = TimeNs(c.topMostOnARank);
    }
    sums[kSums * n] = mine.nvtxRanges;
    sums[kSums * n + 1] = mine.ranksWithNvtx;
    parts.sum(sums);
    parts.max(maxima);
    parts.min(firstEvent);

    Tally out;
    for (std::uint32_t key = 0; key < n; ++key) {
        const std::uint64_t *s = &sums[kSums * key];
        auto &c = out.groups[key];
        c.count = s[0];
        c.ranks = std::uint32_t(s[1]);
        c.topLevel = s[2];
        c.topRanks = std::uint32_t(s[3]);
        c.topLevelNs = TimeNs(s[4]);
        c.mostOnARank = std::uint64_t(maxima[kMaxima * key]);
        c.topMostOnARank = std::uint64_t(maxima[kMaxima * key + 1]);
    }
    out.nvtxRanges = sums[kSums * n];
    out.ranksWithNvtx = std::uint32_t(sums[kSums * n + 1]);
    if (firstEvent[0] != std::numeric_limits<TimeNs>::max())
        out.spanNs = TimeRange { firstEvent[0], maxima[kMaxima * n] }.duration();
    out.name = [&names](std::uint32_t key) -> const std::string & { return names[key]; };
    return out;
}

} // namespace

std::optional<std::string> proposePaceRangeName(const TraceSet &trace)
{
    return propose(tally(trace, false));
}

StepRangeChoice chooseStepRange(const TraceSet &trace, std::size_t limit)
{
    return choose(tally(trace, true), limit);
}

std::optional<std::string> proposePaceRangeName(const TraceSet &part, const PartsReduction &parts)
{
    std::vector<std::string> names;
    return propose(combined(part, tally(part, false), parts, names));
}

StepRangeChoice chooseStepRange(const TraceSet &part, const PartsReduction &parts, std::size_t limit)
{
    std::vector<std::string> names;
    return choose(combined(part, tally(part, true), parts, names), limit);
}

std::string describeMissingStepRange(const StepRangeChoice &choice, std::size_t names)
{
    if (choice.nvtxRanges == 0)
        return "the capture has no NVTX ranges";
    if (choice.candidates.empty())
        return fmt::format("the capture's {} NVTX ranges have no names", choice.nvtxRanges);
    // What every rank has is the likeliest step; then the names repeated most elsewhere.
    auto list = [&](bool onEveryRank) {
        std::string out;
        std::size_t listed = 0;
        for (const auto &c : choice.candidates)
            if (c.onEveryRank == onEveryRank && listed < names)
                out += fmt::format("{}{} ({} on {} rank{})", listed++ ? ", " : "", shortened(c.name), c.count, c.ranks,
                    c.ranks == 1 ? "" : "s");
        return out;
    };
    const std::string everyRank = list(true), others = list(false);
    std::string text = fmt::format("no NVTX range looks like a training step (a range that repeats on every rank and "
                                   "covers at least {:.0f}% of the capture, not a PyTorch operator)",
        kMinStepCoverage * 100);
    if (!everyRank.empty())
        text += fmt::format("; on every rank: {}", everyRank);
    if (!others.empty())
        text += fmt::format("; {}: {}", everyRank.empty() ? "the most repeated" : "on some ranks", others);
    return text;
}

} // namespace gaplens::core
