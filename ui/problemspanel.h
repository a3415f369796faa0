// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/trace.h"

#include <QTreeWidget>

namespace gaplens::ui {

// Files that could not be loaded and per-file data problems (counted, never fatal), with the
// file name of each; non-modal, so the good files stay on screen.
class ProblemsPanel : public QTreeWidget
{
    Q_OBJECT
public:
    explicit ProblemsPanel(QWidget *parent = nullptr);
    // Returns the number of entries (errors + files with problems + warnings).
    int showProblems(const core::TraceSet &trace);
    int problemCount() const { return m_count; }

private:
    int m_count = 0;
};

} // namespace gaplens::ui
