// SPDX-License-Identifier: MIT
#include "ui/timeline/timeruler.h"

#include "ui/theme/theme.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/zoomcontrol.h"

#include <QMouseEvent>
#include <QPainter>

#include <cmath>
#include <limits>

namespace gaplens::ui {

using core::TimeNs;

TimeRuler::TimeRuler(const TimelineModel &model, const ZoomControl &zoom, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_zoom(zoom)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    QFont f = font();
    f.setPointSizeF(8);
    setFont(f);
    setCursor(Qt::IBeamCursor);
    setToolTip(QStringLiteral("Drag to select a time range"));
}

QList<TimeRuler::Tick> TimeRuler::ticks() const
{
    QList<Tick> out;
    QFont themed = font();
    themed.setPointSizeF(Theme::current().rulerFontPt);
    const QFontMetrics fm(themed);
    const TimeNs origin = m_model.origin();
    const TimeNs from = m_zoom.windowStart() - origin;
    const TimeNs to = m_zoom.windowEnd() - origin;
    const TimeNs step = tickStep(m_zoom.nsPerPx(), from, to, fm);
    const TimeNs maxAbs = std::max(std::abs(from), std::abs(to));
    TimeNs t = TimeNs(std::floor(double(from) / double(step))) * step;
    int previousLabelEnd = std::numeric_limits<int>::min();
    for (; t <= to + step; t += step) {
        const double x = m_zoom.timeToX(t + origin);
        if (x < -200 || x > width() + 200)
            continue;
        Tick tick;
        tick.x = x;
        tick.label = formatTick(t, step, maxAbs);
        const int w = fm.horizontalAdvance(tick.label);
        // A label right of its tick; the last one moves left to stay whole, and is left out
        // when that would run into its neighbour.
        int left = int(x) + 3;
        if (x <= width() && left + w > width() - 2)
            left = width() - 2 - w;
        if (left < previousLabelEnd + 4 || x > width())
            tick.label.clear();
        else
            previousLabelEnd = left + w;
        tick.labelRect = QRect(left, 0, w, height() - 6);
        out.append(tick);
    }
    return out;
}

void TimeRuler::setTimeSelection(core::TimeRange range)
{
    if (range.end < range.start)
        std::swap(range.start, range.end);
    m_selection = range;
    m_hasSelection = true;
    update();
    emit timeSelectionChanged(range);
}

void TimeRuler::clearTimeSelection()
{
    if (!m_hasSelection)
        return;
    m_hasSelection = false;
    update();
    emit timeSelectionCleared();
}

void TimeRuler::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const Theme &theme = Theme::current();
    QFont themed = font();
    themed.setPointSizeF(theme.rulerFontPt);
    p.setFont(themed);
    p.fillRect(rect(), theme.rulerBackground);
    p.setPen(theme.separator);
    p.drawLine(0, height() - 1, width(), height() - 1);
    if (m_model.isEmpty())
        return;
    const auto list = ticks();
    if (list.size() >= 2) {
        // Minor ticks: 5 per major interval when there is room.
        const double major = list[1].x - list[0].x;
        if (major / 5 >= 6) {
            p.setPen(theme.rulerMinorTick);
            for (const auto &tick : list)
                for (int i = 1; i < 5; ++i) {
                    const int x = int(std::lround(tick.x + major * i / 5));
                    p.drawLine(x, height() - 5, x, height() - 1);
                }
        }
    }
    p.setPen(theme.rulerText);
    for (const auto &tick : list) {
        const int x = int(std::lround(tick.x));
        p.drawLine(x, height() - 10, x, height() - 1);
        p.drawText(tick.labelRect, Qt::AlignLeft | Qt::AlignVCenter, tick.label);
    }
    if (m_hasSelection) {
        const double x0 = std::clamp(m_zoom.timeToX(m_selection.start), -5.0, width() + 5.0);
        const double x1 = std::clamp(m_zoom.timeToX(m_selection.end), -5.0, width() + 5.0);
        const QRectF r(x0, 0, std::max(1.0, x1 - x0), height());
        p.fillRect(r, QColor(60, 120, 220, 70));
        const QString text = formatDuration(m_selection.duration());
        const QFontMetrics fm(themed);
        const int w = fm.horizontalAdvance(text) + 8;
        QRectF box(r.center().x() - w / 2.0, 2, w, height() - 6);
        p.fillRect(box, QColor(40, 90, 190));
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, text);
    }
}

void TimeRuler::mousePressEvent(QMouseEvent *e)
{
    if (e->button() != Qt::LeftButton || m_model.isEmpty())
        return;
    m_dragging = true;
    m_moved = false;
    m_anchor = m_zoom.xToTime(e->position().x());
}

void TimeRuler::mouseMoveEvent(QMouseEvent *e)
{
    if (!m_dragging)
        return;
    const TimeNs t = m_zoom.xToTime(e->position().x());
    if (!m_moved && std::abs(m_zoom.timeToX(t) - m_zoom.timeToX(m_anchor)) < 3)
        return;
    m_moved = true;
    m_selection = t < m_anchor ? core::TimeRange { t, m_anchor } : core::TimeRange { m_anchor, t };
    m_hasSelection = true;
    update();
}

void TimeRuler::mouseReleaseEvent(QMouseEvent *e)
{
    if (!m_dragging || e->button() != Qt::LeftButton)
        return;
    m_dragging = false;
    if (m_moved)
        setTimeSelection(m_selection);
    else
        clearTimeSelection();
}

} // namespace gaplens::ui
