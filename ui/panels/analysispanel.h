// SPDX-License-Identifier: MIT
#pragma once
#include "ui/panels/panelcontext.h"
#include "ui/timeline/timelineview.h"

#include <QApplication>
#include <QPointer>
#include <QThread>
#include <QWidget>

#include <atomic>
#include <memory>

class QLabel;
class QSplitter;
class QTimer;

namespace gaplens::ui {


// Base of the side panels: recomputes when the capture, ranks, window or threshold change,
// coalescing bursts of changes into one job on the context's pool. Latest wins: a result
// is applied only if no newer job was started (hotspot's job-id pattern), on the GUI thread,
// and only while the panel still exists.
class AnalysisPanel : public QWidget
{
    Q_OBJECT
public:
    AnalysisPanel(PanelContext &context, TimelineView *view, QWidget *parent = nullptr);
    ~AnalysisPanel() override;

    bool isComputing() const { return m_computing; }
    // How many results were applied (tests wait for it to grow).
    int generation() const { return m_generation; }
    // Starts a recomputation soon (several calls in one event-loop turn make one job).
    void scheduleUpdate();

signals:
    // A result was applied to the panel's tables and charts.
    void updated();

protected:
    // Called on the GUI thread to start the panel's job with run(); with no capture, clear.
    virtual void recompute() = 0;

    // compute() runs on a worker and must only touch what it captured (shared_ptr'd trace,
    // copies of options); apply(result) runs on the GUI thread if this job is still the latest.
    template <class Result, class Compute, class Apply>
    void run(Compute compute, Apply apply)
    {
        const quint64 id = ++m_nextJob;
        m_latest->store(id);
        setComputing(true);
        auto latest = m_latest;
        QPointer<AnalysisPanel> self(this);
        m_context.pool()->start([latest, id, self, compute = std::move(compute), apply = std::move(apply)]() mutable {
            if (latest->load() != id)
                return; // superseded before it started
            auto result = std::make_shared<Result>(compute());
            if (latest->load() != id)
                return;
            // Delivered through qApp (always alive) and checked there: the panel may be gone.
            QMetaObject::invokeMethod(
                qApp,
                [latest, id, self, result, apply = std::move(apply)]() mutable {
                    if (!self || latest->load() != id)
                        return;
                    Q_ASSERT(QThread::currentThread() == self->thread());
                    apply(*result);
                    self->finishJob();
                },
                Qt::QueuedConnection);
        });
    }
    // Applies "nothing loaded" at once and drops running jobs.
    void cancelJobs();
    // The splitter lays out side by side when the panel is wide (docked under the timeline)
    // and stacked when it is tall (docked at the side); `inverse` does the opposite (nested).
    // firstShare = the first widget's share of the space whenever the orientation changes.
    void addAdaptiveSplitter(QSplitter *splitter, bool inverse = false, double firstShare = 0.5);
    void resizeEvent(QResizeEvent *) override;

    PanelContext &m_context;
    QPointer<TimelineView> m_view;
    QLabel *m_scopeLabel; // "all ranks · whole capture" + "computing…"; subclasses place it

private:
    void setComputing(bool on);
    void finishJob();

    std::shared_ptr<std::atomic<quint64>> m_latest;
    quint64 m_nextJob = 0;
    bool m_computing = false;
    int m_generation = 0;
    QTimer *m_timer;
    struct Adaptive
    {
        QSplitter *splitter;
        bool inverse;
        double firstShare;
        bool sized = false;
    };
    QList<Adaptive> m_splitters;
};

} // namespace gaplens::ui
