// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/selection.h"
#include "ui/loading/derivedsource.h"
#include "ui/panels/steprangechooser.h"
#include "ui/timeline/timelinedata.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <memory>
#include <vector>

namespace gaplens::ui {

// What every side panel works on: the loaded capture, the chosen ranks (empty = all), the
// time window (the timeline's ruler selection, absolute ns; none = whole capture) and the
// idle-gap threshold (the toolbar's, shared with the timeline), and the derived capture the
// timeline shows (gaps, blame, busy time: read, never recomputed). Owns the worker pool the
// panels compute on, so no job outlives the panels' data.
class PanelContext : public QObject
{
    Q_OBJECT
public:
    explicit PanelContext(QObject *parent = nullptr);
    // Waits for running panel jobs: their results are delivered to widgets owned with us.
    ~PanelContext() override;

    // A new capture resets the rank selection and the window.
    void setData(std::shared_ptr<const TimelineData> data);
    const std::shared_ptr<const TimelineData> &data() const { return m_data; }
    std::shared_ptr<const core::TraceSet> trace() const { return m_data ? m_data->trace : nullptr; }

    // Reads the derived capture from `source` (the timeline's: the first panel made with a
    // view shares it) instead of building its own. The context does not own it.
    void useDerivedSource(DerivedCaptureController *source);
    DerivedCaptureController *derivedSource() const { return m_source.current(); }
    // The derived capture of the current capture at the current threshold; null while it is
    // being built (derivedChanged follows).
    std::shared_ptr<const core::DerivedCapture> derived() const;

    // Rank indices (into TraceSet::ranks), sorted; empty = all ranks.
    void setRanks(std::vector<std::uint32_t> ranks);
    const core::RankSelection &ranks() const { return m_ranks; }
    void setWindow(core::TimeWindow window);
    const core::TimeWindow &window() const { return m_window; }
    void setGapThreshold(core::TimeNs ns);
    core::TimeNs gapThreshold() const { return m_gapThreshold; }

    // The current capture's step range candidates, counted once for every panel (a new
    // object per capture; a job captures it and calls get()).
    const std::shared_ptr<StepRangeChoices> &stepRangeChoices() const { return m_stepRangeChoices; }

    // "all ranks · whole capture", "ranks 0, 3 · selection 12.3 ms".
    QString scopeText() const;
    QThreadPool *pool() { return &m_pool; }

signals:
    void dataChanged();
    // Ranks or window changed.
    void scopeChanged();
    void gapThresholdChanged();
    // derived() may have changed.
    void derivedChanged();

private:
    std::shared_ptr<const TimelineData> m_data;
    std::shared_ptr<StepRangeChoices> m_stepRangeChoices = std::make_shared<StepRangeChoices>(nullptr);
    core::RankSelection m_ranks;
    core::TimeWindow m_window;
    core::TimeNs m_gapThreshold = core::kDefaultMinGapNs;
    QThreadPool m_pool;
    DerivedSource m_source;
};

} // namespace gaplens::ui
