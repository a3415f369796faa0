// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/step_range.h"

#include <fmt/format.h>

#include "gaplens/core/analysis/parts_reduction.h"

#include <algorithm>
#include <limits>
#include <map>
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

// The counts of every group, and what the choice weighs them against. A group's key indexes
// `names`, its text, which is all the choice compares across groups.
struct Tally
{
    std::unordered_map<std::uint32_t, GroupCounts> groups;
    std::uint64_t nvtxRanges = 0;
    std::uint32_t ranksWithNvtx = 0;
    TimeNs spanNs = 0; // the capture's span
    std::vector<std::string> names;
    const std::string &name(std::uint32_t group) const { return names[group]; }
};

// Each rank's counts per group name. A range at depth 0 of its thread's ranges in `part` is
// top level unless it starts before `earlierEnds[thread]`: a range of an earlier time shard
// still open then encloses it, as NestingIndex nests (a range is at depth 0 exactly when every
// range before it has ended). `allDepths`: count every depth too (the chooser does; the
// proposal needs only depth 0, which the nesting index lists directly).
std::vector<RankNvtxTally> rankTallies(const TraceSet &part, std::span<const TimeNs> earlierEnds, bool allDepths)
{
    struct OnRank
    {
        std::uint64_t any = 0, top = 0;
        TimeNs topNs = 0;
    };
    std::vector<RankNvtxTally> out(part.ranks.size());
    std::unordered_map<StringId, OnRank> onRank;
    for (std::size_t r = 0; r < part.ranks.size(); ++r) {
        onRank.clear();
        auto &rank = out[r];
        for (auto t : part.ranks[r].threads) {
            const auto &nvtx = part.threads[t].nvtx;
            rank.ranges += nvtx.size();
            if (allDepths)
                for (std::size_t i = 0; i < nvtx.size(); ++i)
                    if (nvtx.name[i] != kEmptyString)
                        ++onRank[part.nvtxGroup(nvtx.name[i])].any;
            if (nvtx.nesting.levelCount() == 0)
                continue;
            const TimeNs openUntil = t < earlierEnds.size() ? earlierEnds[t] : std::numeric_limits<TimeNs>::min();
            for (auto i : nvtx.nesting.level(0)) {
                if (nvtx.name[i] == kEmptyString || nvtx.start[i] < openUntil)
                    continue;
                auto &counts = onRank[part.nvtxGroup(nvtx.name[i])];
                ++counts.top;
                counts.topNs += nvtx.end[i] - nvtx.start[i];
            }
        }
        rank.groups.reserve(onRank.size());
        for (const auto &[group, n] : onRank)
            rank.groups.push_back({ part.str(group), n.any, n.top, n.topNs });
        std::sort(rank.groups.begin(), rank.groups.end(),
            [](const NvtxGroupTally &a, const NvtxGroupTally &b) { return a.name < b.name; });
    }
    return out;
}

// The capture's tally from its ranks': counts summed, per-rank figures maxed.
Tally tallyOfRanks(std::span<const RankNvtxTally> ranks, TimeNs spanNs)
{
    std::map<std::string_view, GroupCounts> byName;
    Tally out;
    out.spanNs = spanNs;
    for (const auto &rank : ranks) {
        out.nvtxRanges += rank.ranges;
        out.ranksWithNvtx += rank.ranges > 0;
        for (const auto &g : rank.groups) {
            auto &c = byName[g.name];
            c.count += g.ranges;
            c.mostOnARank = std::max(c.mostOnARank, g.ranges);
            c.ranks += g.ranges > 0;
            c.topLevel += g.topLevel;
            c.topMostOnARank = std::max(c.topMostOnARank, g.topLevel);
            c.topRanks += g.topLevel > 0;
            c.topLevelNs += g.topLevelNs;
        }
    }
    out.names.reserve(byName.size());
    for (const auto &[name, counts] : byName) {
        out.groups.emplace(std::uint32_t(out.names.size()), counts);
        out.names.emplace_back(name);
    }
    return out;
}

Tally tally(const TraceSet &trace, bool allDepths)
{
    return tallyOfRanks(rankTallies(trace, {}, allDepths), trace.span.duration());
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
Tally combined(const TraceSet &part, const Tally &mine, const PartsReduction &parts)
{
    const auto names = parts.unionOfKeys(mine.names);

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
    for (const auto &[group, c] : mine.groups) {
        const auto &name = mine.name(group);
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
    out.names = names;
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
    return propose(combined(part, tally(part, false), parts));
}

StepRangeChoice chooseStepRange(const TraceSet &part, const PartsReduction &parts, std::size_t limit)
{
    return choose(combined(part, tally(part, true), parts), limit);
}

std::vector<RankNvtxTally> rankNvtxTallies(const TraceSet &part, std::span<const TimeNs> earlierEnds)
{
    return rankTallies(part, earlierEnds, true);
}

std::vector<TimeNs> latestNvtxEnds(const TraceSet &part)
{
    std::vector<TimeNs> out(part.threads.size(), std::numeric_limits<TimeNs>::min());
    for (std::size_t t = 0; t < part.threads.size(); ++t)
        for (const auto end : part.threads[t].nvtx.end)
            out[t] = std::max(out[t], end);
    return out;
}

void addShardTally(RankNvtxTally &rank, const RankNvtxTally &shard)
{
    rank.ranges += shard.ranges;
    std::vector<NvtxGroupTally> merged;
    merged.reserve(rank.groups.size() + shard.groups.size());
    auto a = rank.groups.begin();
    auto b = shard.groups.begin();
    while (a != rank.groups.end() || b != shard.groups.end()) {
        if (b == shard.groups.end() || (a != rank.groups.end() && a->name < b->name))
            merged.push_back(std::move(*a++));
        else if (a == rank.groups.end() || b->name < a->name)
            merged.push_back(*b++);
        else {
            merged.push_back(std::move(*a++));
            merged.back().ranges += b->ranges;
            merged.back().topLevel += b->topLevel;
            merged.back().topLevelNs += b->topLevelNs;
            ++b;
        }
    }
    rank.groups = std::move(merged);
}

std::optional<std::string> proposePaceRangeName(std::span<const RankNvtxTally> ranks, TimeRange span)
{
    return propose(tallyOfRanks(ranks, span.duration()));
}

StepRangeChoice chooseStepRange(std::span<const RankNvtxTally> ranks, TimeRange span, std::size_t limit)
{
    return choose(tallyOfRanks(ranks, span.duration()), limit);
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
