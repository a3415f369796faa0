// SPDX-License-Identifier: MIT
#include "ui/theme/theme.h"

#include <QApplication>
#include <QWidget>

namespace gaplens::ui {

namespace {
Theme &currentTheme()
{
    static Theme theme = Theme::make(Theme::Kind::Light);
    return theme;
}
} // namespace

Theme Theme::make(Kind kind)
{
    Theme t;
    t.kind = kind;
    if (t.isDark()) {
        t.rowBackground = QColor(36, 38, 42);
        t.rowBackgroundAlt = QColor(44, 47, 52);
        t.headerBackground = QColor(62, 66, 74);
        t.emptyBackground = QColor(28, 30, 33);
        t.rulerBackground = QColor(52, 55, 61);
        t.rulerText = QColor(225, 225, 225);
        t.rulerMinorTick = QColor(130, 130, 130);
        t.separator = QColor(100, 100, 100);
        t.labelBackground = QColor(40, 42, 46);
        t.labelText = QColor(230, 230, 230);
        t.outline = QColor(255, 255, 255);
        t.findOutline = QColor(255, 215, 0);
        t.gapHighlight = QColor(255, 80, 220);
        t.utilisationFill = QColor(150, 166, 192);
        t.foldFill = QColor(92, 96, 106);
        t.foldEdge = QColor(140, 145, 156);
        t.warningText = QColor(255, 150, 120);
    }
    if (t.isPresentation()) {
        // Legible from the back of a meeting room: ~1.4x text, thicker outlines, and solid
        // (not translucent) gap colours so they survive a washed-out projector.
        t.trackFontPt = 9; // 10 pt clips underscores in the 16 px NVTX rows
        t.rulerFontPt = 11;
        t.labelFontPt = 10; // NVTX and API rows are 16 px high
        t.legendFontPt = 8.5; // the gap legend shares the 270 px label column
        t.selectionPenWidth = 3;
        t.findPenWidth = 3;
        t.gapStripPx = 6;
        t.gapAlpha = 255;
        if (!t.isDark()) {
            t.rowBackground = QColor(255, 255, 255);
            t.rowBackgroundAlt = QColor(238, 238, 238);
            t.headerBackground = QColor(200, 205, 214);
            t.rulerBackground = QColor(225, 228, 234);
            t.rulerText = QColor(0, 0, 0);
            t.labelText = QColor(0, 0, 0);
            t.separator = QColor(90, 90, 90);
        } else {
            t.rowBackground = QColor(0, 0, 0);
            t.rowBackgroundAlt = QColor(24, 24, 24);
            t.rulerText = QColor(255, 255, 255);
            t.labelText = QColor(255, 255, 255);
        }
    }
    return t;
}

QPalette Theme::palette() const
{
    if (!isDark())
        return QPalette(QColor(239, 239, 239));
    QPalette p;
    p.setColor(QPalette::Window, QColor(45, 48, 53));
    p.setColor(QPalette::WindowText, labelText);
    p.setColor(QPalette::Base, QColor(32, 34, 38));
    p.setColor(QPalette::AlternateBase, QColor(44, 47, 52));
    p.setColor(QPalette::Text, labelText);
    p.setColor(QPalette::Button, QColor(55, 58, 64));
    p.setColor(QPalette::ButtonText, labelText);
    p.setColor(QPalette::ToolTipBase, QColor(60, 63, 70));
    p.setColor(QPalette::ToolTipText, labelText);
    p.setColor(QPalette::Highlight, QColor(60, 120, 220));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
    return p;
}

QString Theme::name(Kind kind)
{
    switch (kind) {
    case Kind::Light: return QStringLiteral("light");
    case Kind::Dark: return QStringLiteral("dark");
    case Kind::PresentationLight: return QStringLiteral("presentation-light");
    case Kind::PresentationDark: return QStringLiteral("presentation-dark");
    }
    return QStringLiteral("light");
}

Theme::Kind Theme::fromName(const QString &name)
{
    for (auto k : { Kind::Light, Kind::Dark, Kind::PresentationLight, Kind::PresentationDark })
        if (Theme::name(k) == name)
            return k;
    return Kind::Light;
}

const Theme &Theme::current()
{
    return currentTheme();
}

void Theme::setCurrent(Kind kind)
{
    currentTheme() = make(kind);
    emit ThemeNotifier::instance()->themeChanged();
}

void Theme::apply(Kind kind)
{
    setCurrent(kind);
    QApplication::setPalette(current().palette());
    for (QWidget *w : QApplication::allWidgets())
        w->update();
}

ThemeNotifier *ThemeNotifier::instance()
{
    static ThemeNotifier notifier;
    return &notifier;
}

} // namespace gaplens::ui
