// SPDX-License-Identifier: MIT
#include "ui/timeline/trackpainter.h"

#include "gaplens/core/util/units.h"
#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/zoomcontrol.h"

#include <QFontMetrics>
#include <QLocale>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>

namespace gaplens::ui {

using core::DrawItem;
using core::TimeNs;

namespace {

constexpr int kMinTextPx = 28;
// Half the width of a mark's diamond: wide enough to see and to point at.
constexpr int kMarkRadiusPx = 4;

bool isMarkHit(const HitResult &hit)
{
    return hit.kind == HitKind::Mark || (hit.kind == HitKind::Fold && hit.foldOf == HitKind::Mark);
}

QRect pixelRect(double x0, double x1, int top, int height, int width)
{
    // Clamp before converting: zoomed in, an event can be billions of pixels wide.
    x0 = std::clamp(x0, -4.0, double(width) + 4.0);
    x1 = std::clamp(x1, -4.0, double(width) + 4.0);
    const int l = int(std::floor(x0));
    int r = int(std::ceil(x1));
    if (r <= l)
        r = l + 1;
    return QRect(l, top, r - l, height);
}

} // namespace

TrackPainter::TrackPainter(const TimelineModel &model, const ZoomControl &zoom)
    : m_model(model)
    , m_zoom(zoom)
{
    m_font.setPointSizeF(7.5);
}

TrackPainter::RowWindow TrackPainter::windowFor(const TimelineRow &row) const
{
    RowWindow w;
    w.offset = m_model.rankOffset(row.rank);
    const auto vw = m_zoom.viewWindow();
    w.window = core::ViewWindow { vw.start - w.offset, vw.end - w.offset, vw.widthPx };
    return w;
}

double TrackPainter::xOf(TimeNs absolute, TimeNs offset) const
{
    return m_zoom.timeToX(absolute + offset);
}

QColor TrackPainter::darker(const QColor &color, int factor)
{
    // QColor::darker goes through HSV and back; a zoomed-out frame asks for the same few
    // shades thousands of times.
    const std::uint64_t key = (std::uint64_t(color.rgba()) << 16) | std::uint64_t(factor);
    auto it = m_shades.find(key);
    if (it == m_shades.end())
        it = m_shades.emplace(key, color.darker(factor).rgba()).first;
    return QColor::fromRgba(it->second);
}

void TrackPainter::paintLabel(QPainter &p, const QRectF &box, const QString &text, const QColor &bg)
{
    if (box.width() < kMinTextPx || text.isEmpty())
        return;
    const QRectF visible = box.intersected(QRectF(0, box.top(), m_zoom.width(), box.height()));
    if (visible.width() < kMinTextPx)
        return;
    const QFontMetrics fm(m_font);
    const QString elided = fm.elidedText(text, Qt::ElideRight, int(visible.width()) - 4);
    if (elided.isEmpty() || elided == QStringLiteral("…"))
        return;
    p.setPen(textColorOn(bg));
    p.drawText(visible.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, elided);
}

void TrackPainter::paintKernels(
    QPainter &p, core::GpuIndex gpu, core::StreamIndex stream, const RowWindow &w, const QRect &lane, bool overCover)
{
    const auto &k = at(at(m_model.trace()->gpus, gpu).streams, stream).kernels;
    m_model.streamDrawList(gpu, stream, w.window, m_items);
    m_lastItemCount += m_items.size();
    const int width = m_zoom.width();
    const bool find = m_model.hasFindPattern();
    const Theme &theme = Theme::current();
    for (const DrawItem &item : m_items) {
        const double x0 = xOf(item.start, w.offset), x1 = xOf(item.end, w.offset);
        // Many kernels in a few pixels: the utilisation bars say how busy they kept the GPU;
        // one member's colour would be a guess (and change with every wheel step).
        if (overCover && (item.folded() || x1 - x0 < core::kMinVisiblePx))
            continue;
        const QRect r = pixelRect(x0, x1, lane.top(), lane.height(), width);
        if (item.folded()) { // no utilisation yet (derived capture still building)
            p.fillRect(r, theme.utilisationFill);
            continue;
        }
        const auto name = k.shortName[item.first];
        const QColor c = m_model.kernelColor(name);
        p.fillRect(r, c);
        if (find && m_model.matchesName(name) && m_model.isKernelHighlighted(gpu, stream, item.first)) {
            p.setPen(QPen(theme.findOutline, theme.findPenWidth));
            p.drawRect(r.adjusted(1, 1, -1, -1));
        }
        if (r.width() >= kMinTextPx) {
            p.fillRect(QRect(r.right(), r.top(), 1, r.height()), darker(c, 130)); // separates neighbours
            paintLabel(p, r, m_model.str(name), c);
        }
    }
}

void TrackPainter::paintCover(QPainter &p, const core::CoverColumns &cover, const RowWindow &w, const QRect &lane)
{
    core::coverPerColumn(cover, w.window, m_cover);
    const int h = lane.height(), columns = std::min(int(m_cover.size()), m_zoom.width());
    if (columns <= 0 || h <= 0)
        return;
    // The bars go into a lane-sized image pixel by pixel and onto the lane as one image: a
    // rectangle per column cost four times the rest of a zoomed-out frame.
    if (m_coverImage.width() != columns || m_coverImage.height() != h)
        m_coverImage = QImage(columns, h, QImage::Format_ARGB32_Premultiplied);
    m_coverImage.fill(Qt::transparent);
    const QRgb fill = Theme::current().utilisationFill.rgba();
    const auto stride = std::size_t(m_coverImage.bytesPerLine() / 4);
    auto *pixels = reinterpret_cast<QRgb *>(m_coverImage.bits());
    for (int c = 0; c < columns; ++c) {
        const float share = m_cover[std::size_t(c)];
        if (share <= 0)
            continue;
        // A column with any work gets at least one pixel: a nearly idle stretch never reads
        // as empty.
        const int bar = std::clamp(int(std::lround(share * float(h))), 1, h);
        for (int y = h - bar; y < h; ++y)
            pixels[std::size_t(y) * stride + std::size_t(c)] = fill;
    }
    p.drawImage(lane.topLeft(), m_coverImage);
}

void TrackPainter::paintStates(QPainter &p, const TimelineRow &row, const RowWindow &w, const QRect &lane)
{
    const auto &lanes = m_model.stateLanes();
    const int h = lane.height();
    if (!lanes || h <= 0)
        return;
    const auto rank = row.rank.value();
    m_dominantShare.clear();
    for (std::size_t s = 0; s < core::kRunStateCount; ++s) {
        core::coverPerColumn(lanes->cover(rank, core::RunState(s)), w.window, m_cover);
        if (m_dominantShare.empty()) {
            m_dominantShare.assign(m_cover.size(), 0.0f);
            m_dominantState.assign(m_cover.size(), 0);
        }
        for (std::size_t c = 0; c < m_cover.size(); ++c)
            if (m_cover[c] > m_dominantShare[c]) {
                m_dominantShare[c] = m_cover[c];
                m_dominantState[c] = std::uint8_t(s);
            }
    }
    const int columns = std::min(int(m_dominantShare.size()), m_zoom.width());
    if (columns <= 0)
        return;
    // One image for the row, as the utilisation bars: a rectangle per column is too slow.
    if (m_coverImage.width() != columns || m_coverImage.height() != h)
        m_coverImage = QImage(columns, h, QImage::Format_ARGB32_Premultiplied);
    m_coverImage.fill(Qt::transparent);
    std::array<QRgb, core::kRunStateCount> colors {};
    for (std::size_t s = 0; s < core::kRunStateCount; ++s)
        colors[s] = runStateColor(core::RunState(s)).rgba();
    const auto stride = std::size_t(m_coverImage.bytesPerLine() / 4);
    auto *pixels = reinterpret_cast<QRgb *>(m_coverImage.bits());
    for (int c = 0; c < columns; ++c) {
        if (m_dominantShare[std::size_t(c)] <= 0)
            continue;
        const QRgb color = colors[m_dominantState[std::size_t(c)]];
        for (int y = 0; y < h; ++y)
            pixels[std::size_t(y) * stride + std::size_t(c)] = color;
    }
    p.drawImage(lane.topLeft(), m_coverImage);
    // Names on the spans wide enough for them.
    const auto view = m_model.rowView(row);
    m_model.rowDrawList(row, w.window, m_items);
    m_lastItemCount += m_items.size();
    const auto look = describe(row).look;
    for (const DrawItem &item : m_items) {
        if (item.folded())
            continue;
        const QRect r
            = pixelRect(xOf(item.start, w.offset), xOf(item.end, w.offset), lane.top(), lane.height(), m_zoom.width());
        if (r.width() < kMinTextPx)
            continue;
        const EventLook event = look(m_model, row, view.at(item.first));
        p.fillRect(QRect(r.right(), r.top(), 1, r.height()), darker(event.color, 130));
        paintLabel(p, r, event.text, event.color);
    }
}

void TrackPainter::paintFold(QPainter &p, const QRect &r, const DrawItem &item)
{
    const Theme &theme = Theme::current();
    // Neutral, inset and edged: a real range keeps the full height and its own colour. (A
    // hatch brush cost three times the rest of a zoomed-out frame on wide folds.)
    const QRect box = r.adjusted(0, 2, 0, -2);
    p.fillRect(box, theme.foldFill);
    p.fillRect(QRect(box.left(), box.top(), box.width(), 1), theme.foldEdge);
    p.fillRect(QRect(box.left(), box.bottom(), box.width(), 1), theme.foldEdge);
    if (box.width() >= 40) {
        const QString count = QStringLiteral("×%1").arg(QLocale().toString(qulonglong(item.count)));
        paintLabel(p, box, count, theme.foldFill);
    }
}

void TrackPainter::paintGaps(QPainter &p, core::GpuIndex gpu, const RowWindow &w, const QRect &lane, bool strip)
{
    const auto &gaps = m_model.gaps(gpu);
    if (gaps.blame.empty())
        return;
    // The bands are painted twice per lane (behind and over the kernels): one list serves both.
    if (!strip) {
        core::buildDrawList(m_model.gapView(gpu), w.window, m_gapItems, 1.0);
        m_lastItemCount += m_gapItems.size();
    }
    const int width = m_zoom.width();
    const Theme &theme = Theme::current();
    const bool highlight = m_model.gapHighlightKind() != TimelineModel::GapHighlight::None;
    for (const DrawItem &item : m_gapItems) {
        QRect r = pixelRect(xOf(item.start, w.offset), xOf(item.end, w.offset), lane.top(), lane.height(), width);
        if (r.width() < 2)
            r.setWidth(2); // a gap >= threshold must stay visible at any zoom
        // A run of sub-pixel gaps takes the cause with the most idle time among them.
        QColor c
            = gapCauseColor(item.folded() ? gaps.dominantCause(item.first, item.last) : gaps.blame[item.first].cause);
        c.setAlpha(theme.gapAlpha);
        if (!strip) {
            // Behind the kernels: fills the idle stretch itself.
            p.fillRect(r, c);
            continue;
        }
        const int stripPx = theme.gapStripPx;
        // Over the kernels and the utilisation bars (which grow from the bottom): a solid strip
        // along the top edge keeps a gap visible in a column that was mostly busy.
        p.fillRect(QRect(r.left(), lane.top(), r.width(), stripPx), QColor(c.red(), c.green(), c.blue()));
        if (highlight) {
            // A fold is highlighted when any gap in it is (a scan bounded by the fold's count).
            bool on = false;
            for (std::uint32_t k = item.first; k <= item.last && !on; ++k)
                on = m_model.isGapHighlighted(gpu, k);
            if (on) {
                p.setPen(QPen(theme.gapHighlight, theme.findPenWidth));
                p.setBrush(Qt::NoBrush);
                p.drawRect(r.adjusted(0, 0, -1, -1));
            }
        }
        if (!item.folded() && r.width() >= 60) {
            p.setPen(Qt::black);
            p.drawText(r.adjusted(0, stripPx, 0, 0), Qt::AlignCenter, formatDuration(item.end - item.start, 1));
        }
    }
}

void TrackPainter::paintIntervals(QPainter &p, const TimelineRow &row, const RowWindow &w, const QRect &lane)
{
    const auto view = m_model.rowView(row);
    m_model.rowDrawList(row, w.window, m_items);
    m_lastItemCount += m_items.size();
    const int width = m_zoom.width();
    const bool find = m_model.hasFindPattern();
    const auto look = describe(row).look;
    for (const DrawItem &item : m_items) {
        const QRect r = pixelRect(xOf(item.start, w.offset), xOf(item.end, w.offset), lane.top(), lane.height(), width);
        EventLook event = look(m_model, row, view.at(item.first));
        QColor c = event.color;
        const core::StringId name = event.name;
        const QString &text = event.text;
        if (item.folded()) {
            paintFold(p, r, item);
            continue;
        }
        p.fillRect(r, c);
        if (find && name != core::kEmptyString && m_model.matchesName(name)) {
            p.setPen(QPen(Theme::current().findOutline.darker(110), Theme::current().findPenWidth));
            p.drawRect(r.adjusted(1, 1, -1, -1));
        }
        if (r.width() >= kMinTextPx) {
            p.fillRect(QRect(r.right(), r.top(), 1, r.height()), darker(c, 130));
            paintLabel(p, r, name != core::kEmptyString ? m_model.str(name) : text, c);
        }
    }
}

const QImage &TrackPainter::markSprite(const QColor &fill, const QColor &edge, int ry)
{
    // A polygon with pen and brush per mark cost 3 us each; a cached sprite is one blit.
    const std::uint64_t key = (std::uint64_t(fill.rgba()) << 32) | edge.rgba();
    QImage &sprite = m_markSprites[key];
    if (sprite.height() != 2 * ry + 1) {
        sprite = QImage(2 * kMarkRadiusPx + 1, 2 * ry + 1, QImage::Format_ARGB32_Premultiplied);
        sprite.fill(Qt::transparent);
        QPainter sp(&sprite);
        const QPoint points[4]
            = { { kMarkRadiusPx, 0 }, { 2 * kMarkRadiusPx, ry }, { kMarkRadiusPx, 2 * ry }, { 0, ry } };
        sp.setPen(edge);
        sp.setBrush(fill);
        sp.drawPolygon(points, 4);
    }
    return sprite;
}

void TrackPainter::paintInstants(QPainter &p, const TimelineRow &row, const RowWindow &w, const QRect &lane)
{
    const auto view = m_model.rowView(row);
    m_model.rowDrawList(row, w.window, m_items);
    m_lastItemCount += m_items.size();
    const int width = m_zoom.width();
    const bool find = m_model.hasFindPattern();
    const Theme &theme = Theme::current();
    const auto look = describe(row).look;
    const int cy = lane.center().y();
    const int ry = std::max(2, std::min(kMarkRadiusPx + 1, lane.height() / 2 - 1));
    const auto diamond = [&](int cx, const QColor &fill, const QColor &edge) {
        p.drawImage(cx - kMarkRadiusPx, cy - ry, markSprite(fill, edge, ry));
    };
    for (const DrawItem &item : m_items) {
        const double x0 = xOf(item.start, w.offset), x1 = xOf(item.end, w.offset);
        if (item.folded() && x1 - x0 >= 2 * kMarkRadiusPx) {
            // Marks packed along a stretch: a band, like folded ranges, with its count.
            paintFold(p, pixelRect(x0, x1, lane.top(), lane.height(), width), item);
            continue;
        }
        const int cx = int(std::lround(std::clamp((x0 + x1) / 2, -8.0, double(width) + 8.0)));
        if (item.folded()) {
            diamond(cx, theme.foldFill, theme.foldEdge); // many marks: neutral, never one mark's colour
            continue;
        }
        const EventLook event = look(m_model, row, view.at(item.first));
        diamond(cx, event.color, darker(event.color, 160));
        if (find && event.name != core::kEmptyString && m_model.matchesName(event.name)) {
            p.setPen(QPen(theme.findOutline, theme.findPenWidth));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRect(cx - kMarkRadiusPx - 1, cy - ry - 1, 2 * kMarkRadiusPx + 2, 2 * ry + 2));
        }
    }
}

void TrackPainter::paintCounter(QPainter &p, const TimelineRow &row, const RowWindow &w, const QRect &lane)
{
    const auto *counter = m_model.memoryCounter(row.gpu);
    if (!counter || counter->peakBytes == 0)
        return;
    const Theme &theme = Theme::current();
    const QColor line = memoryCounterColor();
    QColor fill = line;
    fill.setAlpha(90);
    const int width = m_zoom.width();
    const int base = lane.bottom();
    const double scale = double(lane.height() - 2) / double(counter->peakBytes);
    int previousTop = base;
    for (int x = 0; x < width; ++x) {
        const TimeNs t0 = m_zoom.xToTime(x) - w.offset, t1 = m_zoom.xToTime(x + 1) - w.offset;
        const std::uint64_t value = counter->maxIn(t0, std::max(t1, t0 + 1));
        const int top = base - int(std::lround(double(value) * scale));
        if (top < base)
            p.fillRect(QRect(x, top, 1, base - top), fill);
        // The step line: the top of each column, joined vertically to the previous one.
        const int lo = std::min(top, previousTop), hi = std::max(top, previousTop);
        p.fillRect(QRect(x, lo, 1, std::max(1, hi - lo + (x == 0 ? 0 : 1))), line);
        previousTop = top;
    }
    ++m_lastItemCount;
    const double peakX = xOf(counter->peakTime, w.offset);
    if (peakX < 0 || peakX >= width)
        return;
    const QString text = QStringLiteral("peak ") + QString::fromStdString(core::formatBytes(counter->peakBytes));
    const int px = int(std::lround(peakX));
    p.fillRect(QRect(px - 1, lane.top(), 3, 3), theme.outline);
    const QFontMetrics fm(p.font());
    const int tw = fm.horizontalAdvance(text) + 6;
    const QRect box(std::min(px + 3, width - tw), lane.top(), tw, std::min(lane.height(), fm.height() + 2));
    QColor bg = theme.rowBackground;
    bg.setAlpha(210);
    p.fillRect(box, bg);
    p.setPen(theme.labelText);
    p.drawText(box, Qt::AlignCenter, text);
}

void TrackPainter::paint(QPainter &p, QSize size, int scrollY, const Overlay &overlay)
{
    m_lastItemCount = 0;
    const Theme &theme = Theme::current();
    p.setRenderHint(QPainter::Antialiasing, false);
    m_font.setPointSizeF(theme.trackFontPt);
    p.setFont(m_font);
    // Rows paint their own background; only the area below the last row needs clearing.
    const int below = std::max(0, m_model.totalHeight() - scrollY);
    if (below < size.height())
        p.fillRect(QRect(0, below, size.width(), size.height() - below), theme.emptyBackground);
    const auto &rows = m_model.rows();
    const int first = std::max(0, m_model.rowAt(scrollY));
    for (int i = first; i < int(rows.size()); ++i) {
        const TimelineRow &row = rows[i];
        const int top = row.y - scrollY;
        if (top >= size.height())
            break;
        const QRect band(0, top, size.width(), row.height);
        const RowPaint style = describe(row).paint;
        if (style == RowPaint::Header) {
            p.fillRect(band, theme.headerBackground);
            continue;
        }
        p.fillRect(band, (i % 2) ? theme.rowBackground : theme.rowBackgroundAlt);
        const QRect lane = band.adjusted(0, 2, 0, -1);
        const RowWindow w = windowFor(row);
        switch (style) {
        case RowPaint::MergedLane: {
            // The union of all streams: the idle-gap bands, the GPU's utilisation per pixel
            // column, every stream's kernels wide enough to be seen, then the gaps' strips.
            const auto &gpu = at(m_model.trace()->gpus, row.gpu);
            const bool cover = m_model.hasCover();
            paintGaps(p, row.gpu, w, lane, false);
            if (cover)
                paintCover(p, m_model.busyCover(row.gpu), w, lane);
            for (std::uint32_t s = 0; s < gpu.streams.size(); ++s)
                paintKernels(p, row.gpu, core::StreamIndex(s), w, lane, cover);
            paintGaps(p, row.gpu, w, lane, true);
            break;
        }
        case RowPaint::StreamLane: {
            const bool cover = m_model.hasCover();
            if (cover)
                paintCover(p, m_model.streamCover(row.gpu, row.stream), w, lane);
            paintKernels(p, row.gpu, row.stream, w, lane, cover);
            break;
        }
        case RowPaint::Intervals: paintIntervals(p, row, w, lane.adjusted(0, -1, 0, 0)); break;
        case RowPaint::Instants: paintInstants(p, row, w, lane.adjusted(0, -1, 0, 0)); break;
        case RowPaint::States: paintStates(p, row, w, lane.adjusted(0, -1, 0, 0)); break;
        case RowPaint::Counter: paintCounter(p, row, w, lane); break;
        case RowPaint::Header: break;
        }
    }

    if (overlay.hasTimeSelection) {
        const double x0 = m_zoom.timeToX(overlay.timeSelection.start);
        const double x1 = m_zoom.timeToX(overlay.timeSelection.end);
        const QRect r = pixelRect(x0, x1, 0, size.height(), size.width());
        p.fillRect(r, QColor(60, 120, 220, 40));
        p.fillRect(QRect(r.left(), 0, 1, size.height()), QColor(60, 120, 220, 160));
        p.fillRect(QRect(r.right(), 0, 1, size.height()), QColor(60, 120, 220, 160));
    }

    auto outline = [&](const HitResult &hit, const QColor &color, int penWidth) {
        if (!hit.isValid())
            return;
        const QRectF r = itemRect(hit, scrollY);
        if (r.isEmpty())
            return;
        p.setPen(QPen(color, penWidth));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0, 0, -1, -1));
    };
    QColor hover = theme.outline;
    hover.setAlpha(160);
    outline(overlay.hovered, hover, 1);
    outline(overlay.selected, theme.outline, theme.selectionPenWidth);
    outline(overlay.linked, theme.outline, theme.selectionPenWidth);

    if (overlay.selected.isValid() && overlay.linked.isValid()) {
        // Arrow from the launching API call to its kernel (or the reverse when a call is selected).
        const QRectF a = itemRect(overlay.selected, scrollY);
        const QRectF b = itemRect(overlay.linked, scrollY);
        if (!a.isEmpty() && !b.isEmpty()) {
            const bool selectedIsKernel = overlay.selected.kind == HitKind::Kernel;
            const QRectF &call = selectedIsKernel ? b : a;
            const QRectF &kernel = selectedIsKernel ? a : b;
            const QPointF from(call.left() + std::min(call.width(), 4.0), call.center().y());
            const QPointF to(kernel.left(), kernel.top() > from.y() ? kernel.top() : kernel.bottom());
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(QPen(theme.outline, theme.isPresentation() ? 2.5 : 1.5));
            p.drawLine(from, to);
            const QPointF d = to - from;
            const double len = std::hypot(d.x(), d.y());
            if (len > 1) {
                const QPointF u = d / len, nrm(-u.y(), u.x());
                const QPointF head[3] = { to, to - u * 8 + nrm * 4, to - u * 8 - nrm * 4 };
                p.setBrush(theme.outline);
                p.drawPolygon(head, 3);
            }
            p.setRenderHint(QPainter::Antialiasing, false);
        }
    }
}

int TrackPainter::itemAt(const std::vector<DrawItem> &items, const RowWindow &w, double x) const
{
    int best = -1;
    double bestDist = 1e9;
    for (int i = 0; i < int(items.size()); ++i) {
        double x0 = xOf(items[i].start, w.offset), x1 = xOf(items[i].end, w.offset);
        if (x1 - x0 < 1)
            x1 = x0 + 1;
        const double dist = x < x0 ? x0 - x : (x > x1 ? x - x1 : 0.0);
        if (dist <= 1.0 && dist < bestDist) {
            bestDist = dist;
            best = i;
        }
    }
    return best;
}

int TrackPainter::instantAt(const std::vector<DrawItem> &items, const RowWindow &w, double x) const
{
    // Items are in time order and at least kMinVisiblePx apart: the nearest one within reach.
    int best = -1;
    double bestDist = 1e9;
    for (int i = 0; i < int(items.size()); ++i) {
        const double x0 = xOf(items[i].start, w.offset), x1 = xOf(items[i].end, w.offset);
        const double dist = x < x0 ? x0 - x : (x > x1 ? x - x1 : 0.0);
        if (dist <= kMarkRadiusPx && dist < bestDist) {
            bestDist = dist;
            best = i;
        }
    }
    return best;
}

HitResult TrackPainter::hitTest(QPoint pos, int scrollY) const
{
    HitResult hit;
    const int rowIndex = m_model.rowAt(pos.y() + scrollY);
    if (rowIndex < 0 || m_model.isEmpty())
        return hit;
    const TimelineRow &row = m_model.rows()[rowIndex];
    const RowWindow w = windowFor(row);
    const double x = pos.x();
    hit.row = rowIndex;
    hit.rank = row.rank;
    hit.gpu = row.gpu;
    hit.thread = row.thread;
    hit.level = row.level;
    std::vector<DrawItem> items;

    auto fromItem = [&](const core::RowView &view, const DrawItem &item, HitKind kind) {
        hit.kind = item.folded() ? HitKind::Fold : kind;
        hit.foldOf = item.folded() ? kind : HitKind::None;
        hit.index = view.at(item.first);
        hit.last = view.at(item.last);
        hit.count = item.count;
        hit.start = item.start;
        hit.end = item.end;
    };

    switch (describe(row).paint) {
    case RowPaint::Header: break;
    case RowPaint::MergedLane: {
        const auto &gpu = at(m_model.trace()->gpus, row.gpu);
        for (std::uint32_t si = 0; si < gpu.streams.size(); ++si) {
            const core::StreamIndex s(si);
            const auto view = m_model.streamView(row.gpu, s);
            m_model.streamDrawList(row.gpu, s, w.window, items);
            const int i = itemAt(items, w, x);
            if (i >= 0) {
                fromItem(view, items[i], HitKind::Kernel);
                hit.stream = s;
                return hit;
            }
        }
        const auto gapView = m_model.gapView(row.gpu);
        core::buildDrawList(gapView, w.window, items, 1.0);
        for (const auto &item : items) {
            double x0 = xOf(item.start, w.offset), x1 = xOf(item.end, w.offset);
            if (x1 - x0 < 2)
                x1 = x0 + 2; // bands are painted at least 2 px wide
            if (x >= x0 - 1 && x <= x1 + 1) {
                // Within a fold of gaps, pick the gap nearest to x.
                std::uint32_t g = item.first;
                const TimeNs t = m_zoom.xToTime(x) - w.offset;
                for (std::uint32_t k = item.first; k <= item.last; ++k)
                    if (gapView.startAt(k) <= t)
                        g = k;
                hit.kind = HitKind::Gap;
                hit.index = g;
                hit.count = 1;
                hit.start = gapView.startAt(g);
                hit.end = gapView.endAt(g);
                return hit;
            }
        }
        break;
    }
    case RowPaint::StreamLane: {
        const auto view = m_model.streamView(row.gpu, row.stream);
        m_model.streamDrawList(row.gpu, row.stream, w.window, items);
        const int i = itemAt(items, w, x);
        if (i >= 0) {
            fromItem(view, items[i], HitKind::Kernel);
            hit.stream = row.stream;
        }
        break;
    }
    case RowPaint::Intervals:
    case RowPaint::States: {
        const auto view = m_model.rowView(row);
        m_model.rowDrawList(row, w.window, items);
        const int i = itemAt(items, w, x);
        if (i >= 0)
            fromItem(view, items[i], describe(row).hitKind);
        break;
    }
    case RowPaint::Instants: {
        const auto view = m_model.rowView(row);
        m_model.rowDrawList(row, w.window, items);
        const int i = instantAt(items, w, x);
        if (i >= 0)
            fromItem(view, items[i], describe(row).hitKind);
        break;
    }
    case RowPaint::Counter: {
        // The value in effect at the cursor: a hit anywhere along the counter.
        const auto *counter = m_model.memoryCounter(row.gpu);
        if (!counter || counter->size() == 0)
            break;
        const TimeNs t = m_zoom.xToTime(x) - w.offset;
        const auto it = std::upper_bound(counter->time.begin(), counter->time.end(), t);
        hit.kind = HitKind::Memory;
        hit.index = it == counter->time.begin() ? core::kNoIndex : std::uint32_t(it - counter->time.begin() - 1);
        hit.count = 1;
        hit.start = t;
        hit.end = t + 1;
        break;
    }
    }
    if (!hit.isValid())
        hit.row = rowIndex; // the row is still useful (e.g. for labels)
    return hit.isValid() ? hit : HitResult { HitKind::None, HitKind::None, rowIndex };
}

int TrackPainter::rowOf(const HitResult &hit) const
{
    // The row showing the hit whose kind prefers it most (a kernel's expanded stream lane
    // over its GPU's merged lane); among equals the row it was hit on, else the first.
    const auto &rows = m_model.rows();
    int best = -1, bestPreference = 0;
    for (int i = 0; i < int(rows.size()); ++i) {
        const RowKindDescriptor &kind = describe(rows[i]);
        if (!kind.showsHit(rows[i], hit))
            continue;
        if (best < 0 || kind.hitPreference < bestPreference || (kind.hitPreference == bestPreference && i == hit.row)) {
            best = i;
            bestPreference = kind.hitPreference;
        }
    }
    return best;
}

QRectF TrackPainter::itemRect(const HitResult &hit, int scrollY) const
{
    const int r = rowOf(hit);
    if (r < 0)
        return {};
    const auto &row = m_model.rows()[r];
    const TimeNs off = m_model.rankOffset(row.rank);
    double x0 = std::clamp(xOf(hit.start, off), -10.0, m_zoom.width() + 10.0);
    double x1 = std::clamp(xOf(hit.end, off), -10.0, m_zoom.width() + 10.0);
    if (isMarkHit(hit)) {
        // Around the diamond (or the band) the mark is drawn as.
        x0 = std::floor(x0) - kMarkRadiusPx - 1;
        x1 = std::ceil(x1) + kMarkRadiusPx + 2;
    } else if (x1 - x0 < 2) {
        x0 = std::floor(x0);
        x1 = x0 + 2;
    }
    return QRectF(x0, row.y - scrollY + 1, x1 - x0, row.height - 1);
}

} // namespace gaplens::ui
