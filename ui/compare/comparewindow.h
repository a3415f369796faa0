// SPDX-License-Identifier: MIT
#pragma once
#include "ui/session/session.h"
#include "ui/timeline/timelinedata.h"

#include <QMainWindow>

#include <memory>

class QComboBox;
class QDockWidget;
class QLabel;
class QProgressBar;

namespace gaplens::ui {

class BookmarkModel;
class BookmarkPanel;
class ComparePanel;
class CompareView;
class LoadController;

// The before/after window: CompareView (two synchronised timelines) in the centre, the compare
// panel and bookmarks as docks; opening captures, sessions, picture and report export, themes.
// Opened by File > Compare with… in the main window and by `gaplens --before A… --after B…`.
class CompareWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit CompareWindow(QWidget *parent = nullptr);
    ~CompareWindow() override;

    // Loads both captures on worker threads (either list may be empty: that side keeps its data).
    void openCaptures(const QStringList &before, const QStringList &after, const std::vector<core::RankOverride> &overrides = {});
    // Shows already loaded captures (e.g. the main window's) at once.
    void setCaptures(std::shared_ptr<const TimelineData> before, std::shared_ptr<const TimelineData> after,
                     const QStringList &beforePaths = {}, const QStringList &afterPaths = {});

    CompareView *compareView() const { return m_view; }
    ComparePanel *comparePanel() const { return m_panel; }
    BookmarkModel *bookmarks() const { return m_bookmarks; }
    BookmarkPanel *bookmarkPanel() const { return m_bookmarkPanel; }
    bool isLoading() const;

    // Sessions. openSession reports missing files (sessionProblems) and loads the rest;
    // sessionApplied follows once the captures are loaded and the view restored.
    Session captureSession() const;
    bool saveSession(const QString &path, QString *error = nullptr) const;
    bool openSession(const QString &path, const SessionFile::Resolver &resolver, QString *error = nullptr);
    void applySession(const Session &session); // to the loaded captures

    // Bookmarks the ruler selection of the before timeline, else its selected event, else the
    // current view; returns the new row.
    int addBookmark(const QString &name = {}, const QString &note = {});
    void jumpToBookmark(int row);

    bool exportTimelines(const QString &path, QSize size, QString *error = nullptr) const;
    bool exportReport(const QString &path, QString *error = nullptr) const;

signals:
    void capturesLoaded();
    void sessionApplied();
    void sessionProblems(const QStringList &messages);

protected:
    void showEvent(QShowEvent *) override;

private:
    void createActions();
    void onLoaded();
    void applyThreshold();
    void updateTitle();

    CompareView *m_view;
    ComparePanel *m_panel;
    BookmarkModel *m_bookmarks;
    BookmarkPanel *m_bookmarkPanel;
    QDockWidget *m_panelDock;
    QDockWidget *m_bookmarkDock;
    LoadController *m_beforeLoader;
    LoadController *m_afterLoader;
    std::shared_ptr<const TimelineData> m_beforeData, m_afterData;
    QStringList m_beforePaths, m_afterPaths;
    std::vector<core::RankOverride> m_overrides;
    int m_pendingLoads = 0;
    bool m_shownOnce = false;
    std::optional<Session> m_pendingSession;
    QComboBox *m_threshold = nullptr;
    QComboBox *m_theme = nullptr;
    QLabel *m_status = nullptr;
    QProgressBar *m_progress = nullptr;
};

} // namespace gaplens::ui
