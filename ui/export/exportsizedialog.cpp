// SPDX-License-Identifier: MIT
#include "ui/export/exportsizedialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSpinBox>

namespace gaplens::ui {

ExportSizeDialog::ExportSizeDialog(QSize initial, QWidget *parent, bool offerGrowHeight)
    : QDialog(parent)
    , m_width(new QSpinBox(this))
    , m_height(new QSpinBox(this))
{
    setWindowTitle(QStringLiteral("Picture size"));
    auto *presets = new QComboBox(this);
    const QList<QSize> sizes = { { 1920, 1080 }, { 1280, 720 }, { 3840, 2160 }, { 1600, 900 }, { 1200, 800 } };
    for (const QSize &s : sizes)
        presets->addItem(QStringLiteral("%1 × %2").arg(s.width()).arg(s.height()), s);
    for (auto *spin : { m_width, m_height }) {
        spin->setRange(100, 20000);
        spin->setSuffix(QStringLiteral(" px"));
    }
    m_width->setValue(initial.width());
    m_height->setValue(initial.height());
    connect(presets, &QComboBox::activated, this, [this, presets](int i) {
        const QSize s = presets->itemData(i).toSize();
        m_width->setValue(s.width());
        m_height->setValue(s.height());
    });
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *form = new QFormLayout(this);
    form->addRow(QStringLiteral("Preset:"), presets);
    form->addRow(QStringLiteral("Width:"), m_width);
    form->addRow(QStringLiteral("Height:"), m_height);
    if (offerGrowHeight) {
        m_growHeight = new QCheckBox(QStringLiteral("Grow the height to hold every row"), this);
        m_growHeight->setObjectName(QStringLiteral("growHeightCheck"));
        form->addRow(m_growHeight);
    }
    form->addRow(buttons);
}

bool ExportSizeDialog::growHeight() const
{
    return m_growHeight && m_growHeight->isChecked();
}

QSize ExportSizeDialog::size() const
{
    return { m_width->value(), m_height->value() };
}

} // namespace gaplens::ui
