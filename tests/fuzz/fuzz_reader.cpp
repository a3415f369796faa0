// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as the one file of a load. The reader must not crash, hang,
// leak or trip ASan/UBSan (those abort: libFuzzer keeps the input), must give exactly one
// outcome (the report, or one error naming the file), a model that keeps trace.h's
// promises, and must write nothing beside the file.
#include "fuzz_input_file.h"
#include "fuzz_load.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <utility>
#include <vector>

namespace {

using namespace gaplens::core;

// Breaches of what a loaded model promises (trace.h), one line each.
class ModelChecker
{
public:
    ModelChecker(const TraceSet &trace, const std::string &path)
        : m_trace(trace)
        , m_path(path)
    {
    }

    std::vector<std::string> run()
    {
        check(!m_trace.cancelled, "cancelled without a cancel token");
        check(m_trace.reports.size() + m_trace.errors.size() == 1,
            fmt::format("one file gave {} reports and {} errors", m_trace.reports.size(), m_trace.errors.size()));
        for (const auto &error : m_trace.errors) {
            check(error.path == m_path, fmt::format("error path \"{}\" is not the file", error.path));
            const auto prefix = m_path + ": ";
            check(error.message.size() > prefix.size() && error.message.starts_with(prefix),
                fmt::format("error message \"{}\" does not start with the file's name", error.message));
        }
        if (m_trace.reports.size() != 1 || !m_trace.errors.empty())
            return std::move(m_problems);
        check(m_trace.reports[0].path == m_path, "report path is not the file");
        check(!m_trace.ranks.empty(), "a loaded report without a rank");
        ranks();
        gpus();
        threads();
        span();
        launchIndex();
        return std::move(m_problems);
    }

private:
    void check(bool ok, const std::string &what)
    {
        if (!ok)
            m_problems.push_back(what);
    }

    bool validName(StringId id) const { return id < m_trace.strings.size(); }

    bool validNames(const std::vector<StringId> &ids) const
    {
        return std::all_of(ids.begin(), ids.end(), [this](StringId id) { return validName(id); });
    }

    // Sorted by (start asc, end desc), every end at or after its start.
    static bool sortedIntervals(std::span<const TimeNs> start, std::span<const TimeNs> end)
    {
        if (start.size() != end.size())
            return false;
        for (std::size_t i = 0; i < start.size(); ++i) {
            if (end[i] < start[i])
                return false;
            if (i > 0 && (start[i] < start[i - 1] || (start[i] == start[i - 1] && end[i] > end[i - 1])))
                return false;
        }
        return true;
    }

    void nesting(
        const std::string &where, const NestingIndex &index, std::size_t size, std::span<const std::uint8_t> depth)
    {
        check(depth.size() == size, where + ": depth column of another size");
        std::size_t indexed = 0;
        for (std::size_t d = 0; d < index.levelCount(); ++d) {
            const auto &level = index.level(d);
            indexed += level.size();
            check(std::is_sorted(level.begin(), level.end()), fmt::format("{}: level {} not ascending", where, d));
            check(std::all_of(level.begin(), level.end(), [&](std::uint32_t i) { return i < size && depth[i] == d; }),
                fmt::format("{}: level {} lists an interval of another depth", where, d));
        }
        check(indexed == size, fmt::format("{}: nesting index holds {} of {} intervals", where, indexed, size));
    }

    void ranks()
    {
        for (std::size_t r = 0; r < m_trace.ranks.size(); ++r) {
            const auto &rank = m_trace.ranks[r];
            check(rank.report == 0, fmt::format("rank {} names report {}", r, rank.report));
            check(r == 0 || m_trace.ranks[r - 1].rank <= rank.rank, "ranks not sorted by number");
            for (auto g : rank.gpus)
                check(g < m_trace.gpus.size(), fmt::format("rank {} lists GPU {}", r, g));
            for (auto t : rank.threads)
                check(t < m_trace.threads.size(), fmt::format("rank {} lists thread {}", r, t));
        }
    }

    void gpus()
    {
        std::set<std::int32_t> devices;
        for (std::size_t g = 0; g < m_trace.gpus.size(); ++g) {
            const auto &gpu = m_trace.gpus[g];
            const auto where = fmt::format("gpus[{}]", g);
            check(gpu.report == 0, where + ": another report");
            check(devices.insert(gpu.deviceId).second, where + ": a second GPU with its deviceId");
            std::set<std::pair<std::uint32_t, std::int64_t>> streamKeys;
            for (std::size_t s = 0; s < gpu.streams.size(); ++s) {
                const auto &stream = gpu.streams[s];
                const auto &k = stream.kernels;
                const auto at = fmt::format("{}.streams[{}]", where, s);
                check(streamKeys.insert({ stream.pid, stream.streamId }).second, at + ": a second stream with its key");
                check(stream.rank < m_trace.ranks.size(), at + ": no valid rank");
                const auto n = k.size();
                check(k.end.size() == n && k.shortName.size() == n && k.demangledName.size() == n
                        && k.correlationId.size() == n && k.launchConfig.size() == n,
                    at + ": kernel columns of different sizes");
                check(std::all_of(k.launchConfig.begin(), k.launchConfig.end(),
                          [&](std::uint32_t c) { return c < k.launchConfigs.size(); }),
                    at + ": a launch configuration index out of range");
                check(sortedIntervals(k.start, k.end), at + ": kernels not sorted or ending before they start");
                check(validNames(k.shortName) && validNames(k.demangledName), at + ": a kernel name not in the pool");
            }
            const auto &c = gpu.copies;
            const auto n = c.size();
            check(c.end.size() == n && c.bytes.size() == n && c.correlationId.size() == n && c.pid.size() == n
                    && c.streamId.size() == n && c.kind.size() == n && c.srcKind.size() == n && c.dstKind.size() == n,
                where + ": copy columns of different sizes");
            check(sortedIntervals(c.start, c.end), where + ": copies not sorted or ending before they start");
            nesting(where + ".copies", c.nesting, n, c.depth);
            copyLanes(where + ".copies.lanes", c);
        }
    }

    // Every copy in one row of the lane of its (process, stream), rows in order and never
    // overlapping, lanes in (pid, stream) order.
    void copyLanes(const std::string &where, const CopyColumns &c)
    {
        const auto &lanes = c.lanes;
        check(lanes.rowOf.size() == c.size(), where + ": rowOf is not one per copy");
        std::vector<std::uint8_t> seen(c.size(), 0);
        std::uint32_t nextRow = 0;
        for (std::size_t l = 0; l < lanes.lanes.size(); ++l) {
            const auto &lane = lanes.lanes[l];
            check(lane.firstRow == nextRow && lane.rowCount > 0, where + ": lanes' rows not consecutive");
            if (l > 0)
                check(
                    std::pair(lanes.lanes[l - 1].pid, lanes.lanes[l - 1].streamId) < std::pair(lane.pid, lane.streamId),
                    where + ": lanes not in (pid, stream) order");
            nextRow = lane.firstRow + lane.rowCount;
            if (nextRow > lanes.rowCount())
                break;
            for (auto r = lane.firstRow; r < nextRow; ++r) {
                const auto &row = lanes.rows[r];
                for (std::size_t k = 0; k < row.size(); ++k) {
                    const auto i = row[k];
                    if (i >= c.size() || seen[i]++) {
                        check(false, where + ": a row lists a copy that is not there or listed twice");
                        return;
                    }
                    check(c.pid[i] == lane.pid && c.streamId[i] == lane.streamId && lanes.rowOf[i] == r,
                        where + ": a copy in another stream's lane");
                    check(k == 0 || (row[k - 1] < i && c.start[i] >= c.end[row[k - 1]]),
                        where + ": a row's copies overlap or are out of order");
                }
            }
        }
        check(nextRow == lanes.rowCount(), where + ": rows that belong to no lane");
        check(std::all_of(seen.begin(), seen.end(), [](std::uint8_t s) { return s == 1; }),
            where + ": a copy in no lane");
    }

    void threads()
    {
        for (std::size_t t = 0; t < m_trace.threads.size(); ++t) {
            const auto &thread = m_trace.threads[t];
            const auto where = fmt::format("threads[{}]", t);
            check(thread.report == 0, where + ": another report");
            check(thread.rank < m_trace.ranks.size(), where + ": no valid rank");
            check(validName(thread.name), where + ": name not in the pool");

            const auto &api = thread.api;
            check(api.name.size() == api.size() && api.correlationId.size() == api.size(),
                where + ": API columns of different sizes");
            check(sortedIntervals(api.start, api.end), where + ": API calls not sorted or ending before they start");
            check(validNames(api.name), where + ": an API name not in the pool");
            nesting(where + ".api", api.nesting, api.size(), api.depth);

            const auto &nvtx = thread.nvtx;
            check(nvtx.name.size() == nvtx.size() && (nvtx.domain.empty() || nvtx.domain.size() == nvtx.size())
                    && nvtx.kind.size() == nvtx.size(),
                where + ": NVTX columns of different sizes");
            check(
                sortedIntervals(nvtx.start, nvtx.end), where + ": NVTX ranges not sorted or ending before they start");
            check(validNames(nvtx.name) && validNames(nvtx.domain), where + ": an NVTX name not in the pool");
            check(std::all_of(nvtx.name.begin(), nvtx.name.end(),
                      [this](StringId id) { return validName(m_trace.nvtxGroup(id)); }),
                where + ": an NVTX group name not in the pool");
            nesting(where + ".nvtx", nvtx.nesting, nvtx.size(), nvtx.depth);

            const auto &marks = thread.marks;
            check(marks.name.size() == marks.size() && marks.domain.size() == marks.size(),
                where + ": mark columns of different sizes");
            check(std::is_sorted(marks.time.begin(), marks.time.end()), where + ": marks not sorted");
            check(validNames(marks.name) && validNames(marks.domain), where + ": a mark name not in the pool");

            const auto &osrt = thread.osrt;
            check(osrt.name.size() == osrt.size() && osrt.callchainId.size() == osrt.size(),
                where + ": OS runtime columns of different sizes");
            check(sortedIntervals(osrt.start, osrt.end),
                where + ": OS runtime calls not sorted or ending before they start");
            check(validNames(osrt.name), where + ": an OS call name not in the pool");
            nesting(where + ".osrt", osrt.nesting, osrt.size(), osrt.depth);
        }
    }

    // The span is the first start to the last end of every interval and every mark (OS
    // runtime calls are not part of it).
    void span()
    {
        TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
        auto add = [&](std::span<const TimeNs> start, std::span<const TimeNs> end) {
            for (auto s : start)
                lo = std::min(lo, s);
            for (auto e : end)
                hi = std::max(hi, e);
        };
        for (const auto &gpu : m_trace.gpus) {
            for (const auto &stream : gpu.streams)
                add(stream.kernels.start, stream.kernels.end);
            add(gpu.copies.start, gpu.copies.end);
        }
        for (const auto &thread : m_trace.threads) {
            add(thread.api.start, thread.api.end);
            add(thread.nvtx.start, thread.nvtx.end);
            add(thread.marks.time, thread.marks.time);
        }
        const auto expected = lo <= hi ? TimeRange { lo, hi } : TimeRange {};
        check(m_trace.span == expected,
            fmt::format(
                "span [{}, {}] is not [{}, {}]", m_trace.span.start, m_trace.span.end, expected.start, expected.end));
    }

    void launchIndex()
    {
        const auto &refs = m_trace.processThreads;
        check(refs.size() == m_trace.threads.size(), "processThreads does not list every thread once");
        check(std::is_sorted(refs.begin(), refs.end(),
                  [](const ProcessThreadRef &a, const ProcessThreadRef &b) {
                      return a.key != b.key ? a.key < b.key : a.thread < b.thread;
                  }),
            "processThreads not sorted");
        for (const auto &launch : m_trace.unorderedLaunches)
            check(launch.call.thread < m_trace.threads.size()
                    && launch.call.call < m_trace.threads[launch.call.thread].api.size(),
                "an unordered launch names no call");
    }

    const TraceSet &m_trace;
    const std::string &m_path;
    std::vector<std::string> m_problems;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    auto &input = gaplens::fuzz::FuzzInputFile::instance();
    const auto &path = input.write(data, size);
    // Two threads: one file is read as two parts and joined, the path the GUI takes.
    const auto trace = loadTraceSet(gaplens::fuzz::fuzzLoadOptions(path, true, 2));
    input.abortIfWrittenBeside("loading");
    const auto problems = ModelChecker(*trace, path).run();
    if (problems.empty())
        return 0;
    std::fprintf(stderr, "gaplens fuzz: the loaded model breaks its promises (%zu input bytes):\n", size);
    for (const auto &problem : problems)
        std::fprintf(stderr, "  %s\n", problem.c_str());
    std::abort();
}
