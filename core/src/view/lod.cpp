// SPDX-License-Identifier: MIT
#include "gaplens/core/view/lod.h"

#include "gaplens/core/view/fold_index.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace gaplens::core {
namespace {

// First position in [lo, hi) where pred is false (pred true on a prefix).
template <typename Pred> std::size_t partitionPoint(std::size_t lo, std::size_t hi, Pred pred)
{
    std::size_t count = hi - lo;
    while (count > 0) {
        const std::size_t step = count / 2;
        const std::size_t mid = lo + step;
        if (pred(mid)) {
            lo = mid + 1;
            count -= step + 1;
        } else {
            count = step;
        }
    }
    return lo;
}

// The same, searching outward from lo (exponential then binary search): when the answer is
// near lo, as inside a fold, this touches a few nearby cache lines instead of log n far ones.
template <typename Pred> std::size_t gallop(std::size_t lo, std::size_t hi, Pred pred)
{
    std::size_t left = lo, probe = lo, step = 1;
    while (probe < hi && pred(probe)) {
        left = probe + 1;
        probe += step;
        step <<= 1;
    }
    return partitionPoint(left, std::min(probe, hi), pred);
}

} // namespace

PosRange visibleRange(const RowView &row, TimeNs t0, TimeNs t1)
{
    const std::size_t n = row.size();
    PosRange r;
    // Still monotone: among the events ending at t0, intervals (start < t0) come before the
    // instants at t0 in start order.
    r.first = partitionPoint(0, n, [&](std::size_t p) {
        const TimeNs end = row.endAt(p);
        return end < t0 || (end == t0 && row.startAt(p) < end);
    });
    r.last = partitionPoint(r.first, n, [&](std::size_t p) { return row.startAt(p) < t1; });
    return r;
}

void buildDrawList(
    const RowView &row, const ViewWindow &window, std::vector<DrawItem> &out, double minPx, const FoldIndex *foldIndex)
{
    out.clear();
    if (window.widthPx <= 0 || window.end <= window.start || row.size() == 0)
        return;
    const auto [begin, stop] = visibleRange(row, window.start, window.end);
    // At deep zoom minNs may round to 0; one nanosecond keeps zero-length events foldable.
    const TimeNs minNs = std::max<TimeNs>(1, TimeNs(std::llround(minPx * window.nsPerPx())));

    std::size_t p = begin;
    while (p < stop) {
        const TimeNs s = row.startAt(p);
        const TimeNs e = row.endAt(p);
        if (e - s >= minNs) {
            out.push_back({ s, e, std::uint32_t(p), std::uint32_t(p), 1 });
            ++p;
            continue;
        }
        if (foldIndex && !foldIndex->isEmpty()) {
            // Ends are sorted in a valid row: the last folded event has the largest end.
            const std::size_t q = foldIndex->nextBreak(row, p + 1, stop, minNs);
            out.push_back({ s, row.endAt(q - 1), std::uint32_t(p), std::uint32_t(q - 1), std::uint32_t(q - p) });
            p = q;
            continue;
        }
        // A fold: absorb every event that ends within minNs of the fold's end with one
        // binary search, then look at the next event only. Each round moves the fold's end
        // by at least minNs, so a fold costs (its width in pixels / minPx) searches at most.
        const std::size_t first = p;
        TimeNs lastEnd = e;
        std::size_t q = p + 1;
        while (q < stop) {
            const TimeNs limit = lastEnd + minNs;
            q = gallop(q, stop, [&](std::size_t i) { return row.endAt(i) < limit; });
            lastEnd = std::max(lastEnd, row.endAt(q - 1));
            if (q == stop)
                break;
            const TimeNs s2 = row.startAt(q);
            const TimeNs e2 = row.endAt(q);
            if (e2 - s2 < minNs && s2 - lastEnd < minNs) {
                lastEnd = std::max(lastEnd, e2);
                ++q;
                continue;
            }
            break;
        }
        out.push_back(
            { row.startAt(first), lastEnd, std::uint32_t(first), std::uint32_t(q - 1), std::uint32_t(q - first) });
        p = q;
    }
}

void unionOfRows(std::span<const RowView> rows, std::vector<TimeNs> &outStart, std::vector<TimeNs> &outEnd)
{
    outStart.clear();
    outEnd.clear();
    // k-way merge by start: each row is sorted, so a heap of row cursors keeps this
    // O(n log k) without copying every interval into one big array first.
    struct Cursor
    {
        TimeNs start;
        std::size_t row, pos;
        bool operator>(const Cursor &o) const { return start > o.start; }
    };
    std::priority_queue<Cursor, std::vector<Cursor>, std::greater<>> heap;
    for (std::size_t r = 0; r < rows.size(); ++r)
        if (rows[r].size() > 0)
            heap.push({ rows[r].startAt(0), r, 0 });
    while (!heap.empty()) {
        const Cursor c = heap.top();
        heap.pop();
        const TimeNs s = c.start;
        const TimeNs e = rows[c.row].endAt(c.pos);
        if (!outEnd.empty() && s <= outEnd.back())
            outEnd.back() = std::max(outEnd.back(), e);
        else {
            outStart.push_back(s);
            outEnd.push_back(std::max(s, e));
        }
        if (c.pos + 1 < rows[c.row].size())
            heap.push({ rows[c.row].startAt(c.pos + 1), c.row, c.pos + 1 });
    }
}

} // namespace gaplens::core
