// SPDX-License-Identifier: MIT
#include "ui/panels/communicationpanel.h"

#include "ui/panels/chartutil.h"
#include "ui/panels/paneltable.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timeformat.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegend>
#include <QSplitter>
#include <QValueAxis>

namespace gaplens::ui {

namespace {

// The three parts of a GPU's kernel time, as the chart stacks them.
struct BarPart
{
    const char *name;
    QColor color;
};

} // namespace

CommunicationPanel::CommunicationPanel(PanelContext &context, TimelineView *view, QWidget *parent)
    : AnalysisPanel(context, view, DerivedUse::Ignores, parent)
    , m_overlap(new PanelTable(this))
    , m_skew(new PanelTable(this))
    , m_chartView(makePanelChartView(this, [this] { updateChart(); }))
    , m_chart(m_chartView->chart())
    , m_verdict(new QLabel(this))
{
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *tables = adaptivePair(m_overlap, m_skew, 3, 2, 0.6, true);
    setPanelLayout(
        controlRow(m_scopeLabel, {}), { adaptivePair(tables, m_chartView, 3, 2, 0.6) }, controlRow(m_verdict, {}));
    // A row is a rank: clicking it narrows every panel to that rank, as the rank selector does.
    auto selectRank = [this](PanelTable *table) {
        connect(table, &PanelTable::rowClicked, this, [this, table](int row, int) {
            const auto rank = table->tableModel()->rowKey(row);
            if (rank >= 0)
                m_context.setRanks({ std::uint32_t(rank) });
        });
    };
    selectRank(m_overlap);
    selectRank(m_skew);
}

QString CommunicationPanel::rankLabel(std::uint32_t rank) const
{
    return rank < m_trace->ranks.size() ? QString::number(m_trace->ranks[rank].rank) : QStringLiteral("-");
}

QString CommunicationPanel::gpuLabel(std::uint32_t gpu) const
{
    const auto &g = m_trace->gpus[gpu];
    QString label = QStringLiteral("GPU %1").arg(g.deviceId);
    if (!g.name.empty())
        label += QStringLiteral(" · ") + QString::fromStdString(g.name);
    return label;
}

void CommunicationPanel::recompute()
{
    const auto trace = traceOrClear([this] { apply({}, nullptr); });
    if (!trace)
        return;
    run<core::OverlapReport>(
        [trace, options = scopedOptions<core::OverlapOptions>()] { return core::computeOverlap(*trace, options); },
        [this, trace](const core::OverlapReport &report) { apply(report, trace); });
}

void CommunicationPanel::apply(const core::OverlapReport &report, std::shared_ptr<const core::TraceSet> trace)
{
    m_trace = std::move(trace);
    m_report = report;
    const QList<PanelColumn> overlapColumns {
        { QStringLiteral("Rank"), true, {}, {} },
        { QStringLiteral("GPU"), false, {}, {} },
        { QStringLiteral("Communication"), true, QStringLiteral("ns"),
            QStringLiteral("Union of the NCCL kernels (short name starting with nccl)") },
        { QStringLiteral("Compute"), true, QStringLiteral("ns"), QStringLiteral("Union of all other kernels") },
        { QStringLiteral("Overlapped"), true, QStringLiteral("ns"),
            QStringLiteral("Communication while compute ran: the intersection of the two unions") },
        { QStringLiteral("Exposed comm."), true, QStringLiteral("ns"),
            QStringLiteral("Communication with no compute beside it: communication − overlapped") },
        { QStringLiteral("Hidden"), true, QStringLiteral("%"),
            QStringLiteral("Share of the communication hidden behind compute") },
        { QStringLiteral("Collectives"), false, {}, QStringLiteral("Calls per collective type") },
    };
    std::vector<std::vector<PanelCell>> rows;
    std::vector<qint64> keys;
    for (const auto &r : report.rows) {
        QStringList collectives;
        for (const auto &c : r.collectives)
            collectives << QStringLiteral("%1 ×%2")
                               .arg(QString::fromUtf8(core::collectiveTypeName(c.type).data(),
                                   qsizetype(core::collectiveTypeName(c.type).size())))
                               .arg(c.calls);
        rows.push_back({ PanelCell::text(rankLabel(r.rank)), PanelCell::text(gpuLabel(r.gpu)),
            PanelCell::duration(double(r.commNs)), PanelCell::duration(double(r.computeNs)),
            PanelCell::duration(double(r.overlapNs)), PanelCell::duration(double(r.exposedCommNs)),
            r.commNs > 0 ? PanelCell::percent(r.hiddenPercent) : PanelCell::empty(),
            PanelCell::text(collectives.join(QStringLiteral(", "))) });
        rows.back()[RankColumn].raw = r.rank < m_trace->ranks.size() ? m_trace->ranks[r.rank].rank : -1;
        keys.push_back(r.rank == core::kNoIndex ? -1 : qint64(r.rank));
    }
    m_overlap->tableModel()->setTable(overlapColumns, std::move(rows), std::move(keys));
    m_overlap->sortByColumn(RankColumn, Qt::AscendingOrder);

    const QList<PanelColumn> skewColumns {
        { QStringLiteral("Rank"), true, {}, {} },
        { QStringLiteral("Collectives"), true, {},
            QStringLiteral("Instances matched across ranks: the k-th kernel of one name on each rank") },
        { QStringLiteral("Median skew"), true, QStringLiteral("ns"),
            QStringLiteral("Its start minus the earliest start among the ranks, median over its instances") },
        { QStringLiteral("Max skew"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("Started last"), true, {},
            QStringLiteral("Instances in which this rank alone started last: the others waited for it") },
    };
    std::vector<std::vector<PanelCell>> skewRows;
    std::vector<qint64> skewKeys;
    for (const auto &s : report.ranks) {
        skewRows.push_back(
            { PanelCell::text(rankLabel(s.rank)), PanelCell::count(s.instances), PanelCell::duration(s.medianSkewNs),
                PanelCell::duration(double(s.maxSkewNs)), PanelCell::count(s.timesLast) });
        skewRows.back()[SkewRankColumn].raw = m_trace->ranks[s.rank].rank;
        skewKeys.push_back(qint64(s.rank));
    }
    m_skew->tableModel()->setTable(skewColumns, std::move(skewRows), std::move(skewKeys));
    m_skew->sortByColumn(SkewRankColumn, Qt::AscendingOrder);
    m_verdict->setText(verdictText());
    updateChart();
}

QString CommunicationPanel::verdictText() const
{
    if (!m_trace)
        return {};
    if (m_report.rows.empty())
        return QStringLiteral("No kernels in this selection.");
    if (m_report.ranks.empty())
        return QStringLiteral("No NCCL kernels in this selection: no communication to overlap or match.");
    if (const auto straggler = core::findCollectiveStraggler(m_report))
        return QStringLiteral("Rank %1 %2.")
            .arg(rankLabel(straggler->rank), QString::fromStdString(core::describeCollectiveStraggler(*straggler)));
    return QStringLiteral(
        "No rank started last in more than half of its collectives (and at least %1): none is the one the "
        "others waited for.")
        .arg(core::kMinCollectiveStragglerInstances);
}

void CommunicationPanel::updateChart()
{
    clearChart(m_chart);
    if (!m_trace || m_report.rows.empty()) {
        m_chart->setTitle(QString());
        return;
    }
    m_chart->setTitle(QStringLiteral("Kernel time per GPU: compute, overlapped and exposed communication"));
    core::TimeNs largest = 0;
    for (const auto &r : m_report.rows)
        largest = std::max(largest, r.computeNs + r.exposedCommNs);
    const DurationUnit unit = durationUnitFor(double(largest));
    // Compute only, communication hidden behind compute, communication exposed: they add up
    // to the union of all the GPU's kernels.
    const BarPart parts[] = {
        { "compute only", kernelColor("gemm") },
        { "overlapped", kernelColor("ncclDevKernel_AllReduce").lighter(140) },
        { "exposed communication", kernelColor("ncclDevKernel_AllReduce").darker(130) },
    };
    QList<QBarSet *> sets;
    for (const auto &part : parts) {
        auto *set = new QBarSet(QString::fromUtf8(part.name));
        set->setColor(part.color);
        sets << set;
    }
    QStringList categories;
    // Horizontal bars are laid out bottom-up: the first row goes on top.
    for (auto it = m_report.rows.rbegin(); it != m_report.rows.rend(); ++it) {
        *sets[0] << double(it->computeNs - it->overlapNs) / unit.ns;
        *sets[1] << double(it->overlapNs) / unit.ns;
        *sets[2] << double(it->exposedCommNs) / unit.ns;
        categories << QStringLiteral("rank %1 · GPU %2").arg(rankLabel(it->rank)).arg(m_trace->gpus[it->gpu].deviceId);
    }
    auto *series = new QHorizontalStackedBarSeries;
    series->append(sets);
    series->setBarWidth(0.7);
    m_chart->addSeries(series);
    m_chart->legend()->show();
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    auto *y = new QBarCategoryAxis;
    y->append(categories);
    y->setTruncateLabels(false);
    m_chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    auto *x = new QValueAxis;
    x->setTitleText(QStringLiteral("time (%1)").arg(QLatin1String(unit.name)));
    x->setLabelFormat(QStringLiteral("%.3g"));
    x->setMin(0);
    m_chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    x->applyNiceNumbers();
}

} // namespace gaplens::ui
