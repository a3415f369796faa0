// SPDX-License-Identifier: MIT
#pragma once
#include <QColor>
#include <QString>

#include <functional>

class QChart;
class QChartView;
class QWidget;

namespace gaplens::ui {

// A chart view with the panels' look: no animation, antialiased, compact margins, the current
// theme's colours. When the theme changes the chart takes the new colours and `redraw` runs,
// so the panel puts its series and axes back with their own colours.
QChartView *makePanelChartView(QWidget *parent, std::function<void()> redraw);
// The current theme's colours on `chart` (dark chart theme for the dark themes); series and
// axes added afterwards follow them.
void applyChartTheme(QChart *chart);
// Removes every series and axis (before a panel puts new data in).
void clearChart(QChart *chart);
// "sgemm_kernel<…>" shortened to at most `max` characters with an ellipsis in the middle.
QString elideMiddle(const QString &text, int max);
// A palette colour for series i (distinct for the first 12, then repeating).
QColor seriesColor(int i);

} // namespace gaplens::ui
