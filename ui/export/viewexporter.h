// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/model/time.h"
#include "ui/timeline/timelinemodel.h"

#include <QImage>
#include <QRect>
#include <QSize>
#include <QString>

#include <functional>
#include <optional>

class QAbstractItemModel;
class QChart;
class QPainter;

namespace gaplens::ui {

class TimelineView;

// Review-meeting pictures of what is on screen: the timeline view, any Qt chart and any table,
// as PNG or SVG of exactly the requested size. Text is sized from the picture's height so it
// stays legible on a projector; the timeline keeps its time ruler and gap legend and gets a
// title band and a kernel colour legend. GUI thread only (widgets are painted).
namespace ViewExporter {

enum class Format { Png, Svg };
// Svg when the path ends in .svg (any case), else Png.
Format formatFor(const QString &path);

using PaintFunction = std::function<void(QPainter &painter, QSize size)>;
// Paints into a size-exact image / SVG document (width and height attributes in px, viewBox
// 0 0 w h). The SVG keeps text as <text> elements.
QImage paintImage(QSize size, const PaintFunction &paint);
QByteArray paintSvg(QSize size, const QString &title, const PaintFunction &paint);
// Writes PNG or SVG by the path's suffix; false with *error on failure.
bool writeFile(
    const QString &path, QSize size, const QString &title, const PaintFunction &paint, QString *error = nullptr);

// Where the timeline picture's parts go at `size` (decorated: title band, view, legend band).
struct TimelineLayout
{
    QRect title, view, legend;
};
TimelineLayout timelineLayout(QSize size, bool decorated = true);

// How a timeline picture holds every rank: Shrink keeps the requested size and folds detail
// rows away (then shrinks rows) until every rank fits; Grow keeps every row of the view and
// makes the picture as tall as they need (never shorter than requested).
enum class Fit { Shrink, Grow };

struct TimelineOptions
{
    QString title; // default: the capture's name (its file, or its folder)
    std::optional<core::TimeRange> range; // display ns; default: the source's window
    bool decorated = true; // title band + kernel legend around the view
    std::optional<RowDetail> detail; // default: the source's (RowDetail::GpuLanes: `--lanes gpu`)
    Fit fit = Fit::Shrink;
};
// The picture's size for a request of `requested`: that size, or with Fit::Grow as tall as the
// source's rows (at the options' detail) need.
QSize timelinePictureSize(const TimelineView &source, QSize requested, const TimelineOptions &options = {});
// The source view as it is (data, alignment, threshold, collapsed ranks, detail, highlights,
// window scaled to the new width), repainted from its first row by a hidden TimelineView of
// the new size, its rows fitted as options.fit says. Returns how the rows were fitted.
TimelineModel::RowFit paintTimeline(
    QPainter &painter, QSize size, const TimelineView &source, const TimelineOptions &options = {});
// What the title band says about a fit that had to give something up, or "".
QString fitNote(const TimelineModel::RowFit &fit, RowDetail requested);
bool exportTimeline(const TimelineView &source, const QString &path, QSize size, const TimelineOptions &options = {},
    QString *error = nullptr);

// The chart at `size` (resized while painting, fonts scaled for the height, then restored).
void paintChart(QPainter &painter, QRect target, QChart *chart);
bool exportChart(QChart *chart, const QString &path, QSize size, QString *error = nullptr);

// The table as shown by its model (DisplayRole, header titles, alignment); rows that do not
// fit are summed up in a last line "… N more rows".
void paintTable(QPainter &painter, QRect target, const QAbstractItemModel &model, const QString &title = {});
bool exportTable(const QAbstractItemModel &model, const QString &path, QSize size, const QString &title = {},
    QString *error = nullptr);

// The legibility rule: a text pixel size for a picture of `height` px.
int textPixelSize(int height);

} // namespace ViewExporter

} // namespace gaplens::ui
