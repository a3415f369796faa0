// SPDX-License-Identifier: MIT
#include "ui/loading/loadcontroller.h"

#include "gaplens/core/read/loader.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QMetaObject>
#include <QThread>

#include <algorithm>
#include <mutex>

namespace gaplens::ui {

struct LoadController::Job
{
    quint64 id = 0;
    core::CancelToken cancel;
    // Throttling state, touched by the loader's threads (several report readers may report).
    std::mutex mutex;
    QElapsedTimer sinceEmit;
    int lastPermille = -1;
    std::string lastStage;
};

namespace {

core::LoadOptions optionsFor(const QStringList &paths, const std::vector<core::RankOverride> &overrides)
{
    core::LoadOptions options;
    options.rankOverrides = overrides;
    for (const auto &p : paths)
        options.files.push_back(p.toStdString());
    return options;
}

QString progressMessage(const core::LoadProgress &p)
{
    QString msg;
    if (p.reportCount > 0)
        msg = QStringLiteral("File %1/%2 · ").arg(p.reportIndex + 1).arg(p.reportCount);
    if (!p.file.empty())
        msg += QFileInfo(QString::fromStdString(p.file)).fileName() + QStringLiteral(" · ");
    if (!p.stage.empty())
        msg += QString::fromStdString(p.stage) + QStringLiteral(" · ");
    msg += QStringLiteral("%1%").arg(p.permille / 10);
    return msg;
}

} // namespace

LoadController::LoadController(QObject *parent)
    : QObject(parent)
{
    m_pool.setMaxThreadCount(2); // one running load plus a cancelled one winding down
}

LoadController::~LoadController()
{
    if (m_job)
        m_job->cancel.cancel();
    // The workers call back into this object (queued), so they must be gone before we are.
    m_pool.waitForDone();
}

std::shared_ptr<const TimelineData> LoadController::loadNow(const QStringList &paths, const std::vector<core::RankOverride> &rankOverrides)
{
    auto trace = core::loadTraceSet(optionsFor(paths, rankOverrides));
    return prepareTimelineData(std::move(trace));
}

void LoadController::load(const QStringList &paths, const std::vector<core::RankOverride> &rankOverrides)
{
    m_overrides = rankOverrides;
    if (m_job)
        m_job->cancel.cancel(); // latest wins
    auto job = std::make_shared<Job>();
    job->id = m_nextJobId++;
    job->sinceEmit.start();
    m_job = job;
    m_paths = paths;
    if (!m_running) {
        m_running = true;
        emit loadingChanged(true);
    }
    emit progressChanged(0, QStringLiteral("Opening %1 file(s)…").arg(paths.size()));

    const core::LoadOptions options = optionsFor(paths, rankOverrides);
    m_pool.start([this, job, options] {
        auto progress = [this, job](const core::LoadProgress &p) {
            int permille;
            QString message;
            {
                std::lock_guard lock(job->mutex);
                const bool stageChanged = p.stage != job->lastStage;
                if (!stageChanged && (p.permille == job->lastPermille || job->sinceEmit.elapsed() < 50))
                    return;
                job->lastPermille = p.permille;
                job->lastStage = p.stage;
                job->sinceEmit.restart();
                permille = std::clamp(p.permille, 0, 1000);
                message = progressMessage(p);
            }
            QMetaObject::invokeMethod(this, [this, id = job->id, permille, message] { onProgress(id, permille, message); },
                                      Qt::QueuedConnection);
        };
        std::shared_ptr<const TimelineData> data;
        bool cancelled = false;
        auto trace = core::loadTraceSet(options, progress, &job->cancel);
        if (!trace || trace->cancelled || job->cancel.isCancelled()) {
            cancelled = true;
        } else {
            // No derived data here: the first paint must not wait for the busy merge or blame.
            data = timelineDataOf(std::move(trace));
        }
        QMetaObject::invokeMethod(this, [this, id = job->id, data, cancelled] { onFinished(id, data, cancelled); },
                                  Qt::QueuedConnection);
    });
}

void LoadController::cancel()
{
    if (m_job)
        m_job->cancel.cancel();
}

void LoadController::onProgress(quint64 jobId, int permille, const QString &message)
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (!m_job || jobId != m_job->id)
        return; // a superseded load
    emit progressChanged(permille, message);
}

void LoadController::onFinished(quint64 jobId, std::shared_ptr<const TimelineData> data, bool cancelled)
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (!m_job || jobId != m_job->id)
        return;
    m_job.reset();
    m_running = false;
    emit loadingChanged(false);
    if (cancelled || !data)
        emit loadCancelled();
    else
        emit loadFinished(std::move(data));
}

} // namespace gaplens::ui
