// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/derived_capture.h"

#include "blame_totals.h"
#include "gpu_union.h"
#include "idle_gaps.h"
#include "step_memo.h"

#include "gaplens/core/util/memory_limit.h"
#include "gaplens/core/util/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace gaplens::core {
namespace {

bool isCancelled(const CancelToken *cancel)
{
    return cancel && cancel->isCancelled();
}

// prefix[i] = summed end - start of the first i intervals.
std::vector<TimeNs> prefixDurations(const std::vector<TimeNs> &start, const std::vector<TimeNs> &end)
{
    std::vector<TimeNs> prefix(start.size() + 1, 0);
    for (std::size_t i = 0; i < start.size(); ++i)
        prefix[i + 1] = prefix[i] + (end[i] - start[i]);
    return prefix;
}

// A stream's kernels (sorted by start; programmatic dependent launch lets them overlap) as
// merged intervals with prefix sums.
void mergeStreamKernels(const KernelColumns &kernels, GpuBusyLane::StreamLane &out)
{
    for (std::size_t k = 0; k < kernels.start.size(); ++k) {
        const TimeNs s = kernels.start[k], e = kernels.end[k];
        if (e <= s)
            continue;
        if (!out.end.empty() && s <= out.end.back())
            out.end.back() = std::max(out.end.back(), e);
        else {
            out.start.push_back(s);
            out.end.push_back(e);
        }
    }
    out.busyBefore = prefixDurations(out.start, out.end);
    out.coarseStart = coarseStarts(out.start);
}

// Every GPU's busy union through computeGpuBusy's own merge, kept as columns.
std::shared_ptr<const BusyLanes> computeBusyLanes(const TraceSet &trace, bool includeCopies, const CancelToken *cancel)
{
    auto lanes = std::make_shared<BusyLanes>();
    lanes->gpus.resize(trace.gpus.size());
    GpuBusyOptions options;
    options.includeCopies = includeCopies;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        auto &lane = lanes->gpus[g];
        lane.gpu = GpuIndex(g);
        GpuBusy busy;
        const bool finished = detail::computeGpuBusyInto(
            trace, g, options, busy,
            [&](TimeRange merged) {
                lane.start.push_back(merged.start);
                lane.end.push_back(merged.end);
            },
            cancel);
        if (!finished || isCancelled(cancel))
            return nullptr;
        lane.busyNs = busy.busyNs;
        lane.window = busy.window;
        lane.busyPercent = busy.busyPercent;
        lane.streams = std::move(busy.streams);
        lane.busyBefore = prefixDurations(lane.start, lane.end);
        lane.coarseStart = coarseStarts(lane.start);
        const auto &streams = trace.gpus[g].streams;
        if (streams.size() == 1 && !includeCopies)
            continue; // the stream's union is the GPU's
        lane.streamLanes.resize(streams.size());
        for (std::size_t s = 0; s < streams.size(); ++s)
            mergeStreamKernels(streams[s].kernels, lane.streamLanes[s]);
    }
    return lanes;
}

// Each distinct key once, in the order first seen.
class KeyTable
{
public:
    explicit KeyTable(std::vector<std::string> &keys)
        : m_keys(keys)
    {
    }

    // `key` points into the trace's strings or a static label, so it outlives the table.
    BlameKeyIndex indexOf(std::string_view key)
    {
        const auto [it, isNew] = m_index.try_emplace(key, std::uint32_t(m_keys.size()));
        if (isNew)
            m_keys.emplace_back(key);
        return BlameKeyIndex(it->second);
    }

private:
    std::vector<std::string> &m_keys;
    std::unordered_map<std::string_view, std::uint32_t> m_index;
};

BlameKeyIndex findKey(const std::vector<std::string> &keys, std::string_view key)
{
    const auto it = std::find(keys.begin(), keys.end(), key);
    return it == keys.end() ? BlameKeyIndex() : BlameKeyIndex(std::uint32_t(it - keys.begin()));
}

// Empty when the projected NVTX rows fit in the memory left, else why they are left out.
std::string projectionWontFit(const TraceSet &trace, const DerivedOptions &options)
{
    const auto ranges = projectableNvtxRangesOfLargestReport(trace);
    if (ranges > std::numeric_limits<std::uint32_t>::max())
        return fmt::format("The projected NVTX rows under the GPUs were not built: a report has {} NVTX ranges on "
                           "threads that call CUDA, more than the rows can number (2^32)",
            ranges);
    const std::uint64_t need = projectedNvtxPeakBytes(trace);
    if (options.projectionMemoryLimit != 0)
        return need <= options.projectionMemoryLimit
            ? std::string()
            : fmt::format("The projected NVTX rows under the GPUs were not built: they need up to {}, over the "
                          "limit of {}",
                formatBytes(need), formatBytes(options.projectionMemoryLimit));
    const auto headroom = tightestMemoryHeadroom();
    if (!headroom || need <= headroom->bytes)
        return {};
    return fmt::format("The projected NVTX rows under the GPUs were not built: they need up to {}, but only {} "
                       "is available ({})",
        formatBytes(need), formatBytes(headroom->bytes), headroom->source);
}

} // namespace

std::vector<GpuIndex> gpusOfRanks(const TraceSet &trace, const RankSelection &ranks)
{
    std::vector<GpuIndex> gpus;
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        const auto &used = trace.gpus[g].ranks;
        if (ranks.isAll() || std::any_of(used.begin(), used.end(), [&](std::uint32_t r) { return ranks.includes(r); }))
            gpus.push_back(GpuIndex(g));
    }
    return gpus;
}

DerivedCapture::DerivedCapture() = default;
DerivedCapture::~DerivedCapture() = default;

std::shared_ptr<const DerivedCapture> DerivedCapture::build(std::shared_ptr<const TraceSet> trace,
    const DerivedOptions &options, const CancelToken *cancel, const DerivedCapture *previous)
{
    std::shared_ptr<DerivedCapture> derived(new DerivedCapture());
    derived->m_trace = trace ? std::move(trace) : std::make_shared<const TraceSet>();
    derived->m_options = options;
    if (previous && previous->m_trace == derived->m_trace) {
        if (previous->m_options.includeCopies == options.includeCopies)
            derived->m_busy = previous->m_busy;
        derived->m_folds = previous->m_folds;
        derived->m_projectedNvtx = previous->m_projectedNvtx;
        derived->m_memory = previous->m_memory;
        derived->m_steps = previous->m_steps;
    }
    if (!derived->m_steps)
        derived->m_steps = std::make_shared<StepMemo>();
    if (!derived->m_busy) {
        derived->m_busy = computeBusyLanes(*derived->m_trace, options.includeCopies, cancel);
        if (!derived->m_busy)
            return nullptr;
    }
    // Gaps before the fold index: a view waits for gap bands, while the fold index only makes
    // frames cheaper (and is built once per trace).
    if (!derived->deriveGaps(cancel))
        return nullptr;
    if (!derived->m_folds && options.foldIndexes) {
        derived->m_folds = buildCaptureFoldIndex(*derived->m_trace, cancel);
        if (!derived->m_folds)
            return nullptr;
    }
    if (!derived->m_projectedNvtx && options.foldIndexes) {
        derived->m_projectionSkipped = projectionWontFit(*derived->m_trace, options);
        if (derived->m_projectionSkipped.empty()) {
            derived->m_projectedNvtx = projectNvtxOntoGpus(*derived->m_trace, true, cancel);
            if (!derived->m_projectedNvtx)
                return nullptr;
        }
    }
    if (!derived->m_memory)
        derived->m_memory = std::make_shared<const GpuMemoryUsage>(computeGpuMemoryUsage(*derived->m_trace));
    return derived;
}

bool DerivedCapture::deriveGaps(const CancelToken *cancel)
{
    const TraceSet &trace = *m_trace;
    const GapBlamer blamer(trace, &m_options.earlierShards);
    GapBlamer::SearchCursor cursor; // a GPU's gaps come in time order: each search is short
    detail::ReportTotals totals(trace);
    KeyTable causeKeys(m_causeKeys), phaseKeys(m_phaseKeys);
    m_gaps.resize(trace.gpus.size());
    for (std::uint32_t g = 0; g < trace.gpus.size(); ++g) {
        const GpuBusyLane &lane = m_busy->gpus[g];
        GpuGapTable &table = m_gaps[g];
        table.gpu = GpuIndex(g);
        detail::IdleGapFinder finder(m_options.minGapNs);
        if (const auto until = m_options.earlierShards.busyUntilOf(g))
            finder.continueAfter(*until);
        // A big capture has millions of intervals and a million gaps, each blamed with a few
        // searches: look at the cancel flag every few thousand, not only between GPUs.
        for (std::size_t i = 0; i < lane.size(); ++i) {
            if (i % detail::kCancelCheckEvery == 0 && isCancelled(cancel))
                return false;
            finder.add(lane.interval(i), [&](TimeRange gap) {
                table.start.push_back(gap.start);
                table.end.push_back(gap.end);
            });
        }
        table.blame.reserve(table.size());
        table.causeKey.reserve(table.size());
        table.phaseKey.reserve(table.size());
        totals.beginGpu(g);
        for (std::size_t k = 0; k < table.size(); ++k) {
            if (k % detail::kCancelCheckEvery == 0 && isCancelled(cancel))
                return false;
            const GapBlame &blame
                = table.blame.emplace_back(blamer.blame(g, table.range(k), m_options.includeCopies, cursor));
            table.causeKey.push_back(causeKeys.indexOf(gapCauseKey(trace, blame)));
            table.phaseKey.push_back(phaseKeys.indexOf(gapPhaseKey(trace, blame)));
            totals.add(blame);
        }
        totals.endGpu();
        table.idleBefore = prefixDurations(table.start, table.end);
        table.totalNs = table.idleBefore.back();
        table.idleBeforeByCause.assign(table.size() + 1, {});
        for (std::size_t k = 0; k < table.size(); ++k) {
            table.idleBeforeByCause[k + 1] = table.idleBeforeByCause[k];
            table.idleBeforeByCause[k + 1][std::size_t(table.blame[k].cause)] += table.end[k] - table.start[k];
        }
    }
    totals.finish(m_perGpu, m_perRank, m_overall);
    return !isCancelled(cancel);
}

GapCause GpuGapTable::dominantCause(std::uint32_t first, std::uint32_t last) const
{
    std::size_t best = 0;
    TimeNs bestNs = -1;
    for (std::size_t c = 0; c < kGapCauseCount; ++c) {
        const TimeNs ns = idleBeforeByCause[last + 1][c] - idleBeforeByCause[first][c];
        if (ns > bestNs) {
            bestNs = ns;
            best = c;
        }
    }
    return GapCause(best);
}

CoverColumns GpuBusyLane::streamCover(std::size_t stream) const
{
    if (streamLanes.empty())
        return stream < streams.size() ? cover() : CoverColumns {};
    if (stream >= streamLanes.size())
        return {};
    const auto &lane = streamLanes[stream];
    return { lane.start, lane.end, lane.busyBefore, lane.coarseStart };
}

BusyFigures DerivedCapture::busyIn(GpuIndex gpu, const TimeWindow &window) const
{
    BusyFigures figures;
    if (!gpu.isValid() || gpu.value() >= m_busy->gpus.size())
        return figures;
    const GpuBusyLane &lane = m_busy->gpus[gpu.value()];
    if (!window) {
        figures.busyNs = lane.busyNs;
        figures.window = lane.window;
        figures.busyPercent = lane.busyPercent;
        return figures;
    }
    if (window->start >= window->end)
        return figures; // every interval clips to nothing
    // Merged intervals that keep a non-empty part in the window: end > start and start < end.
    const auto first
        = std::size_t(std::upper_bound(lane.end.begin(), lane.end.end(), window->start) - lane.end.begin());
    const auto last
        = std::size_t(std::lower_bound(lane.start.begin(), lane.start.end(), window->end) - lane.start.begin());
    if (first >= last)
        return figures;
    figures.window = { std::max(lane.start[first], window->start), std::min(lane.end[last - 1], window->end) };
    figures.busyNs = lane.busyBefore[last] - lane.busyBefore[first]
        - std::max<TimeNs>(window->start - lane.start[first], 0)
        - std::max<TimeNs>(lane.end[last - 1] - window->end, 0);
    figures.busyPercent = busyPercentOf(figures.busyNs, figures.window);
    return figures;
}

std::size_t DerivedCapture::gapCount() const
{
    std::size_t n = 0;
    for (const auto &table : m_gaps)
        n += table.size();
    return n;
}

std::optional<GapId> DerivedCapture::findGap(GpuIndex gpu, TimeRange range) const
{
    if (!gpu.isValid() || gpu.value() >= m_gaps.size())
        return std::nullopt;
    const auto &table = m_gaps[gpu.value()];
    const auto i
        = std::size_t(std::lower_bound(table.start.begin(), table.start.end(), range.start) - table.start.begin());
    if (i < table.size() && table.start[i] == range.start && table.end[i] == range.end)
        return GapId { gpu, std::uint32_t(i) };
    return std::nullopt;
}

std::optional<GapId> DerivedCapture::gapAt(GpuIndex gpu, TimeNs t) const
{
    if (!gpu.isValid() || gpu.value() >= m_gaps.size())
        return std::nullopt;
    const auto &table = m_gaps[gpu.value()];
    const auto after = std::size_t(std::upper_bound(table.start.begin(), table.start.end(), t) - table.start.begin());
    if (after > 0 && t < table.end[after - 1])
        return GapId { gpu, std::uint32_t(after - 1) };
    return std::nullopt;
}

GapRange DerivedCapture::gapsIn(GpuIndex gpu, const TimeWindow &window) const
{
    GapRange range;
    range.gpu = gpu;
    if (!gpu.isValid() || gpu.value() >= m_gaps.size())
        return range;
    const auto &table = m_gaps[gpu.value()];
    if (!window) {
        range.end = std::uint32_t(table.size());
        return range;
    }
    // blameGaps clips the intervals to the window before merging. Clipping keeps every hole
    // between two intervals that both keep a part inside the window, and only those: a gap
    // [e, s) with e > window.start and s < window.end. A hole touching a window edge is the
    // capture edge of the clipped union, which is never a gap.
    range.begin
        = std::uint32_t(std::upper_bound(table.start.begin(), table.start.end(), window->start) - table.start.begin());
    range.end = std::uint32_t(std::lower_bound(table.end.begin(), table.end.end(), window->end) - table.end.begin());
    range.end = std::max(range.begin, range.end);
    return range;
}

std::vector<GapRange> DerivedCapture::gapsIn(const RankSelection &ranks, const TimeWindow &window) const
{
    std::vector<GapRange> ranges;
    for (auto gpu : gpusOfRanks(*m_trace, ranks))
        ranges.push_back(gapsIn(gpu, window));
    return ranges;
}

GapFigures DerivedCapture::gapFiguresIn(GpuIndex gpu, const TimeWindow &window) const
{
    const GapRange range = gapsIn(gpu, window);
    if (range.empty())
        return {};
    const auto &table = m_gaps[gpu.value()];
    return { range.size(), table.idleBefore[range.end] - table.idleBefore[range.begin] };
}

BlameKeyIndex DerivedCapture::findCauseKey(std::string_view key) const
{
    return findKey(m_causeKeys, key);
}

BlameKeyIndex DerivedCapture::findPhaseKey(std::string_view key) const
{
    return findKey(m_phaseKeys, key);
}

const BlameTotals *DerivedCapture::totalsOfRank(RankIndex rank) const
{
    const auto it = std::lower_bound(m_perRank.begin(), m_perRank.end(), rank.value(),
        [](const RankBlameTotals &t, std::uint32_t r) { return t.rank < r; });
    return it != m_perRank.end() && it->rank == rank.value() ? &it->totals : nullptr;
}

GapBlameReport DerivedCapture::blameReportOfGpus(std::span<const GpuIndex> gpus, const TimeWindow &window) const
{
    std::vector<std::uint32_t> indices;
    indices.reserve(gpus.size());
    for (auto g : gpus)
        indices.push_back(g.value());
    std::vector<GapRange> ranges;
    std::size_t gapCount = 0;
    for (auto g : detail::analysedGpus(*m_trace, std::move(indices))) {
        ranges.push_back(gapsIn(GpuIndex(g), window));
        gapCount += ranges.back().size();
    }
    GapBlameReport report;
    report.gaps.reserve(gapCount);
    detail::ReportTotals totals(*m_trace);
    for (const auto &range : ranges) {
        const auto &table = m_gaps[range.gpu.value()];
        totals.beginGpu(range.gpu.value());
        for (std::uint32_t k = range.begin; k < range.end; ++k)
            totals.add(report.gaps.emplace_back(table.blame[k]));
        totals.endGpu();
    }
    totals.finish(report.perGpu, report.perRank, report.overall);
    return report;
}

GapBlameReport DerivedCapture::blameReport(const RankSelection &ranks, const TimeWindow &window) const
{
    if (ranks.isAll())
        return blameReportOfGpus({}, window);
    const auto gpus = gpusOfRanks(*m_trace, ranks);
    if (gpus.empty())
        return {};
    return blameReportOfGpus(gpus, window);
}

BlameTotals DerivedCapture::totalsIn(const RankSelection &ranks, const TimeWindow &window) const
{
    detail::TotalsAccumulator totals(*m_trace);
    for (const auto &range : gapsIn(ranks, window)) {
        const auto &table = m_gaps[range.gpu.value()];
        for (std::uint32_t k = range.begin; k < range.end; ++k)
            totals.add(table.blame[k]);
    }
    return totals.finish();
}

BlameTotals DerivedCapture::totalsOf(std::span<const GapId> gaps) const
{
    detail::TotalsAccumulator totals(*m_trace);
    for (const auto &id : gaps)
        totals.add(gap(id));
    return totals.finish();
}

} // namespace gaplens::core
