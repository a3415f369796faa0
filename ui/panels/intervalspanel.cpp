// SPDX-License-Identifier: MIT
#include "ui/panels/intervalspanel.h"

#include "gaplens/core/util/units.h"
#include "ui/panels/chartutil.h"
#include "ui/panels/intervalheatmap.h"
#include "ui/panels/paneltable.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeruler.h"
#include "ui/timeline/zoomcontrol.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gaplens::ui {

namespace {

constexpr core::IntervalMetric kMetrics[] = { core::IntervalMetric::Stddev, core::IntervalMetric::Busy,
    core::IntervalMetric::Kernels, core::IntervalMetric::KernelNs, core::IntervalMetric::Stall,
    core::IntervalMetric::Bytes, core::IntervalMetric::HtoD, core::IntervalMetric::DtoH };

QString metricName(core::IntervalMetric metric)
{
    const auto name = core::intervalMetricName(metric);
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

// The intervals of `entries` overlapping `window` (all of them without one).
std::pair<std::int64_t, std::int64_t> shownIntervals(
    const core::IntervalReport &report, const std::vector<std::size_t> &entries, const core::TimeWindow &window)
{
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
    for (const auto e : entries) {
        const auto &ri = report.ranks[e];
        if (ri.intervals.empty())
            continue;
        first = std::min(first, ri.firstIndex);
        last = std::max(last, ri.firstIndex + std::int64_t(ri.intervals.size()) - 1);
    }
    if (first > last)
        return { 0, -1 };
    if (window) {
        // Interval k overlaps [start, end) when origin + kL < end and origin + (k+1)L > start.
        const auto L = report.intervalNs;
        const auto floorDiv
            = [](core::TimeNs a, core::TimeNs b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); };
        first = std::max(first, floorDiv(window->start - report.originNs, L));
        last = std::min(last, floorDiv(window->end - 1 - report.originNs, L));
    }
    return { first, last };
}

} // namespace

IntervalsPanel::IntervalsPanel(PanelContext &context, TimelineView *view, QWidget *parent)
    : AnalysisPanel(context, view, DerivedUse::Reads, parent)
    , m_metric(new QComboBox(this))
    , m_interval(new QLineEdit(this))
    , m_length(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_heatMap(new IntervalHeatMap(this))
    , m_anomalies(new PanelTable(this))
    , m_rank(new QComboBox(this))
    , m_quantity(new QComboBox(this))
    , m_chartView(makePanelChartView(this, [this] { rebuildTransfers(); }))
    , m_chart(m_chartView->chart())
    , m_transfersNote(new QLabel(this))
{
    for (const auto metric : kMetrics)
        m_metric->addItem(
            metricTitle(metric) + QStringLiteral(" (") + metricName(metric) + QLatin1Char(')'), int(metric));
    m_metric->setToolTip(QStringLiteral("The statistic per rank and interval the heat map colours and the "
                                        "anomalies are found on (docs/intervals.md)"));
    m_interval->setPlaceholderText(QStringLiteral("auto"));
    m_interval->setMaximumWidth(90);
    m_interval->setToolTip(QStringLiteral("Interval length, e.g. 1s, 100ms, 250us (empty: 1 s, or shorter so the "
                                          "GPU work spans at least %1 intervals)")
                               .arg(core::kMinDefaultIntervals));
    m_quantity->addItem(QStringLiteral("bytes"), int(TransferQuantity::Bytes));
    m_quantity->addItem(QStringLiteral("copy time"), int(TransferQuantity::Duration));
    m_rank->setToolTip(QStringLiteral("The rank whose copies are stacked; the shading is over every selected rank"));
    m_transfersNote->setWordWrap(true);

    auto *top = controlRow(m_scopeLabel,
        { new QLabel(QStringLiteral("Metric:"), this), m_metric, new QLabel(QStringLiteral("Interval:"), this),
            m_interval, m_length });

    m_heatMap->setToolTipProvider([this](int row, int column) { return cellToolTip(row, column); });
    auto *heat = adaptivePair(m_heatMap, m_anomalies, 3, 2, 0.62);
    m_tabs->addTab(heat, QStringLiteral("Heat map"));

    auto *transfers = new QWidget(this);
    auto *transfersLayout = new QVBoxLayout(transfers);
    transfersLayout->setContentsMargins(0, 0, 0, 0);
    auto *transfersRow = new QHBoxLayout;
    transfersRow->addWidget(new QLabel(QStringLiteral("Rank:"), transfers));
    transfersRow->addWidget(m_rank);
    transfersRow->addWidget(new QLabel(QStringLiteral("Stack:"), transfers));
    transfersRow->addWidget(m_quantity);
    transfersRow->addWidget(m_transfersNote, 1);
    transfersLayout->addLayout(transfersRow);
    transfersLayout->addWidget(m_chartView, 1);
    m_tabs->addTab(transfers, QStringLiteral("Transfers"));
    setPanelLayout(top, { m_tabs });

    connect(m_metric, &QComboBox::activated, this, &AnalysisPanel::scheduleUpdate);
    connect(m_interval, &QLineEdit::editingFinished, this, &AnalysisPanel::scheduleUpdate);
    connect(m_rank, &QComboBox::activated, this, [this](int) { rebuildTransfers(); });
    connect(m_quantity, &QComboBox::activated, this, [this](int) { rebuildTransfers(); });
    connect(m_heatMap, &IntervalHeatMap::cellClicked, this, [this](int row, int column) {
        const auto &d = m_heatMap->data();
        if (row >= 0 && std::size_t(row) < d.entries.size())
            selectInterval(d.entries[std::size_t(row)], d.firstIndex + column);
    });
    connect(m_anomalies, &PanelTable::rowClicked, this, [this](int row, int) {
        const auto key = m_anomalies->tableModel()->rowKey(row);
        if (key >= 0 && std::size_t(key) < m_anomalyRows.size())
            selectInterval(m_anomalyRows[std::size_t(key)].first, m_anomalyRows[std::size_t(key)].second);
    });
    // The scope line says what this panel shows while its own click is the panels' window.
    connect(this, &AnalysisPanel::updated, this, [this] {
        if (m_ownWindow && m_selected)
            m_scopeLabel->setText(
                QStringLiteral("%1 · interval %2 selected on the timeline")
                    .arg(m_baseWindow ? QStringLiteral("the earlier selection") : QStringLiteral("whole capture"))
                    .arg(*m_selected));
    });
    connect(&m_context, &PanelContext::dataChanged, this, [this] {
        m_cache = {};
        m_ownWindow.reset();
        m_selected.reset();
    });
}

QString IntervalsPanel::lengthText() const
{
    if (!m_result.error.isEmpty())
        return m_result.error;
    if (!m_result.report)
        return {};
    const QString length = QString::fromStdString(core::formatDuration(double(m_result.report->intervalNs)));
    return m_result.automaticLength ? QStringLiteral("%1 (automatic: at least %2 intervals over the GPU work)")
                                          .arg(length)
                                          .arg(core::kMinDefaultIntervals)
                                    : length;
}

void IntervalsPanel::setMetric(core::IntervalMetric metric)
{
    m_metric->setCurrentIndex(m_metric->findData(int(metric)));
    scheduleUpdate();
}

void IntervalsPanel::setIntervalText(const QString &text)
{
    m_interval->setText(text);
    scheduleUpdate();
}

void IntervalsPanel::setQuantity(TransferQuantity quantity)
{
    m_quantity->setCurrentIndex(m_quantity->findData(int(quantity)));
    rebuildTransfers();
}

core::TimeWindow IntervalsPanel::shownWindow()
{
    if (m_ownWindow && *m_ownWindow == m_context.window())
        return m_baseWindow;
    m_ownWindow.reset();
    return m_context.window();
}

void IntervalsPanel::recompute()
{
    const auto trace = traceOrClear([this] { apply({}); });
    if (!trace)
        return;
    const auto derived = derivedOrAwait();
    if (!derived)
        return;
    core::TimeNs length = 0;
    const QString text = m_interval->text().trimmed();
    if (!text.isEmpty() && text != QStringLiteral("auto") && (!parseDuration(text, length) || length <= 0)) {
        Result r;
        r.trace = trace;
        r.error = QStringLiteral("cannot read \"%1\" as an interval length (e.g. 1s, 100ms)").arg(text);
        cancelJobs();
        apply(r);
        return;
    }
    const auto metric = core::IntervalMetric(m_metric->currentData().toInt());
    const bool copiesBusy = derived->options().includeCopies;
    const auto cached = m_cache.trace == trace.get() && m_cache.intervalNs == length && m_cache.copiesBusy == copiesBusy
        ? m_cache.report
        : nullptr;
    const bool cachedAutomatic = m_cache.automaticLength;
    run<Result>(
        [trace, derived, length, metric, cached, cachedAutomatic, ranks = m_context.ranks(), window = shownWindow()] {
            Result r;
            r.trace = trace;
            r.metric = metric;
            r.window = window;
            r.report = cached;
            r.automaticLength = cached ? cachedAutomatic : length == 0;
            if (!r.report) {
                core::IntervalOptions options;
                options.intervalNs = length > 0 ? length : core::defaultIntervalLength(*trace);
                options.top = std::numeric_limits<std::size_t>::max();
                try {
                    r.report = std::make_shared<const core::IntervalReport>(core::computeIntervals(*derived, options));
                } catch (const std::invalid_argument &e) {
                    r.error = QString::fromUtf8(e.what());
                    return r;
                }
            }
            const auto &report = *r.report;
            r.anomalies = core::findAnomalies(report, metric, false, std::numeric_limits<std::size_t>::max());
            for (std::size_t e = 0; e < report.ranks.size(); ++e)
                if (ranks.includes(report.ranks[e].rank))
                    r.entries.push_back(e);
            r.stalls = r.entries.size() == 1 ? core::copyStallIntervals(report, r.entries.front())
                                             : core::simultaneousCopyStalls(report, r.entries);
            std::tie(r.first, r.last) = shownIntervals(report, r.entries, window);
            return r;
        },
        [this, length, copiesBusy](const Result &r) {
            if (r.report)
                m_cache = { r.trace.get(), length, copiesBusy, r.report, r.automaticLength };
            apply(r);
        });
}

void IntervalsPanel::apply(const Result &r)
{
    const bool sameIntervals = m_result.report == r.report && m_result.window == r.window;
    m_result = r;
    m_length->setText(lengthText());
    if (!sameIntervals)
        m_selected.reset();
    if (!r.report) {
        m_heatMap->setData({});
        m_anomalies->tableModel()->clear();
        m_anomalyRows.clear();
        m_rank->clear();
        rebuildTransfers();
        return;
    }
    const auto &report = *r.report;
    m_heatMap->setData(makeHeatMapData(*r.trace, report, r.anomalies, r.metric, r.entries, r.first, r.last));
    m_heatMap->setSelectedColumn(m_selected ? int(*m_selected - r.first) : -1);

    const QList<PanelColumn> columns {
        { QStringLiteral("Rank"), true, {}, {} },
        { QStringLiteral("Interval"), true, {}, QStringLiteral("Index from the origin (the first GPU work)") },
        { QStringLiteral("Start"), true, QStringLiteral("ns"), QStringLiteral("Start, from the origin") },
        { QStringLiteral("Value"), true, {}, metricTitle(r.metric) },
        { QStringLiteral("Score"), true, {},
            QStringLiteral(
                "Distance beyond the IQR fence divided by the IQR (the distance itself when the IQR is 0)") },
    };
    std::vector<std::vector<PanelCell>> rows;
    std::vector<qint64> keys;
    m_anomalyRows.clear();
    for (const auto e : r.entries) {
        const auto &group = r.anomalies.size() == 1 ? r.anomalies.front() : r.anomalies[e];
        for (const auto &a : group.top) {
            if (a.rank != report.ranks[e].rank || a.index < r.first || a.index > r.last)
                continue;
            PanelCell value { formatMetricValue(r.metric, a.value), a.value, {}, {} };
            PanelCell score { QString::number(a.score, 'f', 2), a.score, {}, {} };
            rows.push_back({ PanelCell::count(std::uint64_t(std::max(0, r.trace->ranks[a.rank].rank))),
                PanelCell::count(std::uint64_t(a.index)), PanelCell::duration(double(a.startNs - report.originNs)),
                value, score });
            keys.push_back(qint64(m_anomalyRows.size()));
            m_anomalyRows.emplace_back(e, a.index);
        }
    }
    m_anomalies->tableModel()->setTable(columns, std::move(rows), std::move(keys));
    m_anomalies->sortByColumn(ScoreColumn, Qt::DescendingOrder);

    const QVariant previous = m_rank->currentData();
    m_rank->clear();
    for (const auto e : r.entries)
        m_rank->addItem(QStringLiteral("rank %1").arg(r.trace->ranks[report.ranks[e].rank].rank), qulonglong(e));
    const int keep = m_rank->findData(previous);
    if (keep >= 0)
        m_rank->setCurrentIndex(keep);
    rebuildTransfers();
}

void IntervalsPanel::rebuildTransfers()
{
    const auto &r = m_result;
    if (!r.report || m_rank->currentIndex() < 0) {
        clearChart(m_chart);
        m_chart->setTitle(QString());
        m_transfersNote->setText(r.report ? QStringLiteral("No rank in this selection.") : QString());
        return;
    }
    TransfersChartInput in;
    in.report = r.report.get();
    in.entry = std::size_t(m_rank->currentData().toULongLong());
    in.first = r.first;
    in.last = r.last;
    in.quantity = TransferQuantity(m_quantity->currentData().toInt());
    in.highlighted = r.stalls;
    in.highlightName = r.entries.size() == 1 ? QStringLiteral("copy stall")
        : r.entries.size() == 2              ? QStringLiteral("copy stall on both selected ranks")
                                : QStringLiteral("copy stall on all %1 selected ranks").arg(r.entries.size());
    in.title
        = QStringLiteral("%1: copies per %2 interval by direction")
              .arg(m_rank->currentText(), QString::fromStdString(core::formatDuration(double(r.report->intervalNs))));
    m_axis = fillTransfersChart(m_chart, in);
    for (auto *series : m_chart->series())
        if (auto *area = qobject_cast<QAreaSeries *>(series))
            connect(area, &QAreaSeries::clicked, this, [this, entry = in.entry](const QPointF &point) {
                selectInterval(entry, std::clamp(m_axis.intervalAt(point.x()), m_result.first, m_result.last));
            });
    const auto &ri = r.report->ranks[in.entry];
    core::CopyFigures total;
    for (const auto &stats : ri.intervals)
        total.merge(stats.transfers());
    QString note = total.count == 0 ? QStringLiteral("This rank made no copies.")
                                    : QStringLiteral("%1 copies, %2 in %3 over the capture")
                                          .arg(total.count)
                                          .arg(QString::fromStdString(core::formatBytes(total.bytes)),
                                              QString::fromStdString(core::formatDuration(double(total.ns))));
    note += r.stalls.empty()
        ? QStringLiteral("; no copy stall on all selected ranks at once.")
        : QStringLiteral("; shaded: %1 interval(s) with a copy stall on %2.")
              .arg(r.stalls.size())
              .arg(r.entries.size() == 1 ? QStringLiteral("this rank") : QStringLiteral("every selected rank"));
    m_transfersNote->setText(note);
}

bool IntervalsPanel::selectInterval(std::size_t entry, std::int64_t index)
{
    const auto &r = m_result;
    if (!r.report || entry >= r.report->ranks.size() || index < r.first || index > r.last)
        return false;
    const core::TimeNs start = r.report->originNs + index * r.report->intervalNs;
    const core::TimeNs end = start + r.report->intervalNs;
    m_selected = index;
    m_heatMap->setSelectedColumn(int(index - r.first));
    if (!m_view)
        return true;
    // Display time = absolute + the rank's offset (ranks aligned on an NVTX range differ).
    const core::TimeNs offset = m_view->model()->rankOffset(core::RankIndex(r.report->ranks[entry].rank));
    const core::TimeNs margin = std::max<core::TimeNs>(r.report->intervalNs / 10, 100);
    m_baseWindow = r.window;
    m_view->zoom()->setWindow(start + offset - margin, end + offset + margin);
    // Selecting on the ruler sets the panels' window (through the main window) before it returns.
    m_view->ruler()->setTimeSelection(core::TimeRange { start + offset, end + offset });
    m_ownWindow = m_context.window();
    return true;
}

QString IntervalsPanel::cellToolTip(int row, int column) const
{
    const auto &d = m_heatMap->data();
    if (!m_result.report || row < 0 || std::size_t(row) >= d.entries.size())
        return {};
    const auto &ri = m_result.report->ranks[d.entries[std::size_t(row)]];
    const std::int64_t k = d.firstIndex + column;
    const auto i = k - ri.firstIndex;
    QString tip = QStringLiteral("<b>%1, interval %2</b> (%3 from the first GPU work)<br>")
                      .arg(d.rowLabels[row])
                      .arg(k)
                      .arg(intervalOffsetText(m_result.report->intervalNs, k));
    if (i < 0 || i >= std::int64_t(ri.intervals.size()))
        return tip + QStringLiteral("outside this rank's intervals");
    const auto &s = ri.intervals[std::size_t(i)];
    const auto dur = [](double ns) { return QString::fromStdString(core::formatDuration(ns)); };
    const double v = d.value(row, column);
    tip += QStringLiteral("%1: <b>%2</b>%3<br>")
               .arg(metricTitle(d.metric), std::isnan(v) ? QStringLiteral("none") : formatMetricValue(d.metric, v),
                   d.isOutlined(row, column) ? QStringLiteral(" — anomalous") : QString());
    tip += QStringLiteral("kernels %1, time %2, mean %3, stddev %4, min %5, max %6<br>")
               .arg(s.kernels.count)
               .arg(dur(double(static_cast<long double>(s.kernels.sum))), dur(s.kernels.mean()),
                   dur(s.kernels.sampleStddev()), dur(double(s.kernels.min)), dur(double(s.kernels.max)));
    const auto transfers = s.transfers();
    tip += QStringLiteral("busy %1; copies %2, %3 in %4 (HtoD %5, DtoH %6)")
               .arg(dur(double(s.busyNs)))
               .arg(transfers.count)
               .arg(QString::fromStdString(core::formatBytes(transfers.bytes)), dur(double(transfers.ns)),
                   QString::fromStdString(
                       core::formatBytes(s.copies[core::copySlot(core::CopyKind::HostToDevice)].bytes)),
                   QString::fromStdString(
                       core::formatBytes(s.copies[core::copySlot(core::CopyKind::DeviceToHost)].bytes)));
    return tip + QStringLiteral("<br><i>Click to select it on the timeline</i>");
}

} // namespace gaplens::ui
