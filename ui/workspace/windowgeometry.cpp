// SPDX-License-Identifier: MIT
#include "ui/workspace/windowgeometry.h"

#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>

namespace gaplens::ui {

void showAtSavedGeometry(QMainWindow &window, const QString &key)
{
    QSettings settings;
    if (settings.contains(key) && window.restoreGeometry(settings.value(key).toByteArray())) {
        window.show();
        return;
    }
    // The screen's size as well, for window managers (or none) that ignore "maximised".
    if (const QScreen *screen = QGuiApplication::primaryScreen())
        window.setGeometry(screen->availableGeometry());
    window.showMaximized();
}

void saveWindowGeometry(const QMainWindow &window, const QString &key)
{
    QSettings().setValue(key, window.saveGeometry());
}

} // namespace gaplens::ui
