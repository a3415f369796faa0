// SPDX-License-Identifier: MIT
#pragma once
// Small captures for the ui tests. Times in microseconds after kT0 (absolute ns).
//
// Per rank r (pid 100 + 100 r, GPU device r, rank r's times shifted by r * shiftUs):
//   stream 7: sgemm_kernel [100,1100) corr 1, ncclKernel_AllReduce_RING [1600,2600) corr 3,
//             relu_kernel [2600,3100) corr 4
//   stream 8: copy_kernel [300,900) corr 2 (overlaps sgemm: the merged lane is the union)
//   copies:   HtoD 1 MiB [3100,3200)
//   thread "main" (tid == pid): cudaLaunchKernel [10,20) c1, [30,40) c2, [1595,1598) c3,
//             [1600,1603) c4; cudaStreamSynchronize [1100,1590)
//   NVTX: train_step [0,3200) > forward [50,1000), backward [1100,3100)
// -> one idle gap per GPU: [1100,1600) = 500 us, cause "CUDA API call" (cudaStreamSynchronize),
//    phase train_step > backward.
#include "gaplens/core/model/trace_builder.h"
#include "gaplens/core/write/export_writer.h"
#include "gaplens/core/write/synth.h"
#include "ui/loading/derivedcapturecontroller.h"
#include "ui/loading/loadcontroller.h"
#include "ui/panels/communicationpanel.h"
#include "ui/panels/gapblamepanel.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/rankpacepanel.h"
#include "ui/panels/summarypanel.h"
#include "ui/panels/topkernelspanel.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QColor>
#include <QDir>
#include <QTest>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

namespace fixture {

using gaplens::core::TimeNs;
inline constexpr TimeNs kT0 = 1'700'000'000'000'000'000;
inline constexpr TimeNs us(double v)
{
    return TimeNs(v * 1000);
}

struct KernelSpec
{
    double start, end;
    const char *name;
    std::uint32_t corr;
    int stream; // 0 = stream 7, 1 = stream 8
};
inline const KernelSpec kKernels[] = {
    { 100, 1100, "sgemm_kernel", 1, 0 },
    { 300, 900, "copy_kernel", 2, 1 },
    { 1600, 2600, "ncclKernel_AllReduce_RING", 3, 0 },
    { 2600, 3100, "relu_kernel", 4, 0 },
};
struct CallSpec
{
    double start, end;
    const char *name;
    std::uint32_t corr;
};
inline const CallSpec kCalls[] = {
    { 10, 20, "cudaLaunchKernel", 1 },
    { 30, 40, "cudaLaunchKernel", 2 },
    { 1100, 1590, "cudaStreamSynchronize", 0 },
    { 1595, 1598, "cudaLaunchKernel", 3 },
    { 1600, 1603, "cudaLaunchKernel", 4 },
};
struct RangeSpec
{
    double start, end;
    const char *name;
};
// A one-block, 32-thread kernel.
inline constexpr gaplens::core::LaunchConfig kDefaultLaunch {
    .gridX = 1, .gridY = 1, .gridZ = 1, .blockX = 32, .blockY = 1, .blockZ = 1, .registersPerThread = 16
};
// The launch of every kernel in kKernels.
inline constexpr gaplens::core::LaunchConfig kFixtureLaunch { .gridX = 64,
    .gridY = 2,
    .gridZ = 1,
    .blockX = 256,
    .blockY = 1,
    .blockZ = 1,
    .registersPerThread = 40,
    .staticSharedMemory = 1024 };

// Appends one kernel (short and demangled name both `name`) to a stream's columns.
inline void pushKernel(gaplens::core::KernelColumns &c, TimeNs start, TimeNs end, gaplens::core::StringId name,
    std::uint32_t correlationId = 0, const gaplens::core::LaunchConfig &launch = kDefaultLaunch)
{
    c.start.push_back(start);
    c.end.push_back(end);
    c.shortName.push_back(name);
    c.demangledName.push_back(name);
    c.correlationId.push_back(correlationId);
    auto known = std::find(c.launchConfigs.begin(), c.launchConfigs.end(), launch);
    if (known == c.launchConfigs.end())
        known = c.launchConfigs.insert(known, launch);
    c.launchConfig.push_back(std::uint32_t(known - c.launchConfigs.begin()));
}

inline const RangeSpec kRanges[] = { { 0, 3200, "train_step" }, { 50, 1000, "forward" }, { 1100, 3100, "backward" } };

// The model built by hand (no reader involved).
inline std::shared_ptr<gaplens::core::TraceSet> buildTrace(int ranks = 2, double shiftUs = 0)
{
    using namespace gaplens::core;
    auto t = std::make_shared<TraceSet>();
    for (int r = 0; r < ranks; ++r) {
        const TimeNs base = kT0 + us(r * shiftUs);
        const std::uint32_t pid = 100 + 100 * r;
        Report rep;
        rep.path = "rank" + std::to_string(r) + ".sqlite";
        rep.host = "node0";
        t->reports.push_back(rep);
        Rank rank;
        rank.rank = r;
        rank.report = r;
        rank.pid = pid;
        rank.host = "node0";
        t->ranks.push_back(rank);
        Gpu gpu;
        gpu.report = r;
        gpu.deviceId = r;
        gpu.name = "Test GPU";
        for (int s = 0; s < 2; ++s) {
            Stream st;
            st.pid = pid;
            st.streamId = 7 + s;
            st.rank = r;
            gpu.streams.push_back(st);
        }
        for (const auto &k : kKernels)
            pushKernel(gpu.streams[k.stream].kernels, base + us(k.start), base + us(k.end), t->strings.intern(k.name),
                k.corr, kFixtureLaunch);
        auto &cp = gpu.copies;
        cp.start.push_back(base + us(3100));
        cp.end.push_back(base + us(3200));
        cp.bytes.push_back(1 << 20);
        cp.correlationId.push_back(0);
        cp.pid.push_back(pid);
        cp.streamId.push_back(7);
        cp.kind.push_back(CopyKind::HostToDevice);
        cp.srcKind.push_back(MemKind::Pinned);
        cp.dstKind.push_back(MemKind::Device);
        t->gpus.push_back(std::move(gpu));
        Thread th;
        th.report = r;
        th.pid = pid;
        th.tid = pid;
        th.rank = r;
        th.name = t->strings.intern("main");
        for (const auto &c : kCalls) {
            th.api.start.push_back(base + us(c.start));
            th.api.end.push_back(base + us(c.end));
            th.api.name.push_back(t->strings.intern(c.name));
            th.api.correlationId.push_back(c.corr);
        }
        for (const auto &n : kRanges) {
            th.nvtx.start.push_back(base + us(n.start));
            th.nvtx.end.push_back(base + us(n.end));
            th.nvtx.name.push_back(t->strings.intern(n.name));
            th.nvtx.domain.push_back(kEmptyString);
            th.nvtx.kind.push_back(NvtxKind::PushPop);
        }
        t->threads.push_back(std::move(th));
    }
    finalizeTraceSet(*t);
    return t;
}

// buildTrace(ranks) with one 1 MiB DtoH copy [1200, 1500) us on GPU 0, inside rank 0's
// [1100, 1600) us gap: 300 of its 500 us, so blame calls that gap a copy gap.
inline std::shared_ptr<gaplens::core::TraceSet> buildTraceWithCopyInGap(int ranks = 2)
{
    auto trace = buildTrace(ranks);
    auto &c = trace->gpus[0].copies;
    c.start.push_back(kT0 + us(1200));
    c.end.push_back(kT0 + us(1500));
    c.bytes.push_back(1 << 20);
    c.correlationId.push_back(0);
    c.pid.push_back(100);
    c.streamId.push_back(7);
    c.kind.push_back(gaplens::core::CopyKind::DeviceToHost);
    c.srcKind.push_back(gaplens::core::MemKind::Device);
    c.dstKind.push_back(gaplens::core::MemKind::Pinned);
    gaplens::core::finalizeTraceSet(*trace);
    return trace;
}

// One rank (number 0, pid 100) of one report with one GPU of one stream (pid 100) whose
// kernels are `kernels` (start, end in us from kT0, name; correlation ids 1, 2, ...): the
// start of the small captures a test builds by hand. Not finalised.
struct KernelAt
{
    double start, end;
    const char *name;
};
inline std::shared_ptr<gaplens::core::TraceSet> oneRankTrace(std::initializer_list<KernelAt> kernels)
{
    using namespace gaplens::core;
    auto t = std::make_shared<TraceSet>();
    t->reports.push_back(Report {});
    Rank rank;
    rank.pid = 100;
    t->ranks.push_back(rank);
    Gpu gpu;
    Stream stream;
    stream.pid = 100;
    stream.rank = 0;
    std::uint32_t correlationId = 0;
    for (const auto &k : kernels)
        pushKernel(stream.kernels, kT0 + us(k.start), kT0 + us(k.end), t->strings.intern(k.name), ++correlationId);
    gpu.streams.push_back(std::move(stream));
    t->gpus.push_back(std::move(gpu));
    return t;
}

// A thread of oneRankTrace's process (pid 100, rank 0) named `name`; the caller adds it.
inline gaplens::core::Thread rankThread(gaplens::core::TraceSet &t, std::uint32_t tid, const char *name)
{
    gaplens::core::Thread thread;
    thread.pid = 100;
    thread.tid = tid;
    thread.rank = 0;
    thread.name = t.strings.intern(name);
    return thread;
}

// Adds `count` kernels of 1 us every 2 us on a third stream of GPU 0 (for fold tests).
inline void addDenseStream(gaplens::core::TraceSet &t, std::size_t count)
{
    using namespace gaplens::core;
    Stream st;
    st.pid = 100;
    st.streamId = 99;
    st.rank = 0;
    const StringId name = t.strings.intern("tiny_kernel");
    for (std::size_t i = 0; i < count; ++i) {
        const TimeNs start = kT0 + us(4000) + TimeNs(i) * 2000;
        pushKernel(st.kernels, start, start + 1000, name);
    }
    t.gpus[0].streams.push_back(std::move(st));
    finalizeTraceSet(t);
}

// The same capture as Nsight Systems exports, one file per rank (PMI_RANK in the environment).
inline std::string writeExport(const std::string &path, int rank)
{
    using namespace gaplens::core;
    ExportWriter::Options options;
    options.hostName = "node0";
    options.environment = { { "PMI_RANK", std::to_string(rank) } };
    ExportWriter w(path, options);
    const std::uint32_t pid = 100 + 100 * rank;
    w.addProcess(pid, "python3");
    w.addThreadName(pid, pid, "main");
    w.addGpu(rank, "Test GPU");
    for (const auto &k : kKernels)
        w.addKernel({ .start = us(k.start),
            .end = us(k.end),
            .deviceId = rank,
            .streamId = 7 + k.stream,
            .correlationId = k.corr,
            .pid = pid,
            .shortName = k.name });
    for (const auto &c : kCalls)
        w.addRuntime({ .start = us(c.start),
            .end = us(c.end),
            .pid = pid,
            .tid = pid,
            .correlationId = c.corr,
            .name = std::string(c.name) + "_v7000" });
    for (const auto &n : kRanges)
        w.addNvtx({ .start = us(n.start), .end = us(n.end), .pid = pid, .tid = pid, .text = n.name });
    w.addMemcpy({ .start = us(3100), .end = us(3200), .deviceId = rank, .pid = pid, .bytes = 1 << 20 });
    w.finish();
    return path;
}

// Colours within `tolerance` per channel (alpha ignored): what a picture shows after blending.
inline bool near(const QColor &a, const QColor &b, int tolerance = 12)
{
    return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance
        && std::abs(a.blue() - b.blue()) <= tolerance;
}

// Two synthetic training jobs with steps (core::writeSyntheticCapture: two ranks, jitter
// 0.02), written to dir/before and dir/after and loaded. Rank 1 is the straggler: as fast as
// the others before, its compute kernels `slowdown` times longer after. Returns (before, after).
inline std::pair<std::shared_ptr<const gaplens::ui::TimelineData>, std::shared_ptr<const gaplens::ui::TimelineData>>
loadSynthPair(const QString &dir, int steps, double slowdown, std::uint64_t afterSeed = 1)
{
    gaplens::core::SynthOptions o;
    o.ranks = 2;
    o.steps = steps;
    o.stragglerRank = 1;
    o.stragglerSlowdown = 1.0;
    o.jitter = 0.02;
    const QString before = QDir(dir).filePath(QStringLiteral("before")),
                  after = QDir(dir).filePath(QStringLiteral("after"));
    gaplens::core::writeSyntheticCapture(before.toStdString(), o);
    o.stragglerSlowdown = slowdown;
    o.seed = afterSeed;
    gaplens::core::writeSyntheticCapture(after.toStdString(), o);
    return { gaplens::ui::LoadController::loadNow({ before }), gaplens::ui::LoadController::loadNow({ after }) };
}

// The timeline and the four side panels over one capture, wired as MainWindow wires them.
struct PanelWindow
{
    gaplens::ui::TimelineView view;
    gaplens::ui::PanelContext context;
    gaplens::ui::TopKernelsPanel kernels { context, &view };
    gaplens::ui::GapBlamePanel blame { context, &view };
    gaplens::ui::RankPacePanel pace { context, &view };
    gaplens::ui::SummaryPanel summary { context, &view };
    gaplens::ui::CommunicationPanel communication { context, &view };
    std::shared_ptr<const gaplens::ui::TimelineData> data; // the last one loaded

    PanelWindow()
    {
        QObject::connect(view.model(), &gaplens::ui::TimelineModel::gapThresholdChanged, &context,
            &gaplens::ui::PanelContext::setGapThreshold);
    }
    QList<gaplens::ui::AnalysisPanel *> panels() { return { &kernels, &blame, &pace, &summary, &communication }; }
    QList<gaplens::ui::PanelTable *> tables()
    {
        return { kernels.table(), blame.table(), pace.matrix(), pace.rankTable(), summary.table(),
            communication.overlapTable(), communication.skewTable() };
    }
    gaplens::ui::DerivedCaptureController &derived() { return *view.model()->derivedSource(); }

    // As the loader hands a capture over: timeline first, then the panels at its threshold.
    void load(std::shared_ptr<const gaplens::ui::TimelineData> loaded)
    {
        data = std::move(loaded);
        view.setData(data);
        context.setGapThreshold(view.model()->gapThreshold());
        context.setData(data);
    }
    void load(std::shared_ptr<gaplens::core::TraceSet> trace)
    {
        load(gaplens::ui::prepareTimelineData(std::move(trace)));
    }

    QList<int> generations()
    {
        QList<int> g;
        for (auto *p : panels())
            g << p->generation();
        return g;
    }
    // Waits until every panel applied a result newer than `before`.
    bool waitAll(const QList<int> &before)
    {
        const auto list = panels();
        for (int i = 0; i < list.size(); ++i)
            if (!QTest::qWaitFor([&] { return list[i]->generation() > before[i] && !list[i]->isComputing(); }, 20000))
                return false;
        return true;
    }
    // Loads `trace` and waits until every panel shows it.
    bool loadAndWait(std::shared_ptr<gaplens::core::TraceSet> trace)
    {
        const auto before = generations();
        load(std::move(trace));
        return waitAll(before);
    }
};

} // namespace fixture
