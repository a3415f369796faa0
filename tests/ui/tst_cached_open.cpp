// SPDX-License-Identifier: MIT
// The app with its report cache (LoadController::setReportCache, which the app's main()
// sets): the first open reads the exports in two stages, a reopen takes every report from
// the cache in one, shows the same capture, and the status bar says where it came from.
#include "ui_fixture.h"

#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

class TestCachedOpen : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QStringList m_files;

    QString cacheFolder() const { return m_dir.filePath(QStringLiteral("cache")); }

    // Opens the files in a new window; returns its status text, the first stages seen and
    // the kernels loaded.
    struct Opened
    {
        QString status;
        QString statusToolTip;
        int firstStages = 0;
        std::size_t kernels = 0;
    };
    Opened open()
    {
        MainWindow w;
        QSignalSpy first(w.loadController(), &LoadController::firstStageLoaded);
        QSignalSpy finished(w.loadController(), &LoadController::loadFinished);
        w.openPaths(m_files);
        if (!finished.wait(30000))
            return {};
        auto *status = w.findChild<QLabel *>(QStringLiteral("captureStatus"));
        Opened opened { status ? status->text() : QString(), status ? status->toolTip() : QString(),
            int(first.count()) };
        for (const auto &gpu : w.timelineView()->model()->trace()->gpus)
            opened.kernels += gpu.kernelCount();
        return opened;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        for (int r = 0; r < 2; ++r) {
            m_files << m_dir.filePath(QStringLiteral("rank%1.sqlite").arg(r));
            fixture::writeExport(m_files.back().toStdString(), r);
        }
        core::ReportCacheOptions cache;
        cache.directory = cacheFolder().toStdString();
        LoadController::setReportCache(cache);
    }
    void cleanupTestCase() { LoadController::setReportCache({}); }

    void aReopenComesFromTheCacheAndSaysSo()
    {
        const auto firstOpen = open();
        QCOMPARE(firstOpen.firstStages, 1);
        QVERIFY2(firstOpen.status.startsWith(QStringLiteral("2 report(s), 2 rank(s)")), qPrintable(firstOpen.status));
        QCOMPARE(QDir(cacheFolder()).entryList(QDir::Files).size(), qsizetype(2));

        const auto reopen = open();
        QCOMPARE(reopen.firstStages, 0); // whole at once: nothing to show before it
        QVERIFY2(reopen.status.startsWith(QStringLiteral("2 report(s) (2 from the cache), 2 rank(s)")),
            qPrintable(reopen.status));
        QVERIFY(reopen.kernels > 0);
        QCOMPARE(reopen.kernels, firstOpen.kernels);
        QVERIFY2(!reopen.status.contains(QStringLiteral("cache not written")), qPrintable(reopen.status));
        QCOMPARE(reopen.statusToolTip, QString());
    }

    // A cache folder that cannot be made: the capture opens as without a cache, and the status
    // bar says the cache was not written, with why on hover.
    void anUnwritableCacheIsSaid()
    {
        QTemporaryDir dir;
        const auto blocker = dir.filePath(QStringLiteral("a-file"));
        QFile file(blocker);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        core::ReportCacheOptions cache;
        cache.directory = QString(blocker + QStringLiteral("/cache")).toStdString();
        LoadController::setReportCache(cache);
        const auto opened = open();
        core::ReportCacheOptions usual;
        usual.directory = cacheFolder().toStdString();
        LoadController::setReportCache(usual);
        QVERIFY2(opened.status.startsWith(QStringLiteral("2 report(s), 2 rank(s)")), qPrintable(opened.status));
        QVERIFY2(opened.status.endsWith(QStringLiteral("; report cache not written (hover for why)")),
            qPrintable(opened.status));
        QCOMPARE(opened.statusToolTip,
            QStringLiteral("the report cache in %1/cache was not written (cannot create the folder: Not a directory); "
                           "the reports are read from their exports each time")
                .arg(blocker));
    }
};

QTEST_MAIN(TestCachedOpen)
#include "tst_cached_open.moc"
