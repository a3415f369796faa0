// SPDX-License-Identifier: MIT
#include "ui/panels/transferschart.h"

#include "gaplens/core/util/units.h"
#include "ui/panels/chartutil.h"
#include "ui/theme/theme.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timeformat.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace gaplens::ui {

namespace {

double quantityOf(const core::CopyFigures &f, TransferQuantity q)
{
    return q == TransferQuantity::Bytes ? double(f.bytes) : double(f.ns);
}

double totalOf(const core::IntervalStats &s, TransferQuantity q)
{
    return quantityOf(s.transfers(), q);
}

// The axis unit of bytes: the binary unit core::formatBytes would show the largest value in.
std::pair<double, QString> bytesUnitFor(double bytes)
{
    double unit = 1;
    while (bytes / unit >= 1024 && unit < 1024.0 * 1024 * 1024 * 1024)
        unit *= 1024;
    const QString name = QString::fromStdString(core::formatBytes(std::uint64_t(unit)));
    return { unit, unit == 1 ? QStringLiteral("B") : name.section(QLatin1Char(' '), 1) };
}

} // namespace

TransfersAxis fillTransfersChart(QChart *chart, const TransfersChartInput &in)
{
    clearChart(chart);
    chart->setTitle(in.title);
    TransfersAxis axis;
    if (!in.report || in.entry >= in.report->ranks.size() || in.last < in.first)
        return axis;
    const auto &ri = in.report->ranks[in.entry];
    axis.intervalNs = in.report->intervalNs;
    axis.unitNs = durationUnitFor(double(in.last + 1) * double(axis.intervalNs)).ns;
    const auto statsOf = [&](std::int64_t k) -> const core::IntervalStats * {
        const auto i = k - ri.firstIndex;
        return i >= 0 && i < std::int64_t(ri.intervals.size()) ? &ri.intervals[std::size_t(i)] : nullptr;
    };

    // Bins of consecutive intervals; each shows its interval with the most copies.
    const std::int64_t count = in.last - in.first + 1;
    const std::int64_t perBin = std::max<std::int64_t>(1, (count + kMaxTransferBars - 1) / kMaxTransferBars);
    struct Bin
    {
        std::int64_t from, to; // intervals [from, to)
        const core::IntervalStats *shown;
    };
    std::vector<Bin> bins;
    for (std::int64_t b = in.first; b <= in.last; b += perBin) {
        Bin bin { b, std::min(in.last + 1, b + perBin), nullptr };
        for (auto k = bin.from; k < bin.to; ++k)
            if (const auto *s = statsOf(k);
                s && (!bin.shown || totalOf(*s, in.quantity) > totalOf(*bin.shown, in.quantity)))
                bin.shown = s;
        bins.push_back(bin);
    }
    std::vector<std::size_t> directions;
    double maxTotal = 0;
    for (std::size_t slot = 0; slot < core::kCopySlotCount; ++slot) {
        if (slot == core::kMemsetSlot)
            continue;
        bool any = false;
        for (const auto &bin : bins)
            any = any || (bin.shown && quantityOf(bin.shown->copies[slot], in.quantity) > 0);
        if (any)
            directions.push_back(slot);
    }
    for (const auto &bin : bins)
        if (bin.shown)
            maxTotal = std::max(maxTotal, totalOf(*bin.shown, in.quantity));
    const auto yUnit = in.quantity == TransferQuantity::Bytes
        ? bytesUnitFor(maxTotal)
        : std::pair<double, QString> { durationUnitFor(maxTotal).ns, QLatin1String(durationUnitFor(maxTotal).name) };
    const double top = std::max(maxTotal / yUnit.first * 1.05, 1e-9);

    auto *x = new QValueAxis;
    x->setTitleText(QStringLiteral("time from the first GPU work (%1)")
                        .arg(QLatin1String(durationUnitFor(double(in.last + 1) * double(axis.intervalNs)).name)));
    x->setLabelFormat(QStringLiteral("%.4g"));
    auto *y = new QValueAxis;
    y->setTitleText(in.quantity == TransferQuantity::Bytes ? QStringLiteral("%1 per interval").arg(yUnit.second)
                                                           : QStringLiteral("copy time (%1)").arg(yUnit.second));
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    const auto xOf = [&](std::int64_t k) { return double(k) * double(axis.intervalNs) / axis.unitNs; };

    std::vector<double> base(bins.size(), 0.0);
    for (const auto slot : directions) {
        QList<QPointF> lower, upperPoints;
        for (std::size_t b = 0; b < bins.size(); ++b) {
            const double v = bins[b].shown ? quantityOf(bins[b].shown->copies[slot], in.quantity) / yUnit.first : 0;
            const double x0 = xOf(bins[b].from), x1 = xOf(bins[b].to);
            lower << QPointF(x0, base[b]) << QPointF(x1, base[b]);
            base[b] += v;
            upperPoints << QPointF(x0, base[b]) << QPointF(x1, base[b]);
        }
        auto *area = new QAreaSeries;
        auto *upper = new QLineSeries(area);
        auto *below = new QLineSeries(area);
        upper->replace(upperPoints);
        below->replace(lower);
        area->setUpperSeries(upper);
        area->setLowerSeries(below);
        area->setName(QString::fromUtf8(core::copySlotName(slot).data(), qsizetype(core::copySlotName(slot).size())));
        const QColor colour = copyColor(core::copySlotKind(slot));
        area->setColor(colour);
        area->setBorderColor(colour.darker(130));
        chart->addSeries(area);
        area->attachAxis(x);
        area->attachAxis(y);
    }
    x->setRange(xOf(in.first), xOf(in.last + 1));
    // Ticks on round numbers (1-2-5 steps, about 8 of them) from 0, not on the range's ends.
    if (const double range = xOf(in.last + 1) - xOf(in.first); range > 0) {
        const double decade = std::pow(10.0, std::floor(std::log10(range / 8)));
        double step = 10 * decade;
        for (const double m : { 1.0, 2.0, 5.0 })
            if (range / (m * decade) <= 8) {
                step = m * decade;
                break;
            }
        x->setTickType(QValueAxis::TicksDynamic);
        x->setTickAnchor(0);
        x->setTickInterval(step);
    }
    y->setRange(0, top);
    y->applyNiceNumbers();

    // The stall shading last, translucent over the copies, from 0 to the axis' top.
    QList<QPointF> band;
    for (const auto k : in.highlighted) {
        if (k < in.first || k > in.last)
            continue;
        band << QPointF(xOf(k), 0) << QPointF(xOf(k), y->max()) << QPointF(xOf(k + 1), y->max())
             << QPointF(xOf(k + 1), 0);
    }
    if (!band.isEmpty()) {
        auto *area = new QAreaSeries;
        auto *upper = new QLineSeries(area);
        upper->replace(band);
        area->setUpperSeries(upper);
        area->setName(in.highlightName);
        QColor shade = Theme::current().gapHighlight;
        shade.setAlpha(70);
        area->setColor(shade);
        area->setBorderColor(Qt::transparent);
        chart->addSeries(area);
        area->attachAxis(x);
        area->attachAxis(y);
    }
    chart->legend()->setVisible(true);
    chart->legend()->setAlignment(Qt::AlignBottom);
    return axis;
}

} // namespace gaplens::ui
