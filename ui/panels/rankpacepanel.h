// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/panel_data.h"
#include "gaplens/core/analysis/step_range.h"
#include "ui/panels/analysispanel.h"

#include <QColor>

#include <memory>

class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineSeries;

namespace gaplens::ui {

class PanelTable;

// Delta from the iteration median (percent) -> a matrix cell's background: none within 2%,
// then red (slower) or blue (faster) saturating at 30%. Also the digest overview's pace matrix.
QColor paceDeltaColor(double percent);

// Rank pace for an NVTX range chosen among the step range candidates by group name
// (core::chooseStepRange; default: the one that looks like a training step, or none): a line chart of duration per
// iteration (one series per rank, plus the per-iteration median), a matrix iterations x ranks
// coloured by the delta from the iteration's median, per-rank median / p95 / times slowest and
// the straggler verdict in words. Optionally paced by GPU-projected step time. Clicking a cell
// shows that rank's iteration on the timeline; clicking a series selects the rank.
class RankPacePanel : public AnalysisPanel
{
    Q_OBJECT
public:
    static constexpr int kFirstRankColumn = 2; // matrix: Iteration, Median, then one column per rank
    static constexpr int kMaxMatrixRows = 5000;

    struct Result
    {
        std::shared_ptr<const core::TraceSet> trace;
        // The step range candidates, counted once per capture (namesValid: in this result).
        std::shared_ptr<const core::StepRangeChoice> choice;
        bool namesValid = false;
        core::PaceReport pace;
    };

    RankPacePanel(PanelContext &context, TimelineView *view, QWidget *parent = nullptr);

    PanelTable *matrix() const { return m_matrix; }
    PanelTable *rankTable() const { return m_rankTable; }
    QChart *chart() const { return m_chart; }
    const core::PaceReport &pace() const { return m_result.pace; }
    QString rangeName() const;
    QString verdictText() const;
    QComboBox *rangeChooser() const { return m_range; }
    void setRangeName(const QString &name);
    void setUseGpuProjection(bool on);
    // What a click on a matrix cell does (source coordinates): shows that rank's iteration on
    // the timeline and selects its NVTX range. False for the Iteration/Median columns or an empty cell.
    bool activateCell(int sourceRow, int sourceColumn);
    // What a click on rank k's series does (k indexes pace().ranks): emphasises it, selects its
    // matrix column and scrolls the timeline to the rank.
    void selectRank(int k);
    int selectedRank() const { return m_selectedRank; }

protected:
    void recompute() override;

private:
    void apply(const Result &r);
    void rebuildMatrix();
    void rebuildChart();

    QComboBox *m_range;
    QCheckBox *m_gpu;
    QLabel *m_verdict;
    QChartView *m_chartView;
    QChart *m_chart;
    PanelTable *m_matrix;
    PanelTable *m_rankTable;
    Result m_result;
    std::vector<QLineSeries *> m_series; // one per pace().ranks entry
    int m_selectedRank = -1;
    bool m_namesValid = false; // the chooser holds this capture's names
    QString m_requestedRange; // empty = propose
};

} // namespace gaplens::ui
