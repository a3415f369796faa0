// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/read/loader.h"
#include "ui/jobs/latestjobrunner.h"
#include "ui/timeline/timelinedata.h"

#include <QObject>
#include <QStringList>

#include <memory>

namespace gaplens::ui {

class TimelineView;

// Runs core::loadTraceSet on a worker thread and hands the capture over as soon as it is
// loaded: the timeline draws it at once and the window's DerivedCaptureController derives
// busy lanes and gaps afterwards. Latest wins (LatestJobRunner): load() cancels a running
// load; results of superseded jobs are dropped.
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
    QStringList currentPaths() const { return m_paths; }

    // Synchronous variant for --render, reports and tests: the load and the derived capture
    // (prepareTimelineData) on the calling thread.
    static std::shared_ptr<const TimelineData> loadNow(
        const QStringList &paths, const std::vector<core::RankOverride> &rankOverrides = {});
    const std::vector<core::RankOverride> &currentRankOverrides() const { return m_overrides; }
    // While this controller loads, `view` says so with the progress ("Loading… 45%: …").
    void showProgressIn(TimelineView *view);

signals:
    void loadingChanged(bool loading);
    void progressChanged(int permille, const QString &message);
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
    QStringList m_paths;
    std::vector<core::RankOverride> m_overrides;
};

} // namespace gaplens::ui
