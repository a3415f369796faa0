// SPDX-License-Identifier: MIT
#pragma once
// Who the app is to Qt and to the desktop: one place for the names, version, icon and
// desktop-file id that main(), the settings and the window manager read.
#include <QString>

namespace gaplens::ui {

// Organisation, application name and version; enough for QCoreApplication (--help, --version).
void setApplicationNames();
// The window icon every window inherits (resources/icons/gaplens.svg) and the desktop-file
// id the window manager matches windows to the menu entry with. Needs a QGuiApplication.
void setDesktopIdentity();
// "io.github.gaplens.gaplens": the .desktop, metainfo and icon name.
QString applicationId();

} // namespace gaplens::ui
