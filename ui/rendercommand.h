// SPDX-License-Identifier: MIT
#pragma once
#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdint>

namespace gaplens::ui {

// `gaplens --render OUT.png|OUT.svg [--range START:END] [--size WxH] FILES...`: the timeline
// drawn headless (offscreen platform), exactly size pixels; SVG when OUT ends in .svg. START/END are relative to the
// capture start, with s/ms/us/ns units (a bare number is seconds); an empty side means the capture edge.
struct RenderRequest
{
    QString output;
    QStringList files;
    QSize size { 1600, 900 };
    QString range; // "START:END" or empty for the whole capture
    std::int64_t gapThresholdNs = 0; // 0 = default
};

// Parses "1920x1080"; false on garbage or non-positive sizes.
bool parseSize(const QString &text, QSize &out);

// Loads the files (on the calling thread), renders and writes the PNG or SVG. Returns 0 on success,
// otherwise non-zero with a message in *error. Needs a QApplication.
int runRender(const RenderRequest &request, QString *error);
// Same view as runRender, into an image (for tests).
QImage renderTimeline(const RenderRequest &request, QString *error);
// The same view as an SVG document (empty on failure).
QByteArray renderTimelineSvg(const RenderRequest &request, QString *error);

} // namespace gaplens::ui
