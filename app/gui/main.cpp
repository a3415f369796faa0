// SPDX-License-Identifier: MIT
// gaplens [FILES...]                      open the GUI on a capture (files and/or folders)
// gaplens RUN.gldigest                    open a digest (gaplens-cli digest) as an overview of all ranks
// gaplens --before A... --after B...      open the before/after compare window
// gaplens --session FILE.gaplens.json     reopen a saved session in the window it describes
//                                         (hidden: --grab-window OUT.png saves that window once
//                                         the session is restored and exits; tests, docs)
// gaplens --render OUT.png|OUT.svg [--range START:END] [--size WxH] [--lanes all|gpu]
//         [--fit shrink|grow] FILES...                                          headless picture
// gaplens --report OUT.html|OUT.pdf FILES...  (or --before A... --after B...)   headless report
#include "ui/appidentity.h"
#include "ui/compare/comparewindow.h"
#include "ui/digest/digestopener.h"
#include "ui/digest/digestwindow.h"
#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/rendercommand.h"
#include "ui/report/reportcommand.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timeformat.h"
#include "ui/workspace/reviewactions.h"
#include "ui/workspace/windowrouter.h"
#include "ui/workspace/workspace.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QMainWindow>
#include <QTextStream>
#include <QTimer>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The command line, declared once for --help and for the real run.
struct GuiOptions
{
    QCommandLineOption render { QStringLiteral("render"),
        QStringLiteral("Render the timeline to a PNG or SVG (by the name) and exit."),
        QStringLiteral("OUT.png|OUT.svg") };
    QCommandLineOption report { QStringLiteral("report"),
        QStringLiteral("Write a report of the capture (or of --before/--after) as HTML or PDF and exit."),
        QStringLiteral("OUT.html|OUT.pdf") };
    QCommandLineOption session { QStringLiteral("session"), QStringLiteral("Open a saved session."),
        QStringLiteral("FILE") };
    QCommandLineOption before { QStringLiteral("before"),
        QStringLiteral("Compare: the capture before the change (one or many files or folders)."),
        QStringLiteral("FILES...") };
    QCommandLineOption after { QStringLiteral("after"), QStringLiteral("Compare: the capture after the change."),
        QStringLiteral("FILES...") };
    QCommandLineOption range { QStringLiteral("range"),
        QStringLiteral("Time range relative to the capture start, e.g. 0.1:0.2 (s) or 5ms:7.5ms."),
        QStringLiteral("START:END") };
    QCommandLineOption size { QStringLiteral("size"), QStringLiteral("Image size (default 1600x900)."),
        QStringLiteral("WxH") };
    QCommandLineOption lanes { QStringLiteral("lanes"),
        QStringLiteral("Rows of a --render picture: all (default), or gpu for each rank's merged GPU lane only."),
        QStringLiteral("all|gpu") };
    QCommandLineOption fit { QStringLiteral("fit"),
        QStringLiteral("How a --render picture holds every rank: shrink (default) keeps --size and folds detail "
                       "rows away; grow keeps every row and makes the picture taller."),
        QStringLiteral("shrink|grow") };
    QCommandLineOption gap { QStringLiteral("gap-threshold"),
        QStringLiteral("Idle-gap threshold, e.g. 100us (default)."), QStringLiteral("DURATION") };
    QCommandLineOption step { QStringLiteral("step-range"),
        QStringLiteral("NVTX range whose iterations are the steps (report)."), QStringLiteral("NAME") };
    QCommandLineOption meta { QStringLiteral("meta"),
        QStringLiteral("A fact for the report's run scorecard (model, precision, global batch...); repeatable."),
        QStringLiteral("KEY=VALUE") };
    QCommandLineOption theme { QStringLiteral("theme"),
        QStringLiteral("light, dark, presentation-light or presentation-dark."), QStringLiteral("THEME") };
    QCommandLineOption noCache { QStringLiteral("no-cache"),
        QStringLiteral("Read the exports themselves: neither use nor write the report cache "
                       "($XDG_CACHE_HOME/gaplens).") };
    QCommandLineOption grabWindow = hidden({ QStringLiteral("grab-window"),
        QStringLiteral("With --session: save the window as a picture once the session is restored, and exit."),
        QStringLiteral("OUT.png") });

    static QCommandLineOption hidden(QCommandLineOption option)
    {
        option.setFlags(QCommandLineOption::HiddenFromHelp);
        return option;
    }

    void addTo(QCommandLineParser &parser) const
    {
        parser.setApplicationDescription(
            QStringLiteral("GPU idle-gap viewer for Nsight Systems SQLite exports (nsys export -t sqlite).\n\n"
                           "Examples:\n"
                           "  gaplens runs/train_*.sqlite\n"
                           "  gaplens --before base/ --after new/\n"
                           "  gaplens --render view.png --size 1600x900 --range 5ms:7.5ms runs/\n"
                           "  gaplens --render gpus.png --lanes gpu runs/\n"
                           "  gaplens --report review.pdf --before base/ --after new/\n"
                           "  gaplens --report run.pdf --meta model=llama-8b --meta precision=bf16 runs/"));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions({ render, report, session, before, after, range, size, lanes, fit, gap, step, meta, theme,
            noCache, grabWindow });
        parser.addPositionalArgument(QStringLiteral("files"),
            QStringLiteral("Nsight Systems .sqlite exports or folders of them; or one .gldigest (gaplens-cli digest), "
                           "opened as an overview of all ranks."),
            QStringLiteral("[FILES...]"));
    }
};

bool asksForHelpOrVersion(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i)
        for (const char *flag : { "-h", "--help", "-?", "--help-all", "-v", "--version" })
            if (std::strcmp(argv[i], flag) == 0)
                return true;
    return false;
}

// A window needs X11 or Wayland unless the user chose a platform (offscreen, vnc, eglfs...).
bool lacksDisplay()
{
    return qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

// QGuiApplication's session management takes "--session ID" (and "-session ID") out of the
// arguments before the parser sees them; "--session=FILE" passes, so ours is joined into that
// form before QApplication exists. argc/argv() stay valid as long as this object.
class SessionArgumentJoined
{
public:
    SessionArgumentJoined(int argc, char *argv[])
    {
        for (int i = 0; i < argc; ++i) {
            if (std::strcmp(argv[i], "--session") == 0 && i + 1 < argc)
                m_strings.push_back(std::string("--session=") + argv[++i]);
            else
                m_strings.emplace_back(argv[i]);
        }
        for (auto &string : m_strings)
            m_pointers.push_back(string.data());
        m_pointers.push_back(nullptr);
        m_argc = int(m_strings.size());
    }
    SessionArgumentJoined(const SessionArgumentJoined &) = delete;
    SessionArgumentJoined &operator=(const SessionArgumentJoined &) = delete;

    int &argc() { return m_argc; }
    char **argv() { return m_pointers.data(); }

private:
    std::vector<std::string> m_strings;
    std::vector<char *> m_pointers;
    int m_argc = 0;
};

// --grab-window: waits until the window is no longer loading, finding gaps or comparing (a
// minute at most), saves it and exits; prints "<window class>\t<title>" for the caller.
void grabWhenRestored(gaplens::ui::Workspace &workspace, const QString &path)
{
    QObject::connect(&workspace, &gaplens::ui::Workspace::sessionApplied, &workspace, [&workspace, path] {
        auto *poll = new QTimer(&workspace);
        const QDeadlineTimer deadline(60'000);
        QObject::connect(poll, &QTimer::timeout, &workspace, [&workspace, path, poll, deadline] {
            if (workspace.isBusy() && !deadline.hasExpired())
                return;
            poll->stop();
            QMainWindow *window = workspace.window();
            const bool saved = window->grab().save(path);
            QTextStream(stdout) << window->metaObject()->className() << '\t' << window->windowTitle() << '\n';
            QCoreApplication::exit(saved ? 0 : 1);
        });
        poll->start(50);
    });
}

} // namespace

int main(int argc, char *argv[])
{
    // Rendering needs no display: pick the offscreen platform before QApplication exists.
    bool headless = false;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--render") == 0 || std::strcmp(argv[i], "--report") == 0)
            headless = true;
    if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    const GuiOptions options;
    if (asksForHelpOrVersion(argc, argv)) {
        // Help and version need no display: a QApplication would abort without one.
        QCoreApplication app(argc, argv);
        gaplens::ui::setApplicationNames();
        QCommandLineParser parser;
        options.addTo(parser);
        parser.process(app); // prints and exits 0
        return 0;
    }

    if (!headless && lacksDisplay()) {
        // Qt would abort with a core dump; say what to do instead.
        std::fputs("gaplens: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset).\n"
                   "Use --render OUT.png or --report OUT.pdf for pictures without one, or gaplens-cli.\n",
            stderr);
        return 1;
    }

    SessionArgumentJoined arguments(argc, argv);
    QApplication app(arguments.argc(), arguments.argv());
    gaplens::ui::setApplicationNames();
    gaplens::ui::setDesktopIdentity();

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
    options.addTo(parser);
    parser.process(args);

    QTextStream err(stderr);
    if (!parser.isSet(options.noCache))
        gaplens::ui::LoadController::setReportCache(gaplens::core::defaultReportCacheOptions());
    if (parser.isSet(options.theme))
        gaplens::ui::Theme::apply(gaplens::ui::Theme::fromName(parser.value(options.theme)));
    gaplens::core::TimeNs gap = 0;
    if (parser.isSet(options.gap) && !gaplens::ui::parseDuration(parser.value(options.gap), gap)) {
        err << "gaplens: --gap-threshold must be a duration, e.g. 100us\n";
        return 1;
    }
    if (parser.isSet(options.render)) {
        gaplens::ui::RenderRequest request;
        request.output = parser.value(options.render);
        request.files = parser.positionalArguments();
        request.range = parser.value(options.range);
        request.gapThresholdNs = gap;
        if (parser.isSet(options.size) && !gaplens::ui::parseSize(parser.value(options.size), request.size)) {
            err << "gaplens: --size must be WxH, e.g. 1920x1080\n";
            return 1;
        }
        if (parser.isSet(options.lanes) && !gaplens::ui::parseLanes(parser.value(options.lanes), request.lanes)) {
            err << "gaplens: --lanes must be all or gpu\n";
            return 1;
        }
        if (parser.isSet(options.fit) && !gaplens::ui::parseFit(parser.value(options.fit), request.fit)) {
            err << "gaplens: --fit must be shrink or grow\n";
            return 1;
        }
        QString error;
        const int rc = gaplens::ui::runRender(request, &error);
        if (rc != 0)
            err << "gaplens: " << error << '\n';
        else if (const QString note = gaplens::ui::lastRenderNote(); !note.isEmpty())
            err << "gaplens: " << note << '\n';
        return rc;
    }
    if (parser.isSet(options.report)) {
        gaplens::ui::ReportCommandRequest request;
        request.output = parser.value(options.report);
        request.files = parser.positionalArguments();
        request.before = before;
        request.after = after;
        request.gapThresholdNs = gap;
        request.stepRange = parser.value(options.step);
        request.meta = parser.values(options.meta);
        QString error;
        const int rc = gaplens::ui::runReport(request, &error);
        if (rc != 0)
            err << "gaplens: " << error << '\n';
        return rc;
    }

    if (parser.isSet(options.session)) {
        QString error;
        auto *workspace = gaplens::ui::WindowRouter::openSession(
            parser.value(options.session), gaplens::ui::ReviewActions::askWhereMovedFilesAre(nullptr), nullptr, &error);
        if (!workspace) {
            err << "gaplens: " << error << '\n';
            return 1;
        }
        if (parser.isSet(options.grabWindow))
            grabWhenRestored(*workspace, parser.value(options.grabWindow));
        return app.exec();
    }
    if (!before.isEmpty() || !after.isEmpty()) {
        auto *compare = new gaplens::ui::CompareWindow;
        compare->setAttribute(Qt::WA_DeleteOnClose);
        compare->showRestored();
        compare->openCaptures(before, after);
        return app.exec();
    }

    // `gaplens RUN.gldigest`: the overview of all ranks alone; ranks open on the timeline from it.
    if (const auto paths = parser.positionalArguments();
        paths.size() == 1 && gaplens::ui::isDigestPath(paths.front())) {
        // Read off the GUI thread like File > Open; a bad file still fails the command.
        auto *opener = gaplens::ui::DigestOpener::open(paths.front());
        QObject::connect(opener, &gaplens::ui::DigestOpener::failed, &app, [&err](const QString &error) {
            err << "gaplens: " << error << '\n';
            err.flush();
            QCoreApplication::exit(1);
        });
        QObject::connect(opener, &gaplens::ui::DigestOpener::cancelled, &app, [] { QCoreApplication::exit(0); });
        return app.exec();
    }
    gaplens::ui::MainWindow window;
    window.showRestored();
    if (!parser.positionalArguments().isEmpty())
        window.openPaths(parser.positionalArguments());
    return app.exec();
}
