// SPDX-License-Identifier: MIT
#include "ui/timeline/gaplegend.h"

#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"

#include <QPainter>

namespace gaplens::ui {

namespace {
constexpr core::GapCause kCauses[] = { core::GapCause::QueuedDependencyWait, core::GapCause::ApiCall,
    core::GapCause::NoCudaCall, core::GapCause::Copy };
}

GapLegend::GapLegend(const TimelineModel &model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    QFont f = font();
    f.setPointSizeF(7.5);
    setFont(f);
    QString tip = QStringLiteral("Idle gaps on the GPU lanes, coloured by blame cause:");
    for (auto c : kCauses)
        tip += QStringLiteral("\n") + gapCauseShortLabel(c) + QStringLiteral(" = ")
            + QString::fromLatin1(core::gapCauseLabel(c));
    setToolTip(tip);
    connect(&m_model, &TimelineModel::gapsChanged, this, qOverload<>(&QWidget::update));
    connect(&m_model, &TimelineModel::gapThresholdChanged, this, qOverload<>(&QWidget::update));
    connect(&m_model, &TimelineModel::dataChanged, this, qOverload<>(&QWidget::update));
}

QSize GapLegend::sizeHint() const
{
    return { 240, 24 };
}

void GapLegend::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const Theme &theme = Theme::current();
    QFont themed = font();
    themed.setPointSizeF(theme.legendFontPt);
    p.setFont(themed);
    p.fillRect(rect(), theme.rulerBackground);
    const QFontMetrics fm(themed);
    int x = 4;
    p.setPen(theme.rulerText);
    // The bands fill in after the kernels (the worker blames the gaps): say so meanwhile.
    const bool computing = !m_model.isEmpty() && !m_model.gapsReady();
    const QString head = QStringLiteral("gaps ≥ ") + formatDuration(m_model.gapThreshold(), 0)
        + (computing ? QStringLiteral(" (computing…):") : QStringLiteral(":"));
    p.drawText(QRect(x, 0, width(), height()), Qt::AlignVCenter | Qt::AlignLeft, head);
    x += fm.horizontalAdvance(head) + 5;
    for (auto c : kCauses) {
        const QColor col = gapCauseColor(c);
        p.fillRect(QRect(x, height() / 2 - 5, 10, 10), QColor(col.red(), col.green(), col.blue()));
        x += 13;
        const QString label = gapCauseShortLabel(c);
        p.drawText(QRect(x, 0, width(), height()), Qt::AlignVCenter | Qt::AlignLeft, label);
        x += fm.horizontalAdvance(label) + 6;
    }
    p.setPen(theme.separator);
    p.drawLine(0, height() - 1, width(), height() - 1);
}

} // namespace gaplens::ui
