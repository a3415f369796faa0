// SPDX-License-Identifier: MIT
#include "ui/rendercommand.h"

#include "ui/export/viewexporter.h"
#include "ui/loading/loadcontroller.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QRegularExpression>
#include <QSaveFile>

namespace gaplens::ui {

bool parseSize(const QString &text, QSize &out)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+)\\s*[xX]\\s*(\\d+)\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return false;
    const int w = m.captured(1).toInt(), h = m.captured(2).toInt();
    if (w <= 0 || h <= 0 || w > 20000 || h > 20000)
        return false;
    out = QSize(w, h);
    return true;
}

bool parseLanes(const QString &text, RowDetail &out)
{
    if (text == QLatin1String("all"))
        out = RowDetail::All;
    else if (text == QLatin1String("gpu"))
        out = RowDetail::GpuLanes;
    else
        return false;
    return true;
}

bool parseFit(const QString &text, ViewExporter::Fit &out)
{
    if (text == QLatin1String("shrink"))
        out = ViewExporter::Fit::Shrink;
    else if (text == QLatin1String("grow"))
        out = ViewExporter::Fit::Grow;
    else
        return false;
    return true;
}

namespace {

thread_local QString t_lastNote;

// Loads the request's files into `view` and frames the requested range at the final size.
bool prepareView(TimelineView &view, const RenderRequest &request, QString *error)
{
    auto fail = [&](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (request.files.isEmpty())
        return fail(QStringLiteral("no input files"));
    for (const auto &f : request.files)
        if (!QFileInfo::exists(f))
            return fail(QStringLiteral("%1: no such file or folder").arg(f));
    const auto data = LoadController::loadNow(request.files);
    const auto &trace = *data->trace;
    if (trace.reports.empty()) {
        QString message = QStringLiteral("nothing could be loaded");
        for (const auto &e : trace.errors)
            message += QStringLiteral("\n  ") + QString::fromStdString(e.message);
        return fail(message);
    }

    view.setAttribute(Qt::WA_DontShowOnScreen);
    // The picture's view has no scroll bars either.
    view.setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.resize(request.size);
    view.setData(data);
    view.model()->setDetail(request.lanes);
    if (request.gapThresholdNs > 0)
        view.model()->setGapThreshold(request.gapThresholdNs);
    // The gaps are blamed on the model's worker; the picture must show their bands.
    view.model()->waitForGaps();
    // Lay out at the final size before choosing the window (the zoom depends on the width).
    view.show();
    view.resize(request.size);
    view.zoom()->setWidth(view.viewport()->width());
    view.zoom()->fitAll();

    if (!request.range.isEmpty()) {
        const int colon = request.range.indexOf(QLatin1Char(':'));
        if (colon < 0)
            return fail(QStringLiteral("--range must be START:END, got \"%1\"").arg(request.range));
        const QString a = request.range.left(colon), b = request.range.mid(colon + 1);
        const auto span = view.model()->displaySpan();
        core::TimeNs start = 0, end = span.duration();
        if (!a.trimmed().isEmpty() && !parseDuration(a, start))
            return fail(QStringLiteral("--range: cannot read start \"%1\"").arg(a));
        if (!b.trimmed().isEmpty() && !parseDuration(b, end))
            return fail(QStringLiteral("--range: cannot read end \"%1\"").arg(b));
        if (end <= start)
            return fail(QStringLiteral("--range: end must be after start"));
        view.zoom()->setWindow(view.model()->origin() + start, view.model()->origin() + end, false);
    }
    return true;
}

// The decorated picture of the prepared view, as File > Export paints it.
ViewExporter::TimelineOptions pictureOptions(const RenderRequest &request, const TimelineView &view)
{
    ViewExporter::TimelineOptions options;
    options.range = core::TimeRange { view.zoom()->windowStart(), view.zoom()->windowEnd() };
    options.detail = request.lanes;
    options.fit = request.fit;
    return options;
}

ViewExporter::PaintFunction paintPicture(const TimelineView &view, const ViewExporter::TimelineOptions &options)
{
    return [&view, options](QPainter &p, QSize size) {
        const auto fit = ViewExporter::paintTimeline(p, size, view, options);
        t_lastNote = ViewExporter::fitNote(fit, *options.detail);
    };
}

} // namespace

QString lastRenderNote()
{
    return t_lastNote;
}

QImage renderTimeline(const RenderRequest &request, QString *error)
{
    t_lastNote.clear();
    TimelineView view;
    if (!prepareView(view, request, error))
        return QImage();
    const auto options = pictureOptions(request, view);
    return ViewExporter::paintImage(
        ViewExporter::timelinePictureSize(view, request.size, options), paintPicture(view, options));
}

QByteArray renderTimelineSvg(const RenderRequest &request, QString *error)
{
    t_lastNote.clear();
    TimelineView view;
    if (!prepareView(view, request, error))
        return {};
    // The same widgets painted into an SVG: rectangles and <text> instead of pixels.
    const auto options = pictureOptions(request, view);
    return ViewExporter::paintSvg(ViewExporter::timelinePictureSize(view, request.size, options),
        QFileInfo(request.files.front()).fileName(), paintPicture(view, options));
}

int runRender(const RenderRequest &request, QString *error)
{
    if (ViewExporter::formatFor(request.output) == ViewExporter::Format::Svg) {
        const QByteArray svg = renderTimelineSvg(request, error);
        if (svg.isEmpty())
            return 2;
        QSaveFile file(request.output);
        if (!file.open(QIODevice::WriteOnly) || file.write(svg) != svg.size() || !file.commit()) {
            if (error)
                *error = QStringLiteral("%1: cannot write the SVG").arg(request.output);
            return 3;
        }
        return 0;
    }
    const QImage image = renderTimeline(request, error);
    if (image.isNull())
        return 2;
    if (!image.save(request.output, "PNG")) {
        if (error)
            *error = QStringLiteral("%1: cannot write the PNG").arg(request.output);
        return 3;
    }
    return 0;
}

} // namespace gaplens::ui
