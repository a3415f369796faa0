// SPDX-License-Identifier: MIT
#pragma once
#include "ui/jobs/latestjobrunner.h"
#include "ui/panels/panelcontext.h"
#include "ui/timeline/timelineview.h"

#include <QPointer>
#include <QWidget>

#include <initializer_list>
#include <memory>

class QHBoxLayout;
class QLabel;
class QLayout;
class QSplitter;
class QTimer;

namespace gaplens::ui {

// Base of the side panels: recomputes when the capture, ranks, window or threshold change,
// coalescing bursts of changes into one job on the context's pool (LatestJobRunner: a result
// is applied only if no newer job was started, on the GUI thread, and only while the panel
// still exists). A panel made with a view reads the derived capture that view shows.
class AnalysisPanel : public QWidget
{
    Q_OBJECT
public:
    // What a panel does with the derived capture (gaps, blame, busy time).
    enum class DerivedUse {
        Reads, // recomputes on a threshold change, once the derived capture for it arrives
        Ignores, // does not depend on it; on a threshold change recomputes after it arrives,
                 // so the build that the timeline waits for has the cores to itself
    };
    AnalysisPanel(PanelContext &context, TimelineView *view, DerivedUse use, QWidget *parent = nullptr);
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
    template <class Result, class Compute, class Apply> void run(Compute compute, Apply apply)
    {
        setComputing(true);
        m_jobs.start(
            [compute = std::move(compute)](const LatestJobContext &) mutable -> std::shared_ptr<const void> {
                return std::make_shared<const Result>(compute());
            },
            [this, apply = std::move(apply)](std::shared_ptr<const void> result) {
                apply(*std::static_pointer_cast<const Result>(result));
                finishJob();
            });
    }
    // Applies "nothing loaded" at once and drops running jobs.
    void cancelJobs();
    // The capture to compute over. With none loaded: drops running jobs, calls clear() to show
    // the empty panel and returns null, so recompute() has nothing more to do.
    template <class Clear> std::shared_ptr<const core::TraceSet> traceOrClear(Clear clear)
    {
        auto trace = m_context.trace();
        if (!trace) {
            cancelJobs();
            clear();
        }
        return trace;
    }
    // The derived capture for the current threshold; while it is being built, awaitDerived()
    // and null (derivedChanged schedules the panel again).
    std::shared_ptr<const core::DerivedCapture> derivedOrAwait();
    // The options of an analysis scoped as the panel: the chosen ranks and the selected window.
    template <class Options> Options scopedOptions() const
    {
        Options options;
        options.ranks = m_context.ranks();
        options.window = m_context.window();
        return options;
    }
    // The splitter lays out side by side when the panel is wide (docked under the timeline)
    // and stacked when it is tall (docked at the side); `inverse` does the opposite (nested).
    // firstShare = the first widget's share of the space whenever the orientation changes.
    void addAdaptiveSplitter(QSplitter *splitter, bool inverse = false, double firstShare = 0.5);
    // A new adaptive splitter of `first` over `second`, stretched firstStretch:secondStretch.
    QSplitter *adaptivePair(
        QWidget *first, QWidget *second, int firstStretch, int secondStretch, double firstShare, bool inverse = false);
    // The panel's layout: the row of controls, the widgets in `middle` (the last one takes the
    // spare height), and an optional row below.
    void setPanelLayout(QLayout *top, std::initializer_list<QWidget *> middle, QLayout *bottom = nullptr);
    // A row of controls: `stretched` takes the spare width, `rest` follow it at their size.
    static QHBoxLayout *controlRow(QWidget *stretched, std::initializer_list<QWidget *> rest);
    void resizeEvent(QResizeEvent *) override;

    PanelContext &m_context;
    QPointer<TimelineView> m_view;
    QLabel *m_scopeLabel; // "all ranks · whole capture" + "computing…"; subclasses place it

private:
    // The derived capture for the current threshold is still being built: drops running jobs
    // and shows "computing…" until derivedChanged schedules the panel again.
    void awaitDerived();
    void setComputing(bool on);
    void finishJob();

    LatestJobRunner<std::shared_ptr<const void>> m_jobs;
    bool m_computing = false;
    bool m_afterDerived = false; // DerivedUse::Ignores: a threshold changed, recompute once its build is in
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
