// SPDX-License-Identifier: MIT
#pragma once
// Exact DurationStats per group of a walk over columns, without keeping every duration.
//
// The summaries used to copy each group's durations into a vector for its median: 8 bytes per
// event (400 MiB for the bench's 48M NVTX ranges and API calls), on top of the columns that
// already hold them. Here the walk is repeated instead, since a walk over the columns is cheap:
//   1. count, total, min, max and the sum of squares per group (exact integer moments, as
//      computeDurationStats, so the figures are bit-identical whatever the walk's order);
//   2. the median's search: a group of at most kCollect values copies them; a larger one
//      counts its values into kBins equal bins over [min, max] and keeps the bins holding the
//      two middle ranks;
//   3. and on: the same search within the kept range, until the values left fit kCollect (then
//      nth_element among those) or the range is one value. When the two middle ranks of an
//      even count fall in different bins, every bin between them is empty: the lower is the
//      largest value up to its bin's end and the upper the smallest beyond it, one more pass.
// Each histogram pass shrinks a large group's range by kBins, so any int64 range takes at most
// ten walks in all (counting, eight histograms, one to collect or take the edges); the usual
// case is three or four. Memory: kBins counters per group larger than kCollect, plus the
// collected candidates (at most kCollect per group).
//
// Computed in parts (a PartsReduction: gaplens-mpi's processes, each walking its own events),
// the groups are first put in one order agreed by every part (the union of their keys' texts),
// then every pass's figures are combined: moments summed, minima and maxima, histograms summed,
// the edges' maxima and minima. No part copies values for another, so a group whose range is
// more than one value is always searched by histograms; the median is the same exact value.
//
// The search finds other order statistics than the median too: `Ranks` gives, for a group's
// count, the two 0-based ranks (equal or adjacent) whose values' mean is the group's medianNs
// (the kernel histogram's p95 is one rank twice: the value itself).
#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/parts_reduction.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace gaplens::core::detail {

// The two middle ranks of `count` values: the median's.
struct MiddleRanks
{
    std::pair<std::uint64_t, std::uint64_t> operator()(std::uint64_t count) const
    {
        return { (count - 1) / 2, count / 2 };
    }
};

// `walk(sink)` must call sink(slot, key, duration) for every event, in the same order on every
// call; events of one slot form one group (named by the key of its first event).

template <typename Key, typename Ranks = MiddleRanks> class GroupedDurationStats
{
public:
    static constexpr std::size_t kBins = 256;
    static constexpr std::uint64_t kCollect = 4096;

    template <typename Walk>
    GroupedDurationStats(std::size_t slots, Walk walk, Ranks ranks = {})
        : m_groupOfSlot(slots, kNoGroup)
        , m_ranks(ranks)
    {
        countPass(walk);
        startSearch();
        searchPasses(walk);
    }

    // One part's events; the figures are the whole capture's. `keys.text(key)` names a key for
    // the union, and `keys.find(text)` gives back {slot, key} (a key the part has not seen
    // included): the slot the walk gives that key.
    template <typename Walk, typename Keys>
    GroupedDurationStats(std::size_t slots, Walk walk, const PartsReduction &parts, Keys keys, Ranks ranks = {})
        : m_groupOfSlot(slots, kNoGroup)
        , m_parts(&parts)
        , m_ranks(ranks)
    {
        countPass(walk);
        alignGroups(keys);
        combineMoments();
        startSearch();
        searchPasses(walk);
    }

    TimeNs total() const { return m_total; }
    std::uint64_t count() const { return m_count; }

    // Calls make(key, stats, percent) per group, in order of first appearance (in parts: in
    // the order of the keys' sorted texts).
    template <typename Make> void build(Make make) const
    {
        for (const auto &g : m_groups) {
            const double pct = m_total > 0 ? 100.0 * double(g.stats.totalNs) / double(m_total) : 0.0;
            make(g.key, g.stats, pct);
        }
    }

private:
    static constexpr std::uint32_t kNoGroup = std::numeric_limits<std::uint32_t>::max();
    enum class Search : std::uint8_t { Done, Bins, Collect, Edges };

    struct Group
    {
        Key key;
        DurationMoments moments;
        DurationStats stats;
        // The median's search: the values in [lo, hi] hold the two middle ranks; `below` values
        // of the group are smaller than lo.
        Search search = Search::Done;
        TimeNs lo = 0, hi = 0;
        std::uint64_t below = 0;
        std::uint64_t inRange = 0; // values in [lo, hi] (known once a pass has counted them)
        std::size_t offset = 0; // into the pass's histogram or collected values
        std::uint64_t filled = 0;
        // Edges: the lower middle value is the largest up to `split`, the upper the smallest above.
        TimeNs split = 0, lowerMax = 0, upperMin = 0;
    };

    std::uint64_t lowerRank(const Group &g) const { return m_ranks(g.stats.count).first; }
    std::uint64_t upperRank(const Group &g) const { return m_ranks(g.stats.count).second; }
    // Width of one of kBins bins over [lo, hi], computed in unsigned arithmetic so that any
    // int64 range fits.
    static std::uint64_t binWidth(const Group &g) { return (std::uint64_t(g.hi) - std::uint64_t(g.lo)) / kBins + 1; }

    template <typename Walk> void countPass(Walk &walk)
    {
        walk([&](std::size_t slot, const Key &key, TimeNs d) {
            if (slot >= m_groupOfSlot.size())
                m_groupOfSlot.resize(slot + 1, kNoGroup);
            auto &index = m_groupOfSlot[slot];
            if (index == kNoGroup) {
                index = std::uint32_t(m_groups.size());
                m_groups.push_back({ key, {} });
            }
            m_groups[index].moments.add(d);
        });
    }

    // Every part's groups in the order of their sorted key texts, groups of other parts included.
    template <typename Keys> void alignGroups(Keys &keys)
    {
        std::vector<std::string> texts;
        for (const auto &g : m_groups)
            texts.push_back(keys.text(g.key));
        std::vector<Group> aligned;
        for (const auto &text : m_parts->unionOfKeys(texts)) {
            const auto [slot, key] = keys.find(text);
            if (slot >= m_groupOfSlot.size())
                m_groupOfSlot.resize(slot + 1, kNoGroup);
            auto &index = m_groupOfSlot[slot];
            aligned.push_back(index == kNoGroup ? Group {} : m_groups[index]);
            aligned.back().key = key; // the key as the caller names rows (keys.find)
            index = std::uint32_t(aligned.size() - 1);
        }
        m_groups = std::move(aligned);
    }

    void combineMoments()
    {
        const std::size_t n = m_groups.size();
        std::vector<std::uint64_t> counts(n);
        std::vector<UInt128> sums(n), squares(n);
        std::vector<TimeNs> mins(n), maxs(n);
        for (std::size_t i = 0; i < n; ++i) {
            const auto &m = m_groups[i].moments;
            counts[i] = m.count;
            sums[i] = UInt128(m.sum);
            squares[i] = m.sumSquares;
            mins[i] = m.count ? m.min : std::numeric_limits<TimeNs>::max();
            maxs[i] = m.count ? m.max : std::numeric_limits<TimeNs>::min();
        }
        m_parts->sum(counts);
        m_parts->sum(sums);
        m_parts->sum(squares);
        m_parts->min(mins);
        m_parts->max(maxs);
        for (std::size_t i = 0; i < n; ++i)
            m_groups[i].moments = { counts[i], Int128(sums[i]), squares[i], mins[i], maxs[i] };
    }

    void startSearch()
    {
        for (auto &g : m_groups) {
            g.stats = statsFromMoments(g.moments);
            m_total += g.stats.totalNs;
            m_count += g.stats.count;
            g.lo = g.stats.minNs;
            g.hi = g.stats.maxNs;
            g.inRange = g.stats.count;
            if (g.lo == g.hi)
                g.stats.medianNs = double(g.lo);
            else
                g.search = collects(g.stats.count) ? Search::Collect : Search::Bins;
        }
    }

    // In parts, values are never copied: each part holds only some of a group's.
    bool collects(std::uint64_t values) const { return !m_parts && values <= kCollect; }

    template <typename Walk> void searchPasses(Walk &walk)
    {
        std::vector<std::uint64_t> histogram;
        std::vector<TimeNs> collected;
        while (pending()) {
            prepareSearch(histogram, collected);
            searchPass(walk, histogram, collected);
            if (m_parts)
                combineSearch(histogram);
            finishSearch(histogram, collected);
        }
    }

    void combineSearch(std::vector<std::uint64_t> &histogram)
    {
        m_parts->sum(histogram);
        std::vector<TimeNs> lowerMax, upperMin;
        for (const auto &g : m_groups)
            if (g.search == Search::Edges) {
                lowerMax.push_back(g.lowerMax);
                upperMin.push_back(g.upperMin);
            }
        m_parts->max(lowerMax);
        m_parts->min(upperMin);
        std::size_t e = 0;
        for (auto &g : m_groups)
            if (g.search == Search::Edges) {
                g.lowerMax = lowerMax[e];
                g.upperMin = upperMin[e++];
            }
    }

    bool pending() const
    {
        return std::any_of(m_groups.begin(), m_groups.end(), [](const Group &g) { return g.search != Search::Done; });
    }

    void prepareSearch(std::vector<std::uint64_t> &histogram, std::vector<TimeNs> &collected)
    {
        std::size_t bins = 0, values = 0;
        for (auto &g : m_groups) {
            g.filled = 0;
            if (g.search == Search::Bins) {
                g.offset = bins;
                bins += kBins;
            } else if (g.search == Search::Collect) {
                g.offset = values;
                values += std::size_t(g.inRange);
            } else if (g.search == Search::Edges) {
                g.lowerMax = std::numeric_limits<TimeNs>::min();
                g.upperMin = std::numeric_limits<TimeNs>::max();
            }
        }
        histogram.assign(bins, 0);
        collected.resize(values);
    }

    template <typename Walk>
    void searchPass(Walk &walk, std::vector<std::uint64_t> &histogram, std::vector<TimeNs> &collected)
    {
        walk([&](std::size_t slot, const Key &, TimeNs d) {
            auto &g = m_groups[m_groupOfSlot[slot]];
            if (d < g.lo || d > g.hi)
                return;
            if (g.search == Search::Bins)
                ++histogram[g.offset + (std::uint64_t(d) - std::uint64_t(g.lo)) / binWidth(g)];
            else if (g.search == Search::Collect)
                collected[g.offset + std::size_t(g.filled++)] = d;
            else if (g.search == Search::Edges && d <= g.split)
                g.lowerMax = std::max(g.lowerMax, d);
            else if (g.search == Search::Edges)
                g.upperMin = std::min(g.upperMin, d);
        });
    }

    void finishSearch(const std::vector<std::uint64_t> &histogram, std::vector<TimeNs> &collected)
    {
        for (auto &g : m_groups) {
            if (g.search == Search::Collect)
                selectMedian(g, collected);
            else if (g.search == Search::Bins)
                narrow(g, histogram);
            else if (g.search == Search::Edges) {
                g.stats.medianNs = (double(g.lowerMax) + double(g.upperMin)) / 2.0;
                g.search = Search::Done;
            }
        }
    }

    // The two middle ranks among the collected candidates, as computeDurationStats takes them.
    void selectMedian(Group &g, std::vector<TimeNs> &collected) const
    {
        const auto begin = collected.begin() + std::ptrdiff_t(g.offset);
        const auto end = begin + std::ptrdiff_t(g.inRange);
        const auto upper = begin + std::ptrdiff_t(upperRank(g) - g.below);
        std::nth_element(begin, upper, end);
        if (lowerRank(g) == upperRank(g)) {
            g.stats.medianNs = double(*upper);
        } else {
            // The lower rank (adjacent) is in the collected range too, so before `upper`.
            const TimeNs lower = *std::max_element(begin, upper);
            g.stats.medianNs = (double(lower) + double(*upper)) / 2.0;
        }
        g.search = Search::Done;
    }

    // Keeps the bin that holds the two middle ranks, or looks at the edges of the two bins
    // that hold one each.
    void narrow(Group &g, const std::vector<std::uint64_t> &histogram) const
    {
        const auto *bins = histogram.data() + g.offset;
        const std::uint64_t width = binWidth(g);
        std::uint64_t below = g.below;
        std::size_t bin = 0;
        while (below + bins[bin] <= lowerRank(g))
            below += bins[bin++];
        // (bin + 1) * width cannot overflow before the last bin, which ends at hi.
        const TimeNs binEnd = bin + 1 == kBins ? g.hi : TimeNs(std::uint64_t(g.lo) + (bin + 1) * width - 1);
        if (below + bins[bin] <= upperRank(g)) {
            g.split = binEnd;
            g.search = Search::Edges;
            return;
        }
        g.lo = TimeNs(std::uint64_t(g.lo) + bin * width);
        g.hi = binEnd;
        g.below = below;
        g.inRange = bins[bin];
        if (g.lo == g.hi) {
            g.stats.medianNs = double(g.lo);
            g.search = Search::Done;
        } else {
            g.search = collects(g.inRange) ? Search::Collect : Search::Bins;
        }
    }

    std::vector<std::uint32_t> m_groupOfSlot;
    std::vector<Group> m_groups;
    const PartsReduction *m_parts = nullptr;
    Ranks m_ranks;
    TimeNs m_total = 0;
    std::uint64_t m_count = 0;
};

} // namespace gaplens::core::detail
