// SPDX-License-Identifier: MIT
#include "ui/digest/digesttables.h"

#include "ui/panels/paneltablemodel.h"
#include "ui/panels/rankpacepanel.h"

#include <algorithm>
#include <limits>

namespace gaplens::ui {
namespace {

// The pace entry of a rank number, if the pace has one.
const core::DigestPaceRank *paceOf(const core::Digest &digest, std::int32_t rank)
{
    if (!digest.pace)
        return nullptr;
    for (const auto &p : digest.pace->ranks)
        if (p.rank == rank)
            return &p;
    return nullptr;
}

const QString kNoGpu = QStringLiteral("no GPU: this rank's report holds no kernels");

// A rank without a GPU has no idle share: an empty cell, not 0%.
PanelCell percentOrEmpty(std::optional<double> percent)
{
    return percent ? PanelCell::percent(*percent) : PanelCell::empty();
}

} // namespace

void setDigestRankTable(PanelTableModel &model, const core::Digest &digest)
{
    QList<PanelColumn> columns { { QStringLiteral("Rank"), true, {}, {} }, { QStringLiteral("Host"), false, {}, {} },
        { QStringLiteral("Busy"), true, QStringLiteral("ns"), QStringLiteral("GPU busy time (union of kernels)") },
        { QStringLiteral("Capture"), true, QStringLiteral("ns"), QStringLiteral("the rank's first to last event") },
        { QStringLiteral("Idle % window"), true, QStringLiteral("%"),
            QStringLiteral("idle share of the GPU window (first to last kernel)") },
        { QStringLiteral("Idle % capture"), true, QStringLiteral("%"),
            QStringLiteral("idle share of the rank's capture on its GPUs: before the first kernel, in gaps and "
                           "after the last (what the findings' \"idle % of capture\" counts)") },
        { QStringLiteral("Gaps"), true, {}, QStringLiteral("idle gaps at the digest's threshold") },
        { QStringLiteral("Top blame"), false, {}, QStringLiteral("the cause with the most idle time in gaps") },
        { QStringLiteral("Median step"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("Times slowest"), true, {}, QStringLiteral("steps in which this rank was the slowest") },
        { QStringLiteral("Findings"), true, {}, {} } };
    std::vector<std::vector<PanelCell>> rows;
    std::vector<qint64> keys;
    for (std::size_t i = 0; i < digest.ranks.size(); ++i) {
        const auto &r = digest.ranks[i];
        std::vector<PanelCell> row { PanelCell { r.rank, r.rank, {}, QString::fromStdString(r.report) },
            PanelCell::text(QString::fromStdString(r.host)), PanelCell::duration(double(r.busyNs)),
            PanelCell::duration(double(r.span.duration())), percentOrEmpty(r.idlePercentOfWindow()),
            percentOrEmpty(r.idlePercentOfCapture()), PanelCell::count(r.gapCount) };
        if (r.gpuCount == 0) {
            // No GPU to be busy or idle: empty cells that say so, not 0 ns and 0 gaps.
            for (const int column : { 2, 4, 5, 6 }) {
                row[std::size_t(column)] = PanelCell::empty();
                row[std::size_t(column)].toolTip = kNoGpu;
            }
            row.push_back(PanelCell::text(QStringLiteral("no GPU")));
            row.back().toolTip = kNoGpu;
        } else {
            row.push_back(r.blameByCause.empty() ? PanelCell::text(QStringLiteral("-"))
                                                 : PanelCell::text(QString::fromStdString(r.blameByCause.front().key)));
        }
        row.push_back(r.medianStepNs ? PanelCell::duration(*r.medianStepNs) : PanelCell::empty());
        const auto *pace = paceOf(digest, r.rank);
        row.push_back(pace ? PanelCell::count(pace->timesSlowest) : PanelCell::empty());
        if (pace && digest.pace->straggler == r.rank)
            row.back().background = paceDeltaColor(100);
        PanelCell findings = PanelCell::count(r.findings.size());
        QStringList texts;
        for (const auto &f : r.findings)
            texts << QString::fromStdString(f);
        findings.toolTip = texts.join(QLatin1Char('\n'));
        row.push_back(findings);
        rows.push_back(std::move(row));
        keys.push_back(qint64(i));
    }
    model.setTable(std::move(columns), std::move(rows), std::move(keys));
}

void setDigestPaceMatrix(PanelTableModel &model, const core::Digest &digest)
{
    if (!digest.pace) {
        model.clear();
        return;
    }
    const auto &pace = *digest.pace;
    QList<PanelColumn> columns { { QStringLiteral("Iteration"), true, {}, {} },
        { QStringLiteral("Median"), true, QStringLiteral("ns"), {} } };
    std::size_t iterations = 0;
    for (const auto &r : pace.ranks) {
        columns.push_back({ QStringLiteral("rank %1").arg(r.rank), true, QStringLiteral("ns"), {} });
        iterations = std::max(iterations, r.durationsNs.size());
    }
    std::vector<std::vector<PanelCell>> rows;
    for (std::size_t i = 0; i < iterations; ++i) {
        const bool common = i < pace.iterationMedianNs.size();
        const double median = common ? pace.iterationMedianNs[i] : 0;
        std::vector<PanelCell> row { PanelCell::count(i), common ? PanelCell::duration(median) : PanelCell::empty() };
        for (const auto &r : pace.ranks) {
            if (i >= r.durationsNs.size()) {
                row.push_back(PanelCell::empty());
                continue;
            }
            auto cell = PanelCell::duration(double(r.durationsNs[i]));
            if (common && median > 0)
                cell.background = paceDeltaColor((double(r.durationsNs[i]) / median - 1) * 100);
            row.push_back(cell);
        }
        rows.push_back(std::move(row));
    }
    model.setTable(std::move(columns), std::move(rows));
}

namespace {

// The interval's value of `metric`, as core::intervalMetricValue gives it.
std::optional<double> metricValue(const core::DigestInterval &iv, core::IntervalMetric metric)
{
    switch (metric) {
    case core::IntervalMetric::Stddev:
        // No spread with fewer than two kernels.
        return iv.kernelCount >= 2 ? iv.kernelStddevNs : std::nullopt;
    case core::IntervalMetric::Busy: return double(iv.busyNs);
    case core::IntervalMetric::Kernels: return double(iv.kernelCount);
    case core::IntervalMetric::KernelNs: return double(iv.kernelNs);
    case core::IntervalMetric::Stall: return double(iv.stallNs);
    default: return std::nullopt;
    }
}

} // namespace

HeatMapData digestHeatMapData(const core::Digest &digest, core::IntervalMetric metric)
{
    HeatMapData data;
    data.metric = metric;
    const bool outline = core::intervalMetricName(metric) == digest.metric;
    data.originNs = digest.originNs;
    data.intervalNs = digest.intervalNs;
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
    for (const auto &r : digest.ranks)
        if (!r.intervals.empty()) {
            first = std::min(first, r.intervals.front().index);
            last = std::max(last, r.intervals.back().index);
        }
    if (first > last)
        return data;
    data.firstIndex = first;
    // Unsigned: any two indices' distance fits. A digest's ranks share one grid, so their
    // intervals are close; a damaged one is cut at kMaxHeatMapColumns rather than allocated.
    data.columns = int(std::min<std::uint64_t>(std::uint64_t(last) - std::uint64_t(first) + 1, kMaxHeatMapColumns));
    for (std::size_t e = 0; e < digest.ranks.size(); ++e) {
        const auto &r = digest.ranks[e];
        data.rowLabels << QStringLiteral("rank %1").arg(r.rank);
        data.entries.push_back(e);
        const auto rowStart = data.values.size();
        data.values.resize(rowStart + std::size_t(data.columns), std::numeric_limits<double>::quiet_NaN());
        data.outlined.resize(rowStart + std::size_t(data.columns), 0);
        for (const auto &iv : r.intervals) {
            const auto column = std::uint64_t(iv.index) - std::uint64_t(first);
            if (column >= std::uint64_t(data.columns))
                continue;
            const auto cell = rowStart + std::size_t(column);
            if (const auto value = metricValue(iv, metric)) {
                data.values[cell] = *value;
                data.maxValue = std::max(data.maxValue, *value);
            }
            data.outlined[cell] = outline && iv.anomalous ? 1 : 0;
        }
    }
    return data;
}

} // namespace gaplens::ui
