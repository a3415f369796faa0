// SPDX-License-Identifier: MIT
#include "ui/timeline/tracklabels.h"

#include "ui/theme/theme.h"
#include "ui/timeline/timelinemodel.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace gaplens::ui {

TrackLabels::TrackLabels(TimelineModel &model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    QFont f = font();
    f.setPointSizeF(8);
    setFont(f);
    connect(&m_model, &TimelineModel::rowsChanged, this, qOverload<>(&QWidget::update));
}

void TrackLabels::setScrollY(int y)
{
    if (y == m_scrollY)
        return;
    m_scrollY = y;
    update();
}

void TrackLabels::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const Theme &theme = Theme::current();
    QFont normal = font();
    normal.setPointSizeF(theme.labelFontPt);
    p.fillRect(rect(), theme.labelBackground);
    const auto &rows = m_model.rows();
    QFont bold = normal;
    bold.setBold(true);
    for (int i = std::max(0, m_model.rowAt(m_scrollY)); i < int(rows.size()); ++i) {
        const auto &row = rows[i];
        const int top = row.y - m_scrollY;
        if (top >= height())
            break;
        const QRect band(0, top, width(), row.height);
        const RowKindDescriptor &kind = describe(row);
        const bool header = kind.paint == RowPaint::Header;
        if (header)
            p.fillRect(band, theme.headerBackground);
        int x = 4 + row.indent * 10;
        if (row.expandable) {
            // A small triangle: pointing right when collapsed, down when expanded.
            const QPointF c(x + 4, top + row.height / 2.0);
            QPolygonF tri;
            if (row.expanded)
                tri << c + QPointF(-4, -2) << c + QPointF(4, -2) << c + QPointF(0, 3);
            else
                tri << c + QPointF(-2, -4) << c + QPointF(3, 0) << c + QPointF(-2, 4);
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(Qt::NoPen);
            p.setBrush(theme.labelText);
            p.drawPolygon(tri);
            p.setRenderHint(QPainter::Antialiasing, false);
        }
        x += 12;
        QFont font = header ? bold : normal;
        // Shrunk rows (a picture fitted to its height) get a smaller font, never below 9 px.
        if (QFontMetrics(font).height() > row.height)
            font.setPixelSize(std::max(9, row.height - 2));
        p.setFont(font);
        p.setPen(theme.labelText);
        const QFontMetrics m(p.font());
        p.drawText(QRect(x, top, width() - x - 4, row.height), Qt::AlignVCenter | Qt::AlignLeft,
            m.elidedText(row.label, Qt::ElideRight, width() - x - 4));
        if (kind.separatorAbove) {
            p.setPen(theme.isDark() ? theme.separator : QColor(210, 210, 210));
            p.drawLine(0, top, width(), top);
        }
    }
    p.setPen(theme.separator);
    p.drawLine(width() - 1, 0, width() - 1, height());
}

void TrackLabels::mousePressEvent(QMouseEvent *e)
{
    const int row = m_model.rowAt(int(e->position().y()) + m_scrollY);
    if (row >= 0 && m_model.rows()[row].expandable)
        m_model.toggleRow(row);
}

bool TrackLabels::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *he = static_cast<QHelpEvent *>(e);
        const int row = m_model.rowAt(he->pos().y() + m_scrollY);
        if (row >= 0 && !m_model.rows()[row].label.isEmpty())
            QToolTip::showText(he->globalPos(), m_model.rows()[row].label, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

} // namespace gaplens::ui
