// SPDX-License-Identifier: MIT
#pragma once
#include "ui/session/session.h"
#include "ui/timeline/timelinedata.h"
#include "ui/workspace/workspacewindow.h"

#include <QMainWindow>

#include <memory>

class QComboBox;
class QDockWidget;
class QLabel;
class QProgressBar;

namespace gaplens::ui {

class KernelHistogramDialog;

class ComparePanel;
class CompareView;
class LoadController;

// The before/after window: CompareView (two synchronised timelines) in the centre, the compare
// panel and bookmarks as docks; opening captures and picture export. Sessions, bookmarks (from
// the before timeline), the report and themes are the Workspace's, shared with the main window:
// workspace() emits Workspace::sessionApplied once a session's captures are loaded and the view
// restored. Opened by File > Compare with… in the main window, by `gaplens --before A… --after
// B…` and by before/after sessions.
class CompareWindow : public QMainWindow, public WorkspaceWindow
{
    Q_OBJECT
public:
    // The duration histogram of kernel `name` in both captures over one axis (the compare
    // panel's kernel row menu); null until both captures are loaded.
    KernelHistogramDialog *showKernelHistogram(const QString &name);
    explicit CompareWindow(QWidget *parent = nullptr);
    ~CompareWindow() override;

    // Loads both captures on worker threads (either list may be empty: that side keeps its data).
    void openCaptures(
        const QStringList &before, const QStringList &after, const std::vector<core::RankOverride> &overrides = {});
    // Shows already loaded captures (e.g. the main window's) at once.
    void setCaptures(std::shared_ptr<const TimelineData> before, std::shared_ptr<const TimelineData> after,
        const QStringList &beforePaths = {}, const QStringList &afterPaths = {});

    // Shows the window at the geometry it was last closed with, or maximised the first time;
    // an open window is only raised.
    void showRestored();
    CompareView *compareView() const { return m_view; }
    ComparePanel *comparePanel() const { return m_panel; }
    bool isLoading() const;

    // Before above after, each with its title band and legend.
    bool exportTimelines(const QString &path, QSize size, QString *error = nullptr) const;

signals:
    void capturesLoaded();

protected:
    void showEvent(QShowEvent *) override;
    void closeEvent(QCloseEvent *) override;

private:
    void createActions();
    void onLoaded();
    void updateTitle();

    // WorkspaceWindow
    TimelineView *timeline(int capture) const override;
    void captureOwnSession(Session &session) const override;
    bool loadSessionCaptures(const Session &session) override;
    void applyOwnSession(const Session &session) override;
    void applyGapThreshold(core::TimeNs ns) override;
    std::optional<ReportBuilder::Request> reportRequest() const override;
    bool isBusy() const override;

    CompareView *m_view;
    ComparePanel *m_panel;
    QDockWidget *m_panelDock;
    LoadController *m_beforeLoader;
    LoadController *m_afterLoader;
    std::shared_ptr<const TimelineData> m_beforeData, m_afterData;
    QStringList m_beforePaths, m_afterPaths;
    std::vector<core::RankOverride> m_overrides;
    int m_pendingLoads = 0;
    bool m_shownOnce = false;
    QComboBox *m_theme = nullptr;
    QLabel *m_status = nullptr;
    QProgressBar *m_progress = nullptr;
};

} // namespace gaplens::ui
