// SPDX-License-Identifier: MIT
#pragma once
#include <QString>

class QMainWindow;

namespace gaplens::ui {

// Help > Keyboard Shortcuts (F1 or ?) and About gaplens, for both windows.
void addHelpMenu(QMainWindow &window);
// The keyboard shortcuts of `window`'s menus, read from its actions so the list cannot drift
// from what the keys do, then the timeline's mouse gestures: an HTML table.
QString shortcutsHtml(const QMainWindow &window);

} // namespace gaplens::ui
