// SPDX-License-Identifier: MIT
#include "ui/bookmarks/bookmarkmodel.h"

#include "ui/timeline/timeformat.h"

namespace gaplens::ui {

BookmarkModel::BookmarkModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

int BookmarkModel::add(const Bookmark &bookmark)
{
    const int row = size();
    beginInsertRows({}, row, row);
    m_bookmarks.push_back(bookmark);
    endInsertRows();
    emit bookmarksChanged();
    return row;
}

void BookmarkModel::remove(int row)
{
    if (row < 0 || row >= size())
        return;
    beginRemoveRows({}, row, row);
    m_bookmarks.erase(m_bookmarks.begin() + row);
    endRemoveRows();
    emit bookmarksChanged();
}

void BookmarkModel::clear()
{
    setBookmarks({});
}

void BookmarkModel::setBookmarks(std::vector<Bookmark> bookmarks)
{
    beginResetModel();
    m_bookmarks = std::move(bookmarks);
    endResetModel();
    emit bookmarksChanged();
}

void BookmarkModel::setOrigins(core::TimeNs before, core::TimeNs after)
{
    m_origins[0] = before;
    m_origins[1] = after;
    if (!m_bookmarks.empty())
        emit dataChanged(index(0, StartColumn), index(size() - 1, StartColumn));
}

void BookmarkModel::setCaptureNames(const QString &before, const QString &after)
{
    m_captureNames[0] = before;
    m_captureNames[1] = after;
    if (!m_bookmarks.empty())
        emit dataChanged(index(0, CaptureColumn), index(size() - 1, CaptureColumn));
}

int BookmarkModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : size();
}

int BookmarkModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BookmarkModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Bookmark &b = at(index.row());
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case NameColumn: return b.name;
        case StartColumn: return formatDuration(b.range.start - m_origins[b.capture == 1 ? 1 : 0]);
        case DurationColumn: return formatDuration(b.range.duration());
        case CaptureColumn: return m_captureNames[b.capture == 1 ? 1 : 0];
        case NoteColumn: return b.note;
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole)
        return b.event.isEmpty() ? b.note : QString(b.event + QStringLiteral("\n") + b.note);
    if (role == Qt::TextAlignmentRole && (index.column() == StartColumn || index.column() == DurationColumn))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

bool BookmarkModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    Bookmark &b = m_bookmarks[std::size_t(index.row())];
    if (index.column() == NameColumn)
        b.name = value.toString();
    else if (index.column() == NoteColumn)
        b.note = value.toString();
    else
        return false;
    emit dataChanged(index, index);
    emit bookmarksChanged();
    return true;
}

QVariant BookmarkModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return QStringLiteral("Name");
    case StartColumn: return QStringLiteral("Start");
    case DurationColumn: return QStringLiteral("Duration");
    case CaptureColumn: return QStringLiteral("Capture");
    case NoteColumn: return QStringLiteral("Note");
    default: return {};
    }
}

Qt::ItemFlags BookmarkModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && (index.column() == NameColumn || index.column() == NoteColumn))
        f |= Qt::ItemIsEditable;
    return f;
}

} // namespace gaplens::ui
