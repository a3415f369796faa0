// SPDX-License-Identifier: MIT
#include "ui/ranks/rankmappingmodel.h"

#include "ui/theme/theme.h"

#include <QFont>

#include <algorithm>

namespace gaplens::ui {

RankMappingModel::RankMappingModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void RankMappingModel::setMapping(std::vector<core::RankMappingRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_numbers.clear();
    for (const auto &r : m_rows)
        m_numbers.push_back(r.rank);
    m_check = core::checkRankNumbers(m_numbers);
    endResetModel();
    emit numbersChanged();
}

bool RankMappingModel::setNumber(int row, std::int32_t number)
{
    if (row < 0 || std::size_t(row) >= m_numbers.size() || number < 0)
        return false;
    if (m_numbers[std::size_t(row)] == number)
        return true;
    m_numbers[std::size_t(row)] = number;
    m_check = core::checkRankNumbers(m_numbers);
    // Any row's duplicate flag may change with one edit.
    emit dataChanged(index(0, RankColumn), index(rowCount() - 1, RankColumn));
    emit numbersChanged();
    return true;
}

bool RankMappingModel::isEdited() const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_numbers[i] != m_rows[i].rank)
            return true;
    return false;
}

void RankMappingModel::revert()
{
    setMapping(m_rows);
}

bool RankMappingModel::isDuplicate(std::int32_t number) const
{
    return std::binary_search(m_check.duplicates.begin(), m_check.duplicates.end(), number);
}

int RankMappingModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RankMappingModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RankMappingModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &r = m_rows[std::size_t(index.row())];
    const std::int32_t number = m_numbers[std::size_t(index.row())];
    const bool rankColumn = index.column() == RankColumn;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case RankColumn: return number;
        case FileColumn: return QString::fromStdString(r.file);
        case PidColumn: return qulonglong(r.pid);
        case ProcessColumn: return QString::fromStdString(r.process);
        case HostColumn: return QString::fromStdString(r.host);
        case GpusColumn: return QString::fromStdString(r.gpus);
        case DecidedByColumn: return QString::fromStdString(r.decidedBy);
        case DetailColumn: return QString::fromStdString(r.detail);
        default: return {};
        }
    case Qt::EditRole: return rankColumn ? QVariant(number) : QVariant();
    case Qt::ForegroundRole:
        return rankColumn && isDuplicate(number) ? QVariant(Theme::current().warningText) : QVariant();
    case Qt::FontRole:
        if (rankColumn && (isDuplicate(number) || number != r.rank)) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::ToolTipRole:
        if (rankColumn && isDuplicate(number))
            return QStringLiteral("Rank %1 is claimed by more than one row").arg(number);
        if (rankColumn && number != r.rank)
            return QStringLiteral("Was rank %1; Apply reloads the capture with this rank").arg(r.rank);
        if (rankColumn)
            return QStringLiteral("Double-click to give this process another rank number");
        if (index.column() == FileColumn)
            return QString::fromStdString(r.file);
        return {};
    case Qt::TextAlignmentRole:
        return rankColumn || index.column() == PidColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    default: return {};
    }
}

bool RankMappingModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || index.column() != RankColumn
        || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    bool ok = false;
    const int number = value.toInt(&ok);
    return ok && setNumber(index.row(), number);
}

Qt::ItemFlags RankMappingModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == RankColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant RankMappingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    // The CLI's headers (`gaplens-cli ranks`), capitalised.
    static const char *const kTitles[] = { "Rank", "File", "PID", "Process", "Host", "GPUs", "Decided by", "Detail" };
    if (role == Qt::DisplayRole)
        return QString::fromLatin1(kTitles[section]);
    if (role == Qt::ToolTipRole && section == DecidedByColumn)
        return QStringLiteral("environment: the process environment (PMI_RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID, "
                              "RANK); file-name: numbers 0..N-1 in the file names; file-order: the files' natural "
                              "order; process: one rank per GPU process of one report; override: set by the user");
    return {};
}

} // namespace gaplens::ui
