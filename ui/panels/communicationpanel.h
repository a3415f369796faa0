// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/overlap.h"
#include "ui/panels/analysispanel.h"

class QChart;
class QChartView;
class QLabel;

namespace gaplens::ui {

class PanelTable;

// Communication and computation (core::computeOverlap, as `gaplens-cli overlap`): per rank and
// GPU the NCCL time, the compute time, how much of the communication compute hid and how much
// was exposed, with a stacked bar per GPU; and per rank the start skew of its collectives and
// how often it started last (the rank the others waited for). A row click selects that rank.
class CommunicationPanel : public AnalysisPanel
{
    Q_OBJECT
public:
    enum OverlapColumn {
        RankColumn,
        GpuColumn,
        CommColumn,
        ComputeColumn,
        OverlapColumn,
        ExposedColumn,
        HiddenColumn,
        CollectivesColumn,
        OverlapColumnCount
    };
    enum SkewColumn { SkewRankColumn, InstancesColumn, MedianSkewColumn, MaxSkewColumn, LastColumn, SkewColumnCount };

    CommunicationPanel(PanelContext &context, TimelineView *view, QWidget *parent = nullptr);

    PanelTable *overlapTable() const { return m_overlap; }
    PanelTable *skewTable() const { return m_skew; }
    QChart *chart() const { return m_chart; }
    const core::OverlapReport &report() const { return m_report; }
    // The verdict line under the tables: the rank the others waited for, or why there is none.
    QString verdictText() const;

protected:
    void recompute() override;

private:
    // Shows `report`, computed on `trace` (null: nothing loaded).
    void apply(const core::OverlapReport &report, std::shared_ptr<const core::TraceSet> trace);
    void updateChart();
    QString rankLabel(std::uint32_t rank) const;
    QString gpuLabel(std::uint32_t gpu) const;

    PanelTable *m_overlap;
    PanelTable *m_skew;
    QChartView *m_chartView;
    QChart *m_chart;
    QLabel *m_verdict;
    core::OverlapReport m_report;
    std::shared_ptr<const core::TraceSet> m_trace; // the trace m_report's indices refer to
};

} // namespace gaplens::ui
