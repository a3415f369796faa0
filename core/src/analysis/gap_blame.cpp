// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/gap_blame.h"

#include <algorithm>
#include <map>

namespace gaplens::core {
namespace {

std::uint64_t processKey(std::uint32_t report, std::uint32_t pid)
{
    return (std::uint64_t(report) << 32) | pid;
}

// First event of a track sorted by start that starts exactly at t, or kNoIndex.
std::uint32_t startingAt(const std::vector<TimeNs> &start, TimeNs t)
{
    auto it = std::lower_bound(start.begin(), start.end(), t);
    return it != start.end() && *it == t ? std::uint32_t(it - start.begin()) : kNoIndex;
}

std::vector<BlameBucket> sortedBuckets(std::map<std::string, BlameBucket> &byKey)
{
    std::vector<BlameBucket> rows;
    rows.reserve(byKey.size());
    for (auto &[key, bucket] : byKey)
        rows.push_back(std::move(bucket));
    // The map already ordered by key; stable_sort keeps that for equal totals (deterministic).
    std::stable_sort(rows.begin(), rows.end(),
                     [](const BlameBucket &a, const BlameBucket &b) { return a.totalNs > b.totalNs; });
    return rows;
}

void addTo(BlameBucket &bucket, TimeNs duration)
{
    ++bucket.count;
    bucket.totalNs += duration;
    bucket.longestNs = std::max(bucket.longestNs, duration);
}

} // namespace

std::string_view gapCauseLabel(GapCause cause)
{
    switch (cause) {
    case GapCause::QueuedDependencyWait: return "queued (dependency wait)";
    case GapCause::ApiCall: return "CUDA API call";
    case GapCause::NoCudaCall: return "no CUDA call (host busy elsewhere)";
    }
    return "unknown";
}

GapBlamer::GapBlamer(const TraceSet &trace)
    : m_trace(trace)
{
    m_processThreads.reserve(trace.threads.size());
    for (std::uint32_t t = 0; t < trace.threads.size(); ++t)
        m_processThreads.push_back({processKey(trace.threads[t].report, trace.threads[t].pid), t});
    std::sort(m_processThreads.begin(), m_processThreads.end(), [](const ProcessThread &a, const ProcessThread &b) {
        return a.key != b.key ? a.key < b.key : a.thread < b.thread;
    });
}

std::uint32_t GapBlamer::rankOf(std::uint32_t report, std::uint32_t pid) const
{
    for (std::uint32_t r = 0; r < m_trace.ranks.size(); ++r)
        if (m_trace.ranks[r].report == report && m_trace.ranks[r].pid == pid)
            return r;
    return kNoIndex;
}

GapBlame GapBlamer::blame(std::uint32_t gpuIndex, TimeRange gap, bool includeCopies) const
{
    GapBlame b;
    b.gpu = gpuIndex;
    b.gap = gap;
    b.midpoint = gap.start + gap.duration() / 2;
    if (gpuIndex >= m_trace.gpus.size())
        return b;
    const Gpu &gpu = m_trace.gpus[gpuIndex];

    for (std::uint32_t s = 0; s < gpu.streams.size() && b.endKind == GapEndKind::Unknown; ++s) {
        const auto &k = gpu.streams[s].kernels;
        const auto i = startingAt(k.start, gap.end);
        if (i == kNoIndex)
            continue;
        b.endKind = GapEndKind::Kernel;
        b.endStream = s;
        b.endEvent = i;
        b.endPid = gpu.streams[s].pid;
        b.endCorrelationId = k.correlationId.empty() ? 0 : k.correlationId[i];
        b.rank = gpu.streams[s].rank;
    }
    // Copies can end a gap only when they were part of the busy union.
    if (b.endKind == GapEndKind::Unknown && includeCopies) {
        const auto i = startingAt(gpu.copies.start, gap.end);
        if (i != kNoIndex) {
            b.endKind = GapEndKind::Copy;
            b.endEvent = i;
            b.endPid = gpu.copies.pid[i];
            b.endCorrelationId = gpu.copies.correlationId[i];
            b.rank = rankOf(gpu.report, b.endPid);
        }
    }
    if (b.endKind == GapEndKind::Unknown)
        return b; // nothing starts at gap.end: not a gap of this GPU

    std::vector<std::uint32_t> open;
    const LaunchRef *launch = m_trace.findLaunch(gpu.report, b.endPid, b.endCorrelationId);
    if (launch) {
        b.launchThread = launch->thread;
        b.launchCall = launch->call;
        b.phaseThread = launch->thread;
        const Thread &thread = m_trace.threads[launch->thread];
        if (thread.api.end[launch->call] <= gap.start) {
            b.cause = GapCause::QueuedDependencyWait;
        } else {
            thread.api.nesting.openAt(thread.api.start, thread.api.end, b.midpoint, open);
            if (!open.empty()) {
                b.cause = GapCause::ApiCall;
                b.apiThread = launch->thread;
                b.apiCall = open.front(); // outermost: the runtime call, not the driver call inside
            }
        }
    } else {
        // Unknown launcher: any thread of the process may be the one blocking; the call that
        // started first is the one the gap waited on longest.
        const auto key = processKey(gpu.report, b.endPid);
        auto it = std::lower_bound(m_processThreads.begin(), m_processThreads.end(), key,
                                   [](const ProcessThread &p, std::uint64_t k) { return p.key < k; });
        for (; it != m_processThreads.end() && it->key == key; ++it) {
            const Thread &thread = m_trace.threads[it->thread];
            thread.api.nesting.openAt(thread.api.start, thread.api.end, b.midpoint, open);
            if (open.empty())
                continue;
            const TimeNs start = thread.api.start[open.front()];
            if (b.apiThread == kNoIndex || start < m_trace.threads[b.apiThread].api.start[b.apiCall]) {
                b.apiThread = it->thread;
                b.apiCall = open.front();
            }
        }
        if (b.apiThread != kNoIndex) {
            b.cause = GapCause::ApiCall;
            b.phaseThread = b.apiThread;
        } else {
            for (it = std::lower_bound(m_processThreads.begin(), m_processThreads.end(), key,
                                       [](const ProcessThread &p, std::uint64_t k) { return p.key < k; });
                 it != m_processThreads.end() && it->key == key; ++it)
                if (m_trace.threads[it->thread].tid == b.endPid) {
                    b.phaseThread = it->thread;
                    break;
                }
        }
    }
    if (b.apiThread != kNoIndex)
        b.apiName = m_trace.threads[b.apiThread].api.name[b.apiCall];

    if (b.phaseThread != kNoIndex) {
        const auto &nvtx = m_trace.threads[b.phaseThread].nvtx;
        nvtx.nesting.openAt(nvtx.start, nvtx.end, b.midpoint, b.phaseRanges);
        b.phaseStack.reserve(b.phaseRanges.size());
        for (auto r : b.phaseRanges)
            b.phaseStack.push_back(nvtx.name[r]);
    }
    return b;
}

namespace {

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

        std::string causeKey = g.cause == GapCause::ApiCall && g.apiName != kEmptyString
                                   ? m_trace.str(g.apiName)
                                   : std::string(gapCauseLabel(g.cause));
        auto [cit, causeNew] = m_byCause.try_emplace(causeKey);
        if (causeNew) {
            cit->second.key = std::move(causeKey);
            cit->second.cause = g.cause;
            cit->second.name = g.cause == GapCause::ApiCall ? g.apiName : kEmptyString;
        }
        addTo(cit->second, d);

        const StringId phase = m_trace.nvtxGroup(g.phase());
        std::string phaseKey = g.phaseStack.empty() ? std::string(kNoPhaseLabel) : m_trace.str(phase);
        auto [pit, phaseNew] = m_byPhase.try_emplace(phaseKey);
        if (phaseNew) {
            pit->second.key = std::move(phaseKey);
            pit->second.name = phase;
        }
        addTo(pit->second, d);
    }

    BlameTotals finish()
    {
        m_totals.byCause = sortedBuckets(m_byCause);
        m_totals.byPhase = sortedBuckets(m_byPhase);
        return std::move(m_totals);
    }

private:
    const TraceSet &m_trace;
    BlameTotals m_totals;
    std::map<std::string, BlameBucket> m_byCause, m_byPhase;
};

} // namespace

BlameTotals totalBlame(const TraceSet &trace, const std::vector<GapBlame> &gaps)
{
    TotalsAccumulator acc(trace);
    for (const auto &g : gaps)
        acc.add(g);
    return acc.finish();
}

GapBlameReport blameGaps(const TraceSet &trace, const GapBlameOptions &options)
{
    GapBlameReport report;
    GapBlamer blamer(trace);
    std::vector<std::uint32_t> gpus = options.gpus;
    if (gpus.empty())
        for (std::uint32_t g = 0; g < trace.gpus.size(); ++g)
            gpus.push_back(g);
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());

    const GpuBusyOptions busyOptions{options.includeCopies, options.window};
    for (auto g : gpus) {
        if (g >= trace.gpus.size())
            continue;
        const auto gaps = findIdleGaps(computeGpuBusy(trace, g, busyOptions), options.minGapNs);
        TotalsAccumulator gpuTotals(trace);
        for (const auto &gap : gaps.gaps) {
            report.gaps.push_back(blamer.blame(g, gap, options.includeCopies));
            gpuTotals.add(report.gaps.back());
        }
        report.perGpu.push_back({g, gpuTotals.finish()});
    }

    std::map<std::uint32_t, TotalsAccumulator> byRank;
    TotalsAccumulator overall(trace);
    for (const auto &b : report.gaps) {
        overall.add(b);
        if (b.rank != kNoIndex)
            byRank.try_emplace(b.rank, trace).first->second.add(b);
    }
    for (auto &[rank, acc] : byRank)
        report.perRank.push_back({rank, acc.finish()});
    report.overall = overall.finish();
    return report;
}

} // namespace gaplens::core
