// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/blame_tree.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace gaplens::core {

std::string_view gapCallKey(const TraceSet &trace, const GapBlame &gap)
{
    if ((gap.cause == GapCause::ApiCall || gap.cause == GapCause::Copy) && gap.apiName != kEmptyString)
        return trace.str(gap.apiName);
    if (gap.cause == GapCause::NoCudaCall)
        return gap.osCall != kEmptyString ? trace.str(gap.osCall) : kNoOsCallLabel;
    return kNoCallLabel;
}

BlameTree buildBlameTree(const DerivedCapture &derived, std::span<const GapId> gaps)
{
    const TraceSet &trace = derived.trace();
    // The gaps in time order once: every node then collects its gaps already sorted.
    std::vector<GapId> ordered(gaps.begin(), gaps.end());
    std::sort(ordered.begin(), ordered.end(), [&](GapId a, GapId b) {
        const auto &ga = derived.gap(a), &gb = derived.gap(b);
        return std::tie(ga.gap.start, ga.gpu, a.ordinal) < std::tie(gb.gap.start, gb.gpu, b.ordinal);
    });

    BlameTree tree;
    // (parent node + 1, key) -> node; 0 is "no parent" (a root).
    std::map<std::pair<std::uint32_t, std::string_view>, std::uint32_t> index;
    auto nodeOf = [&](std::uint32_t parentPlusOne, BlameLevel level, std::string_view key, GapCause cause) {
        const auto [it, inserted] = index.try_emplace({ parentPlusOne, key }, std::uint32_t(tree.nodes.size()));
        if (inserted) {
            BlameTreeNode node;
            node.level = level;
            node.key = std::string(key);
            node.cause = cause;
            tree.nodes.push_back(std::move(node));
            if (parentPlusOne == 0)
                tree.roots.push_back(it->second);
            else
                tree.nodes[parentPlusOne - 1].children.push_back(it->second);
        }
        return it->second;
    };
    for (const GapId id : ordered) {
        const GapBlame &gap = derived.gap(id);
        const std::array<std::string_view, kBlameLevelCount> keys { gapCauseLabel(gap.cause), gapCallKey(trace, gap),
            gapPhaseKey(trace, gap) };
        std::uint32_t parentPlusOne = 0;
        for (std::size_t level = 0; level < kBlameLevelCount; ++level) {
            const auto n = nodeOf(parentPlusOne, BlameLevel(level), keys[level], gap.cause);
            auto &node = tree.nodes[n];
            ++node.count;
            node.totalNs += gap.gap.duration();
            node.longestNs = std::max(node.longestNs, gap.gap.duration());
            node.copyNs += gap.copyNs;
            node.gaps.push_back(id);
            parentPlusOne = n + 1;
        }
    }
    auto largestFirst = [&](std::uint32_t a, std::uint32_t b) {
        const auto &na = tree.nodes[a], &nb = tree.nodes[b];
        return na.totalNs != nb.totalNs ? na.totalNs > nb.totalNs : na.key < nb.key;
    };
    std::sort(tree.roots.begin(), tree.roots.end(), largestFirst);
    for (auto &node : tree.nodes)
        std::sort(node.children.begin(), node.children.end(), largestFirst);
    return tree;
}

} // namespace gaplens::core
