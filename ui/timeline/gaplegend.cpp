// SPDX-License-Identifier: MIT
#include "ui/timeline/gaplegend.h"

#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"

#include <QPainter>

#include <algorithm>

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

namespace {
constexpr int kLeftPad = 4, kHeadGap = 5, kSwatchStep = 13, kLabelGap = 6;
}

int GapLegend::contentWidth(const QFont &font, const QString &head)
{
    const QFontMetrics fm(font);
    int x = kLeftPad + fm.horizontalAdvance(head) + kHeadGap;
    for (auto c : kCauses)
        x += kSwatchStep + fm.horizontalAdvance(gapCauseShortLabel(c)) + kLabelGap;
    return x;
}

QFont GapLegend::fittedFont(QFont font, const QString &head, int width)
{
    while (font.pointSizeF() > 5.5 && contentWidth(font, head) > width)
        font.setPointSizeF(std::max(5.5, font.pointSizeF() - 0.5));
    return font;
}

void GapLegend::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const Theme &theme = Theme::current();
    // The bands fill in after the kernels (the worker blames the gaps): say so meanwhile.
    const bool computing = !m_model.isEmpty() && !m_model.gapsReady();
    QString head = QStringLiteral("gaps ≥ ") + formatDuration(m_model.gapThreshold(), 0)
        + (computing ? QStringLiteral(" (computing…):") : QStringLiteral(":"));
    QFont themed = font();
    themed.setPointSizeF(theme.legendFontPt);
    const QFont wanted = themed;
    themed = fittedFont(wanted, head, width());
    if (contentWidth(themed, head) > width()) {
        // Too long even small: the threshold is in the toolbar, the state is what matters.
        head = computing ? QStringLiteral("computing…:") : QStringLiteral("gaps:");
        themed = fittedFont(wanted, head, width());
    }
    p.setFont(themed);
    p.fillRect(rect(), theme.rulerBackground);
    const QFontMetrics fm(themed);
    int x = kLeftPad;
    p.setPen(theme.rulerText);
    p.drawText(QRect(x, 0, width(), height()), Qt::AlignVCenter | Qt::AlignLeft, head);
    x += fm.horizontalAdvance(head) + kHeadGap;
    for (auto c : kCauses) {
        const QColor col = gapCauseColor(c);
        p.fillRect(QRect(x, height() / 2 - 5, 10, 10), QColor(col.red(), col.green(), col.blue()));
        x += kSwatchStep;
        const QString label = gapCauseShortLabel(c);
        p.drawText(QRect(x, 0, width(), height()), Qt::AlignVCenter | Qt::AlignLeft, label);
        x += fm.horizontalAdvance(label) + kLabelGap;
    }
    p.setPen(theme.separator);
    p.drawLine(0, height() - 1, width(), height() - 1);
}

} // namespace gaplens::ui
