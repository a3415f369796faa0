// SPDX-License-Identifier: MIT
#include "ui/workspace/loadprogressbar.h"

#include <QMainWindow>
#include <QProgressBar>
#include <QStatusBar>

namespace gaplens::ui {

QProgressBar *addLoadProgressBar(QMainWindow &window)
{
    auto *progress = new QProgressBar(&window);
    progress->setRange(0, 1000);
    progress->setMaximumWidth(220);
    progress->hide();
    window.statusBar()->addPermanentWidget(progress);
    return progress;
}

} // namespace gaplens::ui
