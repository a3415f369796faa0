// SPDX-License-Identifier: MIT
#include "ui/timeline/timelineworker.h"

#include <QMetaObject>
#include <QThread>

#include <mutex>

namespace gaplens::ui {

using core::TimeNs;

std::size_t TimelineDerived::gapCount() const
{
    std::size_t n = 0;
    for (const auto &g : gaps)
        n += g.blame.size();
    return n;
}

bool blameIdleGaps(const core::TraceSet &trace, const GpuBusyLanes &busy, TimeNs threshold, const std::atomic<bool> &cancelled,
                   std::vector<GpuGapList> &gaps)
{
    gaps.assign(trace.gpus.size(), {});
    // Blaming one gap is a few binary searches, but a big capture has a million of them:
    // look at the cancel flag every few thousand busy intervals, not only between GPUs.
    constexpr std::size_t kCancelCheckEvery = 4096;
    const core::GapBlamer blamer(trace);
    core::GapBlamer::SearchCursor cursor; // gaps come in time order per GPU: short searches
    for (std::uint32_t g = 0; g < trace.gpus.size() && g < busy.gpus.size(); ++g) {
        const auto &lane = busy.gpus[g];
        auto &out = gaps[g];
        for (std::size_t i = 1; i < lane.start.size(); ++i) {
            if (i % kCancelCheckEvery == 0 && cancelled.load(std::memory_order_relaxed))
                return false;
            const TimeNs s = lane.end[i - 1], e = lane.start[i];
            if (e - s < threshold)
                continue;
            out.blame.push_back(blamer.blame(g, core::TimeRange{s, e}, false, cursor));
            out.start.push_back(s);
            out.end.push_back(e);
        }
    }
    return !cancelled.load(std::memory_order_relaxed);
}

struct TimelineWorker::Job
{
    quint64 id = 0;
    TimeNs threshold = 0;
    std::atomic<bool> cancelled{false};
    std::promise<std::shared_ptr<const TimelineDerived>> promise;
    std::shared_future<std::shared_ptr<const TimelineDerived>> result = promise.get_future().share();
};

// The threshold-independent results for the last capture a job worked on, kept across jobs
// (also when the job that computed them was cancelled later).
struct TimelineWorker::PerCapture
{
    std::mutex mutex;
    std::weak_ptr<const TimelineData> data;
    std::shared_ptr<const GpuBusyLanes> busy;
    std::shared_ptr<const TimelineFoldIndex> folds;
};

TimelineWorker::TimelineWorker(QObject *parent)
    : QObject(parent)
    , m_perCapture(std::make_shared<PerCapture>())
{
    // One thread: jobs run in order, and a superseded one gives up at its next cancel check.
    m_pool.setMaxThreadCount(1);
}

TimelineWorker::~TimelineWorker()
{
    cancel();
    m_pool.waitForDone();
}

std::shared_ptr<const TimelineDerived> TimelineWorker::derive(const std::shared_ptr<const TimelineData> &data, TimeNs threshold,
                                                              const std::atomic<bool> &cancelled, PerCapture &cache)
{
    auto result = std::make_shared<TimelineDerived>();
    result->data = data;
    result->threshold = threshold;
    if (!data || !data->trace)
        return result;
    const core::TraceSet &trace = *data->trace;
    {
        std::lock_guard lock(cache.mutex);
        if (cache.data.lock() != data) {
            cache.data = data;
            cache.busy = data->busy;
            cache.folds.reset();
        }
        result->busy = cache.busy;
        result->folds = cache.folds;
    }
    if (!result->busy) {
        result->busy = computeBusyLanes(trace);
        std::lock_guard lock(cache.mutex);
        cache.busy = result->busy;
    }
    // Gap bands first (they are what the user waits for); the fold index only makes later
    // frames cheaper, and the view draws the same without it.
    if (!blameIdleGaps(trace, *result->busy, threshold, cancelled, result->gaps))
        return nullptr;
    if (!result->folds) {
        result->folds = buildTimelineFoldIndex(trace, cancelled);
        if (!result->folds)
            return nullptr;
        std::lock_guard lock(cache.mutex);
        cache.folds = result->folds;
    }
    return result;
}

void TimelineWorker::start(std::shared_ptr<const TimelineData> data, TimeNs threshold)
{
    cancel();
    auto job = std::make_shared<Job>();
    job->id = m_nextJobId++;
    job->threshold = threshold;
    m_job = job;
    m_pool.start([this, job, data = std::move(data), cache = m_perCapture] {
        std::shared_ptr<const TimelineDerived> result;
        if (!job->cancelled.load())
            result = derive(data, job->threshold, job->cancelled, *cache);
        job->promise.set_value(result);
        // ~TimelineWorker waits for this thread, so `this` outlives the posted call; a result
        // arriving after a newer start() or a cancel() is dropped by deliver().
        QMetaObject::invokeMethod(this, [this, id = job->id, result] { deliver(id, result); }, Qt::QueuedConnection);
    });
}

void TimelineWorker::cancel()
{
    if (m_job) {
        m_job->cancelled.store(true);
        m_job.reset();
    }
}

std::shared_ptr<const TimelineDerived> TimelineWorker::wait() const
{
    return m_job ? m_job->result.get() : nullptr;
}

void TimelineWorker::deliver(quint64 jobId, std::shared_ptr<const TimelineDerived> result)
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (!m_job || m_job->id != jobId || !result)
        return; // cancelled or superseded
    m_job.reset();
    emit derived(std::move(result));
}

} // namespace gaplens::ui
