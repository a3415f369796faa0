// SPDX-License-Identifier: MIT
// Session files: saving and reopening restores the view range, threshold, alignment, bookmarks
// and notes (compare window and main window); paths are relative to the session file; a
// session whose files moved asks where they are (an injected resolver) and finds the rest of a
// moved folder by itself; a missing file is reported while the rest loads.
#include "session_fixture.h"
#include "testsupport.h"
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
#include "ui/workspace/workspace.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

core::TimeNs relStart(const TimelineView *v)
{
    return v->zoom()->windowStart() - v->model()->origin();
}

core::TimeNs relEnd(const TimelineView *v)
{
    return v->zoom()->windowEnd() - v->model()->origin();
}

} // namespace

class TestReviewSession : public QObject
{
    Q_OBJECT
private:
    // A folder with rank0.sqlite and rank1.sqlite (the ui fixture), fresh per test.
    std::unique_ptr<QTemporaryDir> makeFolder()
    {
        auto dir = std::make_unique<QTemporaryDir>();
        fixture::writeExport(dir->filePath(QStringLiteral("rank0.sqlite")).toStdString(), 0);
        fixture::writeExport(dir->filePath(QStringLiteral("rank1.sqlite")).toStdString(), 1);
        return dir;
    }

    // What saveCompareSession() leaves behind: the folder (rank0/rank1 and the session file),
    // the bookmarks and view range that were saved, and the session's path (empty on failure).
    struct SavedCompareSession
    {
        std::unique_ptr<QTemporaryDir> dir;
        std::vector<Bookmark> bookmarks;
        core::TimeRange view;
        QString path;
    };

    // A fresh folder and a compare window on rank0 (before) vs rank1 (after), with a view,
    // threshold and bookmarks set, saved to <dir>/review.gaplens.json.
    SavedCompareSession saveCompareSession()
    {
        SavedCompareSession saved;
        saved.dir = makeFolder();
        const QTemporaryDir &dir = *saved.dir;
        CompareWindow w;
        QSignalSpy loaded(&w, &CompareWindow::capturesLoaded);
        w.openCaptures(
            { dir.filePath(QStringLiteral("rank0.sqlite")) }, { dir.filePath(QStringLiteral("rank1.sqlite")) });
        if (!loaded.wait(30000))
            return saved;
        auto *b = w.compareView()->beforeView();
        w.compareView()->setAlignment(CompareView::AlignMode::NvtxOccurrence, QStringLiteral("train_step"), 1);
        w.compareView()->setGapThreshold(50'000);
        b->zoom()->setWindow(b->model()->origin() + fixture::us(1000), b->model()->origin() + fixture::us(2000));
        saved.view = { relStart(b), relEnd(b) };
        w.addBookmark(QStringLiteral("sync wait"), QStringLiteral("cudaStreamSynchronize blocks 490 us"));
        b->zoom()->setWindow(b->model()->origin() + fixture::us(1500), b->model()->origin() + fixture::us(2700));
        w.addBookmark(QStringLiteral("all-reduce"), QStringLiteral("NCCL after the gap"));
        b->zoom()->setWindow(b->model()->origin() + saved.view.start, b->model()->origin() + saved.view.end);
        saved.bookmarks = w.bookmarks()->bookmarks();
        const QString path = dir.filePath(QStringLiteral("review.gaplens.json"));
        QString error;
        if (w.saveSession(path, &error))
            saved.path = path;
        return saved;
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void compareSessionRestoresViewThresholdAndBookmarks()
    {
        const auto [dir, bookmarks, view, path] = saveCompareSession();
        QVERIFY(!path.isEmpty());
        QCOMPARE(bookmarks.size(), std::size_t(2));

        // Paths are stored relative to the session file (the folder can be shared as one).
        const auto json = readJson(path);
        QCOMPARE(
            json.value(QStringLiteral("before")).toArray().at(0).toObject().value(QStringLiteral("path")).toString(),
            QStringLiteral("rank0.sqlite"));
        QCOMPARE(
            json.value(QStringLiteral("after")).toArray().at(0).toObject().value(QStringLiteral("path")).toString(),
            QStringLiteral("rank1.sqlite"));
        QCOMPARE(json.value(QStringLiteral("gap_threshold_ns")).toString(), QStringLiteral("50000"));

        CompareWindow w;
        QSignalSpy problems(w.workspace(), &Workspace::sessionProblems);
        CHECK(fixture::openSessionAndWait(w, path));
        QCOMPARE(problems.count(), 0);
        auto *b = w.compareView()->beforeView();
        QCOMPARE(b->model()->gapThreshold(), core::TimeNs(50'000));
        QCOMPARE(w.compareView()->afterView()->model()->gapThreshold(), core::TimeNs(50'000));
        QCOMPARE(w.compareView()->gapThreshold(), core::TimeNs(50'000));
        QVERIFY(std::abs(relStart(b) - view.start) <= 2);
        QVERIFY(std::abs(relEnd(b) - view.end) <= 2);
        QCOMPARE(w.compareView()->alignMode(), CompareView::AlignMode::NvtxOccurrence);
        QCOMPARE(w.compareView()->alignRangeName(), QStringLiteral("train_step"));
        QCOMPARE(w.bookmarks()->size(), 2);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(w.bookmarks()->at(i).name, bookmarks[i].name);
            QCOMPARE(w.bookmarks()->at(i).note, bookmarks[i].note);
            QCOMPARE(w.bookmarks()->at(i).range.start, bookmarks[i].range.start);
            QCOMPARE(w.bookmarks()->at(i).range.end, bookmarks[i].range.end);
        }
        QAbstractItemModelTester tester(w.bookmarks(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(w.bookmarks()->index(0, BookmarkModel::NoteColumn).data().toString(),
            QStringLiteral("cudaStreamSynchronize blocks 490 us"));
        QCOMPARE(w.bookmarks()->index(0, BookmarkModel::StartColumn).data().toString(), QStringLiteral("1.000 ms"));
        // Jumping to a bookmark shows its range (with a 10% margin) and selects it on the ruler.
        w.jumpToBookmark(1);
        QVERIFY(std::abs(relStart(b) - (fixture::us(1500) - fixture::us(120))) <= 2);
    }

    void sessionWithAMissingFileReportsItAndLoadsTheRest()
    {
        const auto [dir, bookmarks, view, path] = saveCompareSession();
        QVERIFY(!path.isEmpty());
        QVERIFY(QFile::remove(dir->filePath(QStringLiteral("rank1.sqlite"))));

        QStringList asked;
        const auto r = SessionFile::read(path, [&](const QString &missing) {
            asked << missing;
            return QString(); // the user cancels: skip it
        });
        QVERIFY(r.ok);
        QCOMPARE(asked, QStringList { QDir::cleanPath(dir->filePath(QStringLiteral("rank1.sqlite"))) });
        QCOMPARE(r.missing, asked);
        QCOMPARE(r.session.before, QStringList { QDir::cleanPath(dir->filePath(QStringLiteral("rank0.sqlite"))) });
        QVERIFY(r.session.after.isEmpty());

        CompareWindow w;
        QSignalSpy applied(w.workspace(), &Workspace::sessionApplied);
        QSignalSpy problems(w.workspace(), &Workspace::sessionProblems);
        QVERIFY(w.openSession(path, [](const QString &) { return QString(); }));
        QVERIFY(applied.wait(30000));
        QCOMPARE(problems.count(), 1);
        const QStringList messages = problems.front().front().toStringList();
        QCOMPARE(messages.size(), 1);
        QVERIFY(messages.front().contains(QStringLiteral("rank1.sqlite")));
        // The rest loaded and is restored.
        auto *b = w.compareView()->beforeView();
        QVERIFY(b->model()->trace());
        QCOMPARE(b->model()->trace()->reports.size(), std::size_t(1));
        QVERIFY(!w.compareView()->afterView()->model()->trace());
        QCOMPARE(b->model()->gapThreshold(), core::TimeNs(50'000));
        QVERIFY(std::abs(relStart(b) - view.start) <= 2);
        QCOMPARE(w.bookmarks()->size(), 2);
    }

    void movedFolderIsAskedForOnceAndTheOtherFilesFollow()
    {
        const auto [dir, bookmarks, view, path] = saveCompareSession();
        QVERIFY(!path.isEmpty());
        // The session stays; the captures move to another folder.
        QTemporaryDir elsewhere;
        for (const char *f : { "rank0.sqlite", "rank1.sqlite" })
            QVERIFY(QFile::rename(dir->filePath(QString::fromLatin1(f)), elsewhere.filePath(QString::fromLatin1(f))));
        int asked = 0;
        const auto r = SessionFile::read(path, [&](const QString &missing) {
            ++asked;
            return elsewhere.filePath(QFileInfo(missing).fileName());
        });
        QVERIFY(r.ok);
        QCOMPARE(asked, 1);
        QVERIFY(r.missing.isEmpty());
        QCOMPARE(r.relocated.size(), 2);
        QCOMPARE(r.session.after, QStringList { elsewhere.filePath(QStringLiteral("rank1.sqlite")) });
    }

    void mainWindowSessionRestoresViewThresholdAndBookmarks()
    {
        auto dir = makeFolder();
        const QString path = dir->filePath(QStringLiteral("main.gaplens.json"));
        core::TimeRange view;
        std::vector<Bookmark> bookmarks;
        {
            MainWindow w;
            QSignalSpy loaded(w.loadController(), &LoadController::loadFinished);
            w.openPaths(
                { dir->filePath(QStringLiteral("rank0.sqlite")), dir->filePath(QStringLiteral("rank1.sqlite")) });
            QVERIFY(loaded.wait(30000));
            auto *v = w.timelineView();
            v->model()->setGapThreshold(200'000);
            v->zoom()->setWindow(v->model()->origin() + fixture::us(500), v->model()->origin() + fixture::us(1800));
            view = { relStart(v), relEnd(v) };
            QCOMPARE(w.addBookmark(QStringLiteral("whole view"), QStringLiteral("note 1")), 0);
            // Select rank 1's sgemm_kernel (GPU 1, stream 7, first kernel) so the selection is saved too.
            const auto &k = v->model()->trace()->gpus[1].streams[0].kernels;
            HitResult hit;
            hit.kind = HitKind::Kernel;
            hit.gpu = core::GpuIndex(1);
            hit.stream = core::StreamIndex(0);
            hit.rank = core::RankIndex(1);
            hit.index = 0;
            hit.count = 1;
            hit.start = k.start[0];
            hit.end = k.end[0];
            v->setSelection(hit);
            bookmarks = w.bookmarks()->bookmarks();
            CHECK(fixture::saveSession(w, path));
        }
        MainWindow w;
        CHECK(fixture::openSessionAndWait(w, path));
        auto *v = w.timelineView();
        QCOMPARE(v->model()->trace()->reports.size(), std::size_t(2));
        QCOMPARE(v->model()->gapThreshold(), core::TimeNs(200'000));
        QVERIFY(std::abs(relStart(v) - view.start) <= 2);
        QVERIFY(std::abs(relEnd(v) - view.end) <= 2);
        QCOMPARE(v->selection().kind, HitKind::Kernel);
        QCOMPARE(v->selection().gpu.value(), 1u);
        QCOMPARE(v->selection().index, 0u);
        QCOMPARE(v->model()->str(v->model()->trace()->gpus[1].streams[0].kernels.shortName[v->selection().index]),
            QStringLiteral("sgemm_kernel"));
        QCOMPARE(v->selection().start, v->model()->trace()->gpus[1].streams[0].kernels.start[0]);
        QCOMPARE(w.bookmarks()->size(), 1);
        QCOMPARE(w.bookmarks()->at(0).name, QStringLiteral("whole view"));
        QCOMPARE(w.bookmarks()->at(0).note, QStringLiteral("note 1"));
        QCOMPARE(w.bookmarks()->at(0).range.start, bookmarks[0].range.start);
        QCOMPARE(w.bookmarks()->at(0).range.end, bookmarks[0].range.end);
    }
};

QTEST_MAIN(TestReviewSession)
#include "tst_review_session.moc"
