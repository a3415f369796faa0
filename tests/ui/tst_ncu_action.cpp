// SPDX-License-Identifier: MIT
// "Copy Nsight Compute command" on a kernel of the timeline and on a row of Top kernels puts
// the exact command text (core::ncuCommandText) on the clipboard.
#include "ui_fixture.h"

#include "gaplens/core/read/loader.h"
#include "gaplens/core/write/export_writer.h"
#include "ui/panels/paneltable.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QMenu>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTest>

using namespace gaplens::core;
using namespace gaplens::ui;

namespace {

// One process launches gemm three times (correlation ids 10, 20, 30; the third on stream 8
// runs before the second) and relu once.
std::shared_ptr<TraceSet> loadFixture(const QTemporaryDir &dir)
{
    const auto path = dir.filePath(QStringLiteral("ncu.sqlite")).toStdString();
    {
        ExportWriter::Options options;
        options.command = "python3";
        options.arguments = { "train.py", "my run" };
        ExportWriter writer(path, options);
        writer.addProcess(100, "python3");
        const std::tuple<std::int64_t, std::uint32_t, TimeNs, const char *> kernels[]
            = { { 7, 10, 1000, "gemm" }, { 7, 20, 3000, "gemm" }, { 8, 30, 2000, "gemm" }, { 7, 40, 5000, "relu" } };
        for (const auto &[stream, correlation, start, name] : kernels)
            writer.addKernel({ .start = start,
                .end = start + 400,
                .streamId = stream,
                .correlationId = correlation,
                .pid = 100,
                .shortName = name });
        writer.finish();
    }
    LoadOptions options;
    options.files = { path };
    return loadTraceSet(options);
}

QString expectedText(int instance)
{
    return QStringLiteral(
        "ncu --kernel-name-base function --kernel-name gemm --launch-skip %1 --launch-count 1 -o gaplens_gemm_%2 "
        "python3 train.py 'my run'\n"
        "# It profiles launch %2 of 3 of gemm in rank 0 (pid 100): --launch-skip %1 skips the %1 earlier launch%3 of "
        "it in that process, in launch order (correlation ids).\n"
        "# Launches before the capture began are not in the export: if it started late (a delay, a capture range, a "
        "cut window), add them to --launch-skip.\n"
        "# The program and its arguments are PROCESS_0's in META_DATA_CAPTURE.\n"
        "# The working directory is not in the export: run it where the program was started.\n"
        "# The environment is not in the export: run it with the one the program had (CUDA_VISIBLE_DEVICES, rank "
        "variables).\n")
        .arg(instance - 1)
        .arg(instance)
        .arg(instance == 2 ? QString() : QStringLiteral("es"));
}

QAction *actionNamed(QMenu *menu, const QString &text)
{
    for (auto *action : menu->actions())
        if (action->text() == text)
            return action;
    return nullptr;
}

} // namespace

class TestNcuAction : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void aTimelineKernelCopiesTheCommandOfThatLaunch()
    {
        fixture::PanelWindow h;
        h.view.resize(1270, 600);
        const auto trace = loadFixture(m_dir);
        QVERIFY(trace->errors.empty());
        QVERIFY(h.loadAndWait(trace));
        // The second launch in launch order (correlation id 20) is the last to start on the GPU.
        const auto &gpu = trace->gpus[0];
        const auto stream = std::uint32_t(std::find_if(gpu.streams.begin(), gpu.streams.end(), [](const Stream &s) {
            return s.streamId == 7;
        }) - gpu.streams.begin());
        const auto &k = gpu.streams[stream].kernels;
        const auto index
            = std::uint32_t(std::find(k.correlationId.begin(), k.correlationId.end(), 20u) - k.correlationId.begin());
        QVERIFY(index < k.size());
        h.view.zoom()->setWindow(k.start[index] - 100, k.end[index] + 100, false);
        const int x = h.view.viewport()->width() / 2;
        HitResult hit;
        for (const auto &row : h.view.model()->rows()) {
            hit = h.view.hitTest({ x, row.y + row.height / 2 - h.view.verticalScrollBar()->value() });
            if (hit.kind == HitKind::Kernel)
                break;
        }
        QCOMPARE(int(hit.kind), int(HitKind::Kernel));
        QCOMPARE(hit.stream.value(), stream);
        QCOMPARE(hit.index, index);

        const auto menu = h.view.contextMenu(hit);
        QVERIFY(menu);
        auto *copy = actionNamed(menu.get(), QStringLiteral("Copy Nsight Compute command"));
        QVERIFY(copy);
        QGuiApplication::clipboard()->clear();
        copy->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), expectedText(2));

        // Nothing to hand off for what is not a kernel.
        QVERIFY(!h.view.contextMenu(HitResult {}));
    }

    void aTopKernelsRowCopiesTheCommandOfItsFirstLaunch()
    {
        fixture::PanelWindow h;
        const auto trace = loadFixture(m_dir);
        QVERIFY(h.loadAndWait(trace));
        auto *table = h.kernels.table();
        int row = -1;
        for (int r = 0; r < table->tableModel()->rowCount(); ++r)
            if (table->tableModel()->cell(r, 0).display.toString() == QLatin1String("gemm"))
                row = r;
        QVERIFY(row >= 0);
        const auto menu = table->contextMenu(row);
        auto *copy = actionNamed(menu.get(), QStringLiteral("Copy Nsight Compute command"));
        QVERIFY(copy);
        QGuiApplication::clipboard()->clear();
        copy->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), expectedText(1));
        // Without a row under the cursor, only the table's own entries.
        QVERIFY(!actionNamed(table->contextMenu(-1).get(), QStringLiteral("Copy Nsight Compute command")));
        QVERIFY(actionNamed(table->contextMenu(-1).get(), QStringLiteral("Copy All as CSV")));
    }
};

QTEST_MAIN(TestNcuAction)
#include "tst_ncu_action.moc"
