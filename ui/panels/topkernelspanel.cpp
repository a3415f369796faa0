// SPDX-License-Identifier: MIT
#include "ui/panels/topkernelspanel.h"

#include "ui/panels/chartutil.h"
#include "ui/panels/distinctlabels.h"
#include "ui/panels/kernelhistogramdialog.h"
#include "ui/panels/paneltable.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelineview.h"

#include "gaplens/core/analysis/ncu_command.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QClipboard>
#include <QCursor>
#include <QFont>
#include <QGuiApplication>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>

namespace gaplens::ui {

TopKernelsPanel::TopKernelsPanel(PanelContext &context, TimelineView *view, QWidget *parent)
    : AnalysisPanel(context, view, DerivedUse::Ignores, parent)
    , m_table(new PanelTable(this))
    , m_chartView(makePanelChartView(this, [this] { updateChart(); }))
    , m_chart(m_chartView->chart())
    , m_demangled(new QCheckBox(QStringLiteral("Demangled names"), this))
    , m_topN(new QSpinBox(this))
    , m_instanceLabel(new QLabel(QStringLiteral("Click a kernel to highlight its instances."), this))
    , m_prev(new QPushButton(QStringLiteral("◀ Previous"), this))
    , m_next(new QPushButton(QStringLiteral("Next ▶"), this))
    , m_histogram(new QPushButton(QStringLiteral("Histogram…"), this))
{
    m_topN->setRange(3, 50);
    m_topN->setValue(10);
    m_topN->setPrefix(QStringLiteral("Chart top "));
    m_prev->setEnabled(false);
    m_next->setEnabled(false);
    m_histogram->setEnabled(false);
    m_histogram->setToolTip(QStringLiteral("The chosen kernel's duration distribution: median, p95, slowest launches"));
    m_prev->setToolTip(QStringLiteral("Previous instance on the timeline (Shift+F3)"));
    m_next->setToolTip(QStringLiteral("Next instance on the timeline (F3)"));
    m_instanceLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    setPanelLayout(controlRow(m_scopeLabel, { m_demangled, m_topN }),
        { adaptivePair(m_table, m_chartView, 3, 2, 0.55) },
        controlRow(m_instanceLabel, { m_histogram, m_prev, m_next }));

    m_chart->legend()->hide();
    connect(m_demangled, &QCheckBox::toggled, this, &AnalysisPanel::scheduleUpdate);
    connect(m_topN, &QSpinBox::valueChanged, this, &TopKernelsPanel::updateChart);
    connect(m_table, &PanelTable::rowClicked, this, [this](int row, int) { selectKernelRow(row); });
    connect(m_prev, &QPushButton::clicked, this, &TopKernelsPanel::previousInstance);
    connect(m_next, &QPushButton::clicked, this, &TopKernelsPanel::nextInstance);
    connect(m_histogram, &QPushButton::clicked, this, [this] { showHistogram(m_selectedRow); });
    m_table->setRowActions([this](QMenu &menu, int row) {
        menu.addAction(QStringLiteral("Duration histogram…"), this, [this, row] { showHistogram(row); });
        const QString command = ncuCommand(row);
        if (!command.isEmpty())
            menu.addAction(QStringLiteral("Copy Nsight Compute command"), this,
                [command] { QGuiApplication::clipboard()->setText(command); });
    });
}

QString TopKernelsPanel::ncuCommand(int sourceRow) const
{
    if (!m_trace || sourceRow < 0 || sourceRow >= m_table->tableModel()->rowCount())
        return {};
    core::NcuRequest request;
    request.kernel = m_trace->str(core::StringId(m_table->tableModel()->rowKey(sourceRow)));
    // The scope's ranks in order, else the lowest rank that launched it.
    std::vector<std::optional<std::int32_t>> ranks;
    for (const auto r : m_context.ranks().ranks)
        ranks.emplace_back(m_trace->ranks.at(r).rank);
    if (ranks.empty())
        ranks.emplace_back();
    for (const auto &rank : ranks) {
        request.rankNumber = rank;
        const auto ncu = core::buildNcuCommand(*m_trace, request);
        if (ncu.error.empty())
            return QString::fromStdString(core::ncuCommandText(ncu));
    }
    return {};
}

void TopKernelsPanel::setDemangledNames(bool on)
{
    m_demangled->setChecked(on);
}

void TopKernelsPanel::setTopN(int n)
{
    m_topN->setValue(n);
}

void TopKernelsPanel::recompute()
{
    const auto trace = traceOrClear([this] { apply({}, nullptr); });
    if (!trace)
        return;
    auto options = scopedOptions<core::KernelSummaryOptions>();
    options.useDemangledName = m_demangled->isChecked();
    run<core::KernelSummary>([trace, options] { return core::summarizeKernels(*trace, options); },
        [this, trace](const core::KernelSummary &s) { apply(s, trace); });
}

void TopKernelsPanel::apply(const core::KernelSummary &summary, std::shared_ptr<const core::TraceSet> trace)
{
    m_trace = trace;
    m_summary = summary;
    const QList<PanelColumn> columns {
        { QStringLiteral("Name"), false, {}, {} },
        { QStringLiteral("Calls"), true, {}, {} },
        { QStringLiteral("Total"), true, QStringLiteral("ns"), QStringLiteral("Summed kernel durations") },
        { QStringLiteral("% GPU time"), true, QStringLiteral("%"),
            QStringLiteral("Share of the summed duration of all kernels in the selection") },
        { QStringLiteral("Avg"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("Median"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("Min"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("Max"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("StdDev"), true, QStringLiteral("ns"),
            QStringLiteral("Sample standard deviation, as nsys stats") },
    };
    std::vector<std::vector<PanelCell>> rows;
    std::vector<qint64> keys;
    rows.reserve(summary.rows.size());
    for (const auto &r : summary.rows) {
        const QString name = trace ? QString::fromStdString(trace->str(r.name)) : QString();
        PanelCell nameCell = PanelCell::text(name);
        nameCell.toolTip = name;
        rows.push_back({ nameCell, PanelCell::count(r.stats.count), PanelCell::duration(double(r.stats.totalNs)),
            PanelCell::percent(r.percent), PanelCell::duration(r.stats.avgNs), PanelCell::duration(r.stats.medianNs),
            PanelCell::duration(double(r.stats.minNs)), PanelCell::duration(double(r.stats.maxNs)),
            PanelCell::duration(r.stats.stddevNs) });
        keys.push_back(qint64(r.name));
    }
    m_table->tableModel()->setTable(columns, std::move(rows), std::move(keys));
    m_table->sortByColumn(TotalColumn, Qt::DescendingOrder);
    m_prev->setEnabled(false);
    m_next->setEnabled(false);
    m_histogram->setEnabled(false);
    m_selectedRow = -1;
    m_instanceLabel->setText(summary.rows.empty()
            ? (trace ? QStringLiteral("No kernels in this selection.") : QString())
            : QStringLiteral("%1 kernels, %2 instances. Click one to highlight its instances.")
                  .arg(summary.rows.size())
                  .arg(summary.instances));
    updateChart();
}

void TopKernelsPanel::updateChart()
{
    clearChart(m_chart);
    const auto &trace = m_trace;
    const int n = std::min<int>(m_topN->value(), int(m_summary.rows.size()));
    m_chart->setTitle(n > 1 ? QStringLiteral("Top %1 kernels by total time").arg(n)
            : n == 1        ? QStringLiteral("Kernel time")
                            : QString());
    if (n == 0 || !trace)
        return;
    // The unit follows the largest bar so labels stay short ("12.5" ms, not 12500000 ns).
    const DurationUnit unit = durationUnitFor(double(m_summary.rows.front().stats.totalNs));
    auto *set = new QBarSet(QStringLiteral("total"));
    set->setColor(seriesColor(0));
    QStringList names;
    for (int i = 0; i < n; ++i)
        names << QString::fromStdString(trace->str(m_summary.rows[std::size_t(i)].name));
    const QStringList labels = distinctLabels(names, kChartLabelChars);
    QStringList categories;
    // Horizontal bars are laid out bottom-up: add the smallest first so the largest is on top.
    for (int i = n - 1; i >= 0; --i) {
        *set << double(m_summary.rows[std::size_t(i)].stats.totalNs) / unit.ns;
        // Category labels must be unique: prefix the rank in the table.
        categories << QStringLiteral("%1. %2").arg(i + 1).arg(labels[i]);
    }
    auto *series = new QHorizontalBarSeries;
    series->append(set);
    series->setBarWidth(0.7);
    // The full name of a bar's kernel, as the labels are shortened.
    connect(series, &QHorizontalBarSeries::hovered, this, [this, n](bool over, int index) {
        if (over)
            QToolTip::showText(QCursor::pos(), chartToolTip(n - 1 - index), m_chartView);
        else
            QToolTip::hideText();
    });
    m_chart->addSeries(series);
    auto *y = new QBarCategoryAxis;
    y->append(categories);
    // Qt Charts turns a label taller than its bar's band into "...": a smaller font fits ten
    // bars in the panel's height, and the labels are already short enough to draw whole.
    y->setTruncateLabels(false);
    QFont labelFont = y->labelsFont();
    labelFont.setPointSizeF(kChartLabelPt);
    y->setLabelsFont(labelFont);
    m_chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    auto *x = new QValueAxis;
    x->setTitleText(QStringLiteral("total time (%1)").arg(QLatin1String(unit.name)));
    x->setLabelFormat(QStringLiteral("%.3g"));
    x->setMin(0);
    m_chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    x->applyNiceNumbers();
}

QString TopKernelsPanel::chartToolTip(int row) const
{
    if (!m_trace || row < 0 || std::size_t(row) >= m_summary.rows.size())
        return {};
    const auto &r = m_summary.rows[std::size_t(row)];
    return QStringLiteral("%1. %2\n%3 in %4 calls (%5% of kernel time)")
        .arg(row + 1)
        .arg(QString::fromStdString(m_trace->str(r.name)), formatDuration(r.stats.totalNs))
        .arg(r.stats.count)
        .arg(r.percent, 0, 'f', 1);
}

int TopKernelsPanel::selectKernelRow(int sourceRow)
{
    if (!m_view || sourceRow < 0 || sourceRow >= m_table->tableModel()->rowCount())
        return 0;
    const auto name = core::StringId(m_table->tableModel()->rowKey(sourceRow));
    const int count = m_view->findName(name);
    const QString text = m_table->tableModel()->cell(sourceRow, NameColumn).display.toString();
    m_instanceLabel->setText(
        QStringLiteral("%1: %2 instances highlighted on the timeline").arg(elideMiddle(text, 60)).arg(count));
    m_prev->setEnabled(count > 0);
    m_next->setEnabled(count > 0);
    m_selectedRow = sourceRow;
    m_histogram->setEnabled(true);
    return count;
}

KernelHistogramDialog *TopKernelsPanel::showHistogram(int sourceRow)
{
    if (!m_trace || sourceRow < 0 || sourceRow >= m_table->tableModel()->rowCount())
        return nullptr;
    if (!m_histogramDialog)
        m_histogramDialog = new KernelHistogramDialog(this);
    KernelHistogramDialog::Source source;
    source.trace = m_trace;
    source.options = scopedOptions<core::KernelHistogramOptions>();
    source.options.useDemangledName = m_demangled->isChecked();
    const auto name = core::StringId(m_table->tableModel()->rowKey(sourceRow));
    m_histogramDialog->setKernel(QString::fromStdString(m_trace->str(name)), { source }, m_view);
    m_histogramDialog->show();
    m_histogramDialog->raise();
    return m_histogramDialog;
}

void TopKernelsPanel::nextInstance()
{
    if (m_view)
        m_view->findNext();
}

void TopKernelsPanel::previousInstance()
{
    if (m_view)
        m_view->findPrevious();
}

} // namespace gaplens::ui
