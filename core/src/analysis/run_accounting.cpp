// SPDX-License-Identifier: MIT
#include "gaplens/core/analysis/run_accounting.h"

#include "gaplens/core/analysis/duration_stats.h"
#include "gaplens/core/analysis/noise.h"
#include "gaplens/core/analysis/parts_reduction.h"
#include "gaplens/core/analysis/step_range.h"
#include "gaplens/core/util/units.h"

#include "merged_intervals.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <regex>

namespace gaplens::core {
namespace {

constexpr std::array<std::string_view, kRunStateCount> kStateNames
    = { "active", "checkpoint", "validation", "data_wait", "barrier", "unexplained" };
constexpr std::array<std::string_view, 4> kDefaultPatterns
    = { "checkpoint|ckpt|save", "valid|eval", "data_wait|dataloader|next_batch", "barrier|wait_for_peers" };

// Bit s of a mask: the range belongs to state s (RunState value).
using StateMask = std::uint8_t;
constexpr StateMask kUnknownMask = 0xFF;

std::optional<std::uint32_t> parseOccurrence(std::string_view text)
{
    std::uint32_t value = 0;
    const auto *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || value == 0)
        return std::nullopt;
    return value;
}

// Found anywhere in a group name, ignoring case; throws std::regex_error for bad text.
std::regex compileStatePattern(const std::string &text)
{
    return std::regex(text, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
}

// Outermost ranges (none lies inside another kept one), sorted by start: pace's rule for steps.
std::vector<RunRange> outermost(std::vector<RunRange> all)
{
    std::sort(all.begin(), all.end(), [](const RunRange &a, const RunRange &b) {
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end > b.end;
        return a.thread != b.thread ? a.thread < b.thread : a.order < b.order;
    });
    std::vector<RunRange> kept;
    TimeNs coverEnd = 0;
    for (const auto &r : all) {
        if (!kept.empty() && r.end <= coverEnd)
            continue;
        coverEnd = kept.empty() ? r.end : std::max(coverEnd, r.end);
        kept.push_back(r);
    }
    return kept;
}

// The union of intervals (any order) through the one merge, sorted and disjoint.
std::vector<TimeRange> unionOf(std::vector<RunRange> &ranges)
{
    std::sort(ranges.begin(), ranges.end(), [](const RunRange &a, const RunRange &b) { return a.start < b.start; });
    detail::CollectedIntervals intervals;
    intervals.start.reserve(ranges.size());
    intervals.end.reserve(ranges.size());
    for (const auto &r : ranges) {
        intervals.start.push_back(r.start);
        intervals.end.push_back(r.end);
    }
    std::vector<TimeRange> merged;
    detail::forEachMergedInterval({ intervals.run() }, std::nullopt, [&](TimeRange iv) { merged.push_back(iv); });
    return merged;
}

// Whether [a, b) overlaps the sorted disjoint union for a positive time.
bool overlapsUnion(const std::vector<TimeRange> &u, TimeNs a, TimeNs b)
{
    const auto it = std::upper_bound(
        u.begin(), u.end(), a, [](TimeNs t, const TimeRange &iv) { return t < iv.end; }); // first end > a
    return it != u.end() && it->start < b && a < b;
}

// Partition of `window` by the unions (indexed by RunState, Unexplained unused): a sweep over
// their endpoints, each instant to the first open state in RunState order, else Unexplained.
// `spans` receives the same segments in time order, runs of one state joined.
std::array<TimeNs, kRunStateCount> partition(
    const std::array<std::vector<TimeRange>, kRunStateCount> &unions, TimeRange window, RunStateSpans &spans)
{
    std::array<TimeNs, kRunStateCount> parts {};
    if (window.end <= window.start)
        return parts;
    auto give = [&](std::size_t state, TimeNs from, TimeNs to) {
        parts[state] += to - from;
        if (!spans.state.empty() && spans.state.back() == RunState(state)) {
            spans.end.back() = to;
            return;
        }
        spans.start.push_back(from);
        spans.end.push_back(to);
        spans.state.push_back(RunState(state));
    };
    struct Edge
    {
        TimeNs time;
        std::uint8_t state;
        int delta;
    };
    std::vector<Edge> edges;
    for (std::size_t s = 0; s < kRunStateCount; ++s)
        for (const auto &iv : unions[s]) {
            const TimeNs a = std::max(iv.start, window.start), b = std::min(iv.end, window.end);
            if (a >= b)
                continue;
            edges.push_back({ a, std::uint8_t(s), +1 });
            edges.push_back({ b, std::uint8_t(s), -1 });
        }
    std::sort(edges.begin(), edges.end(), [](const Edge &x, const Edge &y) { return x.time < y.time; });
    std::array<int, kRunStateCount> open {};
    auto top = [&] {
        for (std::size_t s = 0; s + 1 < kRunStateCount; ++s)
            if (open[s] > 0)
                return s;
        return kRunStateCount - 1;
    };
    TimeNs at = window.start;
    for (const auto &e : edges) {
        if (e.time > at) {
            give(top(), at, e.time);
            at = e.time;
        }
        open[e.state] += e.delta;
    }
    if (window.end > at)
        give(top(), at, window.end);
    return parts;
}

StepTimeGroup groupStats(std::vector<TimeNs> durations)
{
    StepTimeGroup g;
    std::sort(durations.begin(), durations.end());
    g.count = durations.size();
    if (durations.empty())
        return g;
    g.medianNs = sortedMedian(durations);
    g.p95Ns = sortedPercentileNearestRank(durations, 95.0);
    g.maxNs = durations.back();
    g.minNs = durations.front();
    g.q1Ns = sortedPercentileNearestRank(durations, 25.0);
    g.q3Ns = sortedPercentileNearestRank(durations, 75.0);
    return g;
}

std::optional<double> perSecond(double work, TimeNs ns)
{
    if (ns <= 0)
        return std::nullopt;
    return work / (double(ns) / 1e9);
}

void setRates(RankRunAccounting &r)
{
    r.activeRate = perSecond(r.work, r.activeNs());
    r.sustainedRate = perSecond(r.work, r.windowNs());
    if (r.activeRate && r.sustainedRate && *r.activeRate > 0)
        r.sustainedOverActive = *r.sustainedRate / *r.activeRate;
    else
        r.sustainedOverActive.reset();
}

std::vector<TimeNs> sortedDurations(const std::vector<RunRange> &ranges)
{
    std::vector<TimeNs> durations;
    for (const auto &r : ranges)
        durations.push_back(r.end - r.start);
    std::sort(durations.begin(), durations.end());
    return durations;
}

// Blocking checkpoints (on a thread that runs steps) and staging (the rank's other threads),
// each outermost and in start order.
std::optional<CheckpointHealth> checkpointHealth(
    const std::vector<RunRange> &blocking, const std::vector<RunRange> &staging)
{
    if (blocking.empty() && staging.empty())
        return std::nullopt;
    CheckpointHealth h;
    h.count = blocking.size();
    h.stagingCount = staging.size();
    // Checkpoints are counted by their blocking part; staging stands for them without one.
    const auto &checkpoints = blocking.empty() ? staging : blocking;
    std::vector<double> intervals;
    for (std::size_t i = 1; i < checkpoints.size(); ++i)
        intervals.push_back(double(checkpoints[i].start - checkpoints[i - 1].start));
    const auto durations = sortedDurations(checkpoints);
    h.medianDurationNs = sortedMedian(durations);
    h.p95DurationNs = sortedPercentileNearestRank(durations, 95.0);
    // A checkpoint is committed when its staging ends.
    h.commitP95Ns = staging.empty() ? h.p95DurationNs : sortedPercentileNearestRank(sortedDurations(staging), 95.0);
    if (!intervals.empty()) {
        h.cadenceNs = medianOf(intervals);
        if (*h.cadenceNs > 0)
            h.p95OverCadence = double(h.commitP95Ns) / *h.cadenceNs;
    }
    // Backlog: earlier staging ranges (blocking checkpoints without staging) still open at
    // each one's start; the list is in start order.
    const auto &pipeline = staging.empty() ? blocking : staging;
    for (const auto &c : pipeline)
        h.commitsNs.push_back(c.end);
    std::sort(h.commitsNs.begin(), h.commitsNs.end());
    std::vector<std::uint32_t> backlog;
    std::vector<TimeNs> openEnds;
    for (const auto &c : pipeline) {
        std::erase_if(openEnds, [&](TimeNs e) { return e <= c.start; });
        backlog.push_back(std::uint32_t(openEnds.size()));
        openEnds.push_back(c.end);
    }
    const std::size_t half = backlog.size() / 2;
    auto mean = [&](std::size_t from, std::size_t to) {
        double sum = 0;
        for (std::size_t i = from; i < to; ++i)
            sum += backlog[i];
        return to > from ? sum / double(to - from) : 0.0;
    };
    h.backlogFirstHalf = mean(0, half);
    h.backlogSecondHalf = mean(half, backlog.size());
    h.backlogMax = *std::max_element(backlog.begin(), backlog.end());
    h.backlogGrowing = half > 0 && h.backlogSecondHalf > h.backlogFirstHalf;
    return h;
}

// What decides the accounting over every part (patterns, step range, work source) and
// collects each rank's ranges from its part.
class RangeCollector
{
public:
    // `parts`: the other parts of the capture, whose NVTX ranges decide the step range and the
    // work source together with this one's; nullptr for a whole capture.
    // `decided`: the step range decided elsewhere (time shards); nullptr to propose it here.
    RangeCollector(const TraceSet &trace, const RunAccountingOptions &options, RunAccounting &out,
        const PartsReduction *parts, const DecidedStepRange *decided = nullptr)
        : m_trace(trace)
        , m_options(options)
        , m_out(out)
        , m_parts(parts)
        , m_decided(decided)
        , m_masks(trace.strings.size(), kUnknownMask)
    {
    }

    // The settings every part shares; false with m_out.error set when there are none.
    bool decideSettings()
    {
        if (!compilePatterns() || !findStepRange())
            return false;
        m_out.workSource = anyPart(hasStepPayload()) ? WorkSource::Payload
            : m_options.workPerStep                  ? WorkSource::PerStep
                                                     : WorkSource::StepCount;
        m_out.workUnit = !m_options.workUnit.empty()    ? m_options.workUnit
            : m_out.workSource == WorkSource::StepCount ? std::string("steps")
                                                        : std::string("tokens");
        if (m_options.window.rule == RunWindowRule::Between)
            m_between = m_trace.strings.find(m_options.window.rangeName);
        return true;
    }

    RankRunRanges collect(std::uint32_t r)
    {
        RankRunRanges ranges;
        ranges.rank = r;
        for (const auto t : m_trace.ranks[r].threads) {
            const auto &nvtx = m_trace.threads[t].nvtx;
            for (std::uint32_t i = 0; i < nvtx.size(); ++i) {
                const auto mask = maskOf(nvtx.name[i]);
                const bool between = m_between != kEmptyString && m_trace.isInNvtxGroup(nvtx.name[i], m_between);
                if (mask == 0 && !between)
                    continue;
                RunRange range { nvtx.start[i], nvtx.end[i], t, i, std::nullopt };
                if (nvtx.hasPayload(i))
                    range.payload = nvtx.payload[i];
                for (std::size_t s = 0; s + 1 < kRunStateCount; ++s)
                    if (mask & (1u << s))
                        ranges.byState[s].push_back(range);
                if (between)
                    ranges.between.push_back(range);
            }
        }
        return ranges;
    }

private:
    bool compilePatterns()
    {
        for (std::size_t i = 0; i < kPatternStates.size(); ++i) {
            const auto &text = m_out.patterns[i];
            try {
                m_patterns[i] = compileStatePattern(text);
            } catch (const std::regex_error &e) {
                m_out.error = fmt::format("the pattern of state {} is not a regular expression: '{}' ({})",
                    kStateNames[i + 1], text, e.what());
                return false;
            }
        }
        return true;
    }

    bool findStepRange()
    {
        if (m_decided) {
            if (const auto *none = std::get_if<StepRangeChoice>(m_decided)) {
                m_out.error
                    = fmt::format("no step range: {}; choose one with --range NAME", describeMissingStepRange(*none));
                return false;
            }
            m_out.stepRange = std::get<std::string>(*m_decided);
        } else if (m_options.stepRange.empty()) {
            const auto proposed = m_parts ? proposePaceRangeName(m_trace, *m_parts) : proposePaceRangeName(m_trace);
            if (!proposed) {
                m_out.error = fmt::format("no step range: {}; choose one with --range NAME",
                    describeMissingStepRange(m_parts ? chooseStepRange(m_trace, *m_parts) : chooseStepRange(m_trace)));
                return false;
            }
            m_out.stepRange = *proposed;
        } else {
            m_out.stepRange = m_options.stepRange;
        }
        m_step = m_trace.strings.find(m_out.stepRange);
        if (!anyPart(m_step != kEmptyString)) {
            m_out.error = fmt::format("no selected rank has an NVTX range named '{}'", m_out.stepRange);
            return false;
        }
        return true;
    }

    // States of one range: the step group is Active only; pattern states by its group name,
    // matched once per distinct group name.
    StateMask maskOf(StringId name)
    {
        // A part without the step range (kEmptyString) has no step to match.
        if (m_step != kEmptyString && m_trace.isInNvtxGroup(name, m_step))
            return StateMask(1u << unsigned(RunState::Active));
        const StringId group = m_trace.nvtxGroup(name);
        if (group >= m_masks.size())
            m_masks.resize(group + 1, kUnknownMask);
        auto &mask = m_masks[group];
        if (mask == kUnknownMask) {
            mask = 0;
            const auto &text = m_trace.str(group);
            for (std::size_t i = 0; i < kPatternStates.size(); ++i)
                if (std::regex_search(text, m_patterns[i]))
                    mask |= StateMask(1u << unsigned(kPatternStates[i]));
        }
        return mask;
    }

    // Whether a step range of a selected rank carries a payload (the work it did).
    bool hasStepPayload() const
    {
        if (m_step == kEmptyString)
            return false;
        for (const auto &thread : m_trace.threads) {
            if (thread.nvtx.payload.empty() || !m_options.ranks.includes(thread.rank))
                continue;
            for (std::size_t i = 0; i < thread.nvtx.size(); ++i)
                if (thread.nvtx.hasPayload(i) && m_trace.isInNvtxGroup(thread.nvtx.name[i], m_step))
                    return true;
        }
        return false;
    }

    // Whether `mine` holds on any part (on this one, for a whole capture).
    bool anyPart(bool mine) const
    {
        if (!m_parts)
            return mine;
        std::vector<std::uint64_t> count { mine ? 1u : 0u };
        m_parts->sum(count);
        return count.front() > 0;
    }

    const TraceSet &m_trace;
    const RunAccountingOptions &m_options;
    RunAccounting &m_out;
    const PartsReduction *m_parts = nullptr;
    const DecidedStepRange *m_decided = nullptr;
    std::array<std::regex, 4> m_patterns;
    std::vector<StateMask> m_masks; // by group StringId
    StringId m_step = kEmptyString;
    StringId m_between = kEmptyString; // the --between range's name, when found
};

// Accounts one rank from its ranges, with the settings in `out`.
class RankAccountant
{
public:
    RankAccountant(const RunAccountingOptions &options, RunAccounting &out)
        : m_options(options)
        , m_out(out)
    {
    }

    // `rank` names the rank in messages; `timeZero` is its report's (--window).
    bool account(const Rank &rank, TimeNs timeZero, RankRunRanges ranges, RankRunAccounting &out)
    {
        out.rank = ranges.rank;
        m_stepRanges += ranges.byState[std::size_t(RunState::Active)].size();
        if (!window(rank, timeZero, ranges, out.window))
            return false;
        const auto &w = out.window;
        std::array<std::vector<TimeRange>, kRunStateCount> unions;
        for (std::size_t s = 0; s + 1 < kRunStateCount; ++s)
            unions[s] = unionOf(ranges.byState[s]);
        out.partitionNs = partition(unions, w, out.spans);

        const auto steps = outermost(ranges.byState[std::size_t(RunState::Active)]);
        std::vector<RunRange> counted;
        for (const auto &s : steps)
            if (s.end > w.start && s.end <= w.end) {
                counted.push_back(s);
                out.work += stepWork(s, out.stepsWithoutPayload);
            } else {
                ++out.stepsOutsideWindow;
            }
        out.steps = counted.size();
        setRates(out);
        for (const auto state : kPatternStates)
            out.stepTimeByState.push_back(stepTimes(state, unions[std::size_t(state)], counted));

        std::vector<std::uint32_t> stepThreads;
        for (const auto &s : ranges.byState[std::size_t(RunState::Active)])
            stepThreads.push_back(s.thread);
        std::sort(stepThreads.begin(), stepThreads.end());
        std::vector<RunRange> blocking, staging;
        for (const auto &c : ranges.byState[std::size_t(RunState::Checkpoint)])
            if (c.start >= w.start && c.start < w.end)
                (std::binary_search(stepThreads.begin(), stepThreads.end(), c.thread) ? blocking : staging)
                    .push_back(c);
        out.checkpoint = checkpointHealth(outermost(std::move(blocking)), outermost(std::move(staging)));
        return true;
    }

    std::uint64_t stepRanges() const { return m_stepRanges; }

private:
    bool window(const Rank &rank, TimeNs timeZero, const RankRunRanges &ranges, TimeRange &out)
    {
        const auto &spec = m_options.window;
        switch (spec.rule) {
        case RunWindowRule::Explicit: {
            TimeNs start = 0, end = 0;
            if (__builtin_add_overflow(timeZero, spec.startNs, &start)
                || __builtin_add_overflow(timeZero, spec.endNs, &end)) {
                m_out.error = fmt::format(
                    "--window {}: rank {}'s window lies outside the 64-bit time range", m_out.windowText, rank.rank);
                return false;
            }
            out = { start, end };
            return true;
        }
        case RunWindowRule::Between: {
            // The occurrences of the range on the rank: outermost, in start order.
            const auto found = outermost(ranges.between);
            const std::uint32_t k = spec.fromOccurrence;
            const std::uint32_t m = spec.toOccurrence.value_or(std::uint32_t(found.size()));
            if (found.size() < std::max(k, m) || m <= k) {
                m_out.error = fmt::format("--between {}: rank {} has {} occurrence(s) of '{}', not enough for the end "
                                          "of the {}-th to the end of the {}-th",
                    m_out.windowText, rank.rank, found.size(), spec.rangeName, k, m);
                return false;
            }
            out = { found[k - 1].end, found[m - 1].end };
            return true;
        }
        case RunWindowRule::Absolute: out = { spec.startNs, spec.endNs }; return true;
        case RunWindowRule::StateSpan: break;
        }
        bool any = false;
        TimeRange span { 0, 0 };
        for (std::size_t s = 0; s + 1 < kRunStateCount; ++s)
            for (const auto &range : ranges.byState[s]) {
                span = any ? TimeRange { std::min(span.start, range.start), std::max(span.end, range.end) }
                           : TimeRange { range.start, range.end };
                any = true;
            }
        out = span;
        return true;
    }

    double stepWork(const RunRange &step, std::uint64_t &withoutPayload) const
    {
        if (step.payload)
            return *step.payload;
        if (m_out.workSource == WorkSource::Payload)
            ++withoutPayload;
        if (m_options.workPerStep)
            return *m_options.workPerStep;
        return m_out.workSource == WorkSource::Payload ? 0.0 : 1.0;
    }

    StepTimeByState stepTimes(
        RunState state, const std::vector<TimeRange> &stateUnion, const std::vector<RunRange> &steps) const
    {
        StepTimeByState row;
        row.state = state;
        std::vector<TimeNs> inside, outside;
        for (const auto &s : steps)
            (overlapsUnion(stateUnion, s.start, s.end) ? inside : outside).push_back(s.end - s.start);
        row.inside = groupStats(inside);
        row.outside = groupStats(outside);
        if (inside.empty() || outside.empty())
            return row;
        // compare's rule for a per-step median.
        const auto shift = judgeMedianShift({ outside.begin(), outside.end() }, { inside.begin(), inside.end() },
            m_options.alpha, m_options.bootstrapResamples, m_options.bootstrapSeed);
        row.pValue = shift.pValue;
        row.significant = shift.significant;
        return row;
    }

    const RunAccountingOptions &m_options;
    RunAccounting &m_out;
    std::uint64_t m_stepRanges = 0; // over the ranks accounted
};

} // namespace

std::string_view runStateName(RunState state)
{
    return kStateNames[std::size_t(state)];
}

std::optional<RunState> runStateFromName(std::string_view name)
{
    for (std::size_t s = 0; s < kRunStateCount; ++s)
        if (kStateNames[s] == name)
            return RunState(s);
    return std::nullopt;
}

std::string_view defaultRunStatePattern(RunState state)
{
    for (std::size_t i = 0; i < kPatternStates.size(); ++i)
        if (kPatternStates[i] == state)
            return kDefaultPatterns[i];
    return {};
}

std::string runStatePatternError(const std::string &regex)
{
    try {
        compileStatePattern(regex);
    } catch (const std::regex_error &e) {
        return e.what();
    }
    return {};
}

std::string_view runWindowRuleName(RunWindowRule rule)
{
    switch (rule) {
    case RunWindowRule::StateSpan: return "state_span";
    case RunWindowRule::Explicit: return "explicit";
    case RunWindowRule::Between: return "between";
    case RunWindowRule::Absolute: return "absolute";
    }
    return "state_span";
}

std::string_view workSourceName(WorkSource source)
{
    switch (source) {
    case WorkSource::Payload: return "payload";
    case WorkSource::PerStep: return "work_per_step";
    case WorkSource::StepCount: return "steps";
    }
    return "steps";
}

std::optional<RunWindowSpec> parseRunWindow(std::string_view text, std::string &error)
{
    const auto colon = text.find(':');
    if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos) {
        error = fmt::format("--window expects START:END (e.g. 0s:1200s), got '{}'", text);
        return std::nullopt;
    }
    const auto start = parseDuration(text.substr(0, colon));
    const auto end = parseDuration(text.substr(colon + 1));
    if (!start || !end) {
        error = fmt::format("--window: '{}' is not a duration (a number, then s, ms, us or ns; none is seconds)",
            !start ? text.substr(0, colon) : text.substr(colon + 1));
        return std::nullopt;
    }
    if (*end <= *start) {
        error = fmt::format("--window: the end must come after the start, got '{}'", text);
        return std::nullopt;
    }
    RunWindowSpec spec;
    spec.rule = RunWindowRule::Explicit;
    spec.startNs = *start;
    spec.endNs = *end;
    return spec;
}

std::optional<RunWindowSpec> parseRunBetween(std::string_view text, std::string &error)
{
    // NAME may hold colons itself ("model:step"): K and M are the trailing numeric parts.
    RunWindowSpec spec;
    spec.rule = RunWindowRule::Between;
    std::string_view name = text;
    std::vector<std::uint32_t> numbers;
    while (numbers.size() < 2) {
        const auto colon = name.rfind(':');
        if (colon == std::string_view::npos)
            break;
        const auto part = name.substr(colon + 1);
        const auto number = parseOccurrence(part);
        if (!number) {
            if (!part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos) {
                error = fmt::format("--between {}: occurrences count from 1, not '{}'", text, part);
                return std::nullopt;
            }
            break;
        }
        numbers.insert(numbers.begin(), *number);
        name = name.substr(0, colon);
    }
    if (name.empty()) {
        error = fmt::format("--between expects NAME[:K:M] (occurrences from 1), got '{}'", text);
        return std::nullopt;
    }
    spec.rangeName = std::string(name);
    if (!numbers.empty())
        spec.fromOccurrence = numbers[0];
    if (numbers.size() == 2) {
        spec.toOccurrence = numbers[1];
        if (numbers[1] <= numbers[0]) {
            error = fmt::format("--between {}: M must be larger than K", text);
            return std::nullopt;
        }
    }
    return spec;
}

namespace {

// The settings as asked, before any part decides the rest.
RunAccounting askedSettings(const RunAccountingOptions &options)
{
    RunAccounting out;
    for (std::size_t i = 0; i < kPatternStates.size(); ++i)
        out.patterns[i] = options.patterns[i].empty() ? std::string(kDefaultPatterns[i]) : options.patterns[i];
    out.windowRule = options.window.rule;
    if (options.window.rule == RunWindowRule::Explicit || options.window.rule == RunWindowRule::Absolute)
        out.windowText = fmt::format("{}ns:{}ns", options.window.startNs, options.window.endNs);
    else if (options.window.rule == RunWindowRule::Between)
        out.windowText = options.window.toOccurrence
            ? fmt::format(
                "{}:{}:{}", options.window.rangeName, options.window.fromOccurrence, *options.window.toOccurrence)
            : fmt::format("{}:{}", options.window.rangeName, options.window.fromOccurrence);
    return out;
}

TimeNs timeZeroOf(const TraceSet &trace, const Rank &rank)
{
    return trace.reports.at(rank.report).timeZero();
}

RunAccountingPart accountPart(const TraceSet &trace, const RunAccountingOptions &options, const PartsReduction *parts)
{
    RunAccountingPart part;
    auto &out = part.accounting;
    out = askedSettings(options);
    RangeCollector collector(trace, options, out, parts);
    if (!collector.decideSettings())
        return part;
    RankAccountant accountant(options, out);
    for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
        if (!options.ranks.includes(r))
            continue;
        RankRunAccounting rank;
        if (!accountant.account(trace.ranks[r], timeZeroOf(trace, trace.ranks[r]), collector.collect(r), rank)) {
            part.failedRank = r;
            break;
        }
        out.ranks.push_back(std::move(rank));
    }
    part.stepRanges = accountant.stepRanges();
    return part;
}

} // namespace

RunAccountingPart computeRunAccountingPart(
    const TraceSet &part, const RunAccountingOptions &options, const PartsReduction &parts)
{
    return accountPart(part, options, &parts);
}

void RankRunRanges::join(const RankRunRanges &shard)
{
    for (std::size_t s = 0; s < kRunStateCount; ++s)
        byState[s].insert(byState[s].end(), shard.byState[s].begin(), shard.byState[s].end());
    between.insert(between.end(), shard.between.begin(), shard.between.end());
}

RunRangesPart collectRunRangesPart(const TraceSet &part, const RunAccountingOptions &options,
    const DecidedStepRange &stepRange, const PartsReduction &parts)
{
    RunRangesPart out;
    out.accounting = askedSettings(options);
    RangeCollector collector(part, options, out.accounting, &parts, &stepRange);
    if (!collector.decideSettings())
        return out;
    for (std::uint32_t r = 0; r < part.ranks.size(); ++r)
        if (options.ranks.includes(r))
            out.ranks.push_back(collector.collect(r));
    return out;
}

RunAccountingPart accountRunRanges(const TraceSet &capture, RunAccounting settings, const RunAccountingOptions &options,
    const std::vector<RankRunRanges> &ranks)
{
    RunAccountingPart part;
    part.accounting = std::move(settings);
    part.accounting.ranks.clear();
    if (!part.accounting.error.empty())
        return part;
    RankAccountant accountant(options, part.accounting);
    for (const auto &ranges : ranks) {
        const auto &rank = capture.ranks.at(ranges.rank);
        RankRunAccounting accounted;
        if (!accountant.account(rank, timeZeroOf(capture, rank), ranges, accounted)) {
            part.failedRank = ranges.rank;
            break;
        }
        part.accounting.ranks.push_back(std::move(accounted));
    }
    part.stepRanges = accountant.stepRanges();
    return part;
}

RunAccounting finishRunAccounting(RunAccounting out, std::uint64_t stepRanges)
{
    if (!out.error.empty()) {
        out.ranks.clear();
        return out;
    }
    if (out.ranks.empty()) {
        out.error = "no rank selected";
        return out;
    }
    if (stepRanges == 0) {
        out.error = fmt::format("no selected rank has an NVTX range named '{}'", out.stepRange);
        out.ranks.clear();
        return out;
    }
    const RankRunAccounting *slowest = &out.ranks.front();
    for (const auto &r : out.ranks)
        if (r.windowNs() > slowest->windowNs())
            slowest = &r;
    out.overall = *slowest;
    out.slowestRank = slowest->rank;
    out.overall.rank = kNoIndex;
    out.overall.work = 0;
    out.overall.steps = 0;
    out.overall.stepsWithoutPayload = 0;
    out.overall.stepsOutsideWindow = 0;
    for (const auto &r : out.ranks) {
        out.overall.work += r.work;
        out.overall.steps += r.steps;
        out.overall.stepsWithoutPayload += r.stepsWithoutPayload;
        out.overall.stepsOutsideWindow += r.stepsOutsideWindow;
    }
    setRates(out.overall);
    return out;
}

RunAccounting computeRunAccounting(const TraceSet &trace, const RunAccountingOptions &options)
{
    auto part = accountPart(trace, options, nullptr);
    return finishRunAccounting(std::move(part.accounting), part.stepRanges);
}

} // namespace gaplens::core
