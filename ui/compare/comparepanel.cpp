// SPDX-License-Identifier: MIT
#include "ui/compare/comparepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace gaplens::ui {

using Table = ComparisonModel::Table;

ComparePanel::ComparePanel(QWidget *parent)
    : QWidget(parent)
    , m_verdict(new QLabel(this))
    , m_detail(new QLabel(this))
    , m_noise(new QLabel(this))
    , m_stepRange(new QComboBox(this))
    , m_tabs(new QTabWidget(this))
{
    QFont big = m_verdict->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    big.setBold(true);
    m_verdict->setFont(big);
    m_verdict->setObjectName(QStringLiteral("verdict"));
    m_verdict->setWordWrap(true); // core's no-steps verdict is a long sentence
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_noise->setWordWrap(true);
    m_noise->setObjectName(QStringLiteral("noiseMethod"));
    QFont small = m_noise->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_noise->setFont(small);
    m_noise->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_stepRange->setEditable(true);
    m_stepRange->setMinimumContentsLength(18);
    m_stepRange->setToolTip(QStringLiteral("NVTX range whose iterations are the steps the noise is judged by"));
    auto *stepRow = new QHBoxLayout;
    stepRow->addWidget(new QLabel(QStringLiteral("Steps = NVTX range:"), this));
    stepRow->addWidget(m_stepRange, 1);

    for (Table t : { Table::Headline, Table::Kernels, Table::IdleByCause, Table::IdleByPhase, Table::Nvtx })
        addTable(t);
    m_tabs->addTab(m_views[int(Table::Kernels)], QStringLiteral("Kernels"));
    m_tabs->addTab(m_views[int(Table::IdleByCause)], QStringLiteral("Idle by cause"));
    m_tabs->addTab(m_views[int(Table::IdleByPhase)], QStringLiteral("Idle by phase"));
    m_tabs->addTab(m_views[int(Table::Nvtx)], QStringLiteral("NVTX ranges"));
    auto *headline = m_views[int(Table::Headline)];
    headline->setSortingEnabled(false); // core's order: per-step rows, then totals
    headline->setMinimumHeight(120);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_verdict);
    layout->addWidget(m_detail);
    layout->addWidget(m_noise);
    layout->addLayout(stepRow);
    layout->addWidget(headline, 2);
    layout->addWidget(m_tabs, 3);

    connect(m_stepRange, &QComboBox::activated, this,
        [this] { emit stepRangeRequested(m_stepRange->currentText().trimmed()); });
    setComparison(nullptr);
}

QTableView *ComparePanel::addTable(Table table)
{
    auto *model = new ComparisonModel(table, this);
    auto *proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model);
    proxy->setSortRole(ComparisonModel::SortRole);
    auto *view = new QTableView(this);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder); // core's order (|delta| desc) until a header is clicked
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setWordWrap(false);
    connect(view, &QTableView::clicked, this,
        [this, table, proxy](const QModelIndex &index) { activateRow(table, proxy->mapToSource(index).row()); });
    connect(view, &QTableView::activated, this,
        [this, table, proxy](const QModelIndex &index) { activateRow(table, proxy->mapToSource(index).row()); });
    m_models << model;
    m_views << view;
    return view;
}

ComparisonModel *ComparePanel::model(Table table) const
{
    return m_models[int(table)];
}

QTableView *ComparePanel::tableView(Table table) const
{
    return m_views[int(table)];
}

QTableView *ComparePanel::currentTableView() const
{
    return qobject_cast<QTableView *>(m_tabs->currentWidget());
}

void ComparePanel::activateRow(Table table, int row)
{
    const QString key = model(table)->key(row);
    if (key.isEmpty())
        return;
    switch (table) {
    case Table::Kernels: emit kernelActivated(key); break;
    case Table::IdleByCause: emit causeActivated(key); break;
    case Table::IdleByPhase: emit phaseActivated(key); break;
    case Table::Nvtx: emit nvtxActivated(key); break;
    case Table::Headline: break;
    }
}

void ComparePanel::setBusy(bool busy)
{
    if (busy)
        m_verdict->setText(QStringLiteral("Comparing…"));
    else if (m_comparison)
        setComparison(m_comparison);
}

void ComparePanel::setRangeNames(const QStringList &names)
{
    const QString current = m_stepRange->currentText();
    const QSignalBlocker block(m_stepRange);
    m_stepRange->clear();
    m_stepRange->addItems(names);
    m_stepRange->setCurrentText(current);
}

void ComparePanel::setComparison(std::shared_ptr<const core::Comparison> comparison)
{
    m_comparison = comparison;
    for (auto *m : std::as_const(m_models))
        m->setComparison(comparison);
    for (auto *v : std::as_const(m_views))
        v->resizeColumnsToContents();
    if (!comparison) {
        m_verdict->setText(QStringLiteral("Open a before and an after capture to compare them."));
        m_detail->clear();
        m_noise->clear();
        return;
    }
    const auto &c = *comparison;
    // Green for faster, red for slower, neutral otherwise: the verdict is read from a distance.
    m_verdict->setText(QString::fromStdString(c.verdictText));
    // Neutral verdicts keep the palette's text colour (readable in light and dark themes).
    m_verdict->setStyleSheet(c.verdict == core::Verdict::Faster ? QStringLiteral("color: #1a9c4a;")
            : c.verdict == core::Verdict::Slower                ? QStringLiteral("color: #d83a3a;")
                                                                : QString());
    QString detail = QString::fromStdString(c.verdictDetail);
    for (const auto &w : c.warnings)
        detail += QStringLiteral("\n⚠ ") + QString::fromStdString(w);
    m_detail->setText(detail);
    m_noise->setText(QStringLiteral("Noise test: ") + QString::fromStdString(c.noiseMethod));
    const QString range = QString::fromStdString(c.stepRange);
    if (!range.isEmpty() && m_stepRange->findText(range) < 0)
        m_stepRange->insertItem(0, range);
    const QSignalBlocker block(m_stepRange);
    m_stepRange->setCurrentText(range);
}

QString ComparePanel::verdictText() const
{
    return m_comparison ? QString::fromStdString(m_comparison->verdictText) : QString();
}

QString ComparePanel::noiseText() const
{
    return m_noise->text();
}

} // namespace gaplens::ui
