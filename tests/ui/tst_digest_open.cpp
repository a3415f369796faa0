// SPDX-License-Identifier: MIT
// Opening a digest (DigestOpener): the read runs off the GUI thread behind a progress dialog
// naming the file and its size, and the overview appears when it is done; Cancel during the
// read of a large digest leaves no window and says nothing; a damaged digest is refused with
// the reader's message, naming the file and the field; the GUI thread serves its events while
// the read runs. The read is held at a point of its own by the opener's progress hook, so
// nothing here depends on how fast the machine is.
#include "digest_fixture.h"
#include "gaplens/core/util/units.h"
#include "synth_sample.h"
#include "ui/digest/digestopener.h"
#include "ui/digest/digestwindow.h"
#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/panels/paneltable.h"

#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QRegularExpression>
#include <QSemaphore>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>

#include <atomic>
#include <mutex>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

constexpr int kWaitMs = 60000; // a safety net against a hang only; no assertion is on time

template <class Widget> QList<Widget *> topLevel()
{
    QList<Widget *> found;
    for (auto *w : QApplication::topLevelWidgets())
        if (auto *widget = qobject_cast<Widget *>(w))
            found << widget;
    return found;
}

QJsonObject readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

bool writeJson(const QString &path, const QJsonObject &object)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        && file.write(QJsonDocument(object).toJson(QJsonDocument::Compact)) > 0;
}

// The progress reports a hook saw, on the reading thread.
struct SeenProgress
{
    std::mutex mutex;
    std::vector<core::DigestReadProgress> reports;

    void add(const core::DigestReadProgress &p)
    {
        std::lock_guard lock(mutex);
        reports.push_back(p);
    }
    std::vector<core::DigestReadProgress> all()
    {
        std::lock_guard lock(mutex);
        return reports;
    }
};

} // namespace

class TestDigestOpen : public QObject
{
    Q_OBJECT
private:
    test::SynthSample m_sample;
    QString m_digestPath; // 4 ranks
    QString m_largePath; // its ranks 300 times over: several MiB

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_sample.write(test::synthOptions(4, 8, 2)));
        m_digestPath = m_sample.dir.filePath(QStringLiteral("run.gldigest"));
        QCOMPARE(test::writeDigest(m_digestPath, m_sample.path), 0);

        auto large = readJson(m_digestPath);
        const auto ranks = large.value(QStringLiteral("ranks")).toArray();
        QCOMPARE(ranks.size(), 4);
        QJsonArray many;
        for (int copy = 0; copy < 300; ++copy)
            for (const auto &rank : ranks) {
                auto r = rank.toObject();
                r.insert(QStringLiteral("rank"), many.size());
                many.append(r);
            }
        large.insert(QStringLiteral("ranks"), many);
        m_largePath = m_sample.dir.filePath(QStringLiteral("large.gldigest"));
        QVERIFY(writeJson(m_largePath, large));
        QVERIFY(QFileInfo(m_largePath).size() > 4 << 20);
    }

    void cleanup()
    {
        for (auto *w : QApplication::topLevelWidgets())
            if (qobject_cast<DigestWindow *>(w))
                delete w;
    }

    // The overview appears once the worker has read the file, never within open(); the
    // dialog names the file and its size, and the last progress is the last rank checked.
    void opensOffTheGuiThreadWithTheRankCount()
    {
        auto *opener = DigestOpener::open(m_digestPath);
        QPointer<DigestOpener> alive(opener);
        QVERIFY(topLevel<DigestWindow>().isEmpty()); // the result can only arrive through the event loop
        QVERIFY(opener->progressDialog());
        QStringList labels;
        connect(opener, &DigestOpener::progressChanged, this,
            [&labels, opener] { labels << opener->progressDialog()->labelText(); });
        QSignalSpy progress(opener, &DigestOpener::progressChanged);
        QSignalSpy opened(opener, &DigestOpener::opened);
        QSignalSpy failed(opener, &DigestOpener::failed);
        QVERIFY(opened.wait(kWaitMs));
        QCOMPARE(failed.count(), 0);

        auto *window = opened.takeFirst().at(0).value<DigestWindow *>();
        QCOMPARE(topLevel<DigestWindow>(), QList<DigestWindow *> { window });
        QVERIFY(window->isVisible());
        QCOMPARE(window->digest().ranks.size(), std::size_t(4));
        QCOMPARE(window->rankTable()->tableModel()->rowCount(), 4);

        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(0).toInt(), 1000);
        QCOMPARE(progress.last().at(1).toString(), QStringLiteral("Checking ranks: 4 of 4"));
        const auto title
            = QStringLiteral("Opening run.gldigest (%1)")
                  .arg(QString::fromStdString(core::formatBytes(std::uint64_t(QFileInfo(m_digestPath).size()))));
        const QString head = title + QStringLiteral("\nChecking ranks: 4 of 4");
        QVERIFY2(labels.last().startsWith(head), qPrintable(labels.last()));
        // Then how long it took (nothing left at the end).
        static const QRegularExpression elapsed(QStringLiteral("^\n\\d+\\.\\d s elapsed$"));
        QVERIFY2(elapsed.match(labels.last().mid(head.size())).hasMatch(), qPrintable(labels.last()));
        QTRY_VERIFY_WITH_TIMEOUT(!alive, kWaitMs); // the opener goes by itself
    }

    // Cancel while the large digest is half read, by the button, Escape or closing the dialog:
    // no window, no message, nothing more read.
    void cancelDuringTheReadLeavesNoWindowAndNoError_data()
    {
        QTest::addColumn<QString>("how");
        QTest::newRow("button") << QStringLiteral("button");
        QTest::newRow("escape") << QStringLiteral("escape");
        QTest::newRow("close") << QStringLiteral("close");
    }
    void cancelDuringTheReadLeavesNoWindowAndNoError()
    {
        QFETCH(QString, how);
        auto *opener = new DigestOpener(m_largePath);
        QPointer<DigestOpener> alive(opener);
        QSemaphore reached, proceed;
        SeenProgress seen;
        opener->setProgressHook([&](const core::DigestReadProgress &p) {
            seen.add(p);
            if (seen.all().size() == 1) { // hold the read at its first MiB until it is cancelled
                reached.release();
                proceed.tryAcquire(1, kWaitMs);
            }
        });
        QSignalSpy opened(opener, &DigestOpener::opened);
        QSignalSpy failed(opener, &DigestOpener::failed);
        QSignalSpy cancelled(opener, &DigestOpener::cancelled);
        opener->start();
        QVERIFY(reached.tryAcquire(1, kWaitMs));

        auto *dialog = opener->progressDialog();
        QVERIFY(dialog);
        dialog->show(); // as it does once the read takes a moment
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        if (how == QStringLiteral("button")) {
            auto *cancel = dialog->findChild<QPushButton *>();
            QVERIFY(cancel);
            QCOMPARE(cancel->text(), QStringLiteral("Cancel"));
            QTest::mouseClick(cancel, Qt::LeftButton);
        } else if (how == QStringLiteral("escape")) {
            QTest::keyClick(dialog, Qt::Key_Escape);
        } else {
            QVERIFY(dialog->close());
        }
        QVERIFY(!dialog->isVisible());
        proceed.release();

        QVERIFY(cancelled.wait(kWaitMs));
        QCOMPARE(opened.count(), 0);
        QCOMPARE(failed.count(), 0);
        QVERIFY(topLevel<DigestWindow>().isEmpty());
        QVERIFY(topLevel<QMessageBox>().isEmpty());
        QVERIFY(!opener->progressDialog());
        const auto reports = seen.all();
        QCOMPARE(reports.size(), std::size_t(1)); // stopped right after the held report
        QCOMPARE(reports[0].stage, std::string_view("reading"));
        QCOMPARE(reports[0].done, std::uint64_t(1) << 20);
        QCOMPARE(reports[0].total, std::uint64_t(QFileInfo(m_largePath).size()));
        QTRY_VERIFY_WITH_TIMEOUT(!alive, kWaitMs);
    }

    // The read cannot go past its first report before a timer of the GUI thread has fired:
    // the GUI thread runs its event loop while the worker reads.
    void theGuiThreadServesEventsDuringTheRead()
    {
        auto *opener = new DigestOpener(m_largePath);
        QSemaphore ticked;
        std::atomic<bool> heldUntilTick { false };
        std::atomic<int> reports { 0 };
        opener->setProgressHook([&](const core::DigestReadProgress &) {
            if (reports++ == 0)
                heldUntilTick = ticked.tryAcquire(1, kWaitMs);
        });
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, this, [&] {
            if (ticks++ == 0)
                ticked.release();
        });
        QSignalSpy opened(opener, &DigestOpener::opened);
        opener->start();
        timer.start(0);
        QVERIFY(opened.wait(kWaitMs));
        timer.stop();
        QVERIFY(heldUntilTick);
        QVERIFY(ticks >= 1);
        QVERIFY(reports > 1);
        QCOMPARE(opened.takeFirst().at(0).value<DigestWindow *>()->digest().ranks.size(), std::size_t(1200));
    }

    // File > Open of a digest goes through the opener too: the overview, or the reader's message.
    void mainWindowOpensADigestAsAnOverview()
    {
        QVERIFY(isDigestPath(QStringLiteral("/x/RUN.GLDIGEST")));
        QVERIFY(!isDigestPath(QStringLiteral("/x/run.sqlite")));
        MainWindow main;
        main.setAttribute(Qt::WA_DeleteOnClose, false);
        main.openPaths({ m_digestPath });
        auto *opener = main.findChild<DigestOpener *>();
        QVERIFY(opener);
        QCOMPARE(opener->path(), m_digestPath);
        QSignalSpy opened(opener, &DigestOpener::opened);
        QVERIFY(opened.wait(kWaitMs));
        const auto overviews = topLevel<DigestWindow>();
        QCOMPARE(overviews.size(), 1);
        QCOMPARE(overviews.front()->digest().ranks.size(), std::size_t(4));
        QVERIFY(!main.loadController()->isLoading());
        QVERIFY(!main.findChild<QMessageBox *>());
    }

    void aDamagedDigestIsRefusedNamingTheFileAndTheField_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("error");
        QTest::newRow("version") << QStringLiteral(
            "version") << QStringLiteral("version: version 9 is newer than this gaplens reads (1); update gaplens");
        QTest::newRow("rank field") << QStringLiteral("ranks[1].busy_ns")
                                    << QStringLiteral("ranks[1].busy_ns: expected an integer");
    }
    void aDamagedDigestIsRefusedNamingTheFileAndTheField()
    {
        QFETCH(QString, field);
        QFETCH(QString, error);
        auto digest = readJson(m_digestPath);
        if (field == QStringLiteral("version")) {
            digest.insert(QStringLiteral("version"), 9);
        } else {
            auto ranks = digest.value(QStringLiteral("ranks")).toArray();
            auto rank = ranks[1].toObject();
            rank.insert(QStringLiteral("busy_ns"), QStringLiteral("soon"));
            ranks[1] = rank;
            digest.insert(QStringLiteral("ranks"), ranks);
        }
        const auto bad = m_sample.dir.filePath(QStringLiteral("bad.gldigest"));
        QVERIFY(writeJson(bad, digest));

        MainWindow main;
        main.setAttribute(Qt::WA_DeleteOnClose, false);
        main.openPaths({ bad });
        auto *opener = main.findChild<DigestOpener *>();
        QVERIFY(opener);
        QSignalSpy failed(opener, &DigestOpener::failed);
        QVERIFY(failed.wait(kWaitMs));
        QCOMPARE(failed.takeFirst().at(0).toString(), bad + QStringLiteral(": ") + error);
        auto *box = main.findChild<QMessageBox *>();
        QVERIFY(box);
        QCOMPARE(box->text(), bad + QStringLiteral(": ") + error);
        QCOMPARE(box->windowTitle(), QStringLiteral("Cannot open the digest"));
        QVERIFY(topLevel<DigestWindow>().isEmpty());
        box->close();
    }
};

QTEST_MAIN(TestDigestOpen)
#include "tst_digest_open.moc"
