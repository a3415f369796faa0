// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/read/loader.h"
#include "ui/jobs/latestjobrunner.h"
#include "ui/timeline/timelinedata.h"

#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>

namespace gaplens::ui {

class TimelineView;

// Runs core::loadTraceSet on a worker thread and hands the capture over as soon as it is
// loaded: the timeline draws it at once and the window's DerivedCaptureController derives
// busy lanes and gaps afterwards. Latest wins (LatestJobRunner): load() cancels a running
// load; results of superseded jobs are dropped. A staged controller (setStaged) also hands
// over the capture without NVTX as soon as its GPU and CUDA API tables are read.
// Signals are always emitted on the GUI thread. Progress is 0..1000, throttled to at most
// one signal per 50 ms unless the stage changes.
class LoadController : public QObject
{
    Q_OBJECT
public:
    explicit LoadController(QObject *parent = nullptr);
    // Cancels a running load and waits for its worker to stop.
    ~LoadController() override;

    // rankOverrides: user rank mapping (e.g. from a session file).
    void load(const QStringList &paths, const std::vector<core::RankOverride> &rankOverrides = {});
    void cancel();
    bool isLoading() const { return m_running; }
    // Loads from now on in two stages (core LoadOptions::onFirstStage): firstStageLoaded, then
    // loadFinished or loadCancelled. Off by default (a window that shows only full captures).
    void setStaged(bool staged) { m_staged = staged; }
    bool isStaged() const { return m_staged; }
    // Tests: runs on the loading thread right after the first stage is posted, before the
    // second stage goes on (to cancel during it deterministically).
    void setAfterFirstStageHook(std::function<void()> hook) { m_afterFirstStage = std::move(hook); }
    QStringList currentPaths() const { return m_paths; }

    // Synchronous variant for --render, reports and tests: the load and the derived capture
    // (prepareTimelineData) on the calling thread.
    static std::shared_ptr<const TimelineData> loadNow(
        const QStringList &paths, const std::vector<core::RankOverride> &rankOverrides = {});
    const std::vector<core::RankOverride> &currentRankOverrides() const { return m_overrides; }
    // The report cache of every later load, staged or not (core LoadOptions::cache). Off until
    // the app turns it on at start-up (tests load without it), so call it before any load.
    static void setReportCache(core::ReportCacheOptions cache);
    // While this controller loads, `view` says so with the progress ("Loading… 45%: …").
    void showProgressIn(TimelineView *view);

signals:
    void loadingChanged(bool loading);
    void progressChanged(int permille, const QString &message);
    // A staged load's first stage (TimelineData::firstStage): GPU lanes and CUDA API calls,
    // without NVTX ranges or OS runtime calls, and with no derived data. Its errors and
    // warnings come again with loadFinished; report those. Never emitted after loadFinished or
    // loadCancelled of the same load.
    void firstStageLoaded(std::shared_ptr<const gaplens::ui::TimelineData> data);
    // Never null; trace->errors lists files that could not be read (the others are loaded).
    void loadFinished(std::shared_ptr<const gaplens::ui::TimelineData> data);
    void loadCancelled();

private:
    struct Outcome
    {
        std::shared_ptr<const TimelineData> data; // null when cancelled
    };
    void onFinished(const Outcome &outcome);

    LatestJobRunner<Outcome> m_jobs;
    bool m_running = false;
    bool m_staged = false;
    bool m_firstStageShown = false; // the load running has emitted firstStageLoaded
    std::function<void()> m_afterFirstStage;
    QStringList m_paths;
    std::vector<core::RankOverride> m_overrides;
};

} // namespace gaplens::ui
