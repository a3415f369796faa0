// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/step_range.h"

#include <fmt/format.h>

#include <algorithm>
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

struct Tally
{
    std::unordered_map<StringId, GroupCounts> groups;
    std::uint64_t nvtxRanges = 0;
    std::uint32_t ranksWithNvtx = 0;
};

// Counts per group name. The proposal needs only depth-0 ranges, which the nesting index
// lists directly; the chooser counts every depth (allDepths).
Tally tally(const TraceSet &trace, bool allDepths)
{
    Tally out;
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

bool isStepLike(const TraceSet &trace, const Tally &tally, StringId group, const GroupCounts &c)
{
    const double span = double(std::max<TimeNs>(1, trace.span.duration()));
    return c.topMostOnARank >= 2 && c.topRanks == tally.ranksWithNvtx
        && double(c.topLevelNs) >= kMinStepCoverage * span * c.topRanks && !isOperatorRange(trace.str(group));
}

// Proposal order: most depth-0 instances, then the larger depth-0 time (train_step, not the
// DataLoader call repeated as often inside it), then by name.
bool proposedBefore(const TraceSet &trace, const std::pair<StringId, const GroupCounts *> &a,
    const std::pair<StringId, const GroupCounts *> &b)
{
    if (a.second->topLevel != b.second->topLevel)
        return a.second->topLevel > b.second->topLevel;
    if (a.second->topLevelNs != b.second->topLevelNs)
        return a.second->topLevelNs > b.second->topLevelNs;
    return trace.str(a.first) < trace.str(b.first);
}

std::optional<std::string> propose(const TraceSet &trace, const Tally &tally)
{
    std::optional<std::pair<StringId, const GroupCounts *>> best;
    for (const auto &[group, c] : tally.groups)
        if (isStepLike(trace, tally, group, c)) {
            const std::pair<StringId, const GroupCounts *> candidate { group, &c };
            if (!best || proposedBefore(trace, candidate, *best))
                best = candidate;
        }
    if (!best)
        return std::nullopt;
    return trace.str(best->first);
}

} // namespace

std::optional<std::string> proposePaceRangeName(const TraceSet &trace)
{
    return propose(trace, tally(trace, false));
}

StepRangeChoice chooseStepRange(const TraceSet &trace, std::size_t limit)
{
    const Tally counts = tally(trace, true);
    StepRangeChoice choice;
    choice.nvtxRanges = counts.nvtxRanges;
    choice.ranksWithNvtx = counts.ranksWithNvtx;
    choice.proposed = propose(trace, counts);

    struct Ranked
    {
        StringId group;
        const GroupCounts *counts;
        StepRangeCandidate candidate;
        int tier;
    };
    std::vector<Ranked> ranked;
    ranked.reserve(counts.groups.size());
    for (const auto &[group, c] : counts.groups) {
        StepRangeCandidate candidate;
        candidate.name = trace.str(group);
        candidate.count = c.count;
        candidate.topLevel = c.topLevel;
        candidate.mostOnARank = c.mostOnARank;
        candidate.ranks = c.ranks;
        candidate.onEveryRank = c.ranks == counts.ranksWithNvtx;
        candidate.stepLike = isStepLike(trace, counts, group, c);
        const bool repeats = c.mostOnARank >= 2;
        const int tier = candidate.stepLike ? 0 : repeats && candidate.onEveryRank ? 1 : repeats ? 2 : 3;
        ranked.push_back({ group, &c, std::move(candidate), tier });
    }
    std::sort(ranked.begin(), ranked.end(), [&](const Ranked &a, const Ranked &b) {
        if (a.tier != b.tier)
            return a.tier < b.tier;
        if (a.tier == 0)
            return proposedBefore(trace, { a.group, a.counts }, { b.group, b.counts });
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
