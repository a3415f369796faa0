// SPDX-License-Identifier: MIT
#pragma once
#include <QToolButton>

namespace gaplens::ui {

class PanelContext;

// The panels' shared rank chooser: a button whose menu offers "All ranks" and one checkable
// entry per rank; it writes PanelContext::setRanks and follows its changes.
class RankSelector : public QToolButton
{
    Q_OBJECT
public:
    explicit RankSelector(PanelContext &context, QWidget *parent = nullptr);

private:
    void rebuild();
    void syncChecks();
    void applyChecks();

    PanelContext &m_context;
    QAction *m_all = nullptr;
    QList<QAction *> m_rankActions;
};

} // namespace gaplens::ui
