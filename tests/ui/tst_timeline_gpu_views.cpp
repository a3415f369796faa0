// SPDX-License-Identifier: MIT
// What issue #17 adds under each GPU and beside Top kernels: the NVTX ranges projected onto
// the GPU (rows per depth, arriving with the derived capture, hit and described), the GPU
// memory counter lane (drawn only when the capture recorded memory, peak in its label, value
// at the cursor), and the kernel duration histogram (bins select launches on the timeline,
// the slowest one click away, before and after over one axis).
#include "picture_fixture.h"
#include "ui_fixture.h"

#include "ui/panels/kernelhistogramdialog.h"
#include "ui/panels/paneltable.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/hitdescriber.h"
#include "ui/timeline/zoomcontrol.h"

#include <QAreaSeries>
#include <QChart>
#include <QImage>
#include <QLogValueAxis>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;
using fixture::kT0;
using fixture::us;

namespace {

// The fixture's trace with GPU memory on rank 0's GPU: 1 KiB allocated at 500 us, 3 KiB at
// 1000 us, the first freed at 2000 us (peak 4 KiB).
std::shared_ptr<core::TraceSet> traceWithMemory()
{
    auto t = fixture::buildTrace(1);
    auto &m = t->gpus[0].memory;
    const auto event = [&](double at, std::uint64_t bytes, std::uint64_t address, core::MemoryOperation op) {
        m.time.push_back(kT0 + us(at));
        m.bytes.push_back(bytes);
        m.address.push_back(address);
        m.pid.push_back(100);
        m.memKind.push_back(2);
        m.operation.push_back(op);
    };
    event(500, 1024, 0x1000, core::MemoryOperation::Allocation);
    event(1000, 3072, 0x2000, core::MemoryOperation::Allocation);
    event(2000, 1024, 0x1000, core::MemoryOperation::Free);
    return t;
}

std::vector<const TimelineRow *> rowsOf(const TimelineModel &model, RowKind kind)
{
    std::vector<const TimelineRow *> out;
    for (const auto &row : model.rows())
        if (row.kind == kind)
            out.push_back(&row);
    return out;
}

} // namespace

class TestTimelineGpuViews : public QObject
{
    Q_OBJECT

    TimelineView m_view;
    QImage m_image;

    QPoint at(const TimelineRow &row, core::TimeNs t, int dy = 0) const
    {
        return fixture::imagePoint(m_view, row, t, dy);
    }
    HitResult hitAt(QPoint image) const { return fixture::hitAtImage(m_view, image); }

private slots:
    void initTestCase()
    {
        m_view.resize(1200, 500);
        m_view.setData(prepareTimelineData(traceWithMemory()));
        m_view.zoom()->fitAll();
        QTRY_VERIFY_WITH_TIMEOUT(m_view.model()->gapsReady(), 10000);
        m_image = fixture::grabTimeline(m_view, QStringLiteral("timeline_gpu_views.png"));
    }

    void projectedRangesAreRowsUnderTheirGpu()
    {
        const auto *model = m_view.model();
        const auto rows = rowsOf(*model, RowKind::ProjectedNvtx);
        // train_step projects onto [100, 3100) us, backward (launches at 1595 and 1600 us) onto
        // [1600, 3100) one level deeper; forward launched nothing.
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[0]->label, QStringLiteral("GPU 0 · NVTX (projected)"));
        QCOMPARE(rows[1]->label, QString());
        const auto top = model->rowView(*rows[0]);
        QCOMPARE(top.size(), std::size_t(1));
        QCOMPARE(top.startAt(0), kT0 + us(100));
        QCOMPARE(top.endAt(0), kT0 + us(3100));
        const auto nested = model->rowView(*rows[1]);
        QCOMPARE(nested.size(), std::size_t(1));
        QCOMPARE(nested.startAt(0), kT0 + us(1600));
        // Under the GPU: after its merged lane, before the threads' rows.
        const int merged = model->findRow(RowKind::MergedKernels, { core::RankIndex(0), core::GpuIndex(0) });
        const int nvtx = model->findRow(RowKind::Nvtx, { {}, {}, {}, core::ThreadIndex(0), 0 });
        QVERIFY(nvtx > 0);
        QVERIFY(merged < model->findRow(RowKind::ProjectedNvtx, { {}, core::GpuIndex(0) }));
        QVERIFY(model->findRow(RowKind::ProjectedNvtx, { {}, core::GpuIndex(0) }) < nvtx);

        const HitResult hit = hitAt(at(*rows[1], kT0 + us(2000)));
        QCOMPARE(int(hit.kind), int(HitKind::ProjectedNvtx));
        const QString tip = tooltipText(*model, hit);
        QVERIFY2(
            tip.startsWith(QStringLiteral("backward\nDuration: 1.500 ms\nProjected onto: GPU 0")), qPrintable(tip));
        QCOMPARE(countText(3, HitKind::ProjectedNvtx), QStringLiteral("3 projected NVTX ranges"));

        // They are NVTX detail: a collapsed rank hides them.
        TimelineModel collapsed;
        collapsed.setData(m_view.model()->sharedData());
        QVERIFY(collapsed.waitForGaps());
        QCOMPARE(rowsOf(collapsed, RowKind::ProjectedNvtx).size(), std::size_t(2));
        collapsed.setRankCollapsed(core::RankIndex(0), true);
        QCOMPARE(rowsOf(collapsed, RowKind::ProjectedNvtx).size(), std::size_t(0));
    }

    void memoryLaneShowsWhatIsInUseWithItsPeak()
    {
        const auto rows = rowsOf(*m_view.model(), RowKind::GpuMemory);
        QCOMPARE(rows.size(), std::size_t(1));
        QCOMPARE(rows[0]->label, QStringLiteral("GPU 0 · memory in use (peak 4.0 KiB)"));
        // Drawn where memory is in use, empty before the first allocation.
        const QPoint before = at(*rows[0], kT0 + us(300), rows[0]->height / 2 - 3);
        const QPoint during = at(*rows[0], kT0 + us(1500), rows[0]->height / 2 - 3);
        QVERIFY(!fixture::near(m_image.pixelColor(during), m_image.pixelColor(before), 10));
        QVERIFY(!isCauseHue(memoryCounterColor()));

        const HitResult hit = hitAt(at(*rows[0], kT0 + us(2500)));
        QCOMPARE(int(hit.kind), int(HitKind::Memory));
        const QString tip = tooltipText(*m_view.model(), hit);
        QVERIFY2(tip.contains(QStringLiteral("In use: 3.0 KiB")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("Allocations: 2")), qPrintable(tip));

        // Without memory events there is no lane at all.
        TimelineModel plain;
        plain.setData(prepareTimelineData(fixture::buildTrace(1)));
        QVERIFY(plain.waitForGaps());
        QCOMPARE(rowsOf(plain, RowKind::GpuMemory).size(), std::size_t(0));
        QCOMPARE(rowsOf(plain, RowKind::ProjectedNvtx).size(), std::size_t(2));
    }

    void histogramBarsSelectTheirLaunches()
    {
        fixture::PanelWindow w;
        auto before = w.generations();
        w.load(fixture::buildTrace(2, 5000));
        QVERIFY(w.waitAll(before));
        int row = -1;
        for (int r = 0; r < w.kernels.table()->tableModel()->rowCount(); ++r)
            if (w.kernels.table()->tableModel()->cell(r, TopKernelsPanel::NameColumn).display.toString()
                == QStringLiteral("sgemm_kernel"))
                row = r;
        QVERIFY(row >= 0);
        auto *dialog = w.kernels.showHistogram(row);
        QVERIFY(dialog);
        dialog->setBins(4);
        const auto &h = dialog->histogram();
        QCOMPARE(h.count(), std::size_t(2)); // one launch per rank, both 1 ms
        std::uint64_t total = 0;
        for (const auto &b : h.bins)
            total += b.count();
        QCOMPARE(total, std::uint64_t(2));
        QCOMPARE(h.medianNs, double(us(1000)));
        // Three series: the bars, the median and the p95.
        QCOMPARE(dialog->chart()->series().size(), 3);
        QVERIFY(qobject_cast<QAreaSeries *>(dialog->chart()->series().front()));

        int nonEmpty = -1;
        for (int b = 0; b < int(h.bins.size()); ++b)
            if (h.bins[std::size_t(b)].count() > 0)
                nonEmpty = b;
        QCOMPARE(dialog->selectBin(nonEmpty), 2);
        QCOMPARE(w.view.findMatchCount(), 2);
        QCOMPARE(int(w.view.selection().kind), int(HitKind::Kernel));
        QCOMPARE(dialog->binAt(double(us(1000))), nonEmpty);
        QCOMPARE(dialog->selectSlowest(), 2);
        QCOMPARE(w.view.selection().end - w.view.selection().start, us(1000));

        dialog->setLogarithmic(true);
        bool logAxis = false;
        for (auto *axis : dialog->chart()->axes(Qt::Horizontal))
            logAxis = logAxis || qobject_cast<QLogValueAxis *>(axis);
        QVERIFY(logAxis);
        QVERIFY(dialog->histogram().logarithmic);
    }

    void aBinHighlightsOnlyItsLaunches()
    {
        // Rank 1's sgemm lasts 2 ms: two bins, one launch each.
        auto trace = fixture::buildTrace(2);
        auto &k = trace->gpus[1].streams[0].kernels;
        k.end[0] = k.start[0] + us(2000);
        TimelineView view;
        view.resize(1200, 500);
        view.setData(prepareTimelineData(trace));
        QVERIFY(view.model()->waitForGaps());
        KernelHistogramDialog dialog;
        KernelHistogramDialog::Source source;
        source.trace = view.model()->sharedData()->trace;
        dialog.setBins(2);
        dialog.setKernel(QStringLiteral("sgemm_kernel"), { source }, &view);
        QCOMPARE(dialog.selectBin(1), 1);
        const auto *model = view.model();
        QVERIFY(model->matchesName(trace->strings.find("sgemm_kernel")));
        QVERIFY(model->isKernelHighlighted(core::GpuIndex(1), core::StreamIndex(0), 0));
        QVERIFY(!model->isKernelHighlighted(core::GpuIndex(0), core::StreamIndex(0), 0));
        QCOMPARE(view.selection().gpu.value(), 1u);
        QCOMPARE(dialog.selectBin(0), 1);
        QVERIFY(model->isKernelHighlighted(core::GpuIndex(0), core::StreamIndex(0), 0));
        QVERIFY(!model->isKernelHighlighted(core::GpuIndex(1), core::StreamIndex(0), 0));
        // A find by name highlights every launch again.
        view.findName(trace->strings.find("sgemm_kernel"));
        QVERIFY(model->isKernelHighlighted(core::GpuIndex(1), core::StreamIndex(0), 0));
    }

    void beforeAndAfterShareOneAxis()
    {
        KernelHistogramDialog dialog;
        auto before = fixture::buildTrace(1);
        auto after = fixture::buildTrace(2);
        // After: rank 1's sgemm lasts twice as long.
        auto &k = after->gpus[1].streams[0].kernels;
        k.end[0] = k.start[0] + us(2000);
        std::vector<KernelHistogramDialog::Source> sources(2);
        sources[0].label = QStringLiteral("before");
        sources[0].trace = before;
        sources[1].label = QStringLiteral("after");
        sources[1].trace = after;
        dialog.setBins(5);
        dialog.setKernel(QStringLiteral("sgemm_kernel"), sources, nullptr);
        QCOMPARE(dialog.sourceCount(), std::size_t(2));
        QCOMPARE(dialog.histogram(0).count(), std::size_t(1));
        QCOMPARE(dialog.histogram(1).count(), std::size_t(2));
        QCOMPARE(dialog.histogram(0).bins.front().lo, dialog.histogram(1).bins.front().lo);
        QCOMPARE(dialog.histogram(0).bins.back().hi, double(us(2000)));
        QCOMPARE(dialog.histogram(1).bins.back().count(), std::uint64_t(1));
        QCOMPARE(dialog.chart()->series().size(), 6); // bars, median and p95 of each
        QCOMPARE(dialog.selectBin(0), 1); // the before's shortest launch; no timeline to select it on
    }
};

QTEST_MAIN(TestTimelineGpuViews)
#include "tst_timeline_gpu_views.moc"
