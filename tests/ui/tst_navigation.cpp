// SPDX-License-Identifier: MIT
// Getting around the timeline: the navigation keys from any widget (View > Navigate), the
// horizontal scroll bar over the capture, Help > Keyboard Shortcuts, and "Loading…" in the
// timeline while a capture loads; both windows open maximised, then where they were closed.
#include "ui_fixture.h"

#include "ui/compare/comparewindow.h"
#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/panels/paneltable.h"
#include "ui/panels/topkernelspanel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"
#include "ui/workspace/helpmenu.h"

#include <QAction>
#include <QLineEdit>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

core::TimeNs windowNs(const ZoomControl &z)
{
    return z.windowEnd() - z.windowStart();
}

QLineEdit *findBox(MainWindow &w)
{
    for (auto *edit : w.findChildren<QLineEdit *>())
        if (edit->placeholderText().startsWith(QStringLiteral("Find")))
            return edit;
    return nullptr;
}

} // namespace

class TestNavigation : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QStringList m_files;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the geometry test writes settings
        QVERIFY(m_dir.isValid());
        for (int r = 0; r < 2; ++r) {
            m_files << m_dir.filePath(QStringLiteral("rank%1.sqlite").arg(r));
            fixture::writeExport(m_files.back().toStdString(), r);
        }
    }

    void theTimelineSaysItIsLoadingUntilTheCaptureArrives()
    {
        MainWindow w;
        QSignalSpy finished(w.loadController(), &LoadController::loadFinished);
        QVERIFY(w.timelineView()->loadingText().isEmpty());
        w.openPaths(m_files);
        QVERIFY2(w.timelineView()->loadingText().startsWith(QStringLiteral("Loading…")),
            qPrintable(w.timelineView()->loadingText()));
        QVERIFY(finished.wait(30000));
        QVERIFY(w.timelineView()->loadingText().isEmpty());
    }

    void navigationKeysWorkWhateverWidgetHasTheFocus()
    {
        MainWindow w;
        QSignalSpy finished(w.loadController(), &LoadController::loadFinished);
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.openPaths(m_files);
        QVERIFY(finished.wait(30000));
        ZoomControl &zoom = *w.timelineView()->zoom();
        QVERIFY(zoom.isFitted());
        const core::TimeNs all = windowNs(zoom);

        // The focus is in the Top Kernels table, not the timeline.
        QTableView *table = w.topKernelsPanel()->table();
        table->setFocus();
        QVERIFY(QTest::qWaitFor([&] { return table->hasFocus(); }));
        QTest::keyClick(table, Qt::Key_W);
        QVERIFY2(
            std::abs(double(windowNs(zoom)) - double(all) / 1.5) <= 2, qPrintable(QString::number(windowNs(zoom))));
        const core::TimeNs start = zoom.windowStart();
        QTest::keyClick(table, Qt::Key_D);
        QVERIFY(zoom.windowStart() > start);
        QTest::keyClick(table, Qt::Key_A);
        QCOMPARE(zoom.windowStart(), start);
        QTest::keyClick(table, Qt::Key_S);
        QVERIFY(windowNs(zoom) > all * 9 / 10);
        QTest::keyClick(table, Qt::Key_W);
        QTest::keyClick(table, Qt::Key_Home);
        QVERIFY(zoom.isFitted());
        QTest::keyClick(table, Qt::Key_Left, Qt::AltModifier); // Back to the zoomed window
        QVERIFY(!zoom.isFitted());
        QTest::keyClick(table, Qt::Key_Home);

        // A line edit still types the letters.
        QLineEdit *find = findBox(w);
        QVERIFY(find);
        find->setFocus();
        QVERIFY(QTest::qWaitFor([&] { return find->hasFocus(); }));
        QTest::keyClicks(find, QStringLiteral("wasd"));
        QCOMPARE(find->text(), QStringLiteral("wasd"));
        QVERIFY(zoom.isFitted());
    }

    void theScrollBarShowsAndMovesTheWindowInTheCapture()
    {
        TimelineView view;
        view.resize(1000, 500);
        view.show();
        view.setData(prepareTimelineData(fixture::buildTrace(2)));
        ZoomControl &zoom = *view.zoom();
        QScrollBar *bar = view.horizontalScrollBar();
        QCOMPARE(bar->maximum(), 0); // all of it shown: nothing to scroll
        QTRY_VERIFY(!bar->isVisible());
        zoom.zoomAt(0, 4);
        QTRY_VERIFY(bar->isVisible());
        const core::TimeRange trace = zoom.traceRange();
        QCOMPARE(bar->value(), 0);
        QVERIFY(std::abs(bar->pageStep() - TimelineView::kScrollSteps / 4) <= 1);
        QCOMPARE(bar->maximum(), TimelineView::kScrollSteps - bar->pageStep());
        const core::TimeNs shown = windowNs(zoom);
        bar->setValue(bar->maximum()); // dragged to the end: the window ends with the capture
        QCOMPARE(windowNs(zoom), shown);
        QVERIFY2(
            std::abs(double(zoom.windowEnd() - trace.end)) <= double(trace.duration()) / TimelineView::kScrollSteps + 1,
            qPrintable(QString::number(zoom.windowEnd() - trace.end)));
        zoom.panPixels(-250); // a pan moves the bar
        QVERIFY(bar->value() < bar->maximum());
        QVERIFY(bar->value() > 0);
        bar->setValue(0);
        QCOMPARE(zoom.windowStart(), trace.start);
        zoom.fitAll();
        QTRY_VERIFY(!bar->isVisible());
    }

    void bothWindowsOpenMaximisedThenWhereTheyWereClosed()
    {
        QSettings().clear();
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        QRect closedAt;
        {
            CompareWindow first;
            first.showRestored();
            QVERIFY(QTest::qWaitForWindowExposed(&first));
            QVERIFY(first.isMaximized());
            QCOMPARE(first.frameGeometry().size(), screen.size());
            first.showNormal();
            first.setGeometry(screen.adjusted(40, 40, 0, -120)); // the panel keeps a minimum width
            QVERIFY(QTest::qWaitFor([&] { return first.geometry().height() == screen.height() - 160; }));
            closedAt = first.geometry();
            QVERIFY(!first.isMaximized());
            first.close();
        }
        CompareWindow second;
        second.showRestored();
        QVERIFY(QTest::qWaitForWindowExposed(&second));
        QCOMPARE(second.geometry(), closedAt);
        second.showRestored(); // already open: only raised, where it is
        QCOMPARE(second.geometry(), closedAt);

        MainWindow main;
        main.showRestored();
        QVERIFY(QTest::qWaitForWindowExposed(&main));
        QVERIFY(main.isMaximized());
        QCOMPARE(main.frameGeometry().size(), screen.size());
    }

    void helpListsEveryShortcutFromTheMenus()
    {
        MainWindow w;
        auto *help = w.findChild<QAction *>(QStringLiteral("keyboardShortcutsAction"));
        QVERIFY(help);
        QCOMPARE(help->shortcuts(),
            (QList<QKeySequence> { QKeySequence(QKeySequence::HelpContents), QKeySequence(Qt::Key_Question) }));
        const QString html = shortcutsHtml(w);
        for (const char *entry :
            { "<b>Home</b></td><td>View › Navigate › Fit All", "<b>W</b></td><td>View › Navigate › Zoom In",
                "<b>D</b></td><td>View › Navigate › Pan Right", "<b>F3</b></td><td>Timeline toolbar › Next match (F3)",
                "<b>Ctrl+F</b></td><td>Go to the Find Box", "<b>Ctrl+B</b></td><td>View › Add Bookmark",
                "<b>F1, ?</b></td><td>Help › Keyboard Shortcuts", "<b>Wheel</b></td><td>Zoom in or out",
                "<b>Right-click a kernel</b></td><td>Copy the Nsight Compute command" })
            QVERIFY2(html.contains(QString::fromUtf8(entry)), entry);
    }
};

QTEST_MAIN(TestNavigation)
#include "tst_navigation.moc"
