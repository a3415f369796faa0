// SPDX-License-Identifier: MIT
#pragma once
// The timeline's state lane per rank: run accounting's partition spans (core, computed once
// by the Run accounting panel's job), with what drawing needs prepared once beside them: per
// state its spans and their prefix sums, so each pixel column's dominant state costs a few
// binary searches (core::coverPerColumn) at any zoom.
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/view/cover_columns.h"
#include "gaplens/core/view/row_view.h"

#include <array>
#include <memory>
#include <vector>

namespace gaplens::ui {

class StateLanes
{
public:
    // Indexes `accounting`'s ranks by rank index (rankCount = TraceSet::ranks.size()).
    StateLanes(std::shared_ptr<const core::RunAccounting> accounting, std::size_t rankCount);

    const core::RunAccounting &accounting() const { return *m_accounting; }
    // The spans of rank `rank` (index into TraceSet::ranks); null when it has none.
    const core::RunStateSpans *spans(std::uint32_t rank) const;
    core::RowView rowView(std::uint32_t rank) const;
    // The spans of one state of the rank as cover columns; empty without spans.
    core::CoverColumns cover(std::uint32_t rank, core::RunState state) const;

private:
    struct StateColumns
    {
        std::vector<core::TimeNs> start, end, coveredBefore;
    };
    struct Lane
    {
        const core::RunStateSpans *spans = nullptr;
        std::array<StateColumns, core::kRunStateCount> byState;
    };
    std::shared_ptr<const core::RunAccounting> m_accounting;
    std::vector<Lane> m_lanes; // by rank index
};

} // namespace gaplens::ui
