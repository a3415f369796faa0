// SPDX-License-Identifier: MIT
#include "ui/workspace/windowrouter.h"

#include "ui/compare/comparewindow.h"
#include "ui/mainwindow.h"
#include "ui/workspace/workspace.h"

namespace gaplens::ui {

namespace WindowRouter {

namespace {
template <typename Window> Window *pairedWith(Workspace &workspace)
{
    if (Workspace *partner = workspace.partner())
        if (auto *window = qobject_cast<Window *>(partner->window()))
            return window;
    return nullptr;
}

template <typename Window> Window *newWindowPairedWith(Workspace *workspace)
{
    auto *window = new Window;
    window->setAttribute(Qt::WA_DeleteOnClose);
    if (workspace)
        Workspace::pair(*workspace, *window->workspace());
    return window;
}

// `from` when it is a Window, else its partner, else a new one (*made).
template <typename Window> Window *windowFor(Workspace *from, bool *made)
{
    *made = false;
    if (from) {
        if (auto *window = qobject_cast<Window *>(from->window()))
            return window;
        if (auto *window = pairedWith<Window>(*from))
            return window;
    }
    *made = true;
    return newWindowPairedWith<Window>(from);
}

template <typename Window> Workspace *openIn(const SessionFile::ReadResult &read, Workspace *from, QString *error)
{
    bool made = false;
    Window *window = windowFor<Window>(from, &made);
    // A session that cannot load fails before anything is shown (no window flashes up).
    if (!window->workspace()->openSession(read, error)) {
        if (made)
            delete window;
        return nullptr;
    }
    window->show();
    window->raise();
    return window->workspace();
}
} // namespace

Workspace *openSession(const QString &path, const SessionFile::Resolver &resolver, Workspace *from, QString *error)
{
    const SessionFile::ReadResult read = SessionFile::read(path, resolver);
    if (!read.ok) {
        if (error)
            *error = read.error;
        return nullptr;
    }
    return read.session.beforeAfter ? openIn<CompareWindow>(read, from, error) : openIn<MainWindow>(read, from, error);
}

CompareWindow *compareWindowFor(MainWindow &main)
{
    if (auto *compare = pairedWith<CompareWindow>(*main.workspace()))
        return compare;
    return newWindowPairedWith<CompareWindow>(main.workspace());
}

MainWindow *mainWindowFor(CompareWindow &compare)
{
    if (auto *main = pairedWith<MainWindow>(*compare.workspace()))
        return main;
    return newWindowPairedWith<MainWindow>(compare.workspace());
}

} // namespace WindowRouter

} // namespace gaplens::ui
