// SPDX-License-Identifier: MIT
#include "ui/panels/chartutil.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>

namespace gaplens::ui {

QChartView *makePanelChartView(QWidget *parent)
{
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    auto *view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(160);
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
