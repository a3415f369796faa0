// SPDX-License-Identifier: MIT
#include "ui/report/intervalssection.h"

#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/util/units.h"
#include "ui/export/viewexporter.h"
#include "ui/panels/intervalheatmap.h"
#include "ui/panels/transferschart.h"
#include "ui/theme/theme.h"

#include <QChart>
#include <QPainter>

#include <algorithm>
#include <stdexcept>

namespace gaplens::ui {

namespace {
constexpr std::size_t kAnomaliesPerRank = 5;
}

IntervalsSection::IntervalsSection(const core::DerivedCapture &derived, QSize chartSize)
{
    const auto &trace = derived.trace();
    core::IntervalOptions options;
    options.intervalNs = core::defaultIntervalLength(trace);
    options.top = kAnomaliesPerRank;
    try {
        m_report = core::computeIntervals(derived, options);
    } catch (const std::invalid_argument &e) {
        m_error = QString::fromUtf8(e.what());
        return;
    }
    m_computed = true;
    if (m_report.ranks.empty())
        return;
    std::vector<std::size_t> entries;
    std::int64_t first = m_report.ranks.front().firstIndex, last = first;
    std::size_t busiest = 0; // the entry with the most copy time
    core::TimeNs busiestNs = -1;
    for (std::size_t e = 0; e < m_report.ranks.size(); ++e) {
        const auto &ri = m_report.ranks[e];
        entries.push_back(e);
        m_rankLabels << QStringLiteral("rank %1").arg(trace.ranks[ri.rank].rank);
        first = std::min(first, ri.firstIndex);
        last = std::max(last, ri.firstIndex + std::int64_t(ri.intervals.size()) - 1);
        core::TimeNs copyNs = 0;
        for (const auto &s : ri.intervals)
            copyNs += s.stallNs();
        if (copyNs > busiestNs) {
            busiestNs = copyNs;
            busiest = e;
        }
    }
    const auto all = core::findAnomalies(m_report, m_report.metric, false, std::size_t(-1));
    const auto heat = makeHeatMapData(trace, m_report, all, m_report.metric, entries, first, last);
    const QSize heatSize(chartSize.width(), std::clamp(int(entries.size()) * 22 + 80, 160, chartSize.height()));
    m_images.insert(QStringLiteral("intervals-heatmap"), ViewExporter::paintImage(heatSize, [&](QPainter &p, QSize s) {
        // The light theme whatever the window shows, as the report's other pictures.
        IntervalHeatMap::paint(p, QRect(QPoint(0, 0), s), heat, -1, Theme::make(Theme::Kind::Light));
    }));

    m_stalls
        = entries.size() == 1 ? core::copyStallIntervals(m_report, 0) : core::simultaneousCopyStalls(m_report, entries);
    if (busiestNs > 0) {
        m_transfersRank = m_rankLabels[qsizetype(busiest)];
        QChart chart;
        chart.setAnimationOptions(QChart::NoAnimation);
        chart.setBackgroundRoundness(0);
        TransfersChartInput in;
        in.report = &m_report;
        in.entry = busiest;
        in.first = first;
        in.last = last;
        in.quantity = TransferQuantity::Duration;
        in.highlighted = m_stalls;
        in.highlightName
            = entries.size() == 1 ? QStringLiteral("copy stall") : QStringLiteral("copy stall on every rank");
        in.title = QStringLiteral("%1: copy time per %2 interval by direction")
                       .arg(m_transfersRank, QString::fromStdString(core::formatDuration(double(m_report.intervalNs))));
        fillTransfersChart(&chart, in);
        m_images.insert(
            QStringLiteral("intervals-transfers"), ViewExporter::paintImage(chartSize, [&](QPainter &p, QSize s) {
                p.setRenderHint(QPainter::Antialiasing);
                ViewExporter::paintChart(p, QRect(QPoint(0, 0), s), &chart);
            }));
    }
}

QString IntervalsSection::html(const ImageHtml &image, TableHtml table) const
{
    QString h = QStringLiteral("<h2>Intervals</h2>\n");
    if (!m_computed)
        return h + QStringLiteral("<p>%1</p>\n").arg(m_error.toHtmlEscaped());
    if (m_report.ranks.empty())
        return h + QStringLiteral("<p>No kernels or copies: no intervals.</p>\n");
    const QString length = QString::fromStdString(core::formatDuration(double(m_report.intervalNs)));
    h += QStringLiteral("<p>Intervals of %1 from the first GPU work (docs/intervals.md); anomalous: beyond the IQR "
                        "fences of the rank's intervals, outlined.</p>\n")
             .arg(length);
    h += image(QStringLiteral("intervals-heatmap"), QStringLiteral("kernel duration spread per rank and interval"));
    if (!m_transfersRank.isEmpty()) {
        h += QStringLiteral("<h3>Transfers</h3>\n");
        h += image(QStringLiteral("intervals-transfers"), QStringLiteral("copy time per interval by direction"));
        h += QStringLiteral("<p>%1</p>\n")
                 .arg(m_stalls.empty()
                         ? QStringLiteral("No interval with a copy stall on every rank at once.")
                         : QStringLiteral("Shaded: %1 interval(s) with a copy stall on every rank at once.")
                               .arg(m_stalls.size()));
    }
    h += QStringLiteral("<h3>Anomalous intervals (kernel duration spread)</h3>\n");
    std::vector<QStringList> rows;
    for (std::size_t e = 0; e < m_report.anomalies.size() && e < m_report.ranks.size(); ++e)
        for (const auto &a : m_report.anomalies[e].top)
            rows.push_back({ m_rankLabels[qsizetype(e)], QString::number(a.index),
                QString::fromStdString(core::intervalOffsetNumber(m_report.intervalNs, a.index)) + QLatin1Char(' ')
                    + QLatin1String(core::intervalOffsetUnit(m_report.intervalNs).name),
                QString::fromStdString(core::formatDuration(a.value)), QString::number(a.score, 'f', 2) });
    if (rows.empty())
        return h + QStringLiteral("<p>No anomalous interval.</p>\n");
    return h
        + table({ QStringLiteral("rank"), QStringLiteral("interval"), QStringLiteral("start"), QStringLiteral("stddev"),
                    QStringLiteral("score") },
            rows, { 1, 2, 3, 4 });
}

} // namespace gaplens::ui
