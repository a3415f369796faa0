// SPDX-License-Identifier: MIT
#pragma once
#include <QString>

class QMainWindow;

namespace gaplens::ui {

// Shows `window` at the geometry saved under `key` (saveWindowGeometry), or maximised over the
// primary screen the first time, so the timeline gets most of the screen.
void showAtSavedGeometry(QMainWindow &window, const QString &key);
void saveWindowGeometry(const QMainWindow &window, const QString &key);

} // namespace gaplens::ui
