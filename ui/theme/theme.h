// SPDX-License-Identifier: MIT
#pragma once
#include <QColor>
#include <QObject>
#include <QPalette>

namespace gaplens::ui {

// The colours, font sizes and line widths the timeline painter, ruler, labels and legend
// read on every repaint. One process-wide current theme: switching it repaints everything.
// Light is the default (the look the screenshot tests expect); Dark and the two presentation
// variants (larger fonts, thicker lines, high-contrast colours) are for review meetings.
struct Theme
{
    enum class Kind { Light, Dark, PresentationLight, PresentationDark };

    Kind kind = Kind::Light;
    QColor rowBackground { 250, 250, 250 };
    QColor rowBackgroundAlt { 242, 244, 247 };
    QColor headerBackground { 222, 226, 232 };
    QColor emptyBackground { 255, 255, 255 };
    QColor rulerBackground { 236, 238, 242 };
    QColor rulerText { 60, 60, 60 };
    QColor rulerMinorTick { 170, 170, 170 };
    QColor separator { 150, 150, 150 };
    QColor labelBackground { 246, 247, 249 };
    QColor labelText { 30, 30, 30 };
    QColor outline { 0, 0, 0 };
    QColor findOutline { 255, 200, 0 };
    QColor gapHighlight { 200, 0, 160 };
    // GPU utilisation bars (share of each pixel column busy) and folds of many events: neutral,
    // so neither is read as a kernel, a range or a gap cause.
    QColor utilisationFill { 84, 98, 122 };
    QColor foldFill { 178, 182, 190 };
    QColor foldEdge { 120, 124, 134 }; // a fold's top and bottom edges
    QColor warningText { 150, 40, 20 }; // findings that point at a problem
    double trackFontPt = 7.5;
    double rulerFontPt = 8;
    double labelFontPt = 8;
    double legendFontPt = 7.5;
    int selectionPenWidth = 2;
    int findPenWidth = 2;
    int gapStripPx = 4;
    // Gap bands: alpha of the fill behind kernels (high contrast = opaque).
    int gapAlpha = 150;

    bool isDark() const { return kind == Kind::Dark || kind == Kind::PresentationDark; }
    bool isPresentation() const { return kind == Kind::PresentationLight || kind == Kind::PresentationDark; }

    static Theme make(Kind kind);
    // The application palette matching the theme (Fusion-style dark palette for dark themes).
    QPalette palette() const;
    static QString name(Kind kind); // "light", "dark", "presentation-light", "presentation-dark"
    static Kind fromName(const QString &name); // unknown -> Light

    static const Theme &current();
    // Replaces the current theme and notifies ThemeNotifier::instance() (GUI thread only).
    static void setCurrent(Kind kind);
    // setCurrent + the application palette + a repaint of every widget.
    static void apply(Kind kind);
};

// Emits themeChanged() after Theme::setCurrent, so widgets painting with the theme repaint.
class ThemeNotifier : public QObject
{
    Q_OBJECT
public:
    static ThemeNotifier *instance();

signals:
    void themeChanged();
};

} // namespace gaplens::ui
