// SPDX-License-Identifier: MIT
// gaplens [FILES...]                      open the GUI on a capture (files and/or folders)
// gaplens --before A... --after B...      open the before/after compare window
// gaplens --session FILE.gaplens.json     reopen a saved session
// gaplens --render OUT.png|OUT.svg [--range START:END] [--size WxH] FILES...   headless picture
// gaplens --report OUT.html|OUT.pdf FILES...  (or --before A... --after B...)   headless report
#include "ui/compare/comparewindow.h"
#include "ui/mainwindow.h"
#include "ui/rendercommand.h"
#include "ui/report/reportcommand.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timeformat.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QTextStream>

#include <cstring>

int main(int argc, char *argv[])
{
    // Rendering needs no display: pick the offscreen platform before QApplication exists.
    bool headless = false;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--render") == 0 || std::strcmp(argv[i], "--report") == 0)
            headless = true;
    if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("gaplens"));
    QApplication::setApplicationName(QStringLiteral("gaplens"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    // --before and --after take every following non-option argument (several files each),
    // which QCommandLineParser cannot express: split them off first.
    QStringList args, before, after;
    QStringList *list = nullptr;
    for (const QString &a : QApplication::arguments()) {
        if (a == QLatin1String("--before") || a == QLatin1String("--after")) {
            list = a == QLatin1String("--before") ? &before : &after;
            continue;
        }
        if (list && !a.startsWith(QLatin1Char('-'))) {
            list->append(a);
            continue;
        }
        list = nullptr;
        args << a;
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("GPU idle-gap viewer for Nsight Systems SQLite exports.\n"
                                                    "  --before A... --after B...  compare two captures (each one or many files)"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption renderOpt(QStringLiteral("render"), QStringLiteral("Render the timeline to a PNG or SVG (by the name) and exit."),
                                       QStringLiteral("OUT.png|OUT.svg"));
    const QCommandLineOption reportOpt(QStringLiteral("report"),
                                       QStringLiteral("Write a report of the capture (or of --before/--after) as HTML or PDF and exit."),
                                       QStringLiteral("OUT.html|OUT.pdf"));
    const QCommandLineOption sessionOpt(QStringLiteral("session"), QStringLiteral("Open a saved session."), QStringLiteral("FILE"));
    const QCommandLineOption rangeOpt(QStringLiteral("range"),
                                      QStringLiteral("Time range relative to the capture start, e.g. 0.1:0.2 (s) or 5ms:7.5ms."),
                                      QStringLiteral("START:END"));
    const QCommandLineOption sizeOpt(QStringLiteral("size"), QStringLiteral("Image size (default 1600x900)."), QStringLiteral("WxH"));
    const QCommandLineOption gapOpt(QStringLiteral("gap-threshold"), QStringLiteral("Idle-gap threshold, e.g. 100us (default)."),
                                    QStringLiteral("DURATION"));
    const QCommandLineOption stepOpt(QStringLiteral("step-range"), QStringLiteral("NVTX range whose iterations are the steps (report)."),
                                     QStringLiteral("NAME"));
    const QCommandLineOption themeOpt(QStringLiteral("theme"),
                                      QStringLiteral("light, dark, presentation-light or presentation-dark."), QStringLiteral("THEME"));
    parser.addOptions({renderOpt, reportOpt, sessionOpt, rangeOpt, sizeOpt, gapOpt, stepOpt, themeOpt});
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Nsight Systems .sqlite exports or folders of them."),
                                 QStringLiteral("[FILES...]"));
    parser.process(args);

    QTextStream err(stderr);
    if (parser.isSet(themeOpt))
        gaplens::ui::Theme::apply(gaplens::ui::Theme::fromName(parser.value(themeOpt)));
    gaplens::core::TimeNs gap = 0;
    if (parser.isSet(gapOpt) && !gaplens::ui::parseDuration(parser.value(gapOpt), gap)) {
        err << "gaplens: --gap-threshold must be a duration, e.g. 100us\n";
        return 1;
    }
    if (parser.isSet(renderOpt)) {
        gaplens::ui::RenderRequest request;
        request.output = parser.value(renderOpt);
        request.files = parser.positionalArguments();
        request.range = parser.value(rangeOpt);
        request.gapThresholdNs = gap;
        if (parser.isSet(sizeOpt) && !gaplens::ui::parseSize(parser.value(sizeOpt), request.size)) {
            err << "gaplens: --size must be WxH, e.g. 1920x1080\n";
            return 1;
        }
        QString error;
        const int rc = gaplens::ui::runRender(request, &error);
        if (rc != 0)
            err << "gaplens: " << error << '\n';
        return rc;
    }
    if (parser.isSet(reportOpt)) {
        gaplens::ui::ReportCommandRequest request;
        request.output = parser.value(reportOpt);
        request.files = parser.positionalArguments();
        request.before = before;
        request.after = after;
        request.gapThresholdNs = gap;
        request.stepRange = parser.value(stepOpt);
        QString error;
        const int rc = gaplens::ui::runReport(request, &error);
        if (rc != 0)
            err << "gaplens: " << error << '\n';
        return rc;
    }

    if (!before.isEmpty() || !after.isEmpty() || parser.isSet(sessionOpt)) {
        auto *compare = new gaplens::ui::CompareWindow;
        compare->setAttribute(Qt::WA_DeleteOnClose);
        compare->show();
        if (parser.isSet(sessionOpt)) {
            QString error;
            auto resolver = [compare](const QString &missing) {
                return QFileDialog::getOpenFileName(compare, QStringLiteral("Where is %1 now?").arg(QFileInfo(missing).fileName()));
            };
            if (!compare->openSession(parser.value(sessionOpt), resolver, &error)) {
                err << "gaplens: " << error << '\n';
                return 1;
            }
        } else {
            compare->openCaptures(before, after);
        }
        return app.exec();
    }

    gaplens::ui::MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openPaths(parser.positionalArguments());
    return app.exec();
}
