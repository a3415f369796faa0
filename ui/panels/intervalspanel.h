// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/intervals.h"
#include "ui/panels/analysispanel.h"
#include "ui/panels/transferschart.h"

#include <memory>
#include <optional>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QTabWidget;

namespace gaplens::ui {

class IntervalHeatMap;
class PanelTable;

// Fixed-interval statistics (core::computeIntervals, as `gaplens-cli intervals`): a heat map of
// ranks x intervals for the chosen metric with anomalous intervals outlined and a table of
// them, and the Transfers tab: one rank's copies per interval by direction, stacked, with the
// intervals in which every selected rank had a copy stall shaded. The interval length is the
// box's, or core::defaultIntervalLength. A click on a cell, a row or the chart selects that
// interval on the timeline's ruler (which narrows the other panels); this panel keeps showing
// what it showed and marks the interval. A time selection made elsewhere narrows it to the
// intervals overlapping it; anomalies stay judged against the whole capture.
class IntervalsPanel : public AnalysisPanel
{
    Q_OBJECT
public:
    enum AnomalyColumn { RankColumn, IntervalColumn, StartColumn, ValueColumn, ScoreColumn, AnomalyColumnCount };

    struct Result
    {
        std::shared_ptr<const core::TraceSet> trace;
        std::shared_ptr<const core::IntervalReport> report; // statistics at the length used
        bool automaticLength = false;
        core::IntervalMetric metric = core::IntervalMetric::Stddev;
        std::vector<core::AnomalyGroup> anomalies; // the metric's, every one, per entry of report->ranks
        std::vector<std::size_t> entries; // entries of report->ranks in the rank scope
        std::vector<std::int64_t> stalls; // copy stalls on every entry at once (one entry: its own)
        core::TimeWindow window; // the window shown
        std::int64_t first = 0, last = -1; // intervals shown
        QString error; // why there is no report
    };

    IntervalsPanel(PanelContext &context, TimelineView *view, QWidget *parent = nullptr);

    const Result &result() const { return m_result; }
    IntervalHeatMap *heatMap() const { return m_heatMap; }
    PanelTable *anomalyTable() const { return m_anomalies; }
    QChart *transfersChart() const { return m_chart; }
    QComboBox *metricChooser() const { return m_metric; }
    QComboBox *rankChooser() const { return m_rank; }
    QLineEdit *intervalBox() const { return m_interval; }
    QTabWidget *tabs() const { return m_tabs; }
    // "interval 50 ms (automatic: 20 or more over the GPU work)".
    QString lengthText() const;

    void setMetric(core::IntervalMetric metric);
    // "" = automatic.
    void setIntervalText(const QString &text);
    void setQuantity(TransferQuantity quantity);
    // Selects interval `index` of report entry `entry` on the timeline (ruler selection, the
    // view zoomed around it) and marks it here; false when out of range.
    bool selectInterval(std::size_t entry, std::int64_t index);
    // The heat map's tooltip for a cell: its interval's figures.
    QString cellToolTip(int row, int column) const;
    // The interval the heat map marks, if any.
    std::optional<std::int64_t> selectedInterval() const { return m_selected; }

protected:
    void recompute() override;

private:
    void apply(const Result &r);
    void rebuildTransfers();
    // The window this panel shows: the context's, unless it is the one a click here selected.
    core::TimeWindow shownWindow();

    QComboBox *m_metric;
    QLineEdit *m_interval;
    QLabel *m_length;
    QTabWidget *m_tabs;
    IntervalHeatMap *m_heatMap;
    PanelTable *m_anomalies;
    QComboBox *m_rank;
    QComboBox *m_quantity;
    QChartView *m_chartView;
    QChart *m_chart;
    QLabel *m_transfersNote;
    Result m_result;
    TransfersAxis m_axis;
    std::vector<std::pair<std::size_t, std::int64_t>> m_anomalyRows; // per table row key: (entry, interval)
    std::optional<std::int64_t> m_selected;
    // A click here selects on the ruler, which sets the context's window: that window
    // (m_ownWindow) keeps showing m_baseWindow.
    std::optional<core::TimeWindow> m_ownWindow;
    core::TimeWindow m_baseWindow;
    // Statistics are computed once per (trace, length); metric, ranks and window reuse them.
    struct Cache
    {
        const core::TraceSet *trace = nullptr;
        core::TimeNs intervalNs = 0; // 0 = automatic
        bool copiesBusy = false; // the derived capture counts copies as busy time
        std::shared_ptr<const core::IntervalReport> report;
        bool automaticLength = false;
    } m_cache;
};

} // namespace gaplens::ui
