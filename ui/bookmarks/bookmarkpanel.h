// SPDX-License-Identifier: MIT
#pragma once
#include <QWidget>

class QTableView;

namespace gaplens::ui {

class BookmarkModel;

// Bookmarks and notes: a table (name and note edited in place), Add (the host supplies the
// time range: ruler selection, selected event or the current view), Remove, and Previous /
// Next which jump between them in order (wrapping).
class BookmarkPanel : public QWidget
{
    Q_OBJECT
public:
    explicit BookmarkPanel(BookmarkModel *model, QWidget *parent = nullptr);

    BookmarkModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    int currentRow() const;
    // Selects `row` and emits jumpRequested(row).
    void jumpTo(int row);
    void jumpNext();
    void jumpPrevious();

signals:
    void addRequested();
    void jumpRequested(int row);

private:
    BookmarkModel *m_model;
    QTableView *m_view;
};

} // namespace gaplens::ui
