// SPDX-License-Identifier: MIT
// The main window with its panels on the real exports (../shared/nsys-real) and on a synthetic
// capture: every panel computes and shows what the capture holds. With GAPLENS_SCREENSHOT_DIR
// set, each case also writes the window with each panel in front as PNGs (for looking at them).
#include "testsupport.h"

#include "gaplens/core/analysis/findings.h"
#include "gaplens/core/write/synth.h"
#include "ui/mainwindow.h"
#include "ui/panels/gapblamepanel.h"
#include "ui/panels/panelcontext.h"
#include "ui/panels/paneltable.h"
#include "ui/panels/rankpacepanel.h"
#include "ui/panels/summarypanel.h"
#include "ui/panels/topkernelspanel.h"

#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

class TestPanelReal : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_synth;

    void shoot(MainWindow &w, const QString &name)
    {
        const QString dir = qEnvironmentVariable("GAPLENS_SCREENSHOT_DIR");
        if (dir.isEmpty())
            return;
        QDir().mkpath(dir);
        for (auto *dock : w.findChildren<QDockWidget *>()) {
            if (!qobject_cast<AnalysisPanel *>(dock->widget()))
                continue;
            dock->raise();
            QTest::qWait(50);
            const QString file
                = QDir(dir).filePath(name + QLatin1Char('_') + dock->objectName() + QStringLiteral(".png"));
            QVERIFY(w.grab().save(file));
        }
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_synth.isValid());
        core::SynthOptions o;
        o.warmupSteps = 2;
        o.jitter = 0.05;
        core::writeSyntheticCapture(m_synth.path().toStdString(), o);
    }

    void everyPanelShowsTheCapture_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<bool>("nvtxOnly");
        QTest::addColumn<QString>("title"); // the window names the capture: file, files or folder
        QTest::newRow("synthetic")
            << m_synth.path() << 4 << false
            << QStringLiteral("gaplens — %1 (4 reports)").arg(QFileInfo(m_synth.path()).fileName());
        const auto real = [](const char *p) { return QString::fromStdString(test::realFile(p)); };
        QTest::newRow("ring_6ranks") << real("ring_6ranks") << 6 << false
                                     << QStringLiteral("gaplens — ring_6ranks (6 reports)");
        QTest::newRow("h100_2gpu") << real("nsysai_h100_2gpu_1s.sqlite") << 2 << false
                                   << QStringLiteral("gaplens — nsysai_h100_2gpu_1s.sqlite");
        QTest::newRow("nvtx_only") << real("centerformer_nvtx_only.sqlite") << 1 << true
                                   << QStringLiteral("gaplens — centerformer_nvtx_only.sqlite");
        QTest::newRow("mfu_before") << real("nsysai_mfu_2gpu_before.sqlite") << 2 << false
                                    << QStringLiteral("gaplens — nsysai_mfu_2gpu_before.sqlite");
        QTest::newRow("openmp_offload") << real("sc23_openmp_offload_report3.sqlite") << 1 << false
                                        << QStringLiteral("gaplens — sc23_openmp_offload_report3.sqlite");
    }

    void everyPanelShowsTheCapture()
    {
        QFETCH(QString, path);
        QFETCH(int, ranks);
        QFETCH(bool, nvtxOnly);
        QFETCH(QString, title);
        QVERIFY2(!path.isEmpty(), gaplens::test::kRealDataMissing);
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        const QList<AnalysisPanel *> panels { w.summaryPanel(), w.topKernelsPanel(), w.gapBlamePanel(),
            w.rankPacePanel() };
        w.openPaths({ path });
        QVERIFY(QTest::qWaitFor([&] { return w.panelContext()->trace() != nullptr; }, 60000));
        for (auto *p : panels)
            QVERIFY(QTest::qWaitFor([&] { return p->generation() > 0 && !p->isComputing(); }, 60000));
        const auto &trace = *w.panelContext()->trace();
        QCOMPARE(int(trace.ranks.size()), ranks);
        QCOMPARE(w.windowTitle(), title);
        QVERIFY(w.summaryPanel()->table()->tableModel()->rowCount() >= ranks);
        bool saysNvtxOnly = false;
        for (const auto &f : w.summaryPanel()->summary().findings)
            saysNvtxOnly = saysNvtxOnly || f.kind == core::FindingKind::NvtxOnly;
        QCOMPARE(saysNvtxOnly, nvtxOnly);
        QCOMPARE(w.topKernelsPanel()->table()->tableModel()->rowCount() == 0, nvtxOnly);
        // The pace chart has one line per rank with the range, plus the median.
        const auto &pace = w.rankPacePanel()->pace();
        if (!pace.ranks.empty())
            QCOMPARE(w.rankPacePanel()->chart()->series().size(),
                int(pace.ranks.size()) + (pace.iterations.empty() ? 0 : 1));
        shoot(w, QString::fromLatin1(QTest::currentDataTag()));
    }

    // PyTorch's per-call NVTX names: the chooser lists group names, ranges on both ranks first,
    // and with no step-like range the panel says so instead of pacing a guess.
    void rankPaceOnPyTorchRangesOffersGroupsAndSaysWhatIsTrue()
    {
        const QString path = QString::fromStdString(test::realFile("nsysai_h100_2gpu_1s.sqlite"));
        QVERIFY2(!path.isEmpty(), "../shared/nsys-real/nsysai_h100_2gpu_1s.sqlite is missing");
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        w.openPaths({ path });
        auto *pace = w.rankPacePanel();
        QVERIFY(QTest::qWaitFor([&] { return pace->generation() > 0 && !pace->isComputing(); }, 60000));
        QVERIFY2(
            pace->verdictText().startsWith(QStringLiteral("No step to pace: no NVTX range looks like a training step")),
            qPrintable(pace->verdictText()));
        QVERIFY(pace->verdictText().contains(QStringLiteral("on every rank: aten::")));
        QVERIFY(pace->pace().ranks.empty());
        const auto *chooser = pace->rangeChooser();
        QVERIFY(chooser->count() > 10);
        for (int i = 0; i < chooser->count(); ++i)
            QVERIFY2(
                !chooser->itemData(i).toString().contains(QStringLiteral("op_id")), qPrintable(chooser->itemText(i)));
        QVERIFY2(chooser->itemText(0).endsWith(QStringLiteral("on 2 ranks)")), qPrintable(chooser->itemText(0)));
        // A group name paces both ranks.
        pace->setRangeName(QStringLiteral("aten::mm"));
        QVERIFY(QTest::qWaitFor([&] { return pace->pace().rangeName == "aten::mm" && !pace->isComputing(); }, 60000));
        QCOMPARE(pace->pace().ranks.size(), std::size_t(2));
        QVERIFY(pace->pace().ranks[0].iterations.size() >= 100);
    }
};

QTEST_MAIN(TestPanelReal)
#include "tst_panel_real.moc"
