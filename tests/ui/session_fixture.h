// SPDX-License-Identifier: MIT
#pragma once
// Saving a window's session and opening it again in the ui tests.
#include "ui/workspace/workspace.h"

#include <QSignalSpy>
#include <QString>
#include <QTest>

namespace fixture {

// Saves `window`'s session (a MainWindow's or CompareWindow's) to `path`; fails the calling
// test with the window's error if it cannot.
template <class Window> void saveSession(Window &window, const QString &path)
{
    QString error;
    QVERIFY2(window.saveSession(path, &error), qPrintable(error));
}

// Opens the session at `path` in `window` and waits until its captures are loaded and it is
// applied; fails the calling test if either does not happen.
template <class Window> void openSessionAndWait(Window &window, const QString &path)
{
    QSignalSpy applied(window.workspace(), &gaplens::ui::Workspace::sessionApplied);
    QString error;
    QVERIFY2(window.openSession(path, {}, &error), qPrintable(error));
    QVERIFY(applied.wait(30000));
}

} // namespace fixture
