// SPDX-License-Identifier: MIT
#include "ui/timeline/statelanes.h"

#include <utility>

namespace gaplens::ui {

StateLanes::StateLanes(std::shared_ptr<const core::RunAccounting> accounting, std::size_t rankCount)
    : m_accounting(std::move(accounting))
    , m_lanes(rankCount)
{
    for (const auto &rank : m_accounting->ranks) {
        if (rank.rank >= m_lanes.size() || rank.spans.size() == 0)
            continue;
        Lane &lane = m_lanes[rank.rank];
        lane.spans = &rank.spans;
        for (auto &columns : lane.byState)
            columns.coveredBefore.push_back(0);
        for (std::size_t i = 0; i < rank.spans.size(); ++i) {
            auto &c = lane.byState[std::size_t(rank.spans.state[i])];
            c.start.push_back(rank.spans.start[i]);
            c.end.push_back(rank.spans.end[i]);
            c.coveredBefore.push_back(c.coveredBefore.back() + rank.spans.end[i] - rank.spans.start[i]);
        }
    }
}

const core::RunStateSpans *StateLanes::spans(std::uint32_t rank) const
{
    return rank < m_lanes.size() ? m_lanes[rank].spans : nullptr;
}

core::RowView StateLanes::rowView(std::uint32_t rank) const
{
    const auto *s = spans(rank);
    return s ? core::RowView { s->start, s->end, {} } : core::RowView {};
}

core::CoverColumns StateLanes::cover(std::uint32_t rank, core::RunState state) const
{
    if (!spans(rank))
        return {};
    const auto &c = m_lanes[rank].byState[std::size_t(state)];
    return { c.start, c.end, c.coveredBefore, {} };
}

} // namespace gaplens::ui
