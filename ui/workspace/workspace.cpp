// SPDX-License-Identifier: MIT
#include "ui/workspace/workspace.h"

#include "ui/bookmarks/bookmarkmodel.h"
#include "ui/bookmarks/bookmarkpanel.h"
#include "ui/bookmarks/bookmarkview.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/workspace/gapthresholdbox.h"
#include "ui/workspace/workspacewindow.h"

#include <QDockWidget>
#include <QGuiApplication>
#include <QMainWindow>

namespace gaplens::ui {

Workspace::Workspace(QMainWindow &window, WorkspaceWindow &hooks, const Options &options)
    : QObject(&window)
    , m_window(window)
    , m_hooks(hooks)
    , m_options(options)
    , m_bookmarks(new BookmarkModel(this))
    , m_bookmarkPanel(new BookmarkPanel(m_bookmarks, &window))
    , m_bookmarkDock(new QDockWidget(QStringLiteral("Bookmarks"), &window))
    , m_threshold(new GapThresholdBox(&window))
{
    hooks.m_workspace = this;
    m_bookmarkDock->setObjectName(options.bookmarkDockName);
    m_bookmarkDock->setWidget(m_bookmarkPanel);
    connect(m_bookmarkPanel, &BookmarkPanel::addRequested, this, [this] { addBookmark(); });
    connect(m_bookmarkPanel, &BookmarkPanel::jumpRequested, this, &Workspace::jumpToBookmark);
    connect(m_threshold, &GapThresholdBox::thresholdChanged, this,
        [this](core::TimeNs ns) { m_hooks.applyGapThreshold(ns); });
}

Workspace::~Workspace() = default;

bool Workspace::isBusy() const
{
    return m_hooks.isBusy();
}

void Workspace::pair(Workspace &a, Workspace &b)
{
    a.m_partner = &b;
    b.m_partner = &a;
}

int Workspace::addBookmark(const QString &name, const QString &note)
{
    const TimelineView *view = m_hooks.timeline(0);
    if (!view || !view->model()->trace())
        return -1;
    Bookmark b = BookmarkView::at(*view, 0);
    b.name = name.isEmpty() ? QStringLiteral("Bookmark %1").arg(m_bookmarks->size() + 1) : name;
    b.note = note;
    m_bookmarkDock->show();
    return m_bookmarks->add(b);
}

void Workspace::jumpToBookmark(int row)
{
    if (row < 0 || row >= m_bookmarks->size())
        return;
    const Bookmark &b = m_bookmarks->at(row);
    TimelineView *view = m_hooks.timeline(b.capture);
    if (!view || !view->model()->trace())
        return;
    BookmarkView::show(*view, b);
    emit statusMessage(b.note.isEmpty() ? b.name : QStringLiteral("%1: %2").arg(b.name, b.note));
}

Session Workspace::captureSession() const
{
    Session s;
    m_hooks.captureOwnSession(s);
    s.bookmarks = m_bookmarks->bookmarks();
    s.theme = Theme::name(Theme::current().kind);
    s.windowState = m_window.saveState(m_options.stateVersion);
    s.windowGeometry = m_window.saveGeometry();
    return s;
}

bool Workspace::saveSession(const QString &path, QString *error) const
{
    return SessionFile::write(captureSession(), path, error);
}

bool Workspace::openSession(const QString &path, const SessionFile::Resolver &resolver, QString *error)
{
    return openSession(SessionFile::read(path, resolver), error);
}

bool Workspace::openSession(const SessionFile::ReadResult &read, QString *error)
{
    if (!read.ok) {
        if (error)
            *error = read.error;
        return false;
    }
    const QStringList problems = read.problems();
    if (!problems.isEmpty()) {
        emit statusMessage(problems.join(QStringLiteral("; ")));
        emit sessionProblems(problems);
    }
    // Pending first: a window with nothing left to load calls capturesLoaded() at once.
    m_pendingSession = read.session;
    if (!m_hooks.loadSessionCaptures(read.session)) {
        m_pendingSession.reset();
        if (error)
            *error = QStringLiteral("none of the session's capture files could be found");
        return false;
    }
    return true;
}

void Workspace::applySession(const Session &s)
{
    Theme::apply(Theme::fromName(s.theme));
    // The exact threshold, not the rounded text the chooser shows.
    m_threshold->setThreshold(s.gapThreshold);
    m_hooks.applyGapThreshold(s.gapThreshold);
    m_hooks.applyOwnSession(s);
    std::vector<Bookmark> marks = s.bookmarks;
    // Read relative to each capture's start; absolute again with the loaded captures.
    for (auto &b : marks) {
        const core::TimeNs origin = captureOrigin(b.capture);
        b.range.start += origin;
        b.range.end += origin;
    }
    m_bookmarks->setBookmarks(std::move(marks));
    if (!s.windowState.isEmpty())
        m_window.restoreState(s.windowState, m_options.stateVersion);
}

void Workspace::capturesLoaded()
{
    m_bookmarks->setOrigins(captureOrigin(0), captureOrigin(1));
    if (!m_pendingSession)
        return;
    const Session session = *m_pendingSession;
    m_pendingSession.reset();
    applySession(session);
    emit sessionApplied();
}

bool Workspace::canExportReport() const
{
    return m_hooks.reportRequest().has_value();
}

bool Workspace::exportReport(const QString &path, QString *error) const
{
    const auto request = m_hooks.reportRequest();
    if (!request) {
        if (error)
            *error = QStringLiteral("no capture is loaded");
        return false;
    }
    ReportBuilder builder(*request);
    QGuiApplication::setOverrideCursor(Qt::WaitCursor);
    builder.build();
    const bool ok = builder.write(path, error);
    QGuiApplication::restoreOverrideCursor();
    return ok;
}

core::TimeNs Workspace::captureOrigin(int capture) const
{
    const TimelineView *view = m_hooks.timeline(capture);
    const auto *trace = view ? view->model()->trace() : nullptr;
    return trace ? trace->span.start : 0;
}

} // namespace gaplens::ui
