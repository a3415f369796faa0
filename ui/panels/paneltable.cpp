// SPDX-License-Identifier: MIT
#include "ui/panels/paneltable.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMenu>
#include <QSortFilterProxyModel>

#include <cmath>
#include <set>

namespace gaplens::ui {

PanelTable::PanelTable(QWidget *parent)
    : QTableView(parent)
    , m_model(new PanelTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(PanelTableModel::SortRole);
    setModel(m_proxy);
    setSortingEnabled(true);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setHighlightSections(false);
    horizontalHeader()->setStretchLastSection(false);
    horizontalHeader()->setSectionsMovable(true);
    // A fresh table (new data) resizes its columns once; sorting and scrolling keep them.
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        resizeColumnsToContents();
        for (int c = 0; c < m_model->columnCount(); ++c)
            if (columnWidth(c) > 420)
                setColumnWidth(c, 420);
    });
    connect(this, &QAbstractItemView::clicked, this, [this](const QModelIndex &index) {
        if (const int row = sourceRow(index); row >= 0)
            emit rowClicked(row, m_proxy->mapToSource(index).column());
    });
    connect(this, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        if (const int row = sourceRow(index); row >= 0)
            emit rowClicked(row, m_proxy->mapToSource(index).column());
    });
}

int PanelTable::sourceRow(const QModelIndex &viewIndex) const
{
    if (!viewIndex.isValid())
        return -1;
    const QModelIndex s = viewIndex.model() == m_proxy ? m_proxy->mapToSource(viewIndex) : viewIndex;
    return s.isValid() ? s.row() : -1;
}

QModelIndex PanelTable::viewIndex(int sourceRow, int sourceColumn) const
{
    return m_proxy->mapFromSource(m_model->index(sourceRow, sourceColumn));
}

QString PanelTable::text(int viewRow, int column, bool raw) const
{
    const QModelIndex i = m_proxy->index(viewRow, column);
    const bool numeric = m_model->columns().value(column).numeric;
    if (!raw || !numeric)
        return m_proxy->data(i, Qt::DisplayRole).toString();
    const QVariant v = m_proxy->data(i, PanelTableModel::SortRole);
    if (v.typeId() == QMetaType::Double) {
        // Whole nanoseconds print as integers ("2000000", not "2e+06").
        const double d = v.toDouble();
        if (d == std::floor(d) && std::abs(d) < 9e15)
            return QString::number(qint64(d));
        return QString::number(d, 'g', 12);
    }
    return v.toString();
}

QString PanelTable::selectionText() const
{
    std::set<int> rows;
    for (const QModelIndex &i : selectionModel()->selectedIndexes())
        rows.insert(i.row());
    if (rows.empty())
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            rows.insert(r);
    const int columns = m_model->columnCount();
    QStringList lines;
    QStringList header;
    for (int c = 0; c < columns; ++c)
        header << m_model->columns()[c].title;
    lines << header.join(QLatin1Char('\t'));
    for (int r : rows) {
        QStringList cells;
        for (int c = 0; c < columns; ++c)
            cells << text(r, c, false);
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString PanelTable::csvText() const
{
    auto quote = [](QString s) -> QString {
        if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n'))) {
            s.replace(QStringLiteral("\""), QStringLiteral("\"\""));
            return QLatin1Char('"') + s + QLatin1Char('"');
        }
        return s;
    };
    const int columns = m_model->columnCount();
    QStringList lines;
    QStringList header;
    for (int c = 0; c < columns; ++c) {
        const auto &col = m_model->columns()[c];
        header << quote(
            col.unit.isEmpty() ? col.title : col.title + QStringLiteral(" [") + col.unit + QLatin1Char(']'));
    }
    lines << header.join(QLatin1Char(','));
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < columns; ++c)
            cells << quote(text(r, c, true));
        lines << cells.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

bool PanelTable::exportCsv(const QString &path) const
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text))
        return false;
    return f.write(csvText().toUtf8()) >= 0;
}

void PanelTable::copySelection() const
{
    QApplication::clipboard()->setText(selectionText());
}

void PanelTable::keyPressEvent(QKeyEvent *e)
{
    if (e->matches(QKeySequence::Copy)) {
        copySelection();
        return;
    }
    QTableView::keyPressEvent(e);
}

std::unique_ptr<QMenu> PanelTable::contextMenu(int sourceRow)
{
    auto menu = std::make_unique<QMenu>(this);
    if (m_rowActions && sourceRow >= 0) {
        m_rowActions(*menu, sourceRow);
        if (!menu->isEmpty())
            menu->addSeparator();
    }
    menu->addAction(QStringLiteral("Copy"), this, &PanelTable::copySelection)->setShortcut(QKeySequence::Copy);
    menu->addAction(QStringLiteral("Copy All as CSV"), this, [this] { QApplication::clipboard()->setText(csvText()); });
    menu->addSeparator();
    menu->addAction(QStringLiteral("Export CSV…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, QStringLiteral("Export table as CSV"), QString(), QStringLiteral("CSV (*.csv)"));
        if (!path.isEmpty())
            exportCsv(path);
    });
    return menu;
}

void PanelTable::contextMenuEvent(QContextMenuEvent *e)
{
    contextMenu(sourceRow(indexAt(e->pos())))->exec(e->globalPos());
}

} // namespace gaplens::ui
