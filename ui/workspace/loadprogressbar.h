// SPDX-License-Identifier: MIT
#pragma once

class QMainWindow;
class QProgressBar;

namespace gaplens::ui {

// The loading progress of both windows: a hidden bar of 0…1000 (per mille), at most 220 px
// wide, added to the window's status bar as a permanent widget (after those added before).
QProgressBar *addLoadProgressBar(QMainWindow &window);

} // namespace gaplens::ui
