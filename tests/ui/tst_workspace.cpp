// SPDX-License-Identifier: MIT
// One workspace for both windows: the shared menu entries exist in the main window and in
// the compare window with the same names and shortcuts, and the menus hold what they held
// before; the threshold parser; a session opens in the window it describes (a single capture
// in a MainWindow, a before/after review in a CompareWindow), also when asked from the other
// window and from the real `gaplens --session` binary.
#include "ui_fixture.h"

#include "ui/bookmarks/bookmarkmodel.h"
#include "ui/compare/compareview.h"
#include "ui/compare/comparewindow.h"
#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/session/session.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"
#include "ui/workspace/gapthresholdbox.h"
#include "ui/workspace/windowrouter.h"
#include "ui/workspace/workspace.h"

#include <QAction>
#include <QApplication>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

// The entries of one menu of the menu bar, "-" for a separator, "Theme >" for a submenu.
QStringList menuEntries(QMainWindow &window, const QString &title)
{
    QStringList out;
    for (QAction *top : window.menuBar()->actions()) {
        if (top->text() != title)
            continue;
        for (QAction *a : top->menu()->actions())
            out << (a->isSeparator() ? QStringLiteral("-") : a->menu() ? a->text() + QStringLiteral(" >") : a->text());
    }
    return out;
}

QAction *actionNamed(QMainWindow &window, const char *name)
{
    return window.findChild<QAction *>(QString::fromLatin1(name));
}

// Is `action` reachable from the menu bar (in a menu or a submenu of one)?
bool inMenuBar(QMainWindow &window, QAction *action)
{
    std::function<bool(QMenu *)> holds = [&](QMenu *menu) {
        for (QAction *a : menu->actions())
            if (a == action || (a->menu() && holds(a->menu())))
                return true;
        return false;
    };
    for (QAction *top : window.menuBar()->actions())
        if (top->menu() && holds(top->menu()))
            return true;
    return false;
}

core::TimeNs relStart(const TimelineView *v)
{
    return v->zoom()->windowStart() - v->model()->origin();
}

core::TimeNs relEnd(const TimelineView *v)
{
    return v->zoom()->windowEnd() - v->model()->origin();
}

template <typename Window> Window *windowOf(Workspace *workspace)
{
    return workspace ? qobject_cast<Window *>(workspace->window()) : nullptr;
}

} // namespace

class TestWorkspace : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_rank0, m_rank1;

    // A session of `before` vs `after`; a before/after review (as the compare window saves
    // it) when there are after files, a single capture otherwise.
    static Session sessionOf(const QStringList &before, const QStringList &after = {})
    {
        Session s;
        s.before = before;
        s.after = after;
        s.beforeAfter = !after.isEmpty();
        return s;
    }

    // A fixture capture of `rank` written to <dir>/<name>; its path.
    static QString writeCapture(const QTemporaryDir &dir, const QString &name, int rank)
    {
        const QString path = dir.filePath(name);
        fixture::writeExport(path.toStdString(), rank);
        return path;
    }

    // A session of rank0 (+ rank1 as after when `beforeAfter`) with a view of 500..1800 us,
    // a 200 us threshold and one bookmark, written to <dir>/<name>.
    QString writeSession(const QString &name, bool beforeAfter)
    {
        Session s = sessionOf({ m_rank0 }, beforeAfter ? QStringList { m_rank1 } : QStringList {});
        s.viewRange = core::TimeRange { fixture::us(500), fixture::us(1800) };
        s.gapThreshold = 200'000;
        Bookmark b;
        b.name = QStringLiteral("the gap");
        b.note = QStringLiteral("cudaStreamSynchronize");
        b.range = { fixture::us(1100), fixture::us(1600) };
        s.bookmarks = { b };
        const QString path = m_dir.filePath(name);
        QString error;
        if (!SessionFile::write(s, path, &error))
            qWarning("%s", qPrintable(error));
        return path;
    }

    static void verifySessionApplied(const TimelineView *v, const QStringList &files)
    {
        QVERIFY(v->model()->trace());
        QStringList loaded;
        for (const auto &r : v->model()->trace()->reports)
            loaded << QString::fromStdString(r.path);
        QCOMPARE(loaded, files);
        QCOMPARE(v->model()->gapThreshold(), core::TimeNs(200'000));
        QVERIFY(std::abs(relStart(v) - fixture::us(500)) <= 2);
        QVERIFY(std::abs(relEnd(v) - fixture::us(1800)) <= 2);
    }

    // Opens the session through WindowRouter and waits until it is restored: the window it
    // opened, or null (with a warning) when that is not a Window or the session never came.
    template <typename Window> static Window *openAndWait(const QString &path)
    {
        QString error;
        Workspace *workspace = WindowRouter::openSession(path, {}, nullptr, &error);
        auto *window = windowOf<Window>(workspace);
        if (!window) {
            qWarning("no %s: %s", Window::staticMetaObject.className(), qPrintable(error));
            return nullptr;
        }
        QSignalSpy applied(workspace, &Workspace::sessionApplied);
        return applied.wait(30000) ? window : nullptr;
    }

    struct Run
    {
        int exitCode = -1; // -1: did not finish; -2: crashed
        QString out, err;
    };

    // The real `gaplens` offscreen, with settings in a fresh folder (not the user's).
    Run runGui(const QStringList &args)
    {
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(GAPLENS_GUI_BIN), args);
        if (!p.waitForFinished(90000)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            QString::fromLocal8Bit(p.readAllStandardOutput()), QString::fromLocal8Bit(p.readAllStandardError()) };
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_rank0 = writeCapture(m_dir, QStringLiteral("rank0.sqlite"), 0);
        m_rank1 = writeCapture(m_dir, QStringLiteral("rank1.sqlite"), 1);
    }

    void sharedActionsExistInBothWindowsWithTheSameNamesAndShortcuts()
    {
        MainWindow main;
        CompareWindow compare;
        const struct
        {
            const char *name;
            const char *text;
            QKeySequence shortcut;
        } shared[] = {
            { "openSessionAction", "Open &Session…", {} },
            { "saveSessionAction", "Save Session &As…", QKeySequence(QKeySequence::SaveAs) },
            { "exportReportAction", "Export &Report…", {} },
            { "presentationModeAction", "Presentation Mode", QKeySequence(Qt::Key_F11) },
            { "addBookmarkAction", "Add Bookmark", QKeySequence(Qt::CTRL | Qt::Key_B) },
            { "nextBookmarkAction", "Next Bookmark", QKeySequence(Qt::Key_F2) },
            { "previousBookmarkAction", "Previous Bookmark", QKeySequence(Qt::SHIFT | Qt::Key_F2) },
        };
        for (const auto &a : shared) {
            for (QMainWindow *w : { static_cast<QMainWindow *>(&main), static_cast<QMainWindow *>(&compare) }) {
                QAction *action = actionNamed(*w, a.name);
                QVERIFY2(action, a.name);
                QCOMPARE(action->text(), QString::fromUtf8(a.text));
                QCOMPARE(action->shortcut(), a.shortcut);
                QVERIFY2(inMenuBar(*w, action), a.name);
            }
        }
        const QStringList themes { QStringLiteral("Light"), QStringLiteral("Dark"),
            QStringLiteral("Presentation (light)"), QStringLiteral("Presentation (dark)") };
        for (QMainWindow *w : { static_cast<QMainWindow *>(&main), static_cast<QMainWindow *>(&compare) }) {
            auto *menu = w->findChild<QMenu *>(QStringLiteral("themeMenu"));
            QVERIFY(menu);
            QStringList titles;
            for (QAction *a : menu->actions())
                titles << a->text();
            QCOMPARE(titles, themes);
            QVERIFY(w->findChild<GapThresholdBox *>());
        }
    }

    void menusHoldWhatTheyHeldBeforeTheWorkspace()
    {
        MainWindow main;
        QCOMPARE(menuEntries(main, QStringLiteral("&File")),
            (QStringList { QStringLiteral("&Open…"), QStringLiteral("Open &Folder…"), QStringLiteral("Open &Recent >"),
                QStringLiteral("&Compare with…"), QStringLiteral("-"), QStringLiteral("Open &Session…"),
                QStringLiteral("Save Session &As…"), QStringLiteral("-"),
                QStringLiteral("Export &Timeline as Picture…"),
                QStringLiteral("Export Focused &Chart or Table as Picture…"), QStringLiteral("Export &Report…"),
                QStringLiteral("-"), QStringLiteral("&Quit") }));
        const QStringList mainView = menuEntries(main, QStringLiteral("&View"));
        QCOMPARE(mainView.mid(0, 9),
            (QStringList { QStringLiteral("&Theme >"), QStringLiteral("Presentation Mode"),
                QStringLiteral("Add Bookmark"), QStringLiteral("Next Bookmark"), QStringLiteral("Previous Bookmark"),
                QStringLiteral("-"), QStringLiteral("&Navigate >"), QStringLiteral("Show Frame Time"),
                QStringLiteral("-") }));
        QCOMPARE(mainView.last(), QStringLiteral("Reset Panel Layout"));
        for (const auto *dock :
            { "Summary", "Top Kernels", "Gap Blame", "Rank Pace", "Problems", "Details", "Bookmarks" })
            QVERIFY2(mainView.contains(QLatin1String(dock)), dock);

        CompareWindow compare;
        QCOMPARE(menuEntries(compare, QStringLiteral("&File")),
            (QStringList { QStringLiteral("Open &Before…"), QStringLiteral("Open &After…"), QStringLiteral("-"),
                QStringLiteral("Open &Session…"), QStringLiteral("Save Session &As…"), QStringLiteral("-"),
                QStringLiteral("Export &Timelines as Picture…"), QStringLiteral("Export Compare T&able as Picture…"),
                QStringLiteral("Export &Report…"), QStringLiteral("-"), QStringLiteral("&Close") }));
        // The compare window's View menu as before, then the themes it now shares with the main window.
        QCOMPARE(menuEntries(compare, QStringLiteral("&View")),
            (QStringList { QStringLiteral("Compare"), QStringLiteral("Bookmarks"), QStringLiteral("Add Bookmark"),
                QStringLiteral("Next Bookmark"), QStringLiteral("Previous Bookmark"), QStringLiteral("-"),
                QStringLiteral("&Theme >"), QStringLiteral("Presentation Mode"), QStringLiteral("-"),
                QStringLiteral("&Navigate >"), QStringLiteral("-"), QStringLiteral("Collapse All Ranks"),
                QStringLiteral("Expand All Ranks"), QStringLiteral("GPU Lanes Only") }));
    }

    void thresholdParserReadsUnitsAndBareMicroseconds_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ns"); // 0: rejected
        QTest::newRow("preset") << QStringLiteral("100 us") << qint64(100'000);
        QTest::newRow("no space") << QStringLiteral("0.5ms") << qint64(500'000);
        QTest::newRow("ms with space") << QStringLiteral("2 ms") << qint64(2'000'000);
        QTest::newRow("seconds") << QStringLiteral("1.5 s") << qint64(1'500'000'000);
        QTest::newRow("nanoseconds") << QStringLiteral("250ns") << qint64(250);
        QTest::newRow("bare number is us") << QStringLiteral("250") << qint64(250'000);
        QTest::newRow("bare fraction is us") << QStringLiteral("1.5") << qint64(1'500);
        QTest::newRow("bare exponent is us") << QStringLiteral("1e3") << qint64(1'000'000);
        QTest::newRow("spaces anywhere") << QStringLiteral(" 1 0 us ") << qint64(10'000);
        QTest::newRow("zero") << QStringLiteral("0 us") << qint64(0);
        QTest::newRow("negative") << QStringLiteral("-5us") << qint64(0);
        QTest::newRow("garbage") << QStringLiteral("fast") << qint64(0);
        QTest::newRow("unknown unit") << QStringLiteral("5 min") << qint64(0);
        QTest::newRow("empty") << QString() << qint64(0);
    }

    void thresholdParserReadsUnitsAndBareMicroseconds()
    {
        QFETCH(QString, text);
        QFETCH(qint64, ns);
        const auto parsed = parseGapThreshold(text);
        QCOMPARE(parsed.has_value(), ns != 0);
        if (parsed)
            QCOMPARE(qint64(*parsed), ns);
    }

    void thresholdBoxEmitsWhatParsesAndSetsSilently()
    {
        GapThresholdBox box;
        QVERIFY(box.threshold() == core::TimeNs(100'000));
        QSignalSpy changed(&box, &GapThresholdBox::thresholdChanged);
        box.setCurrentText(QStringLiteral("2 ms"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.takeFirst().at(0).value<core::TimeNs>(), core::TimeNs(2'000'000));
        box.setCurrentText(QStringLiteral("2 m")); // half typed: nothing
        QCOMPARE(changed.count(), 0);
        QVERIFY(!box.threshold());
        box.setThreshold(50'000);
        QCOMPARE(box.currentText(), QStringLiteral("50 us"));
        QCOMPARE(changed.count(), 0);
    }

    void thresholdBoxDrivesEachWindowsTimelines()
    {
        MainWindow main;
        QSignalSpy loaded(main.loadController(), &LoadController::loadFinished);
        main.openPaths({ m_rank0 });
        QVERIFY(loaded.wait(30000));
        main.findChild<GapThresholdBox *>()->setCurrentText(QStringLiteral("300"));
        QCOMPARE(main.timelineView()->model()->gapThreshold(), core::TimeNs(300'000));

        CompareWindow compare;
        QSignalSpy both(&compare, &CompareWindow::capturesLoaded);
        compare.openCaptures({ m_rank0 }, { m_rank1 });
        QVERIFY(both.wait(30000));
        compare.findChild<GapThresholdBox *>()->setCurrentText(QStringLiteral("0.4 ms"));
        QCOMPARE(compare.compareView()->gapThreshold(), core::TimeNs(400'000));
        QCOMPARE(compare.compareView()->beforeView()->model()->gapThreshold(), core::TimeNs(400'000));
        QCOMPARE(compare.compareView()->afterView()->model()->gapThreshold(), core::TimeNs(400'000));
    }

    void bookmarkActionsBookmarkTheViewInBothWindows()
    {
        MainWindow main;
        QSignalSpy loaded(main.loadController(), &LoadController::loadFinished);
        main.openPaths({ m_rank0 });
        QVERIFY(loaded.wait(30000));
        CompareWindow compare;
        QSignalSpy both(&compare, &CompareWindow::capturesLoaded);
        compare.openCaptures({ m_rank0 }, { m_rank1 });
        QVERIFY(both.wait(30000));
        for (QMainWindow *w : { static_cast<QMainWindow *>(&main), static_cast<QMainWindow *>(&compare) }) {
            TimelineView *v = w == &main ? main.timelineView() : compare.compareView()->beforeView();
            BookmarkModel *marks = w == &main ? main.bookmarks() : compare.bookmarks();
            v->zoom()->setWindow(
                v->model()->origin() + fixture::us(1000), v->model()->origin() + fixture::us(2000), false);
            actionNamed(*w, "addBookmarkAction")->trigger();
            QCOMPARE(marks->size(), 1);
            QCOMPARE(marks->at(0).name, QStringLiteral("Bookmark 1"));
            QCOMPARE(marks->at(0).range.start - v->model()->trace()->span.start, fixture::us(1000));
            QCOMPARE(marks->at(0).range.duration(), fixture::us(1000));
            // Away and back: the bookmark's range with a 10% margin.
            v->zoom()->fitAll();
            actionNamed(*w, "nextBookmarkAction")->trigger();
            QVERIFY(std::abs(relStart(v) - fixture::us(900)) <= 2);
            QVERIFY(std::abs(relEnd(v) - fixture::us(2100)) <= 2);
        }
    }

    void singleCaptureSessionOpensAMainWindowWithTheSessionApplied()
    {
        std::unique_ptr<MainWindow> main(
            openAndWait<MainWindow>(writeSession(QStringLiteral("single.gaplens.json"), false)));
        QVERIFY(main);
        QVERIFY(main->isVisible());
        verifySessionApplied(main->timelineView(), { m_rank0 });
        QCOMPARE(main->findChild<GapThresholdBox *>()->currentText(), QStringLiteral("200 us"));
        QCOMPARE(main->bookmarks()->size(), 1);
        QCOMPARE(main->bookmarks()->at(0).range.start - main->timelineView()->model()->trace()->span.start,
            fixture::us(1100));
    }

    void beforeAfterSessionOpensACompareWindowWithTheSessionApplied()
    {
        std::unique_ptr<CompareWindow> compare(
            openAndWait<CompareWindow>(writeSession(QStringLiteral("pair.gaplens.json"), true)));
        QVERIFY(compare);
        QVERIFY(compare->isVisible());
        verifySessionApplied(compare->compareView()->beforeView(), { m_rank0 });
        QCOMPARE(compare->compareView()->afterView()->model()->trace()->reports.size(), std::size_t(1));
        QCOMPARE(compare->compareView()->gapThreshold(), core::TimeNs(200'000));
        QCOMPARE(compare->bookmarks()->size(), 1);
    }

    void sessionKindSurvivesMissingAfterFilesAndOldFiles()
    {
        // Saved by the compare window, its after file gone: still a before/after review.
        QTemporaryDir dir;
        const QString after = writeCapture(dir, QStringLiteral("after.sqlite"), 1);
        Session s = sessionOf({ m_rank0 }, { after });
        QVERIFY(s.beforeAfter);
        const QString path = dir.filePath(QStringLiteral("review.gaplens.json"));
        QVERIFY(SessionFile::write(s, path));
        QVERIFY(QFile::remove(after));
        auto read = SessionFile::read(path);
        QVERIFY(read.ok);
        QVERIFY(read.session.after.isEmpty());
        QVERIFY(read.session.beforeAfter);

        // A file written before the "window" key: before/after when it lists after files.
        QJsonObject json = SessionFile::toJson(s, path);
        json.remove(QStringLiteral("window"));
        QVERIFY(SessionFile::fromJson(json, path).session.beforeAfter);
        s.after.clear();
        json = SessionFile::toJson(s, path);
        json.remove(QStringLiteral("window"));
        QVERIFY(!SessionFile::fromJson(json, path).session.beforeAfter);
    }

    void singleCaptureSessionFromTheCompareWindowOpensItsMainWindow()
    {
        const QString single = writeSession(QStringLiteral("single.gaplens.json"), false);
        auto *compare = new CompareWindow;
        QString error;
        Workspace *workspace = WindowRouter::openSession(single, {}, compare->workspace(), &error);
        QVERIFY2(workspace, qPrintable(error));
        QPointer<MainWindow> main = windowOf<MainWindow>(workspace);
        QVERIFY(main);
        QCOMPARE(compare->workspace()->partner(), workspace);
        QSignalSpy applied(main->workspace(), &Workspace::sessionApplied);
        QVERIFY(applied.wait(30000));
        verifySessionApplied(main->timelineView(), { m_rank0 });
        QVERIFY(!compare->compareView()->beforeView()->model()->trace()); // the compare window is untouched

        // Again: the same main window, not a second one.
        QCOMPARE(WindowRouter::openSession(single, {}, compare->workspace(), &error), workspace);
        QVERIFY(applied.wait(30000));

        // And back: a before/after session from that main window opens in its compare window.
        const QString pair = writeSession(QStringLiteral("pair.gaplens.json"), true);
        QCOMPARE(WindowRouter::openSession(pair, {}, main->workspace(), &error), compare->workspace());
        QCOMPARE(main->compareWindow(), compare);
        QSignalSpy compareApplied(compare->workspace(), &Workspace::sessionApplied);
        QVERIFY(compareApplied.wait(30000));
        verifySessionApplied(compare->compareView()->beforeView(), { m_rank0 });
        delete compare;
        QVERIFY(!main->workspace()->partner());
        delete main.data();
    }

    void beforeAfterSessionFromTheMainWindowOpensACompareWindowWithIt()
    {
        const QString pair = writeSession(QStringLiteral("pair.gaplens.json"), true);
        MainWindow main;
        QVERIFY(!main.compareWindow());
        QString error;
        Workspace *workspace = WindowRouter::openSession(pair, {}, main.workspace(), &error);
        QVERIFY2(workspace, qPrintable(error));
        std::unique_ptr<CompareWindow> compare(windowOf<CompareWindow>(workspace));
        QVERIFY(compare);
        QCOMPARE(main.compareWindow(), compare.get());
        QVERIFY(compare->testAttribute(Qt::WA_DeleteOnClose));
        QSignalSpy applied(compare->workspace(), &Workspace::sessionApplied);
        QVERIFY(applied.wait(30000));
        verifySessionApplied(compare->compareView()->beforeView(), { m_rank0 });
        QVERIFY(!main.timelineView()->model()->trace()); // the main window keeps what it had
        // Compare with… reuses the paired window.
        QSignalSpy loaded(main.loadController(), &LoadController::loadFinished);
        main.openPaths({ m_rank0 });
        QVERIFY(loaded.wait(30000));
        QCOMPARE(main.openCompareWith({ m_rank1 }), compare.get());
    }

    void sessionWithNoCaptureLeftFailsWithoutANewWindow()
    {
        QTemporaryDir dir;
        const QString gone = writeCapture(dir, QStringLiteral("gone.sqlite"), 0);
        const QString path = dir.filePath(QStringLiteral("gone.gaplens.json"));
        QVERIFY(SessionFile::write(sessionOf({ gone }), path));
        QVERIFY(QFile::remove(gone));
        const int windowsBefore = int(QApplication::topLevelWidgets().size());
        QString error;
        QVERIFY(!WindowRouter::openSession(
            path, [](const QString &) { return QString(); }, nullptr, &error));
        QCOMPARE(error, QStringLiteral("none of the session's capture files could be found"));
        QCOMPARE(int(QApplication::topLevelWidgets().size()), windowsBefore);
        QVERIFY(!WindowRouter::openSession(dir.filePath(QStringLiteral("nothing.json")), {}, nullptr, &error));
        QVERIFY(error.contains(QStringLiteral("nothing.json")));
    }

    // "--session FILE" as two arguments: Qt's own session management would take them out of
    // the arguments if gaplens did not join them first.
    void binaryOpensASingleCaptureSessionInTheMainWindow()
    {
        const QString path = writeSession(QStringLiteral("single.gaplens.json"), false);
        const QString picture = m_dir.filePath(QStringLiteral("main.png"));
        const Run run = runGui({ QStringLiteral("--session"), path, QStringLiteral("--grab-window"), picture });
        QVERIFY2(run.exitCode == 0, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        const QStringList fields = run.out.trimmed().split(QLatin1Char('\t'));
        QCOMPARE(fields.size(), 2);
        QCOMPARE(fields[0], QStringLiteral("gaplens::ui::MainWindow"));
        QCOMPARE(fields[1], QStringLiteral("gaplens — rank0.sqlite"));
        const QImage image(picture);
        QVERIFY(!image.isNull());
        QVERIFY2(image.width() >= 1000 && image.height() >= 600,
            qPrintable(QStringLiteral("%1x%2").arg(image.width()).arg(image.height())));

        // The before/after session opens the compare window instead.
        const QString pair = writeSession(QStringLiteral("pair.gaplens.json"), true);
        const Run compare = runGui({ QStringLiteral("--session"), pair, QStringLiteral("--grab-window"), picture });
        QVERIFY2(compare.exitCode == 0, qPrintable(compare.err));
        QVERIFY2(compare.out.startsWith(QStringLiteral("gaplens::ui::CompareWindow\t")), qPrintable(compare.out));
        QVERIFY(compare.out.contains(QStringLiteral("rank0.sqlite → rank1.sqlite")));
    }

    void binaryReportsASessionItCannotOpen()
    {
        const QString missing = m_dir.filePath(QStringLiteral("missing.gaplens.json"));
        const Run run = runGui({ QStringLiteral("--session"), missing });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("gaplens: ") + missing + QStringLiteral(": ")), qPrintable(run.err));
    }
};

QTEST_MAIN(TestWorkspace)
#include "tst_workspace.moc"
