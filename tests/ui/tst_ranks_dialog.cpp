// SPDX-License-Identifier: MIT
// View > Ranks…: the rank mapping as gaplens-cli ranks prints it, edits checked for duplicates
// and gaps, Apply reloading with the new ranks (every view follows: pace and its straggler
// verdict), and the overrides kept by a session.
#include "synth_sample.h"
#include "testsupport.h"

#include "gaplens/core/read/rank_identity.h"
#include "ui/loading/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/rankpacepanel.h"
#include "ui/ranks/rankmappingmodel.h"
#include "ui/ranks/ranksdialog.h"
#include "ui/session/session.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"
#include "ui/workspace/workspace.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

// The window's capture after its current load has finished.
std::shared_ptr<const core::TraceSet> loaded(MainWindow &w, const core::TraceSet *previous = nullptr)
{
    if (!QTest::qWaitFor(
            [&] {
                const auto t = w.panelContext()->trace();
                return t && t.get() != previous && !w.loadController()->isLoading();
            },
            60000))
        return nullptr;
    return w.panelContext()->trace();
}

bool paceDone(RankPacePanel *pace, int generation)
{
    return QTest::qWaitFor([&] { return pace->generation() > generation && !pace->isComputing(); }, 60000);
}

} // namespace

class TestRanksDialog : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void dialogShowsWhatTheCliPrintsAndFlagsDuplicatesAndGaps()
    {
        const auto ring = QString::fromStdString(test::realFile("ring_6ranks"));
        QVERIFY(!ring.isEmpty());
        MainWindow w;
        w.show();
        w.openPaths({ ring });
        const auto trace = loaded(w);
        QVERIFY(trace);
        // In the View menu.
        QAction *menuEntry = nullptr;
        for (QAction *menu : w.menuBar()->actions())
            if (menu->text() == QStringLiteral("&View"))
                for (QAction *a : menu->menu()->actions())
                    if (a->text() == QStringLiteral("&Ranks…"))
                        menuEntry = a;
        QVERIFY(menuEntry);
        menuEntry->trigger();
        RanksDialog *dialog = w.showRanksDialog();
        QVERIFY(dialog->isVisible());
        auto *model = dialog->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);

        // Every fact of core::rankMapping, the rows `gaplens-cli ranks` prints, in its words.
        const auto rows = core::rankMapping(*trace);
        QCOMPARE(model->rowCount(), int(rows.size()));
        for (int r = 0; r < model->rowCount(); ++r) {
            const auto &row = rows[std::size_t(r)];
            auto cell = [&](int c) { return model->index(r, c).data().toString(); };
            QCOMPARE(cell(RankMappingModel::RankColumn), QString::number(row.rank));
            QCOMPARE(cell(RankMappingModel::FileColumn), QString::fromStdString(row.file));
            QCOMPARE(cell(RankMappingModel::PidColumn), QString::number(row.pid));
            QCOMPARE(cell(RankMappingModel::ProcessColumn), QString::fromStdString(row.process));
            QCOMPARE(cell(RankMappingModel::HostColumn), QString::fromStdString(row.host));
            QCOMPARE(cell(RankMappingModel::GpusColumn), QString::fromStdString(row.gpus));
            QCOMPARE(cell(RankMappingModel::DecidedByColumn), QStringLiteral("environment"));
            QCOMPARE(cell(RankMappingModel::DetailColumn), QStringLiteral("PMI_RANK=\"%1\"").arg(row.rank));
        }
        QCOMPARE(model->headerData(RankMappingModel::DecidedByColumn, Qt::Horizontal).toString(),
            QStringLiteral("Decided by"));
        QVERIFY(model->flags(model->index(0, RankMappingModel::RankColumn)) & Qt::ItemIsEditable);
        QVERIFY(!(model->flags(model->index(0, RankMappingModel::FileColumn)) & Qt::ItemIsEditable));
        QCOMPARE(dialog->checkLabel()->text(), QStringLiteral("Ranks 0 to 5, each once."));

        // Rank 0 typed as 1: 1 twice, 0 missing; both said, the clashing cells flagged.
        QVERIFY(model->setData(model->index(0, RankMappingModel::RankColumn), 1));
        QVERIFY(model->isEdited());
        QCOMPARE(dialog->checkLabel()->text(), QStringLiteral("⚠ rank 1 is claimed more than once; no rank 0."));
        QVERIFY(model->index(0, 0).data(Qt::ForegroundRole).isValid());
        QVERIFY(model->index(1, 0).data(Qt::ForegroundRole).isValid());
        QVERIFY(!model->index(2, 0).data(Qt::ForegroundRole).isValid());
        // A gap without a duplicate.
        QVERIFY(model->setData(model->index(1, RankMappingModel::RankColumn), 9));
        QCOMPARE(dialog->checkLabel()->text(), QStringLiteral("⚠ no rank 0, 6, 7, 8."));
        QVERIFY(!model->setData(model->index(1, RankMappingModel::RankColumn), -1)); // refused
        QVERIFY(!model->setData(model->index(1, RankMappingModel::FileColumn), 3));
        model->revert();
        QVERIFY(!model->isEdited());
        QCOMPARE(dialog->checkLabel()->text(), QStringLiteral("Ranks 0 to 5, each once."));
        dialog->close();
    }

    // The synthetic job's straggler is rank 1. Swapping ranks 1 and 2 in the dialog reloads the
    // capture: the pace panel's verdict now names rank 2, the same process; the view stays where
    // it was; a saved session keeps the overrides and reopens with the same ranks.
    void applyRenumbersEveryViewAndTheSessionKeepsIt()
    {
        test::SynthSample sample;
        QVERIFY(sample.write(test::synthOptions(4, 8, 1)));
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        auto *pace = w.rankPacePanel();
        w.openPaths({ sample.path });
        const auto before = loaded(w);
        QVERIFY(before);
        QVERIFY(paceDone(pace, 0));
        QVERIFY2(
            pace->verdictText().startsWith(QStringLiteral("Rank 1 was slowest in")), qPrintable(pace->verdictText()));
        const auto stragglerPid = before->ranks[1].pid;
        auto *zoom = w.timelineView()->zoom();
        zoom->setWindow(zoom->traceRange().start + 1'000'000, zoom->traceRange().start + 3'000'000);
        const auto windowStart = zoom->windowStart();

        RanksDialog *dialog = w.showRanksDialog();
        auto *model = dialog->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model->setNumber(1, 2));
        QVERIFY(model->setNumber(2, 1));
        QCOMPARE(dialog->checkLabel()->text(), QStringLiteral("Ranks 0 to 3, each once."));
        const auto overrides = dialog->editedOverrides();
        QCOMPARE(overrides.size(), std::size_t(2));
        const int generation = pace->generation();
        dialog->apply();
        const auto after = loaded(w, before.get());
        QVERIFY(after);
        QVERIFY(paceDone(pace, generation));
        QCOMPARE(after->ranks[2].pid, stragglerPid);
        QCOMPARE(after->ranks[2].source, core::RankSource::Override);
        QVERIFY2(
            pace->verdictText().startsWith(QStringLiteral("Rank 2 was slowest in")), qPrintable(pace->verdictText()));
        QCOMPARE(zoom->windowStart(), windowStart);
        // The dialog shows the new mapping, decided by the user for the two moved ranks.
        QCOMPARE(model->index(2, RankMappingModel::DecidedByColumn).data().toString(), QStringLiteral("override"));
        QCOMPARE(model->index(2, RankMappingModel::DetailColumn).data().toString(), QStringLiteral("set by the user"));
        QVERIFY(!model->isEdited());

        // Saved and read back: the overrides are in the session file.
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("review.gaplens.json"));
        QVERIFY(w.workspace()->saveSession(file));
        const auto read = SessionFile::read(file);
        QVERIFY(read.ok);
        QCOMPARE(read.session.rankOverrides.size(), overrides.size());
        for (std::size_t i = 0; i < overrides.size(); ++i) {
            QCOMPARE(read.session.rankOverrides[i].file, overrides[i].file);
            QCOMPARE(read.session.rankOverrides[i].rank, overrides[i].rank);
            QCOMPARE(read.session.rankOverrides[i].pid, overrides[i].pid);
        }
        // Reopened in a new window: the same ranks.
        MainWindow reopened;
        reopened.show();
        QVERIFY(reopened.workspace()->openSession(read));
        const auto again = loaded(reopened);
        QVERIFY(again);
        QCOMPARE(again->ranks[2].pid, stragglerPid);
        QCOMPARE(again->ranks[1].pid, before->ranks[2].pid);

        // Reset to automatic: no override, the generator's ranks again.
        QPushButton *resetButton = nullptr;
        for (auto *button : dialog->findChildren<QPushButton *>())
            if (button->text() == QStringLiteral("Reset to Automatic"))
                resetButton = button;
        QVERIFY(resetButton && resetButton->isEnabled());
        resetButton->click();
        const auto reset = loaded(w, after.get());
        QVERIFY(reset);
        QCOMPARE(reset->ranks[1].pid, stragglerPid);
        QVERIFY(w.loadController()->currentRankOverrides().empty());
    }
};

QTEST_MAIN(TestRanksDialog)
#include "tst_ranks_dialog.moc"
