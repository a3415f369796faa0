// SPDX-License-Identifier: MIT
#pragma once
#include "ui/session/session.h"

namespace gaplens::ui {

class CompareWindow;
class MainWindow;
class Workspace;

// Which window shows what: a single-capture session opens in a MainWindow, a before/after one
// in a CompareWindow; the main window and the compare window it opened are a pair.
namespace WindowRouter {

// Reads the session (asking `resolver` about moved files once) and opens it in the window it
// describes: `from` itself when it is of that kind, else its partner, else a new window
// (deleted on close) paired with `from`. `from` may be null (the command line). The window is
// shown; sessionApplied on its workspace follows once the session is restored. Returns that
// workspace, or null with *error set (and no new window).
Workspace *openSession(
    const QString &path, const SessionFile::Resolver &resolver, Workspace *from, QString *error = nullptr);

// The compare window paired with `main`, or a new one (deleted on close), paired with it.
CompareWindow *compareWindowFor(MainWindow &main);
// The main window paired with `compare`, or a new one (deleted on close), paired with it.
MainWindow *mainWindowFor(CompareWindow &compare);

} // namespace WindowRouter

} // namespace gaplens::ui
