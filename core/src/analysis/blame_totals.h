// SPDX-License-Identifier: MIT
#pragma once
// Private helper of the analyses: blame totals accumulated gap by gap, the one implementation
// behind blameGaps, totalBlame and the DerivedCapture's totals (whole capture and scoped).
#include "gaplens/core/analysis/gap_blame.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gaplens::core::detail {

inline void addTo(BlameBucket &bucket, TimeNs duration, TimeNs copyNs)
{
    ++bucket.count;
    bucket.totalNs += duration;
    bucket.copyNs += copyNs;
    bucket.longestNs = std::max(bucket.longestNs, duration);
}

// Buckets with the same key merged into the first of them (its cause, name and OS category
// kept; counts and times summed, the longest gap the longest), then sorted by totalNs desc,
// then key.
inline std::vector<BlameBucket> mergeSameKeys(std::vector<BlameBucket> rows)
{
    std::stable_sort(
        rows.begin(), rows.end(), [](const BlameBucket &a, const BlameBucket &b) { return a.key < b.key; });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (kept > 0 && rows[kept - 1].key == rows[i].key) {
            auto &into = rows[kept - 1];
            into.count += rows[i].count;
            into.totalNs += rows[i].totalNs;
            into.copyNs += rows[i].copyNs;
            into.longestNs = std::max(into.longestNs, rows[i].longestNs);
        } else {
            if (kept != i)
                rows[kept] = std::move(rows[i]);
            ++kept;
        }
    }
    rows.resize(kept);
    // Ordered by key now; stable_sort keeps that for equal totals (deterministic).
    std::stable_sort(
        rows.begin(), rows.end(), [](const BlameBucket &a, const BlameBucket &b) { return a.totalNs > b.totalNs; });
    return rows;
}

// One totals table (by cause or by phase). Buckets are found by an id made of the cause and
// StringIds, not by their key strings: every gap is added three times (GPU, rank, overall),
// and a key string each time meant a heap allocation and string compares down a std::map.
// Each bucket's string is built once, when the bucket is created.
class BucketTable
{
public:
    template <typename MakeBucket> BlameBucket &at(std::uint64_t id, MakeBucket makeBucket)
    {
        const auto [it, isNew] = m_indexById.try_emplace(id, std::uint32_t(m_buckets.size()));
        if (isNew)
            m_buckets.push_back(makeBucket());
        return m_buckets[it->second];
    }

    // Sorted by totalNs desc, then key. Distinct ids can share a key string (an API named like
    // a cause label, an NVTX range named "(none)"): such buckets merge into the one seen first,
    // exactly as accumulating by the string would have.
    std::vector<BlameBucket> sorted() { return mergeSameKeys(std::move(m_buckets)); }

private:
    std::vector<BlameBucket> m_buckets;
    std::unordered_map<std::uint64_t, std::uint32_t> m_indexById;
};

// Accumulates totals gap by gap, so per-GPU, per-rank and overall totals need no copies of the gaps.
class TotalsAccumulator
{
public:
    explicit TotalsAccumulator(const TraceSet &trace)
        : m_trace(trace)
    {
    }

    void add(const GapBlame &g)
    {
        const TimeNs d = g.gap.duration();
        ++m_totals.gapCount;
        m_totals.totalGapNs += d;
        m_totals.copyNs += g.copyNs;
        if (g.cause == GapCause::Copy)
            m_totals.copyCauseNs += d;

        const StringId apiName = g.cause == GapCause::ApiCall ? g.apiName : kEmptyString;
        addTo(m_byCause.at((std::uint64_t(g.cause) << 32) | apiName,
                  [&] {
                      BlameBucket bucket;
                      bucket.key = std::string(gapCauseKey(m_trace, g));
                      bucket.cause = g.cause;
                      bucket.name = apiName;
                      return bucket;
                  }),
            d, g.copyNs);

        const bool hasPhase = !g.phaseStack.empty();
        const StringId phase = m_trace.nvtxGroup(g.phase());
        addTo(m_byPhase.at((std::uint64_t(hasPhase) << 32) | phase,
                  [&] {
                      BlameBucket bucket;
                      bucket.key = std::string(gapPhaseKey(m_trace, g));
                      bucket.name = phase;
                      return bucket;
                  }),
            d, g.copyNs);

        const bool hasOsCall = g.osCall != kEmptyString;
        addTo(m_byOsCall.at((std::uint64_t(hasOsCall) << 32) | g.osCall,
                  [&] {
                      BlameBucket bucket;
                      bucket.key = std::string(gapOsCallKey(m_trace, g));
                      bucket.name = g.osCall;
                      bucket.osCategory = g.osCategory;
                      return bucket;
                  }),
            d, g.copyNs);
        addTo(m_byOsCategory.at(std::uint64_t(g.osCategory),
                  [&] {
                      BlameBucket bucket;
                      bucket.key = std::string(gapOsCategoryKey(g));
                      bucket.osCategory = g.osCategory;
                      return bucket;
                  }),
            d, g.copyNs);
    }

    BlameTotals finish()
    {
        m_totals.byCause = m_byCause.sorted();
        m_totals.byPhase = m_byPhase.sorted();
        m_totals.byOsCall = m_byOsCall.sorted();
        m_totals.byOsCategory = m_byOsCategory.sorted();
        return std::move(m_totals);
    }

private:
    const TraceSet &m_trace;
    BlameTotals m_totals;
    BucketTable m_byCause, m_byPhase, m_byOsCall, m_byOsCategory;
};

// The GPUs a GapBlameOptions::gpus list analyses: ascending, each once, those of the trace;
// every GPU when the list is empty.
inline std::vector<std::uint32_t> analysedGpus(const TraceSet &trace, std::vector<std::uint32_t> gpus)
{
    if (gpus.empty())
        for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
            gpus.push_back(g);
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    std::erase_if(gpus, [&](std::uint32_t g) { return g >= trace.gpus.size(); });
    return gpus;
}

// The totals of a GapBlameReport, for gaps added GPU by GPU (ascending GPU index, each GPU's
// gaps in time order): per GPU, per rank (ranks with a gap) and overall.
class ReportTotals
{
public:
    explicit ReportTotals(const TraceSet &trace)
        : m_trace(trace)
        , m_overall(trace)
    {
    }

    void beginGpu(std::uint32_t gpu)
    {
        m_gpu = gpu;
        m_gpuTotals.emplace(m_trace);
    }
    void add(const GapBlame &gap)
    {
        m_gpuTotals->add(gap);
        m_overall.add(gap);
        if (gap.rank != kNoIndex)
            m_byRank.try_emplace(gap.rank, m_trace).first->second.add(gap);
    }
    void endGpu()
    {
        m_perGpu.push_back({ m_gpu, m_gpuTotals->finish() });
        m_gpuTotals.reset();
    }
    void finish(std::vector<GpuBlameTotals> &perGpu, std::vector<RankBlameTotals> &perRank, BlameTotals &overall)
    {
        perGpu = std::move(m_perGpu);
        perRank.clear();
        for (auto &[rank, totals] : m_byRank)
            perRank.push_back({ rank, totals.finish() });
        overall = m_overall.finish();
    }

private:
    const TraceSet &m_trace;
    std::uint32_t m_gpu = kNoIndex;
    std::optional<TotalsAccumulator> m_gpuTotals;
    TotalsAccumulator m_overall;
    std::map<std::uint32_t, TotalsAccumulator> m_byRank;
    std::vector<GpuBlameTotals> m_perGpu;
};

} // namespace gaplens::core::detail
