// SPDX-License-Identifier: MIT
#include "ui/panels/summarytreemodel.h"

#include "ui/panels/paneltablemodel.h"

namespace gaplens::ui {

namespace {
// The cell of a column as the tables show it (display text and raw number).
PanelCell cellOf(const SummaryTreeModel::Row &r, int column)
{
    switch (column) {
    case SummaryTreeModel::NameColumn: return PanelCell::text(r.name);
    case SummaryTreeModel::StyleColumn: return PanelCell::text(r.style);
    case SummaryTreeModel::CountColumn: return PanelCell::count(r.stats.count);
    case SummaryTreeModel::TotalColumn: return PanelCell::duration(double(r.stats.totalNs));
    case SummaryTreeModel::PercentColumn: return PanelCell::percent(r.percent);
    case SummaryTreeModel::AvgColumn: return PanelCell::duration(r.stats.avgNs);
    case SummaryTreeModel::MedianColumn: return PanelCell::duration(r.stats.medianNs);
    case SummaryTreeModel::MinColumn: return PanelCell::duration(double(r.stats.minNs));
    case SummaryTreeModel::MaxColumn: return PanelCell::duration(double(r.stats.maxNs));
    case SummaryTreeModel::StddevColumn: return PanelCell::duration(r.stats.stddevNs);
    default: return PanelCell::empty();
    }
}
} // namespace

SummaryTreeModel::SummaryTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void SummaryTreeModel::setRows(std::vector<Row> rows, const QString &countTitle, const QString &percentToolTip)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_countTitle = countTitle;
    m_percentToolTip = percentToolTip;
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

const SummaryTreeModel::Row *SummaryTreeModel::row(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    // internalId: 0 for a group, else 1 + the group's row for one of its children.
    if (index.internalId() == 0)
        return std::size_t(index.row()) < m_rows.size() ? &m_rows[std::size_t(index.row())] : nullptr;
    const auto group = std::size_t(index.internalId() - 1);
    if (group >= m_rows.size() || std::size_t(index.row()) >= m_rows[group].children.size())
        return nullptr;
    return &m_rows[group].children[std::size_t(index.row())];
}

QModelIndex SummaryTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent))
        return {};
    return createIndex(row, column, parent.isValid() ? quintptr(parent.row() + 1) : quintptr(0));
}

QModelIndex SummaryTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int SummaryTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_rows.size());
    if (parent.column() != 0 || !isGroup(parent) || std::size_t(parent.row()) >= m_rows.size())
        return 0;
    return int(m_rows[std::size_t(parent.row())].children.size());
}

int SummaryTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant SummaryTreeModel::data(const QModelIndex &index, int role) const
{
    const Row *r = row(index);
    if (!r)
        return {};
    switch (role) {
    case Qt::DisplayRole: return cellOf(*r, index.column()).display;
    case PanelTableModel::SortRole: return cellOf(*r, index.column()).raw;
    case PanelTableModel::RowKeyRole: return r->key;
    case Qt::ToolTipRole:
        if (index.column() == NameColumn)
            return r->children.empty()
                ? r->name
                : QStringLiteral("%1\n%2 per-call names: expand to see them").arg(r->name).arg(r->children.size());
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() >= CountColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default: return {};
    }
}

QVariant SummaryTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn: return QStringLiteral("Name");
        case StyleColumn: return QStringLiteral("Style");
        case CountColumn: return m_countTitle;
        case TotalColumn: return QStringLiteral("Total");
        case PercentColumn: return QStringLiteral("%");
        case AvgColumn: return QStringLiteral("Avg");
        case MedianColumn: return QStringLiteral("Median");
        case MinColumn: return QStringLiteral("Min");
        case MaxColumn: return QStringLiteral("Max");
        case StddevColumn: return QStringLiteral("StdDev");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (section == PercentColumn)
            return m_percentToolTip;
        if (section == StddevColumn)
            return QStringLiteral("Sample standard deviation, as nsys stats");
    }
    return {};
}

} // namespace gaplens::ui
