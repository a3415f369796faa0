// SPDX-License-Identifier: MIT
// Colours have one meaning: the warm hues are the gap causes', and nothing else the timeline
// draws (kernels, NCCL kernels, NVTX ranges, CUDA calls, copies) can be taken for a cause.
#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/gaplegend.h"
#include "ui/timeline/timelineview.h"

#include <QColor>
#include <QTest>

#include <string>

using namespace gaplens;
using namespace gaplens::ui;

namespace {
constexpr core::GapCause kCauses[] = { core::GapCause::QueuedDependencyWait, core::GapCause::ApiCall,
    core::GapCause::NoCudaCall, core::GapCause::Copy };

// Distance in RGB: causes must be told apart from each other at a glance.
int distance(const QColor &a, const QColor &b)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}
} // namespace

class TestPalette : public QObject
{
    Q_OBJECT
private slots:
    void causeColoursAreWarmAndDistinct()
    {
        for (auto a : kCauses) {
            QVERIFY(isCauseHue(gapCauseColor(a)));
            QCOMPARE(gapCauseColor(a).alpha(), 255);
            for (auto b : kCauses)
                if (a != b)
                    QVERIFY2(distance(gapCauseColor(a), gapCauseColor(b)) >= 90, qPrintable(gapCauseColor(a).name()));
        }
        // Shades of one cause (one per CUDA call name) keep the cause's hue.
        for (int shade = 0; shade < 6; ++shade)
            QVERIFY(isCauseHue(gapCauseShade(core::GapCause::ApiCall, shade)));
        QCOMPARE(gapCauseShade(core::GapCause::NoCudaCall, 0), gapCauseColor(core::GapCause::NoCudaCall));
        QVERIFY(gapCauseShade(core::GapCause::ApiCall, 1) != gapCauseShade(core::GapCause::ApiCall, 2));
        // Every cause is in the list above.
        QCOMPARE(std::size(kCauses), core::kGapCauseCount);
    }

    void theLegendFitsEveryCauseInTheLabelColumnAtEveryTheme()
    {
        // The head the legend draws, and the short one it falls back to while blaming.
        for (const QString &head : { QStringLiteral("gaps ≥ 100 us:"), QStringLiteral("computing…:") })
            for (auto kind : { Theme::Kind::Light, Theme::Kind::PresentationLight }) {
                QFont font;
                font.setPointSizeF(Theme::make(kind).legendFontPt);
                const QFont fitted = GapLegend::fittedFont(font, head, TimelineView::kLabelWidth);
                QVERIFY2(GapLegend::contentWidth(fitted, head) <= TimelineView::kLabelWidth,
                    qPrintable(QString::number(GapLegend::contentWidth(fitted, head))));
                QVERIFY(fitted.pointSizeF() >= 5.5);
                QVERIFY(fitted.pointSizeF() <= font.pointSizeF());
            }
    }

    void copyCauseIsApartFromTheCopyRows()
    {
        // A gap filled by copies is drawn over the copy row: its colour must not be a copy colour.
        const QColor cause = gapCauseColor(core::GapCause::Copy);
        for (int value = 0; value <= 13; ++value)
            QVERIFY2(distance(cause, copyColor(core::copyKindFromExport(value))) >= 90, std::to_string(value).c_str());
        QVERIFY(distance(cause, copyColor(core::CopyKind::Memset)) >= 90);
        QCOMPARE(gapCauseShortLabel(core::GapCause::Copy), QStringLiteral("copy"));
    }

    void noEventColourIsACauseColour()
    {
        const std::string prefixes[] = { "", "ncclKernel_AllReduce_RING_LL_", "ncclDevKernel_SendRecv_",
            "aten::", "void at::native::elementwise_kernel<", "cudaLaunchKernel", "cudaStreamSynchronize",
            "cudaMemcpyAsync_" };
        int checked = 0;
        for (const auto &prefix : prefixes)
            for (int i = 0; i < 400; ++i) {
                const std::string name = prefix + std::to_string(i * 7919);
                QVERIFY2(!isCauseHue(kernelColor(name)), name.c_str());
                QVERIFY2(!isCauseHue(nvtxColor(name)), name.c_str());
                QVERIFY2(!isCauseHue(apiColor(name)), name.c_str());
                checked += 3;
            }
        QCOMPARE(checked, 8 * 400 * 3);
        for (int value = 0; value <= 13; ++value)
            QVERIFY2(!isCauseHue(copyColor(core::copyKindFromExport(value))), std::to_string(value).c_str());
        QVERIFY(!isCauseHue(copyColor(core::CopyKind::Memset)));
        // OS runtime calls, by category: none is a cause colour, and each category has its own.
        const core::OsCategory categories[] = { core::OsCategory::None, core::OsCategory::Wait, core::OsCategory::Io,
            core::OsCategory::Poll, core::OsCategory::Sleep, core::OsCategory::Other };
        for (auto category : categories)
            QVERIFY2(!isCauseHue(osCategoryColor(category)), core::osCategoryId(category).data());
        for (std::size_t a = 1; a < std::size(categories); ++a)
            for (std::size_t b = a + 1; b < std::size(categories); ++b)
                QVERIFY(distance(osCategoryColor(categories[a]), osCategoryColor(categories[b])) >= 30);
        // Run-accounting states: no cause colour, each told apart from the others.
        for (std::size_t a = 0; a < core::kRunStateCount; ++a) {
            QVERIFY2(!isCauseHue(runStateColor(core::RunState(a))), core::runStateName(core::RunState(a)).data());
            for (std::size_t b = a + 1; b < core::kRunStateCount; ++b)
                QVERIFY(distance(runStateColor(core::RunState(a)), runStateColor(core::RunState(b))) >= 90);
        }
        QVERIFY(!isCauseHue(memoryCounterColor()));
        // A unified-memory migration is told apart from the program's own copy in that direction.
        QVERIFY(copyColor(core::CopyKind::UnifiedHostToDevice) != copyColor(core::CopyKind::HostToDevice));
        QVERIFY(copyColor(core::CopyKind::UnifiedDeviceToHost) != copyColor(core::CopyKind::DeviceToHost));
        // NCCL kernels keep a family of their own, apart from the other kernels.
        QVERIFY(kernelColor("ncclDevKernel_AllReduce").hsvHue() >= 262);
        QVERIFY(kernelColor("sgemm_kernel").hsvHue() < 255);
    }
};

QTEST_MAIN(TestPalette)
#include "tst_palette.moc"
