// SPDX-License-Identifier: MIT
#pragma once
// Private helper of the analyses: the one rule of what an idle gap is, applied to merged busy
// intervals fed in time order (a vector of them, a streamed union, or a lane's columns).
#include "gaplens/core/model/time.h"

#include <algorithm>

namespace gaplens::core::detail {

// A gap is the hole between two consecutive merged intervals, at least minGapNs long and never
// empty; never before the first interval or after the last one.
class IdleGapFinder
{
public:
    explicit IdleGapFinder(TimeNs minGapNs)
        : m_minGapNs(minGapNs)
    {
    }

    // Busy work before the intervals to come, up to `end` (a time shard's earlier shards):
    // the first gap starts there, and what ends before it is no gap's edge.
    void continueAfter(TimeNs end)
    {
        m_havePrevious = true;
        m_previousEnd = end;
    }

    // Calls onGap(TimeRange) when the hole before `merged` is a gap.
    template <typename OnGap> void add(TimeRange merged, OnGap &&onGap)
    {
        const TimeRange gap { m_previousEnd, merged.start };
        if (m_havePrevious && gap.duration() >= m_minGapNs && gap.duration() > 0)
            onGap(gap);
        // Merged intervals come sorted and disjoint, so only continueAfter's end can be later.
        m_previousEnd = m_havePrevious ? std::max(m_previousEnd, merged.end) : merged.end;
        m_havePrevious = true;
    }

private:
    TimeNs m_minGapNs;
    bool m_havePrevious = false;
    TimeNs m_previousEnd = 0;
};

} // namespace gaplens::core::detail
