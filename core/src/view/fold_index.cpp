// SPDX-License-Identifier: MIT
#include "gaplens/core/view/fold_index.h"

#include <algorithm>

namespace gaplens::core {

namespace {

// Why a fold would stop at position p (p >= 1): p is wide itself, or a hole separates it
// from the event before (ends are sorted, so that event has the largest end so far).
inline TimeNs breakKey(const RowView &row, std::size_t p)
{
    const TimeNs s = row.startAt(p);
    return std::max(row.endAt(p) - s, s - row.endAt(p - 1));
}

// Below this many events a row is scanned directly: the index would not pay for itself.
constexpr std::size_t kMinIndexedEvents = 4 * FoldIndex::kFanout;

} // namespace

FoldIndex::FoldIndex(const RowView &row)
{
    const std::size_t n = row.size();
    if (n < kMinIndexedEvents)
        return;
    std::vector<TimeNs> blocks((n + kFanout - 1) / kFanout);
    // Position 0 has no predecessor; it never ends a fold (searches start at 1), so its key
    // is only its width.
    TimeNs blockMax = row.endAt(0) - row.startAt(0);
    for (std::size_t p = 1; p < n; ++p) {
        if (p % kFanout == 0) {
            blocks[p / kFanout - 1] = blockMax;
            blockMax = breakKey(row, p);
        } else {
            blockMax = std::max(blockMax, breakKey(row, p));
        }
    }
    blocks.back() = blockMax;
    m_levels.push_back(std::move(blocks));
    while (m_levels.back().size() > kFanout) {
        const auto &below = m_levels.back();
        std::vector<TimeNs> above((below.size() + kFanout - 1) / kFanout);
        for (std::size_t b = 0; b < below.size(); ++b)
            above[b / kFanout] = b % kFanout == 0 ? below[b] : std::max(above[b / kFanout], below[b]);
        m_levels.push_back(std::move(above));
    }
}

std::size_t FoldIndex::nextBreak(const RowView &row, std::size_t from, std::size_t stop, TimeNs minNs) const
{
    auto scanEvents = [&](std::size_t p, std::size_t end) {
        for (; p < end; ++p)
            if (breakKey(row, p) >= minNs)
                return p;
        return end;
    };
    if (m_levels.empty())
        return scanEvents(from, stop);
    // The rest of from's block, event by event.
    const std::size_t blockEnd = std::min(stop, (from / kFanout + 1) * kFanout);
    std::size_t p = scanEvents(from, blockEnd);
    if (p < blockEnd || blockEnd == stop)
        return p;
    // Climb: at each level, the rest of the current group of 64; a whole group below the
    // key sends the search one level up, to the next group.
    std::size_t level = 0, b = blockEnd / kFanout;
    std::size_t eventsPerEntry = kFanout; // at the current level
    for (;;) {
        const auto &maxima = m_levels[level];
        const std::size_t groupEnd = std::min(maxima.size(), (b / kFanout + 1) * kFanout);
        while (b < groupEnd && maxima[b] < minNs)
            ++b;
        if (b < groupEnd)
            break;
        if (b >= maxima.size() || level + 1 == m_levels.size())
            return stop;
        b /= kFanout;
        ++level;
        eventsPerEntry *= kFanout;
        if (b * eventsPerEntry >= stop)
            return stop; // the next entry starts past the visible events
    }
    // Descend into the first block whose maximum reaches the key; it has such a child.
    while (level > 0) {
        --level;
        const auto &maxima = m_levels[level];
        b *= kFanout;
        while (maxima[b] < minNs)
            ++b;
    }
    const std::size_t first = b * kFanout;
    if (first >= stop)
        return stop;
    return scanEvents(first, std::min(stop, first + kFanout));
}

} // namespace gaplens::core
