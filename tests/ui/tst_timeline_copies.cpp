// SPDX-License-Identifier: MIT
// Copies are labelled by kind and direction: a unified-memory migration reads "Unified HtoD"
// on the timeline, in its tooltip and as a column of the Summary, never "other"; sizes and
// bandwidth are in binary units, as everywhere else.
#include "ui_fixture.h"

#include "gaplens/core/util/units.h"
#include "ui/panels/paneltable.h"
#include "ui/panels/summarypanel.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinedata.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/zoomcontrol.h"

#include <QImage>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;
using fixture::kT0;
using fixture::us;

namespace {

// The one-rank fixture plus, after its HtoD copy [3100, 3200) us: a unified HtoD migration of
// 2 MiB [3300, 3400), a unified DtoH of 4 KiB [3500, 3600) and a 512 B HtoA [3700, 3800).
std::shared_ptr<core::TraceSet> copiesTrace()
{
    using namespace core;
    auto t = fixture::buildTrace(1);
    auto &c = t->gpus[0].copies;
    auto add = [&](double startUs, std::uint64_t bytes, CopyKind kind) {
        c.start.push_back(kT0 + us(startUs));
        c.end.push_back(kT0 + us(startUs + 100));
        c.bytes.push_back(bytes);
        c.correlationId.push_back(0);
        c.pid.push_back(100);
        c.streamId.push_back(7);
        c.kind.push_back(kind);
        c.srcKind.push_back(MemKind::Managed);
        c.dstKind.push_back(MemKind::Managed);
    };
    add(3300, 2 << 20, CopyKind::UnifiedHostToDevice);
    add(3500, 4096, CopyKind::UnifiedDeviceToHost);
    add(3700, 512, CopyKind::HostToArray);
    finalizeTraceSet(*t);
    return t;
}

double raw(PanelTable *t, int row, int column)
{
    return t->tableModel()->data(t->tableModel()->index(row, column), PanelTableModel::SortRole).toDouble();
}
QString header(PanelTable *t, int column)
{
    return t->tableModel()->headerData(column, Qt::Horizontal).toString();
}

} // namespace

class TestTimelineCopies : public QObject
{
    Q_OBJECT
private slots:
    void aUnifiedMigrationIsDrawnAndDescribedByItsKindAndDirection()
    {
        TimelineView view;
        view.resize(1270, 400);
        view.setData(prepareTimelineData(copiesTrace()));
        view.zoom()->setWindow(kT0 + us(3000), kT0 + us(3900));
        const QImage image = view.grab().toImage();
        const QRect vp = view.viewport()->geometry();
        const int row = view.model()->findRow(RowKind::Copies, { .gpu = core::GpuIndex(0) });
        QVERIFY(row >= 0);
        const auto &copies = view.model()->rows()[std::size_t(row)];
        const int y = vp.top() + copies.y + copies.height / 2;
        const auto xAt = [&](double t) { return vp.left() + int(std::lround(view.zoom()->timeToX(kT0 + us(t)))); };
        // Its own colour (right of the label), apart from a program's HtoD copy.
        const QColor unified = copyColor(core::CopyKind::UnifiedHostToDevice);
        QVERIFY2(fixture::near(image.pixelColor(xAt(3397), y), unified, 3),
            qPrintable(image.pixelColor(xAt(3397), y).name()));
        QVERIFY(fixture::near(image.pixelColor(xAt(3197), y), copyColor(core::CopyKind::HostToDevice), 3));
        QVERIFY(unified != copyColor(core::CopyKind::HostToDevice));

        const HitResult hit = view.hitTest({ xAt(3350) - vp.left(), y - vp.top() });
        QCOMPARE(int(hit.kind), int(HitKind::Copy));
        QCOMPARE(view.model()->trace()->gpus[0].copies.kind[hit.index], core::CopyKind::UnifiedHostToDevice);
        QCOMPARE(tooltipText(*view.model(), hit),
            QStringLiteral("Unified HtoD migration\nKind: Unified HtoD\nBytes: 2.0 MiB\nDuration: %1\n"
                           "Bandwidth: 19.5 GiB/s\nStart: %2\nStream: 7")
                .arg(formatDuration(us(100)), formatDuration(us(3300))));
        // A program's copy keeps "Memcpy"; sizes in the same binary units.
        const HitResult htod = view.hitTest({ xAt(3150) - vp.left(), y - vp.top() });
        QVERIFY2(tooltipText(*view.model(), htod)
                     .startsWith(QStringLiteral("Memcpy HtoD\nKind: HtoD\nBytes: 1.0 MiB\nDuration: ")),
            qPrintable(tooltipText(*view.model(), htod)));
        QVERIFY(tooltipText(*view.model(), htod).contains(QStringLiteral("Bandwidth: 9.8 GiB/s")));
    }

    void aGapTooltipTellsCopiesTheCallsKindAndTheLaunchingThread()
    {
        // The fixture's gap [1100, 1600) us on GPU 0: cudaStreamSynchronize at its midpoint,
        // ended by the NCCL kernel launched by the main thread (tid 100).
        auto plain = fixture::buildTrace(1);
        TimelineModel model;
        model.setData(prepareTimelineData(plain));
        QVERIFY(model.waitForGaps());
        const auto &gaps = model.gaps(core::GpuIndex(0));
        QCOMPARE(gaps.blame.size(), std::size_t(1));
        HitResult hit;
        hit.kind = HitKind::Gap;
        hit.gpu = core::GpuIndex(0);
        hit.index = 0;
        hit.start = kT0 + us(1100);
        hit.end = kT0 + us(1600);
        QCOMPARE(tooltipText(model, hit),
            QStringLiteral("Idle gap\nLength: %1\nStart: %2\nCause: CUDA API call\nAPI call: cudaStreamSynchronize "
                           "(sync)\nLaunching thread: main (tid 100)\nNVTX phase: train_step › backward\n"
                           "Ended by: ncclKernel_AllReduce_RING")
                .arg(formatDuration(us(500)), formatDuration(us(1100))));

        // A copy [1200, 1500) us inside it: 300 of 500 us, so the GPU was moving data.
        auto withCopy = fixture::buildTraceWithCopyInGap(1);
        TimelineModel copyModel;
        copyModel.setData(prepareTimelineData(withCopy));
        QVERIFY(copyModel.waitForGaps());
        QCOMPARE(copyModel.gaps(core::GpuIndex(0)).blame[0].copyNs, us(300));
        QCOMPARE(tooltipText(copyModel, hit),
            QStringLiteral("Idle gap\nLength: %1\nStart: %2\nCause: copy (GPU moving data)\nAPI call: "
                           "cudaStreamSynchronize\nCopies running: %3 (60.0% of the gap)\nLaunching thread: main "
                           "(tid 100)\nNVTX phase: train_step › backward\nEnded by: ncclKernel_AllReduce_RING")
                .arg(formatDuration(us(500)), formatDuration(us(1100)), formatDuration(us(300))));
        QVERIFY(detailsHtml(copyModel, hit).contains(QStringLiteral("Copies running")));
    }

    void theSummaryHasUnifiedColumnsAndNamesWhatIsOther()
    {
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(copiesTrace()));
        auto *t = h.summary.table();
        QCOMPARE(t->tableModel()->rowCount(), 1);
        const int first = SummaryPanel::FirstCopyColumn;
        QStringList headers;
        for (int c = first; c < t->tableModel()->columnCount(); ++c)
            headers << header(t, c);
        QCOMPARE(headers,
            QStringList({ QStringLiteral("H→D"), QStringLiteral("D→H"), QStringLiteral("D→D"), QStringLiteral("P2P"),
                QStringLiteral("Unified H→D"), QStringLiteral("Unified D→H"), QStringLiteral("memset"),
                QStringLiteral("other copies") }));
        QCOMPARE(raw(t, 0, first), double(1 << 20));
        QCOMPARE(raw(t, 0, first + 4), double(2 << 20));
        QCOMPARE(raw(t, 0, first + 5), 4096.0);
        QCOMPARE(raw(t, 0, first + 7), 512.0);
        const auto other = t->tableModel()->index(0, first + 7);
        QCOMPARE(t->tableModel()->data(other).toString(),
            QStringLiteral("512 B · %1").arg(QString::fromStdString(core::formatDuration(100'000.0))));
        QCOMPARE(t->tableModel()->data(other, Qt::ToolTipRole).toString(), QStringLiteral("HtoA: 1 operations, 512 B"));
    }
};

QTEST_MAIN(TestTimelineCopies)
#include "tst_timeline_copies.moc"
