// SPDX-License-Identifier: MIT
#include "ui/panels/rankselector.h"

#include "ui/panels/panelcontext.h"

#include <QMenu>

namespace gaplens::ui {

RankSelector::RankSelector(PanelContext &context, QWidget *parent)
    : QToolButton(parent)
    , m_context(context)
{
    setPopupMode(QToolButton::InstantPopup);
    setToolButtonStyle(Qt::ToolButtonTextOnly);
    setMenu(new QMenu(this));
    setToolTip(QStringLiteral("Ranks the side panels analyse"));
    connect(&m_context, &PanelContext::dataChanged, this, &RankSelector::rebuild);
    connect(&m_context, &PanelContext::scopeChanged, this, &RankSelector::syncChecks);
    rebuild();
}

void RankSelector::rebuild()
{
    menu()->clear();
    m_rankActions.clear();
    m_all = menu()->addAction(QStringLiteral("All ranks"), this, [this] { m_context.setRanks({}); });
    m_all->setCheckable(true);
    menu()->addSeparator();
    if (const auto t = m_context.trace()) {
        for (std::uint32_t r = 0; r < t->ranks.size(); ++r) {
            const auto &rank = t->ranks[r];
            QString label = QStringLiteral("Rank %1").arg(rank.rank);
            if (!rank.host.empty())
                label += QStringLiteral(" · ") + QString::fromStdString(rank.host);
            QAction *a = menu()->addAction(label);
            a->setCheckable(true);
            a->setData(r);
            connect(a, &QAction::triggered, this, &RankSelector::applyChecks);
            m_rankActions << a;
        }
    }
    setEnabled(!m_rankActions.isEmpty());
    syncChecks();
}

void RankSelector::syncChecks()
{
    const auto &sel = m_context.ranks();
    m_all->setChecked(sel.isAll());
    for (QAction *a : std::as_const(m_rankActions))
        a->setChecked(!sel.isAll() && sel.includes(a->data().toUInt()));
    QString text = QStringLiteral("Ranks: all");
    if (!sel.isAll()) {
        QStringList numbers;
        for (QAction *a : std::as_const(m_rankActions))
            if (a->isChecked())
                numbers << a->text().section(QLatin1Char(' '), 1, 1);
        text = numbers.size() <= 4 ? QStringLiteral("Ranks: ") + numbers.join(QStringLiteral(", "))
                                   : QStringLiteral("Ranks: %1 of %2").arg(numbers.size()).arg(m_rankActions.size());
    }
    setText(text);
}

void RankSelector::applyChecks()
{
    std::vector<std::uint32_t> ranks;
    for (QAction *a : std::as_const(m_rankActions))
        if (a->isChecked())
            ranks.push_back(a->data().toUInt());
    if (ranks.empty()) {
        syncChecks(); // unchecking the last rank would select nothing: keep the previous choice
        return;
    }
    m_context.setRanks(std::move(ranks));
    syncChecks();
}

} // namespace gaplens::ui
