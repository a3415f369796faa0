// SPDX-License-Identifier: MIT
// The panels' charts: kernel labels that keep what tells names apart (with the full name in
// the bar's tooltip), and the theme's colours, switched with the theme, series colours kept;
// the Summary's warning findings too.
#include "ui_fixture.h"

#include "ui/panels/chartutil.h"
#include "ui/panels/distinctlabels.h"
#include "ui/panels/gapblamepanel.h"
#include "ui/panels/rankpacepanel.h"
#include "ui/panels/summarypanel.h"
#include "ui/panels/topkernelspanel.h"
#include "ui/theme/theme.h"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QListWidget>
#include <QTest>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

// Four of the real H100 capture's cuBLAS kernels: 120 characters, the same first 33.
const QStringList kCublas {
    QStringLiteral("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_"
                   "alignc4_execute_kernel__5x_cublas"),
    QStringLiteral("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_"
                   "alignc4_execute_kernel__5x_cublas"),
    QStringLiteral("vectorized_elementwise_kernel"),
    QStringLiteral("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_"
                   "alignc4_execute_split_k_kernel__5x_cublas"),
    QStringLiteral("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_"
                   "alignc4_execute_kernel__5x_cublas"),
};

QList<QColor> axisLabelColors(QChart *chart)
{
    QList<QColor> colors;
    for (auto *axis : chart->axes())
        colors << axis->labelsBrush().color();
    return colors;
}

} // namespace

class TestCharts : public QObject
{
    Q_OBJECT
private slots:
    void cleanup() { Theme::apply(Theme::Kind::Light); }

    void longKernelNamesKeepTheWordsThatTellThemApart()
    {
        const QStringList labels = distinctLabels(kCublas, TopKernelsPanel::kChartLabelChars);
        QCOMPARE(labels,
            (QStringList { QStringLiteral("sm80…tn…tilesize64x256x8…warpsize1x4x1…"),
                QStringLiteral("sm80…tn…tilesize128x128x8…warpsize2x2x1…"),
                QStringLiteral("vectorized_elementwise_kernel"),
                QStringLiteral("sm80…tn…tilesize64x256x8…warpsize1x4x1…split_k…"),
                QStringLiteral("sm80…nn…tilesize32x32x8…warpsize1x2x1…") }));
    }

    void aLongNameWithoutRelativesIsElidedInTheMiddle()
    {
        const QString name = kCublas[0];
        const QStringList labels = distinctLabels({ name, QStringLiteral("short") }, 48);
        QCOMPARE(labels[0], elideMiddle(name, 48));
        QCOMPARE(labels[0].size(), 48);
        QCOMPARE(labels[1], QStringLiteral("short"));
    }

    void aLabelStillTooLongIsCutToTheLimit()
    {
        const QStringList labels = distinctLabels(kCublas, 20);
        for (const auto &label : labels)
            QVERIFY2(label.size() <= 20, qPrintable(label));
        QCOMPARE(labels[0], elideMiddle(QStringLiteral("sm80…tn…tilesize64x256x8…warpsize1x4x1…"), 20));
    }

    void theTopKernelsChartLabelsAreDistinctAndTheTooltipHasTheFullName()
    {
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(fixture::buildTrace(2)));
        auto *chart = h.kernels.chart();
        auto *axis = qobject_cast<QBarCategoryAxis *>(chart->axes(Qt::Vertical).value(0));
        QVERIFY(axis);
        const auto &rows = h.kernels.summary().rows;
        QCOMPARE(axis->count(), int(rows.size()));
        // Drawn whole: Qt Charts would turn labels taller than their band into "...".
        QVERIFY(!axis->truncateLabels());
        QCOMPARE(axis->labelsFont().pointSizeF(), TopKernelsPanel::kChartLabelPt);
        // Bottom-up: the last category is the largest kernel.
        const QString top = QString::fromStdString(h.data->trace->str(rows.front().name));
        QCOMPARE(axis->at(axis->count() - 1), QStringLiteral("1. ") + top);
        QCOMPARE(h.kernels.chartToolTip(0),
            QStringLiteral("1. %1\n2.000 ms in 2 calls (%2% of kernel time)")
                .arg(top)
                .arg(rows.front().percent, 0, 'f', 1));
        QCOMPARE(h.kernels.chartToolTip(int(rows.size())), QString());
    }

    void chartsFollowTheDarkThemeAndKeepTheirSeriesColours()
    {
        fixture::PanelWindow h;
        QVERIFY(h.loadAndWait(fixture::buildTrace(2)));
        QList<QChart *> charts { h.kernels.chart(), h.blame.chart(), h.pace.chart() };
        const QColor lightBase = Theme::make(Theme::Kind::Light).palette().color(QPalette::Base);
        for (auto *chart : charts)
            QCOMPARE(chart->backgroundBrush().color(), lightBase);
        auto barColor = [&] {
            auto *bars = qobject_cast<QAbstractBarSeries *>(h.kernels.chart()->series().value(0));
            return bars ? bars->barSets().value(0)->color() : QColor();
        };
        QCOMPARE(barColor(), seriesColor(0));

        Theme::apply(Theme::Kind::Dark);
        const QColor darkBase = Theme::make(Theme::Kind::Dark).palette().color(QPalette::Base);
        for (auto *chart : charts) {
            QCOMPARE(chart->backgroundBrush().color(), darkBase);
            QVERIFY(chart->titleBrush().color().lightness() > 150);
            for (const QColor &c : axisLabelColors(chart))
                QVERIFY2(c.lightness() > 150, qPrintable(c.name()));
        }
        // The panels redrew their series in their own colours, not the chart theme's.
        QCOMPARE(barColor(), seriesColor(0));
        QCOMPARE(h.kernels.chart()->axes().size(), 2);

        // Warning findings take the dark theme's warning colour, readable on its background.
        int warnings = 0;
        for (int i = 0; i < h.summary.findingsList()->count(); ++i) {
            auto *item = h.summary.findingsList()->item(i);
            if (!item->data(SummaryPanel::kWarningRole).toBool())
                continue;
            ++warnings;
            QCOMPARE(item->foreground().color(), Theme::make(Theme::Kind::Dark).warningText);
        }
        QVERIFY(warnings > 0);

        Theme::apply(Theme::Kind::Light);
        for (int i = 0; i < h.summary.findingsList()->count(); ++i) {
            auto *item = h.summary.findingsList()->item(i);
            if (item->data(SummaryPanel::kWarningRole).toBool())
                QCOMPARE(item->foreground().color(), Theme::make(Theme::Kind::Light).warningText);
        }
        for (auto *chart : charts) {
            QCOMPARE(chart->backgroundBrush().color(), lightBase);
            for (const QColor &c : axisLabelColors(chart))
                QVERIFY2(c.lightness() < 120, qPrintable(c.name()));
        }
    }
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
