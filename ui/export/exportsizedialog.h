// SPDX-License-Identifier: MIT
#pragma once
#include <QDialog>
#include <QSize>

#include <optional>

class QSpinBox;

namespace gaplens::ui {

// Asks for a picture size: width and height, with slide presets (1920x1080, 1280x720, 4K).
class ExportSizeDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ExportSizeDialog(QSize initial, QWidget *parent = nullptr);
    QSize size() const;
    static std::optional<QSize> getSize(QWidget *parent, QSize initial = { 1920, 1080 });

private:
    QSpinBox *m_width;
    QSpinBox *m_height;
};

} // namespace gaplens::ui
