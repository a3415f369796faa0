// SPDX-License-Identifier: MIT
#pragma once
#include <QAbstractTableModel>
#include <QColor>
#include <QList>
#include <QString>
#include <QVariant>

#include <cstdint>
#include <vector>

namespace gaplens::ui {

// One cell: what is shown (readable units) and what sorting and CSV use (the raw number).
struct PanelCell
{
    QVariant display;
    QVariant raw; // SortRole; defaults to display
    QColor background; // invalid = none
    QString toolTip;
    QColor swatch; // a colour square before the text (a gap cause's colour); invalid = none

    static PanelCell text(const QString &s) { return { s, s, {}, {} }; }
    static PanelCell count(std::uint64_t n);
    static PanelCell duration(double ns); // "1.235 ms"; raw ns
    static PanelCell percent(double p); // "12.3%"; raw percent
    static PanelCell bytes(std::uint64_t b); // "1.5 MiB"; raw bytes
    static PanelCell empty() { return { QString(), QVariant(), {}, {} }; }
};

struct PanelColumn
{
    QString title;
    bool numeric = false; // right-aligned; CSV writes the raw value
    QString unit; // of the raw value in CSV headers ("ns", "bytes", "%")
    QString toolTip;
};

// A small read-only table for the side panels: rows are replaced as a whole when a panel's
// job delivers (a few hundred rows at most: kernels by name, blame buckets, iterations).
// SortRole holds raw numbers so a QSortFilterProxyModel sorts durations numerically.
class PanelTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role { SortRole = Qt::UserRole + 1, RowKeyRole };

    explicit PanelTableModel(QObject *parent = nullptr);

    // rowKeys (optional, one per row) let a panel map a clicked row back to its data.
    void setTable(
        QList<PanelColumn> columns, std::vector<std::vector<PanelCell>> rows, std::vector<qint64> rowKeys = {});
    void clear();
    const QList<PanelColumn> &columns() const { return m_columns; }
    const PanelCell &cell(int row, int column) const;
    qint64 rowKey(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<PanelColumn> m_columns;
    std::vector<std::vector<PanelCell>> m_rows;
    std::vector<qint64> m_keys;
};

} // namespace gaplens::ui
