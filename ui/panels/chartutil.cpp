// SPDX-License-Identifier: MIT
#include "ui/panels/chartutil.h"

#include "ui/theme/theme.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QLegend>

namespace gaplens::ui {

void applyChartTheme(QChart *chart)
{
    const Theme &theme = Theme::current();
    // setTheme restyles everything in the chart, including the series' colours: callers redraw.
    chart->setTheme(theme.isDark() ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    const QPalette palette = theme.palette();
    chart->setBackgroundBrush(palette.color(QPalette::Base));
    chart->setBackgroundRoundness(0);
    chart->setTitleBrush(palette.color(QPalette::Text));
    chart->legend()->setLabelColor(palette.color(QPalette::Text));
}

QChartView *makePanelChartView(QWidget *parent, std::function<void()> redraw)
{
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    applyChartTheme(chart);
    auto *view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(160);
    QObject::connect(ThemeNotifier::instance(), &ThemeNotifier::themeChanged, view, [chart, redraw] {
        applyChartTheme(chart);
        redraw();
    });
    return view;
}

void clearChart(QChart *chart)
{
    chart->removeAllSeries();
    for (QAbstractAxis *axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

QString elideMiddle(const QString &text, int max)
{
    if (text.size() <= max || max < 5)
        return text;
    const int head = (max - 1) * 2 / 3;
    const int tail = max - 1 - head;
    return text.left(head) + QChar(0x2026) + text.right(tail);
}

QColor seriesColor(int i)
{
    // Tableau's category10 and two more: told apart on light and dark backgrounds.
    static constexpr QRgb kColors[] = { 0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2, 0x7f7f7f,
        0xbcbd22, 0x17becf, 0x393b79, 0xad494a };
    return QColor::fromRgb(kColors[std::size_t(i) % std::size(kColors)]);
}

} // namespace gaplens::ui
