// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/summaries.h"
#include "ui/panels/analysispanel.h"

#include <QPointer>

class QChart;
class QChartView;
class QCheckBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace gaplens::ui {

class KernelHistogramDialog;
class PanelTable;

// Top kernels as nsys cuda_gpu_kern_sum (name, calls, total, % of GPU time, avg, median, min,
// max, stddev) over the chosen ranks and window, short or demangled names, and a horizontal
// bar chart of the top N by total time. Choosing a kernel highlights every instance on the
// timeline; Previous/Next step through them (the timeline zooms to each).
class TopKernelsPanel : public AnalysisPanel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        CallsColumn,
        TotalColumn,
        PercentColumn,
        AvgColumn,
        MedianColumn,
        MinColumn,
        MaxColumn,
        StddevColumn,
        ColumnCount
    };

    TopKernelsPanel(PanelContext &context, TimelineView *view, QWidget *parent = nullptr);

    PanelTable *table() const { return m_table; }
    QChart *chart() const { return m_chart; }
    // The chart labels are shortened to this many characters (keeping what tells names apart).
    static constexpr int kChartLabelChars = 48;
    static constexpr double kChartLabelPt = 7.5;
    // The tooltip of the chart's bar for summary row `row`: its full name, total, calls and share.
    QString chartToolTip(int row) const;
    const core::KernelSummary &summary() const { return m_summary; }
    void setDemangledNames(bool on);
    void setTopN(int n);
    // Highlights the kernel of a source row on the timeline; returns its instance count.
    int selectKernelRow(int sourceRow);
    void nextInstance();
    void previousInstance();
    // The Nsight Compute command (core::ncuCommandText) for a source row's kernel: its first
    // launch in the first rank of the scope that launched it; empty when there is none.
    QString ncuCommand(int sourceRow) const;
    // Opens (or refreshes) the duration histogram of a source row's kernel over the panel's
    // scope; its bars select launches on the timeline. Null for a bad row.
    KernelHistogramDialog *showHistogram(int sourceRow);

protected:
    void recompute() override;

private:
    // Shows `summary`, computed on `trace` (null: nothing loaded).
    void apply(const core::KernelSummary &summary, std::shared_ptr<const core::TraceSet> trace);
    void updateChart();

    PanelTable *m_table;
    QChartView *m_chartView;
    QChart *m_chart;
    QCheckBox *m_demangled;
    QSpinBox *m_topN;
    QLabel *m_instanceLabel;
    QPushButton *m_prev, *m_next, *m_histogram;
    int m_selectedRow = -1;
    QPointer<KernelHistogramDialog> m_histogramDialog;
    core::KernelSummary m_summary;
    std::shared_ptr<const core::TraceSet> m_trace; // the trace m_summary's names refer to
};

} // namespace gaplens::ui
