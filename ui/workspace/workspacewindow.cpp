// SPDX-License-Identifier: MIT
#include "ui/workspace/workspacewindow.h"

#include "ui/workspace/workspace.h"

namespace gaplens::ui {

BookmarkModel *WorkspaceWindow::bookmarks() const
{
    return m_workspace->bookmarks();
}

BookmarkPanel *WorkspaceWindow::bookmarkPanel() const
{
    return m_workspace->bookmarkPanel();
}

int WorkspaceWindow::addBookmark(const QString &name, const QString &note)
{
    return m_workspace->addBookmark(name, note);
}

void WorkspaceWindow::jumpToBookmark(int row)
{
    m_workspace->jumpToBookmark(row);
}

Session WorkspaceWindow::captureSession() const
{
    return m_workspace->captureSession();
}

bool WorkspaceWindow::saveSession(const QString &path, QString *error) const
{
    return m_workspace->saveSession(path, error);
}

bool WorkspaceWindow::openSession(const QString &path, const SessionFile::Resolver &resolver, QString *error)
{
    return m_workspace->openSession(path, resolver, error);
}

void WorkspaceWindow::applySession(const Session &session)
{
    m_workspace->applySession(session);
}

} // namespace gaplens::ui
