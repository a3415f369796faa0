// SPDX-License-Identifier: MIT
#include "ui/rendercommand.h"

#include "ui/loading/loadcontroller.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QFileInfo>
#include <QPixmap>
#include <QRegularExpression>

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

QImage renderTimeline(const RenderRequest &request, QString *error)
{
    auto fail = [&](const QString &message) {
        if (error)
            *error = message;
        return QImage();
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

    TimelineView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(request.size);
    view.setData(data);
    if (request.gapThresholdNs > 0)
        view.model()->setGapThreshold(request.gapThresholdNs);
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
    QImage image = view.grab().toImage();
    if (image.size() != request.size)
        image = image.scaled(request.size); // only with a device pixel ratio != 1
    return image;
}

int runRender(const RenderRequest &request, QString *error)
{
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
