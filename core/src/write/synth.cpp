// SPDX-License-Identifier: MIT
#include "gaplens/core/write/synth.h"
#include "gaplens/core/util/splitmix.h"

#include "gaplens/core/write/export_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <utility>

namespace gaplens::core {

namespace {

// Host-side costs, fixed so that the GPU always lags the launching thread (kernels are
// >= 20 us, a launch every 7 us): back-to-back kernels then have no gap between them.
constexpr TimeNs kCallNs = 5'000; // one launch/copy/memset call on the host
constexpr TimeNs kCallGapNs = 2'000; // Python between two calls
constexpr TimeNs kLaunchLatencyNs = 5'000; // call end -> earliest GPU start
constexpr TimeNs kNvtxSlackNs = 1'000; // between a range edge and the next call
constexpr TimeNs kFirstStepNs = 50'000'000; // CUDA init before the first step
constexpr TimeNs kInterStepNs = 20'000; // host work between train_step ranges
constexpr TimeNs kCopyNs = 350'000; // the batch upload
constexpr TimeNs kAllReduceNs = 250'000; // transfer once every rank has joined
constexpr TimeNs kOptimizerNs = 80'000;
constexpr TimeNs kMemsetNs = 20'000;
constexpr TimeNs kSyncReturnNs = 3'000; // cudaStreamSynchronize returns after the drain
constexpr TimeNs kGapThresholdNs = 100'000;
constexpr std::uint64_t kBatchBytes = 8ull << 20;
constexpr std::uint64_t kGradBytes = 4ull << 20;
constexpr std::int64_t kComputeStream = 7, kNcclStream = 13, kCopyStream = 14;
constexpr std::int64_t kDomainId = 1;

struct KernelShape
{
    const char *shortName;
    const char *demangledName;
    TimeNs baseNs;
    std::uint32_t gridX, blockX, registers, staticShared;
};

const KernelShape kSgemmNn { "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn", 120'000, 64, 256, 122, 16384 };
const KernelShape kSgemmNt { "ampere_sgemm_128x64_nt", "ampere_sgemm_128x64_nt", 130'000, 64, 256, 122, 16384 };
const KernelShape kSgemmTn { "ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn", 110'000, 64, 256, 122, 16384 };
const KernelShape kElementwise { "vectorized_elementwise_kernel",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char *, 3>>(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char *, 3>)",
    20'000, 1024, 128, 16, 0 };
const KernelShape kLayerNorm { "layer_norm_kernel",
    "void at::native::(anonymous namespace)::layer_norm_kernel<float, float>(long, float, const float *, "
    "const float *, const float *, float *, float *, float *)",
    25'000, 512, 256, 32, 0 };
const KernelShape kAllReduce { "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096UL>)", 0, 2, 640, 96, 0 };
const KernelShape kOptimizer { "multi_tensor_apply_kernel",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>>(...)",
    kOptimizerNs, 320, 512, 40, 0 };

const KernelShape &forwardKernel(int index) // 2 per layer
{
    if (index % 2 == 0)
        return kSgemmNn;
    return (index / 2) % 2 == 0 ? kLayerNorm : kElementwise;
}

const KernelShape &backwardKernel(int index) // 3 per layer
{
    switch (index % 3) {
    case 0: return kSgemmNt;
    case 1: return kSgemmTn;
    default: return kElementwise;
    }
}

// Op ranges as PyTorch's emit_nvtx names them (outermost first).
const char *const kOpNames[] = { "aten::linear", "aten::addmm", "aten::matmul", "aten::mm", "aten::add_",
    "aten::layer_norm", "aten::copy_", "aten::empty" };

// Caps the op ranges per launch: they must all end before the next call (kCallGapNs later).
constexpr std::uint64_t kMaxOpRangesPerLaunch = 64;

struct Interval
{
    TimeNs start, end;
};

// One rank's writer and running state across the lockstep simulation.
struct RankState
{
    std::unique_ptr<ExportWriter> writer;
    SynthRankTruth truth;
    SplitMix64 rng { 0 };
    double slowdown = 1.0;
    std::uint32_t nextCorrelation = 1000;
    std::uint64_t launches = 0; // compute launches so far (for the scale options' spread)
    // Per step:
    TimeNs host = 0; // the main thread's cursor
    TimeNs computeFree = 0; // end of the last work queued on the compute stream
    TimeNs backwardPush = 0, bucketReady = 0, ncclCallEnd = 0, ncclStart = 0;
    int nextBackward = 0;
    std::vector<Interval> gpu; // this step's GPU work, for the busy union
    // This step's NVTX ranges, written at the step's end in start order as nsys writes them
    // (every real export has each thread's ranges in start order; the phases here are only
    // known when they end).
    struct PendingRange
    {
        TimeNs start, end;
        std::uint32_t tid;
        const char *text;
        bool registered;
        std::int64_t domain;
        int eventType = 59;
        std::int64_t payload = 0; // > 0: the int64Value payload
    };
    std::vector<PendingRange> nvtx;
    // Running union over all steps:
    bool anyGpu = false;
    TimeNs mergedStart = 0, mergedEnd = 0;
};

class Generator
{
public:
    explicit Generator(const SynthOptions &options)
        : m_options(options)
    {
    }

    SynthResult run(const std::string &outputDir);

private:
    TimeNs jittered(RankState &rank, TimeNs baseNs, double factor)
    {
        double ns = double(baseNs) * factor;
        if (m_options.jitter > 0.0)
            ns *= 1.0 + m_options.jitter * rank.rng.symmetric();
        return std::max<TimeNs>(1'000, std::llround(ns));
    }

    void range(RankState &rank, std::uint32_t tid, TimeNs start, TimeNs end, const char *text, bool registered,
        std::int64_t domain = 0)
    {
        rank.nvtx.push_back({ start, end, tid, text, registered, domain });
        ++rank.truth.nvtxRanges;
    }

    void writeStepRanges(RankState &rank)
    {
        // Outer ranges first on equal starts; stable, so equal ranges keep their order.
        std::stable_sort(rank.nvtx.begin(), rank.nvtx.end(),
            [](const auto &a, const auto &b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
        ExportWriter::NvtxRange &row = m_nvtxRow;
        for (const auto &r : rank.nvtx) {
            row.start = r.start;
            row.end = r.end;
            row.pid = rank.truth.pid;
            row.tid = r.tid;
            row.text = r.text;
            row.registeredString = r.registered;
            row.domainId = r.domain;
            row.eventType = r.eventType;
            row.int64Value = r.payload > 0 ? std::optional<std::int64_t>(r.payload) : std::nullopt;
            rank.writer->addNvtx(row);
        }
        rank.nvtx.clear();
    }

    // A runtime call on the main thread starting at the host cursor; returns its end.
    TimeNs call(RankState &rank, const char *name, std::uint32_t correlationId, TimeNs durationNs = kCallNs)
    {
        ExportWriter::RuntimeCall &row = m_callRow;
        row.start = rank.host;
        row.end = rank.host + durationNs;
        row.pid = rank.truth.pid;
        row.tid = rank.truth.pid;
        row.correlationId = correlationId;
        row.name = name;
        rank.writer->addRuntime(row);
        ++rank.truth.runtimeCalls;
        rank.host = row.end + kCallGapNs;
        return row.end;
    }

    // Where and when a kernel, copy or memset ran on this rank's GPU: the fields all three share.
    template <typename DeviceActivity>
    static void placeOnGpu(DeviceActivity &row, const RankState &rank, std::int64_t stream, TimeNs start, TimeNs end,
        std::uint32_t correlationId)
    {
        row.start = start;
        row.end = end;
        row.deviceId = rank.truth.deviceId;
        row.streamId = stream;
        row.correlationId = correlationId;
        row.pid = rank.truth.pid;
    }

    TimeNs kernel(RankState &rank, const KernelShape &shape, std::int64_t stream, TimeNs start, TimeNs durationNs,
        std::uint32_t correlationId)
    {
        ExportWriter::Kernel &row = m_kernelRow;
        placeOnGpu(row, rank, stream, start, start + durationNs, correlationId);
        row.shortName = shape.shortName;
        row.demangledName = shape.demangledName;
        row.gridX = shape.gridX;
        row.blockX = shape.blockX;
        row.registersPerThread = shape.registers;
        row.staticSharedMemory = shape.staticShared;
        rank.writer->addKernel(row);
        ++rank.truth.kernels;
        rank.gpu.push_back({ row.start, row.end });
        return row.end;
    }

    // This launch's share of `total` extra rows over all launches: an even (Bresenham) spread,
    // so the counts are exact and the same on every rank.
    std::uint64_t share(std::uint64_t launch, std::uint64_t total) const
    {
        if (total == 0 || m_launchesPerRank == 0)
            return 0;
        return (launch + 1) * total / m_launchesPerRank - launch * total / m_launchesPerRank;
    }

    // A cudaLaunchKernel of a compute kernel queued behind the compute stream (and `after`).
    // With the scale options it is preceded by extra calls and wrapped in nested op ranges
    // (1 ns apart, so they nest strictly inside the surrounding phase range).
    void launchCompute(RankState &rank, const KernelShape &shape, double factor, TimeNs after = 0)
    {
        const std::uint64_t launch = rank.launches++;
        const std::uint64_t extraCalls = share(launch, m_extraRuntime);
        const std::uint64_t opRanges = share(launch, m_extraNvtx);
        const TimeNs opStart = rank.host;
        rank.host += TimeNs(opRanges);
        for (std::uint64_t i = 0; i < extraCalls; ++i)
            call(rank, "cudaStreamIsCapturing_v10000", rank.nextCorrelation++);
        const std::uint32_t correlationId = rank.nextCorrelation++;
        const TimeNs callEnd = call(rank, "cudaLaunchKernel_v7000", correlationId);
        for (std::uint64_t k = 0; k < opRanges; ++k)
            range(rank, rank.truth.pid, opStart + TimeNs(k), callEnd + TimeNs(opRanges - k),
                kOpNames[k % std::size(kOpNames)], k % 2 == 1);
        const TimeNs start = std::max({ callEnd + kLaunchLatencyNs, rank.computeFree, after });
        const TimeNs duration = jittered(rank, shape.baseNs, factor);
        rank.computeFree = kernel(rank, shape, kComputeStream, start, duration, correlationId);
        ++rank.truth.computeKernels;
        rank.truth.computeKernelNs += duration;
    }

    void openRank(const std::string &outputDir, int index);
    // The phases after `stepsDone` steps, from `at` on every rank; returns the next step's start.
    TimeNs writePhases(std::size_t stepsDone, TimeNs at);
    void phase(const char *text, TimeNs start, TimeNs length, std::vector<TimeRange> SynthRankTruth::*list,
        bool staging = false)
    {
        for (auto &rank : m_ranks) {
            const std::uint32_t tid = staging ? rank.truth.pid + 5 : rank.truth.pid;
            rank.nvtx.push_back({ start, start + length, tid, text, false, 0, staging ? 60 : 59 });
            if (!staging)
                ++rank.truth.nvtxRanges;
            (rank.truth.*list).push_back({ start, start + length });
        }
    }
    void stepUntilBucket(RankState &rank, TimeNs stepStart, int step);
    TimeNs stepFinish(RankState &rank, TimeNs stepStart, TimeNs allReduceEnd);
    void accountGpu(RankState &rank);

    const SynthOptions &m_options;
    std::vector<RankState> m_ranks;
    // Reused rows: assigning a name keeps the string's buffer, so the hot path does not allocate.
    ExportWriter::Kernel m_kernelRow;
    ExportWriter::RuntimeCall m_callRow;
    ExportWriter::NvtxRange m_nvtxRow;
    int m_layers = 0;
    double m_computeFactor = 1.0; // 2 during warm-up steps, times stagingSlowdown under staging
    TimeNs m_stagingEnd = 0; // end of the last checkpoint staging
    std::uint64_t m_launchesPerRank = 0; // compute launches of one rank over all steps
    std::uint64_t m_extraRuntime = 0, m_extraNvtx = 0; // rows the scale options add per rank
};

TimeNs Generator::writePhases(std::size_t stepsDone, TimeNs at)
{
    const auto every = [stepsDone](int n) { return n > 0 && stepsDone % std::size_t(n) == 0; };
    if (every(m_options.checkpointEvery) && m_options.checkpointNs > 0) {
        phase("save_checkpoint", at, m_options.checkpointNs, &SynthRankTruth::checkpoints);
        at += m_options.checkpointNs;
        if (m_options.asyncStagingNs > 0) {
            phase("ckpt_stage", at, m_options.asyncStagingNs, &SynthRankTruth::stagings, true);
            m_stagingEnd = at + m_options.asyncStagingNs;
        }
        at += kInterStepNs;
    }
    if (every(m_options.validationEvery) && m_options.validationNs > 0) {
        phase("validation", at, m_options.validationNs, &SynthRankTruth::validations);
        at += m_options.validationNs + kInterStepNs;
    }
    if (m_options.dataWaitNs > 0) {
        phase("data_wait", at, m_options.dataWaitNs, &SynthRankTruth::dataWaits);
        at += m_options.dataWaitNs + kInterStepNs;
    }
    return at;
}

void Generator::openRank(const std::string &outputDir, int index)
{
    RankState &rank = m_ranks[std::size_t(index)];
    SynthRankTruth &truth = rank.truth;
    truth.rank = index;
    truth.pid = 4000 + std::uint32_t(index) * 17;
    truth.loaderTid = truth.pid + 3;
    truth.deviceId = index;
    truth.host = fmt::format("node{}", index / 8);
    truth.file = (std::filesystem::path(outputDir) / fmt::format("train_{}.sqlite", index)).string();
    rank.slowdown = index == m_options.stragglerRank ? m_options.stragglerSlowdown : 1.0;
    rank.rng.state = m_options.seed ^ (0xD1B54A32D192ED03ull * std::uint64_t(index + 1));

    ExportWriter::Options writerOptions;
    writerOptions.sessionStartUtcNs = m_options.sessionStartUtcNs;
    writerOptions.hostName = truth.host;
    writerOptions.environment = {
        { "RANK", std::to_string(index) },
        { "LOCAL_RANK", std::to_string(index % 8) },
        { "WORLD_SIZE", std::to_string(m_options.ranks) },
        { "LOCAL_WORLD_SIZE", std::to_string(std::min(8, m_options.ranks - index / 8 * 8)) },
        { "MASTER_ADDR", "node0" },
        { "MASTER_PORT", "29500" },
        { "NCCL_DEBUG", "WARN" },
    };
    rank.writer = std::make_unique<ExportWriter>(truth.file, writerOptions);
    ExportWriter &writer = *rank.writer;
    // PROCESSES lists every process on the node, not only the profiled one.
    writer.addProcess(truth.pid - 2, "torchrun");
    writer.addProcess(truth.pid, "python3");
    writer.addThreadName(truth.pid, truth.pid, "python3");
    writer.addThreadName(truth.pid, truth.loaderTid, "pt_data_worker");
    if (m_options.asyncStagingNs > 0 && m_options.checkpointEvery > 0)
        writer.addThreadName(truth.pid, truth.pid + 5, "ckpt_stager");
    writer.addGpu(truth.deviceId, "NVIDIA H100 80GB HBM3");

    ExportWriter::NvtxRange domain;
    domain.start = 1'000'000;
    domain.pid = truth.pid;
    domain.tid = truth.pid;
    domain.text = "gaplens";
    domain.eventType = 75;
    domain.domainId = kDomainId;
    writer.addNvtx(domain);
    ++truth.nvtxDomains;
}

void Generator::stepUntilBucket(RankState &rank, TimeNs stepStart, int step)
{
    SynthRankTruth &truth = rank.truth;
    ExportWriter &writer = *rank.writer;
    rank.gpu.clear();
    truth.stepStartNs.push_back(stepStart);

    ExportWriter::NvtxRange mark;
    mark.start = stepStart;
    mark.pid = truth.pid;
    mark.tid = truth.pid;
    mark.text = fmt::format("step {}", step);
    mark.eventType = 34;
    mark.domainId = kDomainId;
    writer.addNvtx(mark);
    ++truth.nvtxMarks;

    // Input-bound: the main thread waits for the loader, with no CUDA call in flight.
    const TimeNs dataStart = stepStart + kNvtxSlackNs;
    const TimeNs loaded = dataStart + m_options.inputGapNs;
    range(rank, truth.loaderTid, dataStart, loaded, "DataLoader.__next__", false);
    rank.host = loaded + kNvtxSlackNs; // the backtrace row below starts a little earlier
    const std::uint32_t copyCorrelation = rank.nextCorrelation++;
    const TimeNs copyCallStart = rank.host;
    const TimeNs copyCallEnd = call(rank, "cudaMemcpyAsync_v3020", copyCorrelation);
    {
        // nsys writes a second, slightly wider row for calls it took a backtrace of.
        ExportWriter::RuntimeCall backtrace;
        backtrace.start = copyCallStart - 300;
        backtrace.end = copyCallEnd + 200;
        backtrace.pid = truth.pid;
        backtrace.tid = truth.pid;
        backtrace.correlationId = copyCorrelation;
        backtrace.name = "cudaMemcpyAsync";
        backtrace.eventClass = 67;
        writer.addRuntime(backtrace);
        ++truth.backtraceRows;
    }
    ExportWriter::Memcpy copy;
    const TimeNs copyStart = copyCallEnd + kLaunchLatencyNs;
    placeOnGpu(copy, rank, kCopyStream, copyStart, copyStart + jittered(rank, kCopyNs, 1.0), copyCorrelation);
    copy.bytes = kBatchBytes;
    copy.copyKind = 1;
    copy.srcKind = 1; // pinned
    copy.dstKind = 2;
    writer.addMemcpy(copy);
    ++truth.memcpys;
    rank.gpu.push_back({ copy.start, copy.end });
    const TimeNs dataEnd = copyCallEnd + kNvtxSlackNs;
    range(rank, truth.pid, dataStart, dataEnd, "data_to_gpu", false);

    const TimeNs forwardStart = dataEnd + kNvtxSlackNs;
    rank.host = forwardStart + kNvtxSlackNs;
    const double factor = m_computeFactor * rank.slowdown;
    for (int i = 0; i < 2 * m_layers; ++i)
        launchCompute(rank, forwardKernel(i), factor, i == 0 ? copy.end : 0); // waits for the batch
    const TimeNs forwardEnd = rank.host - kCallGapNs + kNvtxSlackNs;
    range(rank, truth.pid, forwardStart, forwardEnd, "forward", true);

    // Backward until the first gradient bucket is ready (2/3 of its kernels).
    rank.backwardPush = forwardEnd + kNvtxSlackNs;
    rank.host = rank.backwardPush + kNvtxSlackNs;
    for (rank.nextBackward = 0; rank.nextBackward < 2 * m_layers; ++rank.nextBackward)
        launchCompute(rank, backwardKernel(rank.nextBackward), factor);
    rank.bucketReady = rank.computeFree;
    const TimeNs bucketPush = rank.host;
    rank.host += kNvtxSlackNs;
    const std::uint32_t ncclCorrelation = rank.nextCorrelation++;
    rank.ncclCallEnd = call(rank, "cudaLaunchKernelExC_v11060", ncclCorrelation);
    rank.ncclStart = std::max(rank.ncclCallEnd + kLaunchLatencyNs, rank.bucketReady);
    range(rank, truth.pid, bucketPush, rank.ncclCallEnd + kNvtxSlackNs, "allreduce_bucket", true, kDomainId);
    rank.host = rank.ncclCallEnd + kNvtxSlackNs + kCallGapNs;
}

TimeNs Generator::stepFinish(RankState &rank, TimeNs stepStart, TimeNs allReduceEnd)
{
    SynthRankTruth &truth = rank.truth;
    ExportWriter &writer = *rank.writer;
    // The all-reduce kernel starts when this rank's bucket is ready and ends when the last
    // rank has joined: on fast ranks it mostly waits.
    const std::uint32_t ncclCorrelation = rank.nextCorrelation - 1;
    kernel(rank, kAllReduce, kNcclStream, rank.ncclStart, allReduceEnd - rank.ncclStart, ncclCorrelation);
    ++truth.ncclKernels;
    truth.ncclKernelNs += allReduceEnd - rank.ncclStart;

    const double factor = m_computeFactor * rank.slowdown;
    for (; rank.nextBackward < 3 * m_layers; ++rank.nextBackward)
        launchCompute(rank, backwardKernel(rank.nextBackward), factor);
    const TimeNs backwardEnd = rank.host - kCallGapNs + kNvtxSlackNs;
    range(rank, truth.pid, rank.backwardPush, backwardEnd, "backward", true);

    const TimeNs optimizerStart = backwardEnd + kNvtxSlackNs;
    rank.host = optimizerStart + kNvtxSlackNs;
    launchCompute(rank, kOptimizer, 1.0, allReduceEnd); // waits for the reduced gradients
    const std::uint32_t memsetCorrelation = rank.nextCorrelation++;
    const TimeNs memsetCallEnd = call(rank, "cudaMemsetAsync_v3020", memsetCorrelation);
    ExportWriter::Memset set;
    const TimeNs memsetStart = std::max(memsetCallEnd + kLaunchLatencyNs, rank.computeFree);
    placeOnGpu(set, rank, kComputeStream, memsetStart, memsetStart + jittered(rank, kMemsetNs, 1.0), memsetCorrelation);
    set.bytes = kGradBytes;
    writer.addMemset(set);
    ++truth.memsets;
    rank.computeFree = set.end;
    rank.gpu.push_back({ set.start, set.end });
    const TimeNs optimizerEnd = memsetCallEnd + kNvtxSlackNs;
    range(rank, truth.pid, optimizerStart, optimizerEnd, "optimizer", false);

    // The host blocks until the GPU drains.
    rank.host = optimizerEnd + kNvtxSlackNs;
    const TimeNs syncStart = rank.host;
    const TimeNs syncEnd = std::max(syncStart + 2'000, rank.computeFree + kSyncReturnNs);
    call(rank, "cudaStreamSynchronize_v3020", rank.nextCorrelation++, syncEnd - syncStart);
    const TimeNs stepEnd = syncEnd + kNvtxSlackNs;
    range(rank, truth.pid, stepStart, stepEnd, "train_step", true);
    rank.nvtx.back().payload = m_options.tokensPerStep;
    writeStepRanges(rank);
    truth.stepDurationNs.push_back(stepEnd - stepStart);
    accountGpu(rank);
    return stepEnd;
}

void Generator::accountGpu(RankState &rank)
{
    // Steps never share GPU time (each ends with a synchronize), so sorting one step's work
    // is enough to keep the running union in start order.
    std::sort(rank.gpu.begin(), rank.gpu.end(), [](const Interval &a, const Interval &b) {
        return a.start < b.start || (a.start == b.start && a.end > b.end);
    });
    SynthRankTruth &truth = rank.truth;
    for (const Interval &work : rank.gpu) {
        if (!rank.anyGpu) {
            rank.anyGpu = true;
            rank.mergedStart = work.start;
            rank.mergedEnd = work.end;
            truth.firstGpuNs = work.start;
        } else if (work.start > rank.mergedEnd) {
            truth.busyNs += rank.mergedEnd - rank.mergedStart;
            if (work.start - rank.mergedEnd >= kGapThresholdNs)
                ++truth.idleGapsAtLeast100us;
            rank.mergedStart = work.start;
            rank.mergedEnd = work.end;
        } else {
            rank.mergedEnd = std::max(rank.mergedEnd, work.end);
        }
        truth.lastGpuNs = std::max(truth.lastGpuNs, work.end);
    }
}

SynthResult Generator::run(const std::string &outputDir)
{
    if (m_options.ranks < 1 || m_options.steps < 0 || m_options.warmupSteps < 0 || m_options.layers < 1
        || m_options.inputGapNs < 0 || m_options.jitter < 0.0 || m_options.jitter >= 0.5
        || m_options.stragglerSlowdown <= 0.0)
        throw std::runtime_error("writeSyntheticCapture: invalid options");
    m_layers = m_options.layers;
    std::error_code error;
    std::filesystem::create_directories(outputDir, error);
    if (error)
        throw std::runtime_error(fmt::format("{}: cannot create the folder: {}", outputDir, error.message()));

    const std::size_t kernelsPerStep = std::size_t(5 * m_layers + 2);
    std::size_t totalSteps = std::size_t(m_options.warmupSteps + m_options.steps);
    if (m_options.scaleKernelsPerRank > 0)
        totalSteps = std::max(totalSteps, (m_options.scaleKernelsPerRank + kernelsPerStep - 1) / kernelsPerStep);

    // Per step: 5 * layers + 1 compute launches (the optimizer's included), 4 more calls
    // (copy, all-reduce, memset, synchronize) and 7 push/pop ranges.
    m_launchesPerRank = totalSteps * std::uint64_t(5 * m_layers + 1);
    const std::uint64_t baseRuntime = totalSteps * std::uint64_t(5 * m_layers + 5);
    const std::uint64_t baseNvtx = totalSteps * 7;
    m_extraRuntime = m_options.scaleRuntimePerRank > baseRuntime ? m_options.scaleRuntimePerRank - baseRuntime : 0;
    m_extraNvtx = m_options.scaleNvtxPerRank > baseNvtx ? m_options.scaleNvtxPerRank - baseNvtx : 0;
    m_extraNvtx = std::min(m_extraNvtx, m_launchesPerRank * kMaxOpRangesPerLaunch);

    m_ranks.resize(std::size_t(m_options.ranks));
    for (int r = 0; r < m_options.ranks; ++r)
        openRank(outputDir, r);

    // Lockstep over ranks: the all-reduce of every step needs all ranks' bucket times.
    TimeNs stepStart = kFirstStepNs;
    SplitMix64 shared { m_options.seed ^ 0xA0761D6478BD642Full }; // the transfer time is the same on all ranks
    for (std::size_t step = 0; step < totalSteps; ++step) {
        m_computeFactor = step < std::size_t(m_options.warmupSteps) ? 2.0 : 1.0;
        if (stepStart < m_stagingEnd)
            m_computeFactor *= m_options.stagingSlowdown;
        TimeNs lastJoin = 0;
        for (auto &rank : m_ranks) {
            stepUntilBucket(rank, stepStart, int(step));
            lastJoin = std::max(lastJoin, rank.ncclStart);
        }
        TimeNs transfer = kAllReduceNs;
        if (m_options.jitter > 0.0)
            transfer = std::llround(double(kAllReduceNs) * (1.0 + m_options.jitter * shared.symmetric()));
        const TimeNs allReduceEnd = lastJoin + transfer;
        TimeNs slowestEnd = stepStart;
        for (auto &rank : m_ranks)
            slowestEnd = std::max(slowestEnd, stepFinish(rank, stepStart, allReduceEnd));
        // Every rank starts the next step together, as after a barrier.
        stepStart = slowestEnd + kInterStepNs;
        stepStart = writePhases(step + 1, stepStart);
    }
    for (auto &rank : m_ranks)
        writeStepRanges(rank); // the last phases' ranges

    SynthResult result;
    for (auto &rank : m_ranks) {
        rank.writer->finish();
        rank.writer.reset();
        if (rank.anyGpu)
            rank.truth.busyNs += rank.mergedEnd - rank.mergedStart;
        rank.truth.steps = int(totalSteps);
        result.files.push_back(rank.truth.file);
        result.ranks.push_back(std::move(rank.truth));
    }
    return result;
}

} // namespace

SynthOptions withRunPhases(SynthOptions options)
{
    options.checkpointEvery = 8;
    options.checkpointNs = 12'000'000;
    options.asyncStagingNs = 30'000'000;
    options.stagingSlowdown = 1.3;
    options.validationEvery = 16;
    options.validationNs = 25'000'000;
    options.dataWaitNs = 1'000'000;
    options.tokensPerStep = 8192;
    return options;
}

SynthResult writeSyntheticCapture(const std::string &outputDir, const SynthOptions &options)
{
    return Generator(options).run(outputDir);
}

} // namespace gaplens::core
