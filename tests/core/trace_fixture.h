// SPDX-License-Identifier: MIT
#pragma once
// Builds small TraceSets by hand for analysis tests: fill columns, then finalizeTraceSet().
//   FixtureBuilder b;
//   auto r = b.addRank(0);            // own report, pid 1000
//   auto g = b.addGpu(r, 0);          // GPU (report, device 0) used by rank r
//   b.kernel(g, 7, 100, 200, "gemm", 42);
//   auto t = b.addThread(r);          // main thread (tid == pid)
//   b.api(t, 90, 95, "cudaLaunchKernel", 42);
//   auto trace = b.finish();
#include "gaplens/core/model/trace.h"
#include "gaplens/core/model/trace_builder.h"

#include <QTest>

#include <cassert>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gaplens::core {
// Readable QCOMPARE failures for time ranges (found by ADL).
inline char *toString(const TimeRange &range)
{
    return QTest::toString(QStringLiteral("[%1, %2)").arg(range.start).arg(range.end));
}
} // namespace gaplens::core

namespace gaplens::test {

using core::TimeNs;

// Where the fixtures' captures start: a 2023 epoch time in ns, as real exports' timestamps are.
inline constexpr TimeNs T0 = 1'700'000'000'000'000'000;

// The absolute range [T0 + start, T0 + end): fixture times are offsets from T0.
inline core::TimeRange at(TimeNs start, TimeNs end)
{
    return { T0 + start, T0 + end };
}

// A GPU as used by one rank: kernels added through it run in that rank's process.
struct GpuRef
{
    std::uint32_t gpu = core::kNoIndex;
    std::uint32_t rank = core::kNoIndex;
};

class FixtureBuilder
{
public:
    static constexpr std::uint32_t kNewReport = core::kNoIndex;

    FixtureBuilder()
        : m_trace(std::make_unique<core::TraceSet>())
    {
    }

    // Ranks must be added in ascending rank number (TraceSet::ranks is sorted by it).
    // By default each rank is its own report (one file per rank) with pid 1000 + number.
    std::uint32_t addRank(std::int32_t number, std::uint32_t report = kNewReport, std::uint32_t pid = 0)
    {
        auto &t = *m_trace;
        assert(t.ranks.empty() || t.ranks.back().rank < number);
        if (report == kNewReport) {
            report = std::uint32_t(t.reports.size());
            t.reports.push_back({});
            t.reports.back().path = "rank" + std::to_string(number) + ".sqlite";
        }
        core::Rank rank;
        rank.rank = number;
        rank.report = report;
        rank.pid = pid != 0 ? pid : 1000 + std::uint32_t(number);
        t.ranks.push_back(rank);
        return std::uint32_t(t.ranks.size() - 1);
    }

    // The GPU (rank's report, deviceId); a second rank of the same report shares it.
    GpuRef addGpu(std::uint32_t rank, std::int32_t deviceId)
    {
        auto &t = *m_trace;
        const auto report = t.ranks[rank].report;
        for (std::uint32_t g = 0; g < t.gpus.size(); ++g)
            if (t.gpus[g].report == report && t.gpus[g].deviceId == deviceId)
                return { g, rank };
        core::Gpu gpu;
        gpu.report = report;
        gpu.deviceId = deviceId;
        t.gpus.push_back(std::move(gpu));
        return { std::uint32_t(t.gpus.size() - 1), rank };
    }

    // A thread of the rank's process; tid 0 means the main thread (tid == pid).
    std::uint32_t addThread(std::uint32_t rank, std::uint32_t tid = 0)
    {
        auto &t = *m_trace;
        core::Thread thread;
        thread.report = t.ranks[rank].report;
        thread.pid = t.ranks[rank].pid;
        thread.tid = tid != 0 ? tid : thread.pid;
        thread.rank = rank;
        t.threads.push_back(std::move(thread));
        return std::uint32_t(t.threads.size() - 1);
    }

    void kernel(GpuRef g, std::int64_t streamId, TimeNs start, TimeNs end, std::string_view name,
        std::uint32_t correlationId = 0, std::string_view demangled = {})
    {
        auto &k = stream(g, streamId).kernels;
        k.start.push_back(start);
        k.end.push_back(end);
        k.shortName.push_back(intern(name));
        k.demangledName.push_back(intern(demangled.empty() ? name : demangled));
        k.correlationId.push_back(correlationId);
    }

    void copy(GpuRef g, std::int64_t streamId, TimeNs start, TimeNs end, std::uint32_t correlationId = 0,
        core::CopyKind kind = core::CopyKind::HostToDevice, std::uint64_t bytes = 0)
    {
        auto &c = m_trace->gpus[g.gpu].copies;
        c.start.push_back(start);
        c.end.push_back(end);
        c.bytes.push_back(bytes);
        c.correlationId.push_back(correlationId);
        c.pid.push_back(m_trace->ranks[g.rank].pid);
        c.streamId.push_back(std::uint32_t(streamId));
        c.kind.push_back(kind);
        c.srcKind.push_back(core::MemKind::Unknown);
        c.dstKind.push_back(core::MemKind::Unknown);
    }

    void api(std::uint32_t thread, TimeNs start, TimeNs end, std::string_view name, std::uint32_t correlationId = 0)
    {
        auto &a = m_trace->threads[thread].api;
        pushNamedSpan(a, start, end, name);
        a.correlationId.push_back(correlationId);
    }

    void nvtx(std::uint32_t thread, TimeNs start, TimeNs end, std::string_view name,
        core::NvtxKind kind = core::NvtxKind::PushPop)
    {
        auto &n = m_trace->threads[thread].nvtx;
        pushNamedSpan(n, start, end, name);
        n.domain.push_back(core::kEmptyString);
        n.kind.push_back(kind);
    }

    // A range with an NVTX payload (the reader's payload column: NaN for ranges without).
    void nvtxWithPayload(std::uint32_t thread, TimeNs start, TimeNs end, std::string_view name, double payload)
    {
        nvtx(thread, start, end, name);
        auto &n = m_trace->threads[thread].nvtx;
        n.payload.resize(n.size() - 1, std::numeric_limits<double>::quiet_NaN());
        n.payload.push_back(payload);
    }

    void osrt(std::uint32_t thread, TimeNs start, TimeNs end, std::string_view name, std::int64_t callchainId = 0)
    {
        auto &o = m_trace->threads[thread].osrt;
        pushNamedSpan(o, start, end, name);
        o.callchainId.push_back(callchainId);
    }

    void mark(std::uint32_t thread, TimeNs time, std::string_view name)
    {
        auto &m = m_trace->threads[thread].marks;
        m.time.push_back(time);
        m.name.push_back(intern(name));
        m.domain.push_back(core::kEmptyString);
    }

    // A synchronisation record of the GPU's rank's process.
    void sync(GpuRef g, core::SyncType type, std::int64_t streamId, TimeNs start, TimeNs end,
        std::uint32_t correlationId, std::uint32_t eventId = 0)
    {
        auto &c = m_trace->gpus[g.gpu].syncs;
        c.start.push_back(start);
        c.end.push_back(end);
        c.pid.push_back(m_trace->ranks[g.rank].pid);
        c.streamId.push_back(streamId);
        c.contextId.push_back(1);
        c.correlationId.push_back(correlationId);
        c.eventId.push_back(eventId);
        c.type.push_back(type);
    }

    // A CUDA callchain of the rank's report given outer to inner as (module, symbol), given to
    // the thread's call `correlationId`; returns its chain id.
    std::uint32_t backtrace(std::uint32_t thread, std::uint32_t correlationId,
        std::initializer_list<std::pair<std::string_view, std::string_view>> outerToInner)
    {
        auto &report = m_trace->reports[m_trace->threads[thread].report];
        const auto exportId = std::int64_t(report.callchains.chainCount()) + 1;
        const auto chain = addChain(thread, core::CallchainSource::Cuda, exportId, outerToInner);
        m_trace->threads[thread].api.callchains.push_back({ correlationId, chain });
        return chain;
    }

    // A chain of the thread's report, of that source and export id (for OS runtime calls: the
    // id their callchainId names), given outer to inner as (module, symbol); returns its chain id.
    std::uint32_t addChain(std::uint32_t thread, core::CallchainSource source, std::int64_t exportId,
        std::initializer_list<std::pair<std::string_view, std::string_view>> outerToInner)
    {
        std::vector<core::StringId> module, symbol;
        std::vector<std::uint16_t> depth;
        auto d = std::uint16_t(outerToInner.size());
        for (const auto &[m, f] : outerToInner) {
            module.push_back(intern(m));
            symbol.push_back(intern(f));
            depth.push_back(--d);
        }
        auto &report = m_trace->reports[m_trace->threads[thread].report];
        return report.callchains.add(source, exportId, module, symbol, depth);
    }

    core::StringId intern(std::string_view text) { return m_trace->strings.intern(text); }

    std::unique_ptr<core::TraceSet> finish()
    {
        core::finalizeTraceSet(*m_trace);
        return std::move(m_trace);
    }

private:
    core::Stream &stream(GpuRef g, std::int64_t streamId)
    {
        auto &gpu = m_trace->gpus[g.gpu];
        const auto pid = m_trace->ranks[g.rank].pid;
        for (auto &s : gpu.streams)
            if (s.pid == pid && s.streamId == streamId)
                return s;
        core::Stream s;
        s.pid = pid;
        s.streamId = streamId;
        s.rank = g.rank;
        gpu.streams.push_back(std::move(s));
        return gpu.streams.back();
    }

    // The columns every thread event has (API calls, NVTX ranges, OS runtime calls).
    template <class Columns> void pushNamedSpan(Columns &c, TimeNs start, TimeNs end, std::string_view name)
    {
        c.start.push_back(start);
        c.end.push_back(end);
        c.name.push_back(intern(name));
    }

    std::unique_ptr<core::TraceSet> m_trace;
};

// Rank 0 with GPU 0 and its main thread, the start of most one-rank fixtures:
//   auto [b, rank, gpu, thread] = oneRankFixture();
struct OneRankFixture
{
    FixtureBuilder builder;
    std::uint32_t rank = core::kNoIndex;
    GpuRef gpu;
    std::uint32_t thread = core::kNoIndex;
};
inline OneRankFixture oneRankFixture()
{
    OneRankFixture f;
    f.rank = f.builder.addRank(0);
    f.gpu = f.builder.addGpu(f.rank, 0);
    f.thread = f.builder.addThread(f.rank);
    return f;
}

} // namespace gaplens::test
