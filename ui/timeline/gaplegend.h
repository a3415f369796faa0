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
    // The width the legend draws `head` and every cause in with `font` (px).
    static int contentWidth(const QFont &font, const QString &head);
    // `font`, made smaller (to 5.5 pt at the least) until the legend fits in `width`: the four
    // causes do not fit the label column at the presentation themes' size.
    static QFont fittedFont(QFont font, const QString &head, int width);

protected:
    void paintEvent(QPaintEvent *) override;

private:
    const TimelineModel &m_model;
};

} // namespace gaplens::ui
