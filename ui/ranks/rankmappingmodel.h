// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/read/rank_identity.h"

#include <QAbstractTableModel>

#include <vector>

namespace gaplens::ui {

// The rank mapping of a capture as `gaplens-cli ranks` prints it (core::rankMapping: rank,
// file, pid, process, host, GPUs, decided by, detail), with the rank number editable. Edited
// numbers are checked at once: a number claimed twice is drawn in the warning colour, and
// check() names the duplicates and the numbers missing between 0 and the largest.
class RankMappingModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        FileColumn,
        PidColumn,
        ProcessColumn,
        HostColumn,
        GpusColumn,
        DecidedByColumn,
        DetailColumn,
        ColumnCount
    };

    explicit RankMappingModel(QObject *parent = nullptr);

    // The mapping as loaded; edits are dropped.
    void setMapping(std::vector<core::RankMappingRow> rows);
    const std::vector<core::RankMappingRow> &mapping() const { return m_rows; }
    // The numbers as edited, one per row (TraceSet::ranks order).
    const std::vector<std::int32_t> &numbers() const { return m_numbers; }
    // Sets row's number (false for a negative number or a row out of range).
    bool setNumber(int row, std::int32_t number);
    bool isEdited() const;
    void revert();
    const core::RankNumberCheck &check() const { return m_check; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    // An edit changed the numbers (and so check()).
    void numbersChanged();

private:
    bool isDuplicate(std::int32_t number) const;

    std::vector<core::RankMappingRow> m_rows;
    std::vector<std::int32_t> m_numbers;
    core::RankNumberCheck m_check;
};

} // namespace gaplens::ui
