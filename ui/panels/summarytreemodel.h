// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/duration_stats.h"

#include <QAbstractItemModel>

#include <vector>

namespace gaplens::ui {

// The NVTX and CUDA API summaries as a tree: one row per name with the nsys *_sum columns
// (instances, total, share, average, median, min, max, standard deviation) and, under an NVTX
// group, its per-call names ("aten::add, op_id = 314359" under "aten::add"). Read-only; rows
// are replaced as a whole. DisplayRole is readable text, PanelTableModel::SortRole the raw
// number (a QSortFilterProxyModel sorts groups and their children on it), RowKeyRole the row's
// key (its StringId).
class SummaryTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        StyleColumn,
        CountColumn,
        TotalColumn,
        PercentColumn,
        AvgColumn,
        MedianColumn,
        MinColumn,
        MaxColumn,
        StddevColumn,
        ColumnCount
    };

    struct Row
    {
        QString name;
        QString style; // NVTX: "PushPop" or "StartEnd"
        core::DurationStats stats;
        double percent = 0;
        qint64 key = 0;
        std::vector<Row> children; // one level: a group's per-call names
    };

    explicit SummaryTreeModel(QObject *parent = nullptr);

    // countTitle: "Instances" or "Calls"; percentToolTip says what the share is of.
    void setRows(std::vector<Row> rows, const QString &countTitle, const QString &percentToolTip);
    // The row of an index (of this model), nullptr for an invalid one.
    const Row *row(const QModelIndex &index) const;
    // Whether an index is a group (top level) row.
    static bool isGroup(const QModelIndex &index) { return index.isValid() && index.internalId() == 0; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<Row> m_rows;
    QString m_countTitle = QStringLiteral("Instances");
    QString m_percentToolTip;
};

} // namespace gaplens::ui
