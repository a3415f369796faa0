// SPDX-License-Identifier: MIT
#pragma once
#include "ui/bookmarks/bookmark.h"

#include <QAbstractTableModel>

#include <vector>

namespace gaplens::ui {

// Bookmarks in the order they were added: name and note are editable in place; start and
// duration are shown relative to the capture's start (setOrigins).
class BookmarkModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, StartColumn, DurationColumn, CaptureColumn, NoteColumn, ColumnCount };

    explicit BookmarkModel(QObject *parent = nullptr);

    // Returns the new row.
    int add(const Bookmark &bookmark);
    void remove(int row);
    void clear();
    void setBookmarks(std::vector<Bookmark> bookmarks);
    const std::vector<Bookmark> &bookmarks() const { return m_bookmarks; }
    const Bookmark &at(int row) const { return m_bookmarks[std::size_t(row)]; }
    int size() const { return int(m_bookmarks.size()); }
    // Capture start per capture (0 = before, 1 = after) for the Start column.
    void setOrigins(core::TimeNs before, core::TimeNs after);
    void setCaptureNames(const QString &before, const QString &after);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

signals:
    void bookmarksChanged();

private:
    std::vector<Bookmark> m_bookmarks;
    core::TimeNs m_origins[2] = { 0, 0 };
    QString m_captureNames[2] = { QStringLiteral("before"), QStringLiteral("after") };
};

} // namespace gaplens::ui
