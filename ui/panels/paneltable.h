// SPDX-License-Identifier: MIT
#pragma once
#include "ui/panels/paneltablemodel.h"

#include <QTableView>

#include <functional>
#include <memory>

class QMenu;
class QSortFilterProxyModel;

namespace gaplens::ui {

// The side panels' table: sorts by any column (on raw numbers), copies the selected rows as
// tab-separated text (Ctrl+C or the context menu) and exports the whole table as CSV.
class PanelTable : public QTableView
{
    Q_OBJECT
public:
    explicit PanelTable(QWidget *parent = nullptr);

    PanelTableModel *tableModel() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    // Source row of a view (proxy) index, or -1.
    int sourceRow(const QModelIndex &viewIndex) const;
    // View index of a source cell (for selecting a row the panel chose).
    QModelIndex viewIndex(int sourceRow, int sourceColumn = 0) const;

    // Selected rows (all rows when none is selected) as shown, tab-separated, with a header line.
    QString selectionText() const;
    // The whole table in view order: raw numbers for numeric columns, RFC 4180 quoting.
    QString csvText() const;
    bool exportCsv(const QString &path) const;
    void copySelection() const;

    // Entries a panel puts at the top of the context menu, for the source row under the cursor.
    using RowActions = std::function<void(QMenu &menu, int sourceRow)>;
    void setRowActions(RowActions add) { m_rowActions = std::move(add); }
    // The context menu for a source row (-1: none under the cursor): the panel's row actions
    // (for a row), then Copy, Copy All as CSV, Export CSV.
    std::unique_ptr<QMenu> contextMenu(int sourceRow);

signals:
    // A row was clicked or activated with the keyboard (source row and column).
    void rowClicked(int sourceRow, int sourceColumn);

protected:
    void keyPressEvent(QKeyEvent *) override;
    void contextMenuEvent(QContextMenuEvent *) override;

private:
    QString text(int viewRow, int column, bool raw) const;
    PanelTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    RowActions m_rowActions;
};

} // namespace gaplens::ui
