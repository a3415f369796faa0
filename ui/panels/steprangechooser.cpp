// SPDX-License-Identifier: MIT
#include "ui/panels/steprangechooser.h"

#include <QComboBox>

namespace gaplens::ui {

void fillStepRangeChooser(QComboBox *box, const core::StepRangeChoice &choice)
{
    box->clear();
    for (const auto &n : choice.candidates)
        box->addItem(QStringLiteral("%1  (%2× on %3 rank%4)")
                         .arg(QString::fromStdString(n.name))
                         .arg(n.count)
                         .arg(n.ranks)
                         .arg(n.ranks == 1 ? QString() : QStringLiteral("s")),
            QString::fromStdString(n.name));
}

} // namespace gaplens::ui
