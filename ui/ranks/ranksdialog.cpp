// SPDX-License-Identifier: MIT
#include "ui/ranks/ranksdialog.h"

#include "ui/ranks/rankmappingmodel.h"
#include "ui/theme/theme.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace gaplens::ui {

RanksDialog::RanksDialog(QWidget *parent)
    : QDialog(parent)
    , m_model(new RankMappingModel(this))
    , m_table(new QTableView(this))
    , m_check(new QLabel(this))
{
    setWindowTitle(QStringLiteral("Ranks"));
    resize(980, 360);
    auto *intro = new QLabel(QStringLiteral("Which file and process is which rank, and how that was decided. "
                                            "Double-click a rank to change it; Apply reloads the capture with "
                                            "the new ranks and the session saves them."),
        this);
    intro->setWordWrap(true);
    m_table->setModel(m_model);
    m_table->setEditTriggers(
        QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_check->setWordWrap(true);

    auto *buttons = new QDialogButtonBox(this);
    m_apply = buttons->addButton(QStringLiteral("Apply"), QDialogButtonBox::ApplyRole);
    m_revert = buttons->addButton(QStringLiteral("Undo Edits"), QDialogButtonBox::ResetRole);
    m_reset = buttons->addButton(QStringLiteral("Reset to Automatic"), QDialogButtonBox::ResetRole);
    m_reset->setToolTip(QStringLiteral("Reload without any rank override: every rank decided by the environment, "
                                       "the file names or the file order"));
    buttons->addButton(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_apply, &QPushButton::clicked, this, &RanksDialog::apply);
    connect(m_revert, &QPushButton::clicked, m_model, &RankMappingModel::revert);
    connect(m_reset, &QPushButton::clicked, this, [this] { emit applyRequested({}); });
    connect(m_model, &RankMappingModel::numbersChanged, this, &RanksDialog::updateState);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_check);
    layout->addWidget(buttons);
    updateState();
}

void RanksDialog::setCapture(std::shared_ptr<const core::TraceSet> trace, std::vector<core::RankOverride> overrides)
{
    m_trace = std::move(trace);
    m_overrides = std::move(overrides);
    m_model->setMapping(m_trace ? core::rankMapping(*m_trace) : std::vector<core::RankMappingRow> {});
    m_table->resizeColumnsToContents();
}

std::vector<core::RankOverride> RanksDialog::editedOverrides() const
{
    return m_trace ? core::reassignRanks(*m_trace, m_overrides, m_model->numbers()) : m_overrides;
}

void RanksDialog::apply()
{
    if (m_trace && m_model->isEdited())
        emit applyRequested(editedOverrides());
}

void RanksDialog::updateState()
{
    const bool edited = m_model->isEdited();
    m_apply->setEnabled(edited);
    m_revert->setEnabled(edited);
    m_reset->setEnabled(!m_overrides.empty());
    const std::string problems = core::describeRankNumberCheck(m_model->check());
    QPalette pal = m_check->palette();
    pal.setColor(
        QPalette::WindowText, problems.empty() ? palette().color(QPalette::WindowText) : Theme::current().warningText);
    m_check->setPalette(pal);
    if (!m_trace || m_model->numbers().empty())
        m_check->setText(m_trace ? QStringLiteral("No ranks.") : QStringLiteral("No capture loaded."));
    else if (!problems.empty())
        m_check->setText(QStringLiteral("⚠ %1.").arg(QString::fromStdString(problems)));
    else
        m_check->setText(QStringLiteral("Ranks 0 to %1, each once.").arg(int(m_model->numbers().size()) - 1));
}

} // namespace gaplens::ui
