// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/view/cover_columns.h"
#include "gaplens/core/view/lod.h"
#include "ui/timeline/hitresult.h"

#include <QColor>
#include <QFont>
#include <QImage>
#include <QRect>

#include <unordered_map>
#include <vector>

class QPainter;

namespace gaplens::ui {

class TimelineModel;
class ZoomControl;

// Paints every vertically visible row of the timeline with one QPainter (no per-event
// objects): per row one draw list over the visible window (TimelineModel::rowDrawList, folds
// found through the row's fold index), so the cost grows with pixels, not events. Hit testing replays the same draw
// list, so what you hover is what is drawn.
class TrackPainter
{
public:
    TrackPainter(const TimelineModel &model, const ZoomControl &zoom);

    struct Overlay
    {
        HitResult selected;
        HitResult linked; // the launching API call of a selected kernel, or the reverse
        HitResult hovered;
        bool hasTimeSelection = false;
        core::TimeRange timeSelection; // display ns
    };

    // Paints rows intersecting [scrollY, scrollY + size.height()) into (0,0)-(size).
    void paint(QPainter &p, QSize size, int scrollY, const Overlay &overlay);
    HitResult hitTest(QPoint pos, int scrollY) const;
    // Where a hit item is drawn (view coordinates), or an empty rect when not shown.
    QRectF itemRect(const HitResult &hit, int scrollY) const;
    // Row where an item is shown (stream lane if expanded, else the GPU's merged lane).
    int rowOf(const HitResult &hit) const;

    std::size_t lastItemCount() const { return m_lastItemCount; }

private:
    struct RowWindow
    {
        core::ViewWindow window; // absolute ns
        core::TimeNs offset = 0; // display = absolute + offset
    };
    RowWindow windowFor(const TimelineRow &row) const;
    double xOf(core::TimeNs absolute, core::TimeNs offset) const;
    // With overCover, only kernels at least kMinVisiblePx wide are drawn (in their colour):
    // narrower ones and folds are the utilisation below them (paintCover).
    void paintKernels(QPainter &p, core::GpuIndex gpu, core::StreamIndex stream, const RowWindow &w, const QRect &lane,
        bool overCover);
    // Per pixel column a bar from the lane's bottom, its height the column's busy share.
    void paintCover(QPainter &p, const core::CoverColumns &cover, const RowWindow &w, const QRect &lane);
    // A fold of an Intervals row: neutral, inset and edged, with its count, so it never reads
    // as one event.
    void paintFold(QPainter &p, const QRect &r, const core::DrawItem &item);
    // strip == false builds the lane's gap draw list (m_gapItems); strip == true reuses it.
    void paintGaps(QPainter &p, core::GpuIndex gpu, const RowWindow &w, const QRect &lane, bool strip);
    void paintIntervals(QPainter &p, const TimelineRow &row, const RowWindow &w, const QRect &lane);
    // An Instants row: a diamond per mark in its colour; marks closer than kMinVisiblePx fold
    // into one neutral diamond (or, when the fold is wide, a neutral band with its count).
    void paintInstants(QPainter &p, const TimelineRow &row, const RowWindow &w, const QRect &lane);
    // A States row: each pixel column in the colour of the state that covers most of it (the
    // spans tile the row, so zoomed out it reads as the mix, never as grey folds); spans wide
    // enough for text carry their state's name.
    void paintStates(QPainter &p, const TimelineRow &row, const RowWindow &w, const QRect &lane);
    // A GPU's memory in use: per pixel column the most in use then (one O(log n) query each),
    // a filled step line, and the peak marked and labelled where it is in view.
    void paintCounter(QPainter &p, const TimelineRow &row, const RowWindow &w, const QRect &lane);
    void paintLabel(QPainter &p, const QRectF &box, const QString &text, const QColor &bg);
    // Finds the drawn item (of a row's draw list) under x (±1 px), or -1.
    int itemAt(const std::vector<core::DrawItem> &items, const RowWindow &w, double x) const;
    // The same for an Instants row, whose items reach kMarkRadiusPx beyond their times.
    int instantAt(const std::vector<core::DrawItem> &items, const RowWindow &w, double x) const;
    // color.darker(factor), remembered.
    QColor darker(const QColor &color, int factor);
    // A mark's diamond, 2 kMarkRadiusPx + 1 wide and 2 ry + 1 tall, remembered per colour pair.
    const QImage &markSprite(const QColor &fill, const QColor &edge, int ry);

    const TimelineModel &m_model;
    const ZoomControl &m_zoom;
    mutable std::vector<core::DrawItem> m_items;
    std::vector<core::DrawItem> m_gapItems;
    std::vector<float> m_cover; // busy share per pixel column of the lane being painted
    QImage m_coverImage; // its bars, drawn as one image
    std::vector<float> m_dominantShare; // States rows: the largest state share per column so far
    std::vector<std::uint8_t> m_dominantState; // and its state
    std::unordered_map<std::uint64_t, QRgb> m_shades; // (rgba << 16 | factor) -> darker shade
    std::unordered_map<std::uint64_t, QImage> m_markSprites; // (fill rgba << 32 | edge rgba) -> diamond
    std::size_t m_lastItemCount = 0;
    QFont m_font;
};

} // namespace gaplens::ui
