// SPDX-License-Identifier: MIT
#pragma once
#include <QWidget>

namespace gaplens::ui {

class TimelineModel;

// Legend of the idle-gap band colours by blame cause, with the current threshold.
class GapLegend : public QWidget
{
    Q_OBJECT
public:
    explicit GapLegend(const TimelineModel &model, QWidget *parent = nullptr);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *) override;

private:
    const TimelineModel &m_model;
};

} // namespace gaplens::ui
