// SPDX-License-Identifier: MIT
#pragma once
#include "ui/export/viewexporter.h"
#include "ui/timeline/rowkinds.h"

#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdint>

namespace gaplens::ui {

// `gaplens --render OUT.png|OUT.svg [--range START:END] [--size WxH] [--lanes all|gpu]
// [--fit shrink|grow] FILES...`: the timeline drawn headless (offscreen platform) with a title
// and the legend, every rank in it; SVG when OUT ends in .svg. Exactly size pixels (detail rows
// fold away to fit), or with --fit grow as tall as every row needs. START/END are relative to the
// capture start, with s/ms/us/ns units (a bare number is seconds); an empty side means the capture edge.
struct RenderRequest
{
    QString output;
    QStringList files;
    QSize size { 1600, 900 };
    QString range; // "START:END" or empty for the whole capture
    std::int64_t gapThresholdNs = 0; // 0 = default
    RowDetail lanes = RowDetail::All; // GpuLanes: `--lanes gpu`
    ViewExporter::Fit fit = ViewExporter::Fit::Shrink;
};

// Parses "1920x1080"; false on garbage or non-positive sizes.
bool parseSize(const QString &text, QSize &out);
// Parses `--lanes` ("all", "gpu") and `--fit` ("shrink", "grow"); false on anything else.
bool parseLanes(const QString &text, RowDetail &out);
bool parseFit(const QString &text, ViewExporter::Fit &out);

// Loads the files (on the calling thread), renders and writes the PNG or SVG. Returns 0 on success,
// otherwise non-zero with a message in *error. Needs a QApplication.
int runRender(const RenderRequest &request, QString *error);
// Same view as runRender, into an image (for tests).
QImage renderTimeline(const RenderRequest &request, QString *error);
// The same view as an SVG document (empty on failure).
QByteArray renderTimelineSvg(const RenderRequest &request, QString *error);
// A note on stderr's behalf when the picture had to give something up to fit (ViewExporter::fitNote),
// set by the last render on this thread; "" otherwise.
QString lastRenderNote();

} // namespace gaplens::ui
