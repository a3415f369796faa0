// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/run_accounting.h"
#include "gaplens/core/analysis/step_range.h"
#include "ui/panels/analysispanel.h"
#include "ui/timeline/statelanes.h"

#include <array>
#include <memory>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace gaplens::ui {

class PanelTable;

// Run accounting (core::computeRunAccounting, as `gaplens-cli throughput`; docs/run-accounting.md):
// the partition of the window per rank as a stacked bar and a table, the active and sustained
// rates with both formulas and their numbers, the window and where it came from, step time
// inside vs outside each state (box plot and table, with compare's noise verdict) and
// checkpoint health. The time selection is the window (else each rank's state span) and the
// rank scope the ranks. The step range and the four state patterns are edited here (and saved
// in sessions). The panel also computes, once per capture, step range and patterns, each
// rank's state lane over its state span and gives it to the timeline (TimelineModel::
// setStateLanes); clicking a state in the chart or table steps through its spans there.
class RunAccountingPanel : public AnalysisPanel
{
    Q_OBJECT
public:
    // The partition table: Rank, Window, then one column per state (RunState order), then
    // Steps, Work, Active rate, Sustained rate, Sustained / active.
    static constexpr int kFirstStateColumn = 2;
    enum StepColumn {
        StateColumn,
        InsideCountColumn,
        InsideMedianColumn,
        InsideP95Column,
        OutsideCountColumn,
        OutsideMedianColumn,
        OutsideP95Column,
        SignificantColumn,
        StepColumnCount
    };
    using Patterns = std::array<QString, core::kPatternStates.size()>; // kPatternStates order; empty = default

    struct Result
    {
        std::shared_ptr<const core::TraceSet> trace;
        std::shared_ptr<const core::StepRangeChoice> choice; // counted once per capture
        bool namesValid = false; // choice was counted by this job
        std::string stepRange; // the range used; empty: none could be proposed
        // Every rank over its state span (the timeline's lanes); reused while the capture, step
        // range and patterns stay.
        std::shared_ptr<const core::RunAccounting> lanes;
        std::shared_ptr<const StateLanes> stateLanes;
        std::string lanesKey; // the step range and patterns the lanes were computed with
        // The panel's scope (ranks, window); the lanes themselves when the scope is the whole capture.
        std::shared_ptr<const core::RunAccounting> scoped;
        bool selectionWindow = false; // scoped's window is the time selection
    };

    RunAccountingPanel(PanelContext &context, TimelineView *view, QWidget *parent = nullptr);

    const core::RunAccounting *accounting() const { return m_result.scoped.get(); }
    const Result &result() const { return m_result; }
    PanelTable *partitionTable() const { return m_partition; }
    PanelTable *stepTable() const { return m_steps; }
    QChart *partitionChart() const { return m_partitionChart; }
    QChart *stepChart() const { return m_stepChart; }
    QComboBox *rangeChooser() const { return m_range; }
    QLineEdit *patternEdit(core::RunState state) const;
    // The lines above the charts: the window, both rates with their formulas, checkpoint health.
    QString headlineText() const;
    QString stepText() const;

    // The step range (empty = the proposal) and the patterns (kPatternStates order, empty =
    // core's default), as a session saves them.
    QString rangeName() const { return m_requestedRange; }
    void setRangeName(const QString &name);
    Patterns patterns() const;
    // Invalid patterns are shown in their box and not used.
    void setPatterns(const Patterns &patterns);

    // Clicking `state` of rank `rank` (index into TraceSet::ranks): selects the next (direction
    // > 0) or previous of its spans on the timeline, among those in the panel's window; the first
    // (last) when newly clicked. False when the rank has no such span or nothing is shown.
    bool stepState(std::uint32_t rank, core::RunState state, int direction = 1);

protected:
    void recompute() override;

private:
    void apply(const Result &r);
    void rebuildTables();
    void rebuildPartitionChart();
    void rebuildStepChart();
    void onPatternEdited();
    QString rankLabel(std::uint32_t rank) const;

    QComboBox *m_range;
    std::array<QLineEdit *, core::kPatternStates.size()> m_patternEdits {};
    QLabel *m_patternError; // why a typed pattern is not used
    QLabel *m_headline;
    QChartView *m_partitionView;
    QChart *m_partitionChart;
    QChartView *m_stepView;
    QChart *m_stepChart;
    PanelTable *m_partition;
    PanelTable *m_steps;
    QLabel *m_stepLabel;
    QPushButton *m_prev, *m_next;
    Result m_result;
    bool m_namesValid = false;
    QString m_requestedRange; // empty = propose
    Patterns m_patterns; // the valid patterns in use
    // The state stepped through: rank, state and position among its spans.
    std::uint32_t m_stepRank = core::kNoIndex;
    core::RunState m_stepState = core::RunState::Active;
    int m_stepIndex = -1;
};

} // namespace gaplens::ui
