// SPDX-License-Identifier: MIT
#pragma once
#include <QWidget>

namespace gaplens::ui {

class TimelineModel;

// Row labels left of the tracks, scrolled with them: rank headers (click to collapse),
// GPU merged lanes (click to show the per-stream lanes), threads, copies.
class TrackLabels : public QWidget
{
    Q_OBJECT
public:
    explicit TrackLabels(TimelineModel &model, QWidget *parent = nullptr);
    void setScrollY(int y);

protected:
    void paintEvent(QPaintEvent *) override;
    void mousePressEvent(QMouseEvent *) override;
    bool event(QEvent *) override;

private:
    TimelineModel &m_model;
    int m_scrollY = 0;
};

} // namespace gaplens::ui
