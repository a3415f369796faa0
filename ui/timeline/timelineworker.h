// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/gap_blame.h"
#include "ui/timeline/foldindex.h"
#include "ui/timeline/timelinedata.h"

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <future>
#include <memory>
#include <vector>

namespace gaplens::ui {

// One GPU's idle gaps at a threshold with their blame, sorted by start.
struct GpuGapList
{
    std::vector<core::GapBlame> blame;
    std::vector<core::TimeNs> start, end; // columns for draw lists
};

// What the timeline derives from a capture off the GUI thread: once per capture the GPUs'
// busy lanes and the rows' fold indexes, and per gap threshold the blamed idle gaps.
// Immutable once computed.
struct TimelineDerived
{
    std::shared_ptr<const TimelineData> data; // the capture this was derived from
    core::TimeNs threshold = 0;
    std::shared_ptr<const GpuBusyLanes> busy;
    std::shared_ptr<const TimelineFoldIndex> folds;
    std::vector<GpuGapList> gaps; // one per TraceSet::gpus
    std::size_t gapCount() const;
};

// Idle gaps >= threshold between consecutive busy intervals of each GPU, each blamed
// (core::GapBlamer): gaps[g] for every GPU of the trace. Returns false as soon as
// `cancelled` is seen set.
bool blameIdleGaps(const core::TraceSet &trace, const GpuBusyLanes &busy, core::TimeNs threshold,
                   const std::atomic<bool> &cancelled, std::vector<GpuGapList> &gaps);

// Computes TimelineDerived on one worker thread of its own, newest request wins: start()
// cancels the job before it, and only the newest job's result is delivered (derived(), on
// the thread this object lives in). What does not depend on the threshold is kept for the
// next jobs over the same capture, so a threshold change only re-runs the gap search and blame.
class TimelineWorker : public QObject
{
    Q_OBJECT
public:
    explicit TimelineWorker(QObject *parent = nullptr);
    // Cancels the running job and waits for the worker thread: it posts results to us.
    ~TimelineWorker() override;

    void start(std::shared_ptr<const TimelineData> data, core::TimeNs threshold);
    // Drops the running job: nothing is delivered for it.
    void cancel();
    bool isRunning() const { return m_job != nullptr; }
    // Blocks until the newest job is done and returns its result: null when there is no job
    // or it was cancelled. The result is still delivered through derived() afterwards.
    std::shared_ptr<const TimelineDerived> wait() const;

signals:
    void derived(std::shared_ptr<const gaplens::ui::TimelineDerived> result);

private:
    struct Job;
    struct PerCapture;
    static std::shared_ptr<const TimelineDerived> derive(const std::shared_ptr<const TimelineData> &data, core::TimeNs threshold,
                                                         const std::atomic<bool> &cancelled, PerCapture &cache);
    void deliver(quint64 jobId, std::shared_ptr<const TimelineDerived> result);

    QThreadPool m_pool;
    std::shared_ptr<Job> m_job; // the newest job until it is delivered or cancelled
    std::shared_ptr<PerCapture> m_perCapture;
    quint64 m_nextJobId = 1;
};

} // namespace gaplens::ui
