// SPDX-License-Identifier: MIT
#include "ui/panels/paneltablemodel.h"

#include "gaplens/core/util/units.h"
#include "ui/timeline/timeformat.h"

#include <QLocale>

namespace gaplens::ui {

PanelCell PanelCell::count(std::uint64_t n)
{
    return { QLocale::system().toString(qulonglong(n)), qulonglong(n), {}, {} };
}

PanelCell PanelCell::duration(double ns)
{
    return { QString::fromStdString(core::formatDuration(ns)), ns, {}, {} };
}

PanelCell PanelCell::percent(double p)
{
    return { QString::fromStdString(core::formatPercent(p)), p, {}, {} };
}

PanelCell PanelCell::bytes(std::uint64_t b)
{
    return { QString::fromStdString(core::formatBytes(b)), qulonglong(b), {}, {} };
}

PanelTableModel::PanelTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void PanelTableModel::setTable(
    QList<PanelColumn> columns, std::vector<std::vector<PanelCell>> rows, std::vector<qint64> rowKeys)
{
    beginResetModel();
    m_columns = std::move(columns);
    m_rows = std::move(rows);
    for (auto &r : m_rows)
        r.resize(std::size_t(m_columns.size()));
    m_keys = std::move(rowKeys);
    endResetModel();
}

void PanelTableModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_keys.clear();
    endResetModel();
}

const PanelCell &PanelTableModel::cell(int row, int column) const
{
    return m_rows[std::size_t(row)][std::size_t(column)];
}

qint64 PanelTableModel::rowKey(int row) const
{
    return row >= 0 && std::size_t(row) < m_keys.size() ? m_keys[std::size_t(row)] : row;
}

int PanelTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PanelTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant PanelTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PanelCell &c = cell(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole: return c.display;
    case SortRole: return c.raw.isValid() ? c.raw : c.display;
    case RowKeyRole: return rowKey(index.row());
    case Qt::BackgroundRole: return c.background.isValid() ? QVariant(c.background) : QVariant();
    case Qt::ToolTipRole: return c.toolTip.isEmpty() ? QVariant() : QVariant(c.toolTip);
    case Qt::DecorationRole: return c.swatch.isValid() ? QVariant(c.swatch) : QVariant();
    case Qt::TextAlignmentRole:
        return m_columns[index.column()].numeric ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default: return {};
    }
}

QVariant PanelTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= m_columns.size())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole)
        return m_columns[section].title;
    if (role == Qt::ToolTipRole && !m_columns[section].toolTip.isEmpty())
        return m_columns[section].toolTip;
    return {};
}

} // namespace gaplens::ui
