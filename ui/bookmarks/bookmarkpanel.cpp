// SPDX-License-Identifier: MIT
#include "ui/bookmarks/bookmarkpanel.h"

#include "ui/bookmarks/bookmarkmodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace gaplens::ui {

BookmarkPanel::BookmarkPanel(BookmarkModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_view(new QTableView(this))
{
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setAlternatingRowColors(true);

    auto *add = new QPushButton(QStringLiteral("Add"), this);
    add->setToolTip(
        QStringLiteral("Bookmark the ruler selection, else the selected event, else the current view (Ctrl+B)"));
    auto *remove = new QPushButton(QStringLiteral("Remove"), this);
    auto *prev = new QPushButton(QStringLiteral("◀ Previous"), this);
    auto *next = new QPushButton(QStringLiteral("Next ▶"), this);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch(1);
    buttons->addWidget(prev);
    buttons->addWidget(next);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(buttons);
    layout->addWidget(m_view, 1);

    connect(add, &QPushButton::clicked, this, &BookmarkPanel::addRequested);
    connect(remove, &QPushButton::clicked, this, [this] { m_model->remove(currentRow()); });
    connect(prev, &QPushButton::clicked, this, &BookmarkPanel::jumpPrevious);
    connect(next, &QPushButton::clicked, this, &BookmarkPanel::jumpNext);
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex &index) {
        if (index.column() != BookmarkModel::NameColumn && index.column() != BookmarkModel::NoteColumn)
            emit jumpRequested(index.row());
    });
    connect(
        m_view, &QTableView::activated, this, [this](const QModelIndex &index) { emit jumpRequested(index.row()); });
}

int BookmarkPanel::currentRow() const
{
    const auto rows = m_view->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.front().row();
}

void BookmarkPanel::jumpTo(int row)
{
    if (row < 0 || row >= m_model->size())
        return;
    m_view->selectRow(row);
    emit jumpRequested(row);
}

void BookmarkPanel::jumpNext()
{
    if (m_model->size() == 0)
        return;
    jumpTo((currentRow() + 1) % m_model->size());
}

void BookmarkPanel::jumpPrevious()
{
    if (m_model->size() == 0)
        return;
    const int row = currentRow();
    jumpTo(row <= 0 ? m_model->size() - 1 : row - 1);
}

} // namespace gaplens::ui
