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

#include <memory>
#include <string>

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
        for (const auto &k : kKernels) {
            auto &c = gpu.streams[k.stream].kernels;
            c.start.push_back(base + us(k.start));
            c.end.push_back(base + us(k.end));
            c.shortName.push_back(t->strings.intern(k.name));
            c.demangledName.push_back(c.shortName.back());
            c.correlationId.push_back(k.corr);
            c.gridX.push_back(64);
            c.gridY.push_back(2);
            c.gridZ.push_back(1);
            c.blockX.push_back(256);
            c.blockY.push_back(1);
            c.blockZ.push_back(1);
            c.registersPerThread.push_back(40);
            c.staticSharedMemory.push_back(1024);
            c.dynamicSharedMemory.push_back(0);
        }
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

// Adds `count` kernels of 1 us every 2 us on a third stream of GPU 0 (for fold tests).
inline void addDenseStream(gaplens::core::TraceSet &t, std::size_t count)
{
    using namespace gaplens::core;
    Stream st;
    st.pid = 100;
    st.streamId = 99;
    st.rank = 0;
    auto &c = st.kernels;
    const StringId name = t.strings.intern("tiny_kernel");
    for (std::size_t i = 0; i < count; ++i) {
        c.start.push_back(kT0 + us(4000) + TimeNs(i) * 2000);
        c.end.push_back(c.start.back() + 1000);
        c.shortName.push_back(name);
        c.demangledName.push_back(name);
        c.correlationId.push_back(0);
        c.gridX.push_back(1);
        c.gridY.push_back(1);
        c.gridZ.push_back(1);
        c.blockX.push_back(32);
        c.blockY.push_back(1);
        c.blockZ.push_back(1);
        c.registersPerThread.push_back(16);
        c.staticSharedMemory.push_back(0);
        c.dynamicSharedMemory.push_back(0);
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
    for (const auto &k : kKernels) {
        ExportWriter::Kernel kernel;
        kernel.start = us(k.start);
        kernel.end = us(k.end);
        kernel.deviceId = rank;
        kernel.streamId = 7 + k.stream;
        kernel.correlationId = k.corr;
        kernel.pid = pid;
        kernel.shortName = k.name;
        w.addKernel(kernel);
    }
    for (const auto &c : kCalls) {
        ExportWriter::RuntimeCall call;
        call.start = us(c.start);
        call.end = us(c.end);
        call.pid = pid;
        call.tid = pid;
        call.correlationId = c.corr;
        call.name = std::string(c.name) + "_v7000";
        w.addRuntime(call);
    }
    for (const auto &n : kRanges) {
        ExportWriter::NvtxRange range;
        range.start = us(n.start);
        range.end = us(n.end);
        range.pid = pid;
        range.tid = pid;
        range.text = n.name;
        w.addNvtx(range);
    }
    ExportWriter::Memcpy copy;
    copy.start = us(3100);
    copy.end = us(3200);
    copy.deviceId = rank;
    copy.pid = pid;
    copy.bytes = 1 << 20;
    w.addMemcpy(copy);
    w.finish();
    return path;
}

} // namespace fixture
