// SPDX-License-Identifier: MIT
// gaplens [FILES...]                      open the GUI on a capture (files and/or folders)
// gaplens --render OUT.png [--range START:END] [--size WxH] FILES...   headless PNG, exit code 0 on success
#include "ui/mainwindow.h"
#include "ui/rendercommand.h"
#include "ui/timeline/timeformat.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>

#include <cstring>

int main(int argc, char *argv[])
{
    // Rendering needs no display: pick the offscreen platform before QApplication exists.
    bool render = false;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--render") == 0)
            render = true;
    if (render && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("gaplens"));
    QApplication::setApplicationName(QStringLiteral("gaplens"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("GPU idle-gap viewer for Nsight Systems SQLite exports"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption renderOpt(QStringLiteral("render"), QStringLiteral("Render the timeline to a PNG and exit."),
                                       QStringLiteral("OUT.png"));
    const QCommandLineOption rangeOpt(QStringLiteral("range"),
                                      QStringLiteral("Time range relative to the capture start, e.g. 0.1:0.2 (s) or 5ms:7.5ms."),
                                      QStringLiteral("START:END"));
    const QCommandLineOption sizeOpt(QStringLiteral("size"), QStringLiteral("Image size (default 1600x900)."), QStringLiteral("WxH"));
    const QCommandLineOption gapOpt(QStringLiteral("gap-threshold"), QStringLiteral("Idle-gap threshold, e.g. 100us (default)."),
                                    QStringLiteral("DURATION"));
    parser.addOptions({renderOpt, rangeOpt, sizeOpt, gapOpt});
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Nsight Systems .sqlite exports or folders of them."),
                                 QStringLiteral("[FILES...]"));
    parser.process(app);

    QTextStream err(stderr);
    if (parser.isSet(renderOpt)) {
        gaplens::ui::RenderRequest request;
        request.output = parser.value(renderOpt);
        request.files = parser.positionalArguments();
        request.range = parser.value(rangeOpt);
        if (parser.isSet(sizeOpt) && !gaplens::ui::parseSize(parser.value(sizeOpt), request.size)) {
            err << "gaplens: --size must be WxH, e.g. 1920x1080\n";
            return 1;
        }
        if (parser.isSet(gapOpt) && !gaplens::ui::parseDuration(parser.value(gapOpt), request.gapThresholdNs)) {
            err << "gaplens: --gap-threshold must be a duration, e.g. 100us\n";
            return 1;
        }
        QString error;
        const int rc = gaplens::ui::runRender(request, &error);
        if (rc != 0)
            err << "gaplens: " << error << '\n';
        return rc;
    }

    gaplens::ui::MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openPaths(parser.positionalArguments());
    return app.exec();
}
