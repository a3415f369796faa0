// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/time.h"

#include <QWidget>

namespace gaplens::ui {

class TimelineModel;
class ZoomControl;

// The time axis above the tracks: 1-2-5 ticks with labels in s/ms/us/ns relative to the
// capture start, spaced so labels never overlap. Dragging selects a time range (shown with its
// length) and emits timeSelectionChanged; a click without drag clears it.
class TimeRuler : public QWidget
{
    Q_OBJECT
public:
    TimeRuler(const TimelineModel &model, const ZoomControl &zoom, QWidget *parent = nullptr);

    struct Tick
    {
        double x = 0;
        QString label;
        QRect labelRect;
    };
    // The labelled ticks of the current window, left to right.
    QList<Tick> ticks() const;

    bool hasTimeSelection() const { return m_hasSelection; }
    core::TimeRange timeSelection() const { return m_selection; } // display ns
    void setTimeSelection(core::TimeRange range);
    void clearTimeSelection();

    QSize sizeHint() const override { return { 400, 24 }; }

signals:
    // Display-time range (absolute ns when ranks are aligned on absolute time).
    void timeSelectionChanged(core::TimeRange range);
    void timeSelectionCleared();

protected:
    void paintEvent(QPaintEvent *) override;
    void mousePressEvent(QMouseEvent *) override;
    void mouseMoveEvent(QMouseEvent *) override;
    void mouseReleaseEvent(QMouseEvent *) override;

private:
    const TimelineModel &m_model;
    const ZoomControl &m_zoom;
    bool m_dragging = false;
    bool m_moved = false;
    core::TimeNs m_anchor = 0;
    bool m_hasSelection = false;
    core::TimeRange m_selection;
};

} // namespace gaplens::ui
