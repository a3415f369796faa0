// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/lod.h"
#include "ui/timeline/hitresult.h"

#include <QFont>
#include <QRect>

#include <vector>

class QPainter;

namespace gaplens::ui {

class TimelineModel;
class ZoomControl;

// Paints every vertically visible row of the timeline with one QPainter (no per-event
// objects): per row one core::buildDrawList over the visible window, so the cost grows with
// pixels, not events. Hit testing replays the same draw list, so what you hover is what is drawn.
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
    void paintKernels(QPainter &p, std::uint32_t gpu, std::uint32_t stream, const RowWindow &w, const QRect &lane);
    void paintGaps(QPainter &p, std::uint32_t gpu, const RowWindow &w, const QRect &lane, bool strip);
    void paintIntervals(QPainter &p, const TimelineRow &row, const RowWindow &w, const QRect &lane);
    void paintLabel(QPainter &p, const QRectF &box, const QString &text, const QColor &bg);
    // Finds the drawn item of a row view under x (±1 px), or -1.
    int itemAt(const core::RowView &view, const RowWindow &w, double x, std::vector<core::DrawItem> &items) const;
    QColor kernelFoldColor(const core::KernelColumns &k, const core::DrawItem &item) const;

    const TimelineModel &m_model;
    const ZoomControl &m_zoom;
    mutable std::vector<core::DrawItem> m_items;
    std::size_t m_lastItemCount = 0;
    QFont m_font;
};

} // namespace gaplens::ui
