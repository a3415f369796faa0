// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/time.h"
#include "ui/report/reportbuilder.h"
#include "ui/session/session.h"

#include <optional>

namespace gaplens::ui {

class BookmarkModel;
class BookmarkPanel;
class TimelineView;
class Workspace;

// A window with a Workspace (MainWindow, CompareWindow): what both offer through it (sessions,
// bookmarks), and the hooks the workspace calls for what only the window knows: its timelines
// and its part of a session. The window overrides the hooks and makes its Workspace.
class WorkspaceWindow
{
public:
    Workspace *workspace() const { return m_workspace; }
    BookmarkModel *bookmarks() const;
    BookmarkPanel *bookmarkPanel() const;
    // Bookmarks the ruler selection, else the selected event, else the view of capture 0's
    // timeline; returns the new row (-1 without a capture).
    int addBookmark(const QString &name = {}, const QString &note = {});
    void jumpToBookmark(int row);
    // What is on screen as a session, and the session files (see Workspace).
    Session captureSession() const;
    bool saveSession(const QString &path, QString *error = nullptr) const;
    // Loads the session into this window, whatever it describes (File > Open Session… and
    // --session pick the window: WindowRouter::openSession).
    bool openSession(const QString &path, const SessionFile::Resolver &resolver, QString *error = nullptr);
    void applySession(const Session &session); // to the loaded captures

protected:
    WorkspaceWindow() = default;
    ~WorkspaceWindow() = default;

private:
    friend class Workspace;
    // Capture 0 is the capture (or before), 1 the after capture; nullptr when the window has
    // no such timeline.
    virtual TimelineView *timeline(int capture) const = 0;
    // Fills the paths, rank overrides, alignment, views, find text and highlight.
    virtual void captureOwnSession(Session &session) const = 0;
    // Starts loading the session's captures and calls Workspace::capturesLoaded() once they are
    // in (possibly before returning). False when there is nothing to load.
    virtual bool loadSessionCaptures(const Session &session) = 0;
    // The captures are loaded and theme and threshold applied: restores the rest of the view.
    virtual void applyOwnSession(const Session &session) = 0;
    // The threshold chooser changed, or a session set `ns` exactly.
    virtual void applyGapThreshold(core::TimeNs ns) = 0;
    // What File > Export Report… writes; nothing while no capture is loaded.
    virtual std::optional<ReportBuilder::Request> reportRequest() const = 0;
    // Loading, finding gaps or comparing: what is on screen is not complete yet.
    virtual bool isBusy() const = 0;

    Workspace *m_workspace = nullptr; // set by the Workspace's constructor
};

} // namespace gaplens::ui
