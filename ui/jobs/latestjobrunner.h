// SPDX-License-Identifier: MIT
#pragma once
// The one "latest request wins" runner of the ui (hotspot's job-id pattern, qt-creator's
// superseded future): every background computation of a window goes through it.
#include "gaplens/core/util/cancel.h"

#include <QCoreApplication>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>

namespace gaplens::ui {

// What a running job sees: its cancel token, and a way to post something small to the GUI
// thread (progress) that is dropped once a newer job has started or the receiver is gone.
class LatestJobContext
{
public:
    const core::CancelToken &cancel() const { return m_job->cancel; }
    bool isCancelled() const { return m_job->cancel.isCancelled(); }
    // Runs `onGuiThread` on the receiver's thread if this job is still the newest then.
    void post(std::function<void()> onGuiThread) const;

    // Shared by a job and the runner that started it; not for callers.
    struct Job
    {
        quint64 id = 0;
        core::CancelToken cancel;
        std::atomic<bool> discarded { false }; // never deliver (a newer job, discard(), the runner is gone)
        std::atomic<bool> delivered { false };
        QPointer<QObject> receiver; // written on the GUI thread only, read there only
    };
    explicit LatestJobContext(std::shared_ptr<Job> job)
        : m_job(std::move(job))
    {
    }

private:
    std::shared_ptr<Job> m_job;
};

// Runs one job at a time that counts: start() supersedes the job before it (its cancel token
// is set and its result dropped), and a result is delivered on the receiver's thread only if
// its job is still the newest and the receiver still exists. Jobs run on the pool given, or on
// a pool of its own (`ownThreads` threads; one keeps superseded jobs in order). The compute
// function must own what it reads (shared_ptrs, copies): it may outlive the runner when the
// pool is not the runner's.
template <class Result> class LatestJobRunner
{
public:
    using Compute = std::function<Result(const LatestJobContext &)>;
    using Deliver = std::function<void(Result)>;

    explicit LatestJobRunner(QObject *receiver, QThreadPool *pool = nullptr, int ownThreads = 1)
        : m_receiver(receiver)
        , m_pool(pool)
    {
        if (!m_pool) {
            m_ownPool = std::make_unique<QThreadPool>();
            m_ownPool->setMaxThreadCount(ownThreads);
            m_pool = m_ownPool.get();
        }
    }
    // Nothing is delivered after this; a pool of its own is waited for (its jobs post to us).
    ~LatestJobRunner()
    {
        discard();
        if (m_ownPool)
            m_ownPool->waitForDone();
    }
    LatestJobRunner(const LatestJobRunner &) = delete;
    LatestJobRunner &operator=(const LatestJobRunner &) = delete;

    // Supersedes the newest job and starts `compute` on the pool; `deliver` gets its result
    // on the receiver's thread. Returns the job's id (ascending).
    quint64 start(Compute compute, Deliver deliver)
    {
        discard();
        auto job = std::make_shared<LatestJobContext::Job>();
        job->id = ++m_lastId;
        job->receiver = m_receiver;
        auto state = std::make_shared<State>();
        state->job = job;
        state->deliver = std::move(deliver);
        state->result = state->promise.get_future().share();
        m_newest = state;
        m_pool->start([state, compute = std::move(compute)] {
            std::optional<Result> result;
            if (!state->job->discarded.load())
                result.emplace(compute(LatestJobContext(state->job)));
            state->promise.set_value(result);
            if (!result)
                return;
            // Posted through the application object (it outlives every receiver); whether the
            // receiver still exists is checked there, on the GUI thread.
            QMetaObject::invokeMethod(
                qApp, [state] { deliverOnGuiThread(*state); }, Qt::QueuedConnection);
        });
        return job->id;
    }

    // Asks the newest job to stop (sets its token) but still delivers what it returns: a
    // cancelled load reports that it was cancelled.
    void requestStop()
    {
        if (m_newest)
            m_newest->job->cancel.cancel();
    }
    // Cancels the newest job and drops its result.
    void discard()
    {
        if (!m_newest)
            return;
        m_newest->job->cancel.cancel();
        m_newest->job->discarded.store(true);
        m_newest.reset();
    }
    // A job was started and neither delivered nor discarded yet.
    bool isRunning() const { return m_newest && !m_newest->job->delivered.load(); }
    quint64 newestId() const { return m_newest ? m_newest->job->id : 0; }

    // Blocks until the newest job has finished and delivers its result now (the queued
    // delivery is then skipped). For offscreen renders, exports and tests. Returns whether a
    // result was delivered, now or before.
    bool waitAndDeliver()
    {
        if (!m_newest)
            return false;
        auto state = m_newest;
        if (!state->result.get())
            return false;
        deliverOnGuiThread(*state);
        return state->job->delivered.load();
    }

private:
    struct State
    {
        std::shared_ptr<LatestJobContext::Job> job;
        Deliver deliver;
        std::promise<std::optional<Result>> promise;
        std::shared_future<std::optional<Result>> result;
    };

    static void deliverOnGuiThread(State &state)
    {
        auto &job = *state.job;
        if (job.discarded.load() || job.delivered.load() || !job.receiver)
            return;
        Q_ASSERT(QThread::currentThread() == job.receiver->thread());
        job.delivered.store(true);
        auto result = state.result.get(); // ready: the job set it before posting
        if (result)
            state.deliver(std::move(*result));
    }

    QObject *m_receiver;
    QThreadPool *m_pool;
    std::unique_ptr<QThreadPool> m_ownPool;
    std::shared_ptr<State> m_newest; // GUI thread only
    quint64 m_lastId = 0;
};

} // namespace gaplens::ui
