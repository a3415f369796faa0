// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/intervals.h"

#include <QStringList>
#include <QWidget>

#include <functional>
#include <optional>
#include <vector>

namespace gaplens::ui {

struct Theme;

// What the heat map shows: ranks (rows) x intervals (columns) of one metric, taken from core's
// interval statistics as they are (core::intervalMetricValue), anomalous cells outlined.
struct HeatMapData
{
    core::IntervalMetric metric = core::IntervalMetric::Stddev;
    core::TimeNs originNs = 0, intervalNs = 0;
    std::int64_t firstIndex = 0; // interval index of column 0
    int columns = 0;
    QStringList rowLabels; // "rank 3"
    std::vector<std::size_t> entries; // per row: its index into IntervalReport::ranks
    std::vector<double> values; // row-major; NaN = no value (outside the rank's intervals, or none)
    std::vector<char> outlined; // row-major; anomalous by the metric's IQR rule
    double maxValue = 0; // the colour scale runs from 0 to it

    double value(int row, int column) const
    {
        return values[std::size_t(row) * std::size_t(columns) + std::size_t(column)];
    }
    bool isOutlined(int row, int column) const
    {
        return outlined[std::size_t(row) * std::size_t(columns) + std::size_t(column)] != 0;
    }
};

// The heat map of `entries` (indices into report.ranks) over intervals [first, last], with the
// cells of `anomalies` (findAnomalies' groups for `metric`, per entry; a pool's apply to all) outlined.
HeatMapData makeHeatMapData(const core::TraceSet &trace, const core::IntervalReport &report,
    const std::vector<core::AnomalyGroup> &anomalies, core::IntervalMetric metric,
    const std::vector<std::size_t> &entries, std::int64_t first, std::int64_t last);

// Which rows get a label when rows are `rowHeight` px tall: every k-th, so that labels
// `lineHeight` px tall never overlap (1 when every row has room for its own).
int heatMapRowLabelStep(double rowHeight, int lineHeight);

// The metric's value as the panels show it: a duration, a count or bytes.
QString formatMetricValue(core::IntervalMetric metric, double value);
// "kernel duration spread (stddev)", "HtoD bytes".
QString metricTitle(core::IntervalMetric metric);
// Interval k's start from the origin, "41 s", "600 ms".
QString intervalOffsetText(core::TimeNs intervalNs, std::int64_t k);

// The heat map: one cell per rank and interval, coloured on a sequential scale (viridis,
// readable on light and dark backgrounds), a colour bar with values below. Clicking a cell
// emits cellClicked; hovering shows the tooltip the owner provides for it.
class IntervalHeatMap : public QWidget
{
    Q_OBJECT
public:
    explicit IntervalHeatMap(QWidget *parent = nullptr);

    void setData(HeatMapData data);
    const HeatMapData &data() const { return m_data; }
    // A column to mark (the interval selected on the timeline); -1 none.
    void setSelectedColumn(int column);
    int selectedColumn() const { return m_selectedColumn; }
    void setToolTipProvider(std::function<QString(int row, int column)> provider) { m_toolTip = std::move(provider); }

    // The cell under a widget position, if any.
    std::optional<std::pair<int, int>> cellAt(QPoint pos) const;
    // Where cell (row, column) is drawn (for tests and the tooltip).
    QRectF cellRect(int row, int column) const;
    // Paints the heat map into `rect` (the widget, or a report picture).
    static void paint(
        QPainter &painter, const QRect &rect, const HeatMapData &data, int selectedColumn, const Theme &theme);
    QSize sizeHint() const override { return { 600, 220 }; }
    QSize minimumSizeHint() const override { return { 200, 120 }; }

signals:
    void cellClicked(int row, int column);

protected:
    void paintEvent(QPaintEvent *) override;
    void mouseReleaseEvent(QMouseEvent *) override;
    bool event(QEvent *) override;

private:
    HeatMapData m_data;
    int m_selectedColumn = -1;
    std::function<QString(int, int)> m_toolTip;
};

} // namespace gaplens::ui
