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
    static const QColor kColors[] = {
        QColor(31, 119, 180),
        QColor(255, 127, 14),
        QColor(44, 160, 44),
        QColor(214, 39, 40),
        QColor(148, 103, 189),
        QColor(140, 86, 75),
        QColor(227, 119, 194),
        QColor(127, 127, 127),
        QColor(188, 189, 34),
        QColor(23, 190, 207),
        QColor(57, 59, 121),
        QColor(173, 73, 74),
    };
    return kColors[std::size_t(i) % std::size(kColors)];
}

} // namespace gaplens::ui
