// SPDX-License-Identifier: MIT
#include "ui/loading/loadcontroller.h"

#include "gaplens/core/read/loader.h"
#include "ui/timeline/timelineview.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <mutex>

namespace gaplens::ui {

namespace {

// Throttling state of one load, touched by the loader's threads (several report readers may report).
struct ProgressThrottle
{
    std::mutex mutex;
    QElapsedTimer sinceEmit;
    int lastPermille = -1;
    std::string lastStage;
};

// Set once at start-up, before the first load's thread exists (setReportCache).
core::ReportCacheOptions &reportCache()
{
    static core::ReportCacheOptions cache;
    return cache;
}

core::LoadOptions optionsFor(const QStringList &paths, const std::vector<core::RankOverride> &overrides)
{
    core::LoadOptions options;
    options.rankOverrides = overrides;
    options.cache = reportCache();
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
    , m_jobs(this, nullptr, 2) // one running load plus a cancelled one winding down
{
}

LoadController::~LoadController() = default; // m_jobs cancels and waits for its threads

void LoadController::setReportCache(core::ReportCacheOptions cache)
{
    reportCache() = std::move(cache);
}

std::shared_ptr<const TimelineData> LoadController::loadNow(
    const QStringList &paths, const std::vector<core::RankOverride> &rankOverrides)
{
    auto trace = core::loadTraceSet(optionsFor(paths, rankOverrides));
    return prepareTimelineData(std::move(trace));
}

void LoadController::load(const QStringList &paths, const std::vector<core::RankOverride> &rankOverrides)
{
    m_overrides = rankOverrides;
    m_paths = paths;
    if (!m_running) {
        m_running = true;
        emit loadingChanged(true);
    }
    m_firstStageShown = false;
    emit progressChanged(0, QStringLiteral("Opening %1 file(s)…").arg(paths.size()));

    const core::LoadOptions options = optionsFor(paths, rankOverrides);
    m_jobs.start( // supersedes (cancels) a running load: latest wins
        [this, options, staged = m_staged, afterFirstStage = m_afterFirstStage](const LatestJobContext &job) {
            auto throttle = std::make_shared<ProgressThrottle>();
            throttle->sinceEmit.start();
            auto progress = [this, &job, throttle](const core::LoadProgress &p) {
                int permille;
                QString message;
                {
                    std::lock_guard lock(throttle->mutex);
                    const bool stageChanged = p.stage != throttle->lastStage;
                    if (!stageChanged && (p.permille == throttle->lastPermille || throttle->sinceEmit.elapsed() < 50))
                        return;
                    throttle->lastPermille = p.permille;
                    throttle->lastStage = p.stage;
                    throttle->sinceEmit.restart();
                    permille = std::clamp(p.permille, 0, 1000);
                    message = progressMessage(p);
                }
                // Dropped once a newer load started; `this` is alive whenever it runs.
                job.post([this, permille, message] { emit progressChanged(permille, message); });
            };
            auto stagedOptions = options;
            if (staged) {
                // Posted before the result, so it arrives first (both go through qApp's queue).
                stagedOptions.onFirstStage
                    = [this, &job, &afterFirstStage](std::shared_ptr<const core::TraceSet> first) {
                          job.post([this, data = firstStageDataOf(std::move(first))] {
                              m_firstStageShown = true;
                              emit firstStageLoaded(data);
                          });
                          if (afterFirstStage)
                              afterFirstStage();
                      };
            }
            Outcome outcome;
            auto trace = core::loadTraceSet(stagedOptions, progress, &job.cancel());
            // No derived data here: the first paint must not wait for the busy merge or blame.
            if (trace && !trace->cancelled && !job.isCancelled())
                outcome.data = timelineDataOf(std::move(trace));
            return outcome;
        },
        [this](Outcome outcome) { onFinished(outcome); });
}

void LoadController::cancel()
{
    m_jobs.requestStop(); // the load still reports, as cancelled
}

void LoadController::onFinished(const Outcome &outcome)
{
    Q_ASSERT(QThread::currentThread() == thread());
    m_running = false;
    m_firstStageShown = false;
    emit loadingChanged(false);
    if (!outcome.data)
        emit loadCancelled();
    else
        emit loadFinished(outcome.data);
}

void LoadController::showProgressIn(TimelineView *view)
{
    connect(this, &LoadController::progressChanged, view, [this, view](int permille, const QString &message) {
        // Over a first stage, the banner says what is still to come.
        view->setLoadingText(
            QStringLiteral("%1 %2%%3")
                .arg(m_firstStageShown ? QStringLiteral("GPU lanes shown; loading NVTX…") : QStringLiteral("Loading…"))
                .arg(permille / 10)
                .arg(message.isEmpty() ? QString() : QStringLiteral(": ") + message));
    });
    connect(this, &LoadController::firstStageLoaded, view,
        [view] { view->setLoadingText(QStringLiteral("GPU lanes shown; loading NVTX…")); });
    connect(this, &LoadController::loadingChanged, view,
        [view](bool loading) { view->setLoadingText(loading ? QStringLiteral("Loading…") : QString()); });
}

} // namespace gaplens::ui
