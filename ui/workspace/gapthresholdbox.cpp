// SPDX-License-Identifier: MIT
#include "ui/workspace/gapthresholdbox.h"

#include "ui/timeline/timeformat.h"

#include <QSignalBlocker>

namespace gaplens::ui {

std::optional<core::TimeNs> parseGapThreshold(const QString &text)
{
    QString compact = text;
    compact.remove(QLatin1Char(' '));
    bool plainNumber = false;
    compact.toDouble(&plainNumber);
    if (plainNumber)
        compact += QStringLiteral("us");
    core::TimeNs ns = 0;
    if (!parseDuration(compact, ns) || ns <= 0)
        return std::nullopt;
    return ns;
}

GapThresholdBox::GapThresholdBox(QWidget *parent)
    : QComboBox(parent)
{
    setEditable(true);
    addItems({ QStringLiteral("10 us"), QStringLiteral("50 us"), QStringLiteral("100 us"), QStringLiteral("500 us"),
        QStringLiteral("1 ms"), QStringLiteral("10 ms") });
    setCurrentText(QStringLiteral("100 us"));
    setToolTip(QStringLiteral("Idle-gap threshold, e.g. 100us, 0.5ms, 2ms"));
    connect(this, &QComboBox::currentTextChanged, this, [this](const QString &text) {
        if (const auto ns = parseGapThreshold(text))
            emit thresholdChanged(*ns);
    });
}

std::optional<core::TimeNs> GapThresholdBox::threshold() const
{
    return parseGapThreshold(currentText());
}

void GapThresholdBox::setThreshold(core::TimeNs ns)
{
    const QSignalBlocker block(this);
    setCurrentText(formatDuration(ns, 0));
}

} // namespace gaplens::ui
