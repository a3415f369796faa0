// SPDX-License-Identifier: MIT
#pragma once
#include "ui/session/session.h"

#include <QObject>
#include <QPointer>

#include <optional>

class QDockWidget;
class QMainWindow;

namespace gaplens::ui {

class BookmarkModel;
class BookmarkPanel;
class GapThresholdBox;
class WorkspaceWindow;

// What the single-capture and the before/after window share, owned by the window: bookmarks
// (model, panel and dock), the gap threshold chooser, the session in flight and the window it
// is paired with. The window places the dock and the chooser (its layout) and implements
// WorkspaceWindow's hooks; ReviewActions puts the shared menu entries on it. No dialogs here.
class Workspace : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        int stateVersion = 1; // QMainWindow::saveState version of the window's docks
        QString bookmarkDockName; // objectName of the bookmark dock, for saved layouts
    };
    Workspace(QMainWindow &window, WorkspaceWindow &hooks, const Options &options);
    ~Workspace() override;

    QMainWindow *window() const { return &m_window; }
    BookmarkModel *bookmarks() const { return m_bookmarks; }
    BookmarkPanel *bookmarkPanel() const { return m_bookmarkPanel; }
    QDockWidget *bookmarkDock() const { return m_bookmarkDock; }
    GapThresholdBox *thresholdBox() const { return m_threshold; }
    bool isBusy() const;

    // The other window of a review: the compare window a main window opened, or the main
    // window a compare window was opened from (null once it is closed).
    Workspace *partner() const { return m_partner; }
    static void pair(Workspace &a, Workspace &b);

    // Bookmarks what capture 0's timeline points at (see BookmarkView::at) and shows the dock;
    // returns the new row, or -1 without a capture.
    int addBookmark(const QString &name = {}, const QString &note = {});
    void jumpToBookmark(int row);

    Session captureSession() const;
    bool saveSession(const QString &path, QString *error = nullptr) const;
    // Reads the session and loads it into this window (missing files are reported with
    // sessionProblems, the rest loads); sessionApplied follows once it is restored. False
    // (and *error) when the file cannot be read or none of its captures can be found.
    bool openSession(const QString &path, const SessionFile::Resolver &resolver, QString *error = nullptr);
    bool openSession(const SessionFile::ReadResult &read, QString *error = nullptr);
    // To the loaded captures: theme, threshold, the window's own state, bookmarks, docks.
    void applySession(const Session &session);
    // The window's captures are loaded (every load, not only a session's): bookmark origins,
    // then the session waiting for them, if any.
    void capturesLoaded();

    // The window has a capture to report on.
    bool canExportReport() const;
    // Builds and writes the window's report (HTML or PDF by the suffix) with a wait cursor.
    bool exportReport(const QString &path, QString *error = nullptr) const;

signals:
    void sessionApplied();
    void sessionProblems(const QStringList &messages);
    void statusMessage(const QString &text);

private:
    core::TimeNs captureOrigin(int capture) const;

    QMainWindow &m_window;
    WorkspaceWindow &m_hooks;
    Options m_options;
    BookmarkModel *m_bookmarks;
    BookmarkPanel *m_bookmarkPanel;
    QDockWidget *m_bookmarkDock;
    GapThresholdBox *m_threshold;
    QPointer<Workspace> m_partner;
    std::optional<Session> m_pendingSession;
};

} // namespace gaplens::ui
