// SPDX-License-Identifier: MIT
#include "ui/panels/kernelhistogramdialog.h"

#include "ui/panels/chartutil.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelineview.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QLogValueAxis>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace gaplens::ui {

KernelHistogramDialog::KernelHistogramDialog(QWidget *parent)
    : QDialog(parent)
    , m_chartView(makePanelChartView(this, [this] { redraw(); }))
    , m_chart(m_chartView->chart())
    , m_bins(new QSpinBox(this))
    , m_log(new QCheckBox(QStringLiteral("Log axis"), this))
    , m_stats(new QLabel(this))
    , m_slowest(new QListWidget(this))
    , m_selection(new QLabel(QStringLiteral("Click a bar to select its launches on the timeline."), this))
    , m_prev(new QPushButton(QStringLiteral("◀ Previous"), this))
    , m_next(new QPushButton(QStringLiteral("Next ▶"), this))
    , m_slowestButton(new QPushButton(QStringLiteral("Select slowest"), this))
{
    setWindowTitle(QStringLiteral("Kernel duration histogram"));
    resize(820, 620);
    m_bins->setRange(2, 200);
    m_bins->setValue(30);
    m_bins->setPrefix(QStringLiteral("Bins "));
    m_log->setToolTip(QStringLiteral("Bins evenly spaced on a logarithmic duration axis"));
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_slowest->setMaximumHeight(130);
    m_slowest->setToolTip(QStringLiteral("The slowest launches; click one to show it on the timeline"));
    m_prev->setEnabled(false);
    m_next->setEnabled(false);

    auto *controls = new QHBoxLayout;
    controls->addWidget(m_stats, 1);
    controls->addWidget(m_bins);
    controls->addWidget(m_log);
    auto *steps = new QHBoxLayout;
    steps->addWidget(m_selection, 1);
    steps->addWidget(m_slowestButton);
    steps->addWidget(m_prev);
    steps->addWidget(m_next);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_chartView, 1);
    layout->addWidget(m_slowest);
    layout->addLayout(steps);

    connect(m_bins, &QSpinBox::valueChanged, this, &KernelHistogramDialog::recompute);
    connect(m_log, &QCheckBox::toggled, this, &KernelHistogramDialog::recompute);
    connect(m_slowestButton, &QPushButton::clicked, this, &KernelHistogramDialog::selectSlowest);
    connect(m_prev, &QPushButton::clicked, this, [this] {
        if (m_view)
            m_view->findPrevious();
    });
    connect(m_next, &QPushButton::clicked, this, [this] {
        if (m_view)
            m_view->findNext();
    });
    connect(m_slowest, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0 || m_histograms.empty())
            return;
        const auto slowest = m_histograms.front().slowest(kSlowest);
        if (std::size_t(row) < slowest.size())
            selectInstances({ slowest[std::size_t(row)] }, QStringLiteral("the %1-th slowest launch").arg(row + 1));
    });
}

void KernelHistogramDialog::setKernel(const QString &name, std::vector<Source> sources, TimelineView *view)
{
    m_name = name;
    m_sources = std::move(sources);
    m_view = view;
    m_slowestButton->setEnabled(view != nullptr);
    setWindowTitle(QStringLiteral("Durations of %1").arg(elideMiddle(name, 80)));
    recompute();
}

void KernelHistogramDialog::setBins(int bins)
{
    m_bins->setValue(bins);
}

void KernelHistogramDialog::setLogarithmic(bool on)
{
    m_log->setChecked(on);
}

void KernelHistogramDialog::recompute()
{
    m_histograms.clear();
    const std::string name = m_name.toStdString();
    // Every source over one axis: the shortest to the longest launch of any of them.
    std::optional<std::pair<core::TimeNs, core::TimeNs>> axis;
    std::vector<core::KernelHistogram> unbinned;
    for (const auto &source : m_sources) {
        auto options = source.options;
        options.bins = 1;
        unbinned.push_back(core::computeKernelHistogram(*source.trace, source.trace->strings.find(name), options));
        if (unbinned.back().count() == 0)
            continue;
        const auto lo = unbinned.back().minNs, hi = unbinned.back().maxNs;
        axis = axis ? std::pair(std::min(axis->first, lo), std::max(axis->second, hi)) : std::pair(lo, hi);
    }
    for (const auto &source : m_sources) {
        auto options = source.options;
        options.bins = std::size_t(m_bins->value());
        options.logarithmic = m_log->isChecked();
        options.axis = axis;
        m_histograms.push_back(core::computeKernelHistogram(*source.trace, source.trace->strings.find(name), options));
    }
    QStringList stats;
    for (std::size_t i = 0; i < m_histograms.size(); ++i) {
        const auto &h = m_histograms[i];
        const QString label = m_sources[i].label.isEmpty() ? QString() : m_sources[i].label + QStringLiteral(": ");
        stats << (h.count() == 0 ? label + QStringLiteral("no launches")
                                 : label
                    + QStringLiteral("%1 launches · min %2 · median %3 · p95 %4 · max %5")
                          .arg(h.count())
                          .arg(formatDuration(h.minNs), formatDuration(core::TimeNs(std::llround(h.medianNs))),
                              formatDuration(h.p95Ns), formatDuration(h.maxNs)));
    }
    m_stats->setText(stats.join(QLatin1Char('\n')));
    m_slowest->clear();
    if (!m_histograms.empty()) {
        const auto *trace = m_sources.front().trace.get();
        for (const auto &k : m_histograms.front().slowest(kSlowest)) {
            const auto &stream = trace->gpus[k.gpu].streams[k.stream];
            m_slowest->addItem(QStringLiteral("%1 · rank %2 · GPU %3 · stream %4")
                                   .arg(formatDuration(k.duration))
                                   .arg(stream.rank < trace->ranks.size() ? trace->ranks[stream.rank].rank : -1)
                                   .arg(trace->gpus[k.gpu].deviceId)
                                   .arg(stream.streamId));
        }
    }
    redraw();
}

int KernelHistogramDialog::binAt(double ns) const
{
    if (m_histograms.empty())
        return -1;
    const auto &bins = m_histograms.front().bins;
    for (int b = 0; b < int(bins.size()); ++b)
        if (ns >= bins[std::size_t(b)].lo && (ns < bins[std::size_t(b)].hi || b + 1 == int(bins.size())))
            return ns <= bins[std::size_t(b)].hi ? b : -1;
    return -1;
}

void KernelHistogramDialog::redraw()
{
    clearChart(m_chart);
    if (m_histograms.empty() || (m_histograms.front().bins.empty() && m_histograms.back().bins.empty())) {
        m_chart->setTitle(QStringLiteral("No launches of this kernel in the selection"));
        return;
    }
    const bool log = m_log->isChecked();
    // Durations in the unit of the longest, so the axis reads "12.5 us", not 12500 ns.
    core::TimeNs longest = 0;
    std::uint64_t tallest = 1;
    for (const auto &h : m_histograms) {
        longest = std::max(longest, h.maxNs);
        for (const auto &b : h.bins)
            tallest = std::max(tallest, b.count());
    }
    const DurationUnit unit = durationUnitFor(double(longest));
    auto *x = log ? static_cast<QAbstractAxis *>(new QLogValueAxis) : static_cast<QAbstractAxis *>(new QValueAxis);
    x->setTitleText(QStringLiteral("launch duration (%1)").arg(QLatin1String(unit.name)));
    if (auto *logAxis = qobject_cast<QLogValueAxis *>(x)) {
        logAxis->setLabelFormat(QStringLiteral("%.3g"));
        logAxis->setMinorTickCount(8); // 2, 3, ... 9 between the decades
    }
    auto *y = new QValueAxis;
    y->setTitleText(QStringLiteral("launches"));
    y->setLabelFormat(QStringLiteral("%d"));
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    const core::KernelHistogram &reference
        = m_histograms.front().bins.empty() ? m_histograms.back() : m_histograms.front();
    const double xLo = reference.bins.front().lo / unit.ns, xHi = reference.bins.back().hi / unit.ns;
    // On a log axis a bin of zero width is not drawable; the axis needs positive values.
    auto xOf = [&](double ns) { return std::max(ns / unit.ns, log ? 1e-9 : -1e300); };
    for (std::size_t i = 0; i < m_histograms.size(); ++i) {
        const auto &h = m_histograms[i];
        if (h.bins.empty())
            continue;
        // One filled step outline per source: bars without gaps, drawn in one series.
        // QAreaSeries does not own its line series: parent the outline to the area, so
        // clearChart's removeAllSeries frees both.
        auto *area = new QAreaSeries;
        auto *upper = new QLineSeries(area);
        upper->append(xOf(h.bins.front().lo), 0);
        for (const auto &b : h.bins) {
            upper->append(xOf(b.lo), double(b.count()));
            upper->append(xOf(b.hi), double(b.count()));
        }
        upper->append(xOf(h.bins.back().hi), 0);
        area->setUpperSeries(upper);
        const QString label = m_sources[i].label;
        area->setName(label.isEmpty() ? QStringLiteral("launches") : label);
        QColor c = seriesColor(int(i));
        QColor fill = c;
        fill.setAlpha(m_histograms.size() > 1 ? 110 : 170);
        area->setBrush(fill);
        area->setPen(QPen(c, 1.2));
        m_chart->addSeries(area);
        area->attachAxis(x);
        area->attachAxis(y);
        if (i == 0 && m_view)
            connect(area, &QAreaSeries::clicked, this, [this, unit](const QPointF &p) {
                if (const int b = binAt(p.x() * unit.ns); b >= 0)
                    selectBin(b);
            });
        // The median and p95 as vertical lines, named with their values in the legend.
        auto marker = [&](double ns, const QString &what, Qt::PenStyle style) {
            auto *line = new QLineSeries;
            line->setName(QStringLiteral("%1%2 %3").arg(label.isEmpty() ? QString() : label + QLatin1Char(' '), what,
                formatDuration(core::TimeNs(std::llround(ns)))));
            line->append(xOf(ns), 0);
            line->append(xOf(ns), double(tallest) * 1.05);
            // Darker than the bars on a light chart, lighter on a dark one: the line stays readable.
            line->setPen(QPen(Theme::current().isDark() ? c.lighter(150) : c.darker(150), 2, style));
            m_chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
        };
        marker(h.medianNs, QStringLiteral("median"), Qt::SolidLine);
        marker(double(h.p95Ns), QStringLiteral("p95"), Qt::DashLine);
    }
    x->setRange(log ? std::max(xLo, 1e-9) : xLo, xHi);
    y->setRange(0, double(tallest) * 1.05);
    m_chart->legend()->setVisible(true);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setTitle(elideMiddle(m_name, 90));
}

void KernelHistogramDialog::selectInstances(
    const std::vector<core::KernelInstance> &instances, const QString &what, bool timeOrder)
{
    if (!m_view || m_sources.empty())
        return;
    const auto name = m_sources.front().trace->strings.find(m_name.toStdString());
    const int n = m_view->findKernelInstances(name, instances, timeOrder);
    m_selection->setText(QStringLiteral("%1: %2 launches selected; Previous/Next step through them").arg(what).arg(n));
    m_prev->setEnabled(n > 0);
    m_next->setEnabled(n > 0);
    if (n > 0)
        m_view->findNext();
}

int KernelHistogramDialog::selectBin(int bin)
{
    if (m_histograms.empty() || bin < 0 || std::size_t(bin) >= m_histograms.front().bins.size())
        return 0;
    const auto &h = m_histograms.front();
    const auto &b = h.bins[std::size_t(bin)];
    const std::vector<core::KernelInstance> instances(h.instances.begin() + b.first, h.instances.begin() + b.last);
    selectInstances(instances,
        QStringLiteral("%1 – %2").arg(
            formatDuration(core::TimeNs(std::llround(b.lo))), formatDuration(core::TimeNs(std::llround(b.hi)))));
    return int(instances.size());
}

int KernelHistogramDialog::selectSlowest()
{
    if (m_histograms.empty())
        return 0;
    const auto slowest = m_histograms.front().slowest(kSlowest);
    // Stepping starts at the slowest, not the earliest of them.
    selectInstances(slowest, QStringLiteral("The %1 slowest").arg(slowest.size()), false);
    return int(slowest.size());
}

} // namespace gaplens::ui
