// SPDX-License-Identifier: MIT
#include "ui/panels/intervalheatmap.h"

#include "gaplens/core/util/units.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timeformat.h"

#include <QEvent>
#include <QHelpEvent>
#include <QImage>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gaplens::ui {

namespace {

constexpr int kLegendHeight = 34; // colour bar and its labels
constexpr int kAxisHeight = 16; // interval times under the cells
constexpr int kMargin = 4;

// A cool sequential scale (gap causes own the warm hues): pale to deep blue on light
// backgrounds, deep to pale on dark ones, so a high value always stands out most.
QColor scaleColor(double t, bool dark)
{
    static constexpr QRgb kStops[] = { 0xe8f6f3, 0x9fdccf, 0x4fb0c6, 0x2c6fa8, 0x1d3a73 };
    constexpr int n = int(std::size(kStops));
    t = std::clamp(dark ? 1.0 - t : t, 0.0, 1.0);
    const double x = t * (n - 1);
    const int i = std::min(n - 2, int(x));
    const double f = x - i;
    const QColor a = QColor::fromRgb(kStops[i]), b = QColor::fromRgb(kStops[i + 1]);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f),
        float(a.greenF() + (b.greenF() - a.greenF()) * f), float(a.blueF() + (b.blueF() - a.blueF()) * f));
}

struct Geometry
{
    QRectF cells; // the cell area
    int labelWidth = 0;
    QRect legend;
};

Geometry geometryOf(const QRect &rect, const HeatMapData &data, const QFontMetrics &fm)
{
    Geometry g;
    for (const auto &label : data.rowLabels)
        g.labelWidth = std::max(g.labelWidth, fm.horizontalAdvance(label));
    g.labelWidth += 8;
    const int top = rect.top() + kMargin;
    const int bottom = rect.bottom() - kLegendHeight - kAxisHeight;
    g.cells = QRectF(
        rect.left() + g.labelWidth, top, std::max(1, rect.width() - g.labelWidth - kMargin), std::max(1, bottom - top));
    g.legend = QRect(rect.left() + g.labelWidth, bottom + kAxisHeight + 4, int(g.cells.width()), kLegendHeight - 6);
    return g;
}

} // namespace

int heatMapRowLabelStep(double rowHeight, int lineHeight)
{
    return std::max(1, int(std::ceil(double(lineHeight) / std::max(rowHeight, 1e-6) - 1e-9)));
}

HeatMapData makeHeatMapData(const core::TraceSet &trace, const core::IntervalReport &report,
    const std::vector<core::AnomalyGroup> &anomalies, core::IntervalMetric metric,
    const std::vector<std::size_t> &entries, std::int64_t first, std::int64_t last)
{
    HeatMapData d;
    d.metric = metric;
    d.originNs = report.originNs;
    d.intervalNs = report.intervalNs;
    d.firstIndex = first;
    d.columns = last >= first ? int(last - first + 1) : 0;
    const std::size_t cells = std::size_t(d.columns) * entries.size();
    d.values.assign(cells, std::numeric_limits<double>::quiet_NaN());
    d.outlined.assign(cells, 0);
    for (std::size_t row = 0; row < entries.size(); ++row) {
        const auto e = entries[row];
        const auto &ri = report.ranks[e];
        d.entries.push_back(e);
        d.rowLabels << QStringLiteral("rank %1").arg(trace.ranks[ri.rank].rank);
        for (int c = 0; c < d.columns; ++c) {
            const std::int64_t k = first + c - ri.firstIndex;
            if (k < 0 || k >= std::int64_t(ri.intervals.size()))
                continue;
            if (const auto v = core::intervalMetricValue(ri.intervals[std::size_t(k)], metric)) {
                d.values[row * std::size_t(d.columns) + std::size_t(c)] = *v;
                d.maxValue = std::max(d.maxValue, *v);
            }
        }
        // A pool's one group holds every rank's anomalies; else the entry's own group.
        const auto &group
            = anomalies.size() == 1 && anomalies.front().rank == core::kNoIndex ? anomalies.front() : anomalies[e];
        for (const auto &a : group.top)
            if (a.rank == ri.rank && a.index >= first && a.index <= last)
                d.outlined[row * std::size_t(d.columns) + std::size_t(a.index - first)] = 1;
    }
    return d;
}

QString formatMetricValue(core::IntervalMetric metric, double value)
{
    switch (metric) {
    case core::IntervalMetric::Kernels: return QString::number(std::llround(value));
    case core::IntervalMetric::Bytes:
    case core::IntervalMetric::HtoD:
    case core::IntervalMetric::DtoH:
        return QString::fromStdString(core::formatBytes(std::uint64_t(std::max(0.0, value))));
    default: return QString::fromStdString(core::formatDuration(value));
    }
}

QString metricTitle(core::IntervalMetric metric)
{
    switch (metric) {
    case core::IntervalMetric::Stddev: return QStringLiteral("kernel duration spread");
    case core::IntervalMetric::Busy: return QStringLiteral("GPU busy time");
    case core::IntervalMetric::Kernels: return QStringLiteral("kernels");
    case core::IntervalMetric::KernelNs: return QStringLiteral("kernel time");
    case core::IntervalMetric::Stall: return QStringLiteral("copy time (memory stall)");
    case core::IntervalMetric::Bytes: return QStringLiteral("bytes copied");
    case core::IntervalMetric::HtoD: return QStringLiteral("HtoD bytes");
    case core::IntervalMetric::DtoH: return QStringLiteral("DtoH bytes");
    }
    return {};
}

QString intervalOffsetText(core::TimeNs intervalNs, std::int64_t k)
{
    return QString::fromStdString(core::intervalOffsetNumber(intervalNs, k)) + QLatin1Char(' ')
        + QLatin1String(core::intervalOffsetUnit(intervalNs).name);
}

IntervalHeatMap::IntervalHeatMap(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    connect(ThemeNotifier::instance(), &ThemeNotifier::themeChanged, this, qOverload<>(&QWidget::update));
}

void IntervalHeatMap::setData(HeatMapData data)
{
    m_data = std::move(data);
    if (m_selectedColumn >= m_data.columns)
        m_selectedColumn = -1;
    update();
}

void IntervalHeatMap::setSelectedColumn(int column)
{
    m_selectedColumn = column >= 0 && column < m_data.columns ? column : -1;
    update();
}

QRectF IntervalHeatMap::cellRect(int row, int column) const
{
    const auto g = geometryOf(rect(), m_data, fontMetrics());
    const int rows = int(m_data.rowLabels.size());
    if (rows == 0 || m_data.columns == 0)
        return {};
    const double w = g.cells.width() / m_data.columns, h = g.cells.height() / rows;
    return { g.cells.left() + column * w, g.cells.top() + row * h, w, h };
}

std::optional<std::pair<int, int>> IntervalHeatMap::cellAt(QPoint pos) const
{
    const auto g = geometryOf(rect(), m_data, fontMetrics());
    const int rows = int(m_data.rowLabels.size());
    if (rows == 0 || m_data.columns == 0 || !g.cells.contains(pos))
        return std::nullopt;
    const int column
        = std::clamp(int((pos.x() - g.cells.left()) / g.cells.width() * m_data.columns), 0, m_data.columns - 1);
    const int row = std::clamp(int((pos.y() - g.cells.top()) / g.cells.height() * rows), 0, rows - 1);
    return std::make_pair(row, column);
}

void IntervalHeatMap::paint(
    QPainter &p, const QRect &rect, const HeatMapData &data, int selectedColumn, const Theme &theme)
{
    const QPalette palette = theme.palette();
    const bool dark = theme.isDark();
    p.fillRect(rect, palette.color(QPalette::Base));
    const QColor text = palette.color(QPalette::Text);
    const int rows = int(data.rowLabels.size());
    if (rows == 0 || data.columns == 0) {
        p.setPen(text);
        p.drawText(rect, Qt::AlignCenter, QStringLiteral("No intervals in this selection."));
        return;
    }
    const auto g = geometryOf(rect, data, p.fontMetrics());
    // One pixel per cell, scaled up without smoothing: any number of intervals in one draw.
    QImage image(data.columns, rows, QImage::Format_RGB32);
    const QColor none = dark ? QColor(48, 50, 56) : QColor(236, 237, 240);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < data.columns; ++c) {
            const double v = data.value(r, c);
            image.setPixel(
                c, r, std::isnan(v) ? none.rgb() : scaleColor(data.maxValue > 0 ? v / data.maxValue : 0, dark).rgb());
        }
    p.drawImage(g.cells, image);

    const double w = g.cells.width() / data.columns, h = g.cells.height() / rows;
    p.setPen(text);
    // Row labels a text line apart: with more ranks than lines, every k-th rank is named.
    const int lineHeight = p.fontMetrics().height();
    const double labelHeight = std::max(h, double(lineHeight));
    const int labelStep = heatMapRowLabelStep(h, lineHeight);
    for (int r = 0; r < rows; r += labelStep)
        p.drawText(QRectF(rect.left(), g.cells.top() + (r + 0.5) * h - labelHeight / 2, g.labelWidth - 6, labelHeight),
            Qt::AlignRight | Qt::AlignVCenter, data.rowLabels[r]);
    // Anomalous cells: an outline at least 3 px wide and tall, so one among thousands still shows.
    QPen outline(theme.gapHighlight);
    outline.setWidthF(2);
    p.setPen(outline);
    p.setBrush(Qt::NoBrush);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < data.columns; ++c)
            if (data.isOutlined(r, c)) {
                const double cw = std::max(3.0, w);
                const double ch = std::max(3.0, h);
                p.drawRect(QRectF(g.cells.left() + c * w + (w - cw) / 2 + 1, g.cells.top() + r * h + (h - ch) / 2 + 1,
                    cw - 2, ch - 2));
            }
    if (selectedColumn >= 0 && selectedColumn < data.columns) {
        QPen pen(text);
        pen.setWidthF(1.5);
        pen.setStyle(Qt::DashLine);
        p.setPen(pen);
        const double cw = std::max(3.0, w);
        p.drawRect(QRectF(g.cells.left() + selectedColumn * w + (w - cw) / 2, g.cells.top(), cw, g.cells.height()));
    }

    // Interval start times under the cells, at least 70 px apart, in one unit for the whole axis.
    p.setPen(text);
    const int every = std::max(1, int(std::ceil(70.0 / std::max(w, 1e-6))));
    const auto unit = durationUnitFor(double(data.firstIndex + data.columns) * double(data.intervalNs));
    for (int c = 0; c < data.columns; c += every) {
        const double x = g.cells.left() + c * w;
        const QString label = QString::number(double(data.firstIndex + c) * double(data.intervalNs) / unit.ns, 'g', 6)
            + QLatin1Char(' ') + QLatin1String(unit.name);
        if (x + p.fontMetrics().horizontalAdvance(label) + 2 > rect.right())
            break;
        p.drawLine(QPointF(x, g.cells.bottom()), QPointF(x, g.cells.bottom() + 3));
        p.drawText(QRectF(x + 2, g.cells.bottom() + 1, 120, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter, label);
    }
    // No cell has a value: say why instead of a grey field.
    if (!std::any_of(data.values.begin(), data.values.end(), [](double v) { return !std::isnan(v); })) {
        const QString why = data.metric == core::IntervalMetric::Stddev
            ? QStringLiteral(
                "No interval has 2 or more kernels of a rank, so none has a spread: choose another metric.")
            : QStringLiteral("No interval has a value.");
        p.drawText(g.cells, Qt::AlignCenter | Qt::TextWordWrap, why);
    }

    // The colour bar: the scale from 0 to the largest value, with the metric's name.
    const QRect bar(g.legend.left(), g.legend.top(), std::min(g.legend.width(), 320), 10);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 10; ++i)
        gradient.setColorAt(i / 10.0, scaleColor(i / 10.0, dark));
    p.fillRect(bar, gradient);
    p.setPen(palette.color(QPalette::Mid));
    p.drawRect(bar);
    p.setPen(text);
    const QRect labels(bar.left(), bar.bottom() + 2, bar.width(), kLegendHeight - 14);
    p.drawText(labels, Qt::AlignLeft | Qt::AlignTop, formatMetricValue(data.metric, 0));
    p.drawText(labels, Qt::AlignHCenter | Qt::AlignTop, formatMetricValue(data.metric, data.maxValue / 2));
    p.drawText(labels, Qt::AlignRight | Qt::AlignTop, formatMetricValue(data.metric, data.maxValue));
    const QRect caption(bar.right() + 12, g.legend.top() - 2, std::max(0, g.legend.right() - bar.right() - 12), 16);
    p.drawText(caption, Qt::AlignLeft | Qt::AlignVCenter,
        QStringLiteral("%1 per %2 interval; outlined: anomalous (IQR rule)")
            .arg(metricTitle(data.metric), QString::fromStdString(core::formatDuration(double(data.intervalNs)))));
}

void IntervalHeatMap::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    paint(p, rect(), m_data, m_selectedColumn, Theme::current());
}

void IntervalHeatMap::mouseReleaseEvent(QMouseEvent *e)
{
    if (e->button() == Qt::LeftButton)
        if (const auto cell = cellAt(e->position().toPoint()))
            emit cellClicked(cell->first, cell->second);
    QWidget::mouseReleaseEvent(e);
}

bool IntervalHeatMap::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const auto cell = cellAt(help->pos());
        if (cell && m_toolTip)
            QToolTip::showText(help->globalPos(), m_toolTip(cell->first, cell->second), this,
                cellRect(cell->first, cell->second).toAlignedRect());
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

} // namespace gaplens::ui
