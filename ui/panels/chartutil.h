// SPDX-License-Identifier: MIT
#pragma once
#include <QColor>
#include <QString>

class QChart;
class QChartView;
class QWidget;

namespace gaplens::ui {

// A chart view with the panels' look: no animation, antialiased, compact margins.
QChartView *makePanelChartView(QWidget *parent);
// Removes every series and axis (before a panel puts new data in).
void clearChart(QChart *chart);
// "sgemm_kernel<…>" shortened to at most `max` characters with an ellipsis in the middle.
QString elideMiddle(const QString &text, int max);
// A palette colour for series i (distinct for the first 12, then repeating).
QColor seriesColor(int i);

} // namespace gaplens::ui
