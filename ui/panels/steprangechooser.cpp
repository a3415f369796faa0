// SPDX-License-Identifier: MIT
#include "ui/panels/steprangechooser.h"

#include <QComboBox>

#include <utility>

namespace gaplens::ui {

StepRangeChoices::StepRangeChoices(std::shared_ptr<const core::TraceSet> trace)
    : m_trace(std::move(trace))
{
}

std::shared_ptr<const core::StepRangeChoice> StepRangeChoices::get()
{
    const std::lock_guard lock(m_mutex);
    if (!m_choice && m_trace)
        m_choice = std::make_shared<const core::StepRangeChoice>(core::chooseStepRange(*m_trace));
    return m_choice;
}

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
