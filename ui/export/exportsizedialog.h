// SPDX-License-Identifier: MIT
#pragma once
#include <QDialog>
#include <QSize>

class QCheckBox;
class QSpinBox;

namespace gaplens::ui {

// Asks for a picture size: width and height, with slide presets (1920x1080, 1280x720, 4K).
// For a timeline it also offers to grow the height so that every row fits
// (checkbox "growHeightCheck", off by default: the picture keeps its size and folds rows).
class ExportSizeDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ExportSizeDialog(QSize initial, QWidget *parent = nullptr, bool offerGrowHeight = false);
    QSize size() const;
    bool growHeight() const;

private:
    QSpinBox *m_width;
    QSpinBox *m_height;
    QCheckBox *m_growHeight = nullptr;
};

} // namespace gaplens::ui
