// SPDX-License-Identifier: MIT
#include "ui/timeline/foldindex.h"

#include <algorithm>
#include <cmath>

namespace gaplens::ui {

using core::TimeNs;

namespace {

// Why a fold would stop at position p (p >= 1): p is wide itself, or a hole separates it
// from the event before (ends are sorted, so that event has the largest end so far).
inline TimeNs breakKey(const core::RowView &row, std::size_t p)
{
    const TimeNs s = row.startAt(p);
    return std::max(row.endAt(p) - s, s - row.endAt(p - 1));
}

// Below this many events a row is scanned directly: the index would not pay for itself.
constexpr std::size_t kMinIndexedEvents = 4 * RowFoldIndex::kFanout;

} // namespace

RowFoldIndex::RowFoldIndex(const core::RowView &row)
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

std::size_t RowFoldIndex::nextBreak(const core::RowView &row, std::size_t from, std::size_t stop, TimeNs minNs) const
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

void buildIndexedDrawList(const core::RowView &row, const RowFoldIndex &index, const core::ViewWindow &window,
                          std::vector<core::DrawItem> &out, double minPx)
{
    out.clear();
    if (window.widthPx <= 0 || window.end <= window.start || row.size() == 0)
        return;
    const auto [begin, stop] = core::visibleRange(row, window.start, window.end);
    // As core::buildDrawList: one nanosecond at least keeps zero-length events foldable.
    const TimeNs minNs = std::max<TimeNs>(1, TimeNs(std::llround(minPx * window.nsPerPx())));
    std::size_t p = begin;
    while (p < stop) {
        const TimeNs s = row.startAt(p);
        const TimeNs e = row.endAt(p);
        if (e - s >= minNs) {
            out.push_back({s, e, std::uint32_t(p), std::uint32_t(p), 1});
            ++p;
            continue;
        }
        const std::size_t q = index.nextBreak(row, p + 1, stop, minNs);
        out.push_back({s, row.endAt(q - 1), std::uint32_t(p), std::uint32_t(q - 1), std::uint32_t(q - p)});
        p = q;
    }
}

std::shared_ptr<const TimelineFoldIndex> buildTimelineFoldIndex(const core::TraceSet &trace, const std::atomic<bool> &cancelled)
{
    auto index = std::make_shared<TimelineFoldIndex>();
    auto levels = [](const auto &columns, std::vector<RowFoldIndex> &out) {
        const auto &nesting = columns.nesting;
        out.reserve(nesting.levelCount());
        for (std::size_t d = 0; d < nesting.levelCount(); ++d)
            out.emplace_back(core::RowView{columns.start, columns.end, nesting.level(d)});
    };
    index->streams.resize(trace.gpus.size());
    index->copies.resize(trace.gpus.size());
    for (std::size_t g = 0; g < trace.gpus.size(); ++g) {
        const auto &gpu = trace.gpus[g];
        for (const auto &stream : gpu.streams)
            index->streams[g].emplace_back(core::RowView{stream.kernels.start, stream.kernels.end, {}});
        levels(gpu.copies, index->copies[g]);
        if (cancelled.load(std::memory_order_relaxed))
            return nullptr;
    }
    index->nvtx.resize(trace.threads.size());
    index->api.resize(trace.threads.size());
    for (std::size_t t = 0; t < trace.threads.size(); ++t) {
        levels(trace.threads[t].nvtx, index->nvtx[t]);
        levels(trace.threads[t].api, index->api[t]);
        if (cancelled.load(std::memory_order_relaxed))
            return nullptr;
    }
    return index;
}

} // namespace gaplens::ui
