// SPDX-License-Identifier: MIT
// NVTX step tables: the pure computation, and DerivedCapture's memo of them.
#include "gaplens/core/analysis/derived_capture.h"

#include "step_memo.h"

#include <algorithm>

namespace gaplens::core {

std::optional<TimeNs> StepTable::occurrenceStart(RankIndex rank, std::size_t occurrence) const
{
    if (!rank.isValid() || rank.value() >= startsByRank.size() || occurrence == 0)
        return std::nullopt;
    const auto &starts = startsByRank[rank.value()];
    if (occurrence > starts.size())
        return std::nullopt;
    return starts[occurrence - 1];
}

std::optional<StepTable::Anchor> StepTable::firstRankOccurrence(std::size_t occurrence) const
{
    for (std::uint32_t r = 0; r < startsByRank.size(); ++r)
        if (const auto start = occurrenceStart(RankIndex(r), occurrence))
            return Anchor { RankIndex(r), *start };
    return std::nullopt;
}

StepTable computeStepTable(const TraceSet &trace, StringId name)
{
    StepTable table;
    table.name = name;
    table.startsByRank.resize(trace.ranks.size());
    for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
        auto &starts = table.startsByRank[r];
        for (auto th : trace.ranks[r].threads) {
            const auto &nvtx = trace.threads[th].nvtx;
            for (std::size_t i = 0; i < nvtx.size(); ++i)
                if (trace.isInNvtxGroup(nvtx.name[i], name))
                    starts.push_back(nvtx.start[i]);
        }
        // Each thread's ranges are in start order, but the rank's threads interleave.
        std::sort(starts.begin(), starts.end());
    }
    return table;
}

std::shared_ptr<const StepTable> DerivedCapture::stepTable(StringId name) const
{
    std::shared_ptr<StepMemo::Entry> entry;
    {
        std::lock_guard lock(m_steps->mutex);
        auto &slot = m_steps->byName[name];
        if (!slot)
            slot = std::make_shared<StepMemo::Entry>();
        entry = slot;
    }
    std::call_once(
        entry->once, [&] { entry->table = std::make_shared<const StepTable>(computeStepTable(*m_trace, name)); });
    return entry->table;
}

std::shared_ptr<const StepTable> DerivedCapture::stepTable(std::string_view name) const
{
    const StringId id = m_trace->strings.find(name);
    if (id != kEmptyString)
        return stepTable(id);
    auto &entry = m_steps->unknownName;
    std::call_once(entry.once, [&] {
        auto table = std::make_shared<StepTable>();
        table->startsByRank.resize(m_trace->ranks.size());
        entry.table = std::move(table);
    });
    return entry.table;
}

} // namespace gaplens::core
