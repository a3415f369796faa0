// SPDX-License-Identifier: MIT
#pragma once
// A kernel's duration distribution (core::computeKernelHistogram) as a chart: bins as a filled
// step outline on a linear or logarithmic duration axis, the median and p95 marked. Clicking
// a bar selects its launches on the timeline (highlighted, stepped through with Previous/
// Next); the slowest launches are one click away. Given two captures (before, after) both
// are drawn over one axis.
#include "gaplens/core/analysis/kernel_histogram.h"

#include <QDialog>

#include <memory>
#include <vector>

class QAreaSeries;
class QChart;
class QChartView;
class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace gaplens::ui {

class TimelineView;

class KernelHistogramDialog : public QDialog
{
    Q_OBJECT
public:
    // One capture's launches of the kernel: what a series is computed from.
    struct Source
    {
        QString label; // "before", "after"; empty for a single capture
        std::shared_ptr<const core::TraceSet> trace;
        core::KernelHistogramOptions options; // ranks, window, names; bins and axis are the dialog's
    };

    explicit KernelHistogramDialog(QWidget *parent = nullptr);

    // The kernel `name` in each source (at most two); the first one's launches are selected
    // on `view` (may be null: no selection, as in the compare window).
    void setKernel(const QString &name, std::vector<Source> sources, TimelineView *view);

    void setBins(int bins);
    void setLogarithmic(bool on);
    const core::KernelHistogram &histogram(std::size_t source = 0) const { return m_histograms.at(source); }
    std::size_t sourceCount() const { return m_histograms.size(); }
    QChart *chart() const { return m_chart; }
    // Selects bin `bin` of the first source on the timeline; returns its launch count.
    int selectBin(int bin);
    // Selects the slowest launches (at most kSlowest) and shows the slowest; returns their count.
    int selectSlowest();
    static constexpr std::size_t kSlowest = 10;
    // The bin of the first source under the duration `ns` (an x of the chart), or -1.
    int binAt(double ns) const;

private:
    void recompute();
    void redraw();
    void selectInstances(
        const std::vector<core::KernelInstance> &instances, const QString &what, bool timeOrder = true);

    QString m_name;
    std::vector<Source> m_sources;
    std::vector<core::KernelHistogram> m_histograms;
    TimelineView *m_view = nullptr;
    QChartView *m_chartView;
    QChart *m_chart;
    QSpinBox *m_bins;
    QCheckBox *m_log;
    QLabel *m_stats;
    QListWidget *m_slowest;
    QLabel *m_selection;
    QPushButton *m_prev, *m_next, *m_slowestButton;
};

} // namespace gaplens::ui
