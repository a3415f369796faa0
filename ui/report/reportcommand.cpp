// SPDX-License-Identifier: MIT
#include "ui/report/reportcommand.h"

#include "gaplens/core/analysis/run_scorecard.h"
#include "ui/loading/loadcontroller.h"
#include "ui/report/reportbuilder.h"

#include <QFileInfo>

namespace gaplens::ui {

int runReport(const ReportCommandRequest &request, QString *error)
{
    auto fail = [&](const QString &message, int rc) {
        if (error)
            *error = message;
        return rc;
    };
    const bool compare = !request.before.isEmpty() || !request.after.isEmpty();
    if (compare && (request.before.isEmpty() || request.after.isEmpty()))
        return fail(QStringLiteral("--before and --after both need files"), 1);
    if (!compare && request.files.isEmpty())
        return fail(QStringLiteral("no input files"), 1);
    for (const auto &f : request.files + request.before + request.after)
        if (!QFileInfo::exists(f))
            return fail(QStringLiteral("%1: no such file or folder").arg(f), 2);
    ReportBuilder::Request r;
    for (const auto &text : request.meta) {
        std::string metaError;
        const auto meta = core::parseRunMeta(text.toStdString(), metaError);
        if (!meta)
            return fail(QString::fromStdString(metaError), 2);
        r.meta.push_back(*meta);
    }
    auto load = [](const QStringList &files) { return LoadController::loadNow(files); };
    r.capture = load(compare ? request.before : request.files);
    if (compare)
        r.after = load(request.after);
    for (const auto &d : { r.capture, r.after })
        if (d && d->trace && d->trace->reports.empty()) {
            QString message = QStringLiteral("nothing could be loaded");
            for (const auto &e : d->trace->errors)
                message += QStringLiteral("\n  ") + QString::fromStdString(e.message);
            return fail(message, 2);
        }
    if (request.gapThresholdNs > 0)
        r.minGapNs = request.gapThresholdNs;
    r.stepRange = request.stepRange;
    ReportBuilder builder(r);
    builder.build();
    QString writeError;
    if (!builder.write(request.output, &writeError))
        return fail(writeError, 3);
    return 0;
}

} // namespace gaplens::ui
