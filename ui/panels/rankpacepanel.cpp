// SPDX-License-Identifier: MIT
#include "ui/panels/rankpacepanel.h"

#include "ui/panels/chartutil.h"
#include "ui/panels/paneltable.h"
#include "ui/panels/steprangechooser.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelineview.h"

#include "gaplens/core/util/units.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace gaplens::ui {

QColor paceDeltaColor(double percent)
{
    const double a = std::abs(percent);
    if (a < 2)
        return {};
    const double t = std::min(1.0, (a - 2) / 28.0);
    const int alpha = int(40 + 160 * t);
    return percent > 0 ? QColor(220, 60, 40, alpha) : QColor(50, 110, 220, alpha);
}

namespace {

QString signedPercent(double p)
{
    if (std::abs(p) < 0.05)
        return QStringLiteral("±0%"); // never "-0.0%"
    return QStringLiteral("%1%2%")
        .arg(p >= 0 ? QStringLiteral("+") : QString())
        .arg(p, 0, 'f', std::abs(p) < 10 ? 1 : 0);
}

// The capture's own number of the first iteration shown (the selection may start later).
std::uint32_t firstIteration(const core::PaceReport &pace)
{
    return pace.ranks.empty() ? 0 : pace.ranks.front().firstIteration;
}

} // namespace

RankPacePanel::RankPacePanel(PanelContext &context, TimelineView *view, QWidget *parent)
    : AnalysisPanel(context, view, DerivedUse::Ignores, parent)
    , m_range(new QComboBox(this))
    , m_gpu(new QCheckBox(QStringLiteral("GPU-projected"), this))
    , m_verdict(new QLabel(this))
    , m_chartView(makePanelChartView(this, [this] { rebuildChart(); }))
    , m_chart(m_chartView->chart())
    , m_matrix(new PanelTable(this))
    , m_rankTable(new PanelTable(this))
{
    m_range->setMinimumContentsLength(18);
    m_range->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_range->setToolTip(QStringLiteral("NVTX range measured per iteration (names that repeat, most frequent first)"));
    m_gpu->setToolTip(QStringLiteral(
        "Measure each iteration by the GPU work it launched (NVTX GPU projection) instead of its CPU range"));
    m_verdict->setWordWrap(true);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *top = new QHBoxLayout;
    top->addWidget(m_scopeLabel, 1);
    top->addWidget(new QLabel(QStringLiteral("Range:"), this));
    top->addWidget(m_range);
    top->addWidget(m_gpu);
    auto *tables = new QSplitter(Qt::Horizontal, this);
    tables->addWidget(m_matrix);
    tables->addWidget(m_rankTable);
    tables->setStretchFactor(0, 3);
    tables->setStretchFactor(1, 2);
    // The outer splitter first: it is sized before the one nested in it.
    auto *split = adaptivePair(m_chartView, tables, 1, 1, 0.45);
    addAdaptiveSplitter(tables, true, 0.65);
    setPanelLayout(top, { m_verdict, split });
    m_matrix->setSelectionBehavior(QAbstractItemView::SelectItems);

    connect(m_range, &QComboBox::activated, this, [this](int) {
        m_requestedRange = m_range->currentData().toString();
        scheduleUpdate();
    });
    connect(m_gpu, &QCheckBox::toggled, this, &AnalysisPanel::scheduleUpdate);
    connect(m_matrix, &PanelTable::rowClicked, this, [this](int row, int column) { activateCell(row, column); });
    connect(m_rankTable, &PanelTable::rowClicked, this,
        [this](int row, int) { selectRank(int(m_rankTable->tableModel()->rowKey(row))); });
    connect(&m_context, &PanelContext::dataChanged, this, [this] {
        m_namesValid = false;
        m_requestedRange.clear();
        m_selectedRank = -1;
    });
}

QString RankPacePanel::rangeName() const
{
    return QString::fromStdString(m_result.pace.rangeName);
}

QString RankPacePanel::verdictText() const
{
    return m_verdict->text();
}

void RankPacePanel::setRangeName(const QString &name)
{
    m_requestedRange = name;
    scheduleUpdate();
}

void RankPacePanel::setUseGpuProjection(bool on)
{
    m_gpu->setChecked(on);
    scheduleUpdate();
}

void RankPacePanel::recompute()
{
    const auto trace = traceOrClear([this] { apply({}); });
    if (!trace)
        return;
    const bool needNames = !m_namesValid;
    core::PaceOptions options;
    options.rangeName = m_requestedRange.toStdString();
    options.ranks = m_context.ranks();
    options.useGpuProjection = m_gpu->isChecked();
    // The chooser's names (and the proposal among them) are counted once per capture, over
    // every NVTX range; later runs reuse them.
    std::shared_ptr<const core::StepRangeChoice> choice = needNames ? nullptr : m_result.choice;
    run<Result>(
        [trace, options, choice, choices = m_context.stepRangeChoices(), window = m_context.window()]() mutable {
            Result r;
            r.trace = trace;
            r.namesValid = !choice;
            r.choice = choice ? choice : choices->get();
            // Without a requested range, the proposal: no step-like range means no pace (the
            // verdict names the candidates) rather than a guess.
            if (options.rangeName.empty())
                options.rangeName = r.choice->proposed.value_or(std::string());
            options.window = window;
            if (!options.rangeName.empty())
                r.pace = core::computePace(*trace, options);
            r.pace.rangeName = options.rangeName;
            return r;
        },
        [this](const Result &r) { apply(r); });
}

void RankPacePanel::apply(const Result &r)
{
    m_result = r;
    const auto &pace = m_result.pace;
    if (r.namesValid) {
        fillStepRangeChooser(m_range, *r.choice);
        m_namesValid = true;
    }
    if (!r.trace) {
        m_range->clear();
        m_namesValid = false;
    }
    const int index = m_range->findData(QString::fromStdString(pace.rangeName));
    if (index >= 0)
        m_range->setCurrentIndex(index);
    m_range->setEnabled(m_range->count() > 0);

    const auto *t = r.trace.get();
    QString verdict;
    if (!t)
        verdict.clear();
    else if (pace.rangeName.empty())
        verdict = QStringLiteral("No step to pace: %1. Choose a range above.")
                      .arg(QString::fromStdString(core::describeMissingStepRange(*r.choice)));
    else if (pace.ranks.empty())
        verdict = QStringLiteral("No rank has \"%1\" in this selection.").arg(QString::fromStdString(pace.rangeName));
    else if (pace.straggler)
        verdict
            = QString::fromStdString(core::describeStraggler(*t, *pace.straggler)).replace(0, 1, QStringLiteral("R"));
    else if (pace.ranks.size() < 2)
        verdict = QStringLiteral("One rank in this selection: nothing to compare its pace with.");
    else if (pace.iterations.size() < 3)
        verdict = QStringLiteral("Fewer than 3 common iterations: too few to name a straggler.");
    else
        verdict = QStringLiteral("No rank is consistently the slowest.");
    m_verdict->setText(verdict);
    m_selectedRank = -1;
    rebuildMatrix();
    rebuildChart();
}

void RankPacePanel::rebuildMatrix()
{
    const auto &pace = m_result.pace;
    const auto *t = m_result.trace.get();
    QList<PanelColumn> columns { { QStringLiteral("Iteration"), true, {}, {} },
        { QStringLiteral("Median"), true, QStringLiteral("ns"), QStringLiteral("Median across the ranks") } };
    std::size_t maxIterations = 0;
    for (const auto &rp : pace.ranks) {
        columns.push_back({ QStringLiteral("rank %1").arg(t->ranks[rp.rank].rank), true, QStringLiteral("ns"),
            QStringLiteral("Duration and delta from the iteration's median; click to show it on the timeline") });
        maxIterations = std::max(maxIterations, rp.iterations.size());
    }
    const std::size_t rowsShown = std::min<std::size_t>(maxIterations, kMaxMatrixRows);
    std::vector<std::vector<PanelCell>> rows;
    std::vector<qint64> keys;
    rows.reserve(rowsShown);
    for (std::size_t i = 0; i < rowsShown; ++i) {
        std::vector<PanelCell> row;
        row.push_back(PanelCell::count(firstIteration(m_result.pace) + i));
        const bool common = i < pace.iterations.size();
        const double median = common ? pace.iterations[i].medianNs : 0;
        row.push_back(common ? PanelCell::duration(median) : PanelCell::empty());
        for (const auto &rp : pace.ranks) {
            if (i >= rp.iterations.size()) {
                row.push_back(PanelCell::empty());
                continue;
            }
            const double d = double(rp.iterations[i].durationNs);
            PanelCell c = PanelCell::duration(d);
            if (common && median > 0) {
                const double delta = (d / median - 1) * 100;
                c.display
                    = QString(c.display.toString() + QStringLiteral(" (") + signedPercent(delta) + QLatin1Char(')'));
                c.background = paceDeltaColor(delta);
                c.toolTip = QStringLiteral("rank %1, iteration %2: %3, %4 vs the median %5")
                                .arg(t->ranks[rp.rank].rank)
                                .arg(firstIteration(m_result.pace) + i)
                                .arg(QString::fromStdString(core::formatDuration(d)))
                                .arg(signedPercent(delta))
                                .arg(QString::fromStdString(core::formatDuration(median)));
            }
            row.push_back(c);
        }
        rows.push_back(std::move(row));
        keys.push_back(qint64(i));
    }
    m_matrix->tableModel()->setTable(columns, std::move(rows), std::move(keys));
    m_matrix->sortByColumn(0, Qt::AscendingOrder);

    // Per rank: median, p95, times slowest, and how far its median is from the typical step.
    std::vector<double> medians;
    for (const auto &it : pace.iterations)
        medians.push_back(it.medianNs);
    std::sort(medians.begin(), medians.end());
    const double reference = medians.empty() ? 0
        : medians.size() % 2                 ? medians[medians.size() / 2]
                                             : (medians[medians.size() / 2 - 1] + medians[medians.size() / 2]) / 2;
    const QList<PanelColumn> rankColumns {
        { QStringLiteral("Rank"), true, {}, {} },
        { QStringLiteral("Iterations"), true, {}, {} },
        { QStringLiteral("Median"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("P95"), true, QStringLiteral("ns"), QStringLiteral("Nearest-rank 95th percentile") },
        { QStringLiteral("Slowest"), true, {}, QStringLiteral("Common iterations in which this rank was the slowest") },
        { QStringLiteral("vs typical"), true, QStringLiteral("%"),
            QStringLiteral("Rank median over the median of the per-iteration medians") },
    };
    std::vector<std::vector<PanelCell>> rankRows;
    std::vector<qint64> rankKeys;
    for (std::size_t k = 0; k < pace.ranks.size(); ++k) {
        const auto &rp = pace.ranks[k];
        const double vs = reference > 0 ? (rp.medianNs / reference - 1) * 100 : 0;
        PanelCell vsCell { reference > 0 ? signedPercent(vs) : QString(), vs, paceDeltaColor(vs), {} };
        PanelCell slowest = PanelCell::count(rp.timesSlowest);
        if (pace.straggler && pace.straggler->rank == rp.rank)
            slowest.background = QColor(220, 60, 40, 120);
        rankRows.push_back({ PanelCell::count(std::uint64_t(std::max(0, t->ranks[rp.rank].rank))),
            PanelCell::count(rp.iterations.size()), PanelCell::duration(rp.medianNs),
            PanelCell::duration(double(rp.p95Ns)), slowest, vsCell });
        rankKeys.push_back(qint64(k));
    }
    m_rankTable->tableModel()->setTable(rankColumns, std::move(rankRows), std::move(rankKeys));
    m_rankTable->sortByColumn(0, Qt::AscendingOrder);
}

void RankPacePanel::rebuildChart()
{
    clearChart(m_chart);
    m_series.clear();
    const auto &pace = m_result.pace;
    const auto *t = m_result.trace.get();
    if (!t || pace.ranks.empty()) {
        m_chart->setTitle(QString());
        return;
    }
    m_chart->setTitle(QStringLiteral("%1 duration per iteration%2")
                          .arg(QString::fromStdString(pace.rangeName),
                              m_gpu->isChecked() ? QStringLiteral(" (GPU-projected)") : QString()));
    double maxNs = 0;
    for (const auto &rp : pace.ranks)
        for (const auto &it : rp.iterations)
            maxNs = std::max(maxNs, double(it.durationNs));
    const DurationUnit axisUnit = durationUnitFor(maxNs);
    const double unit = axisUnit.ns;
    const QString unitName = QLatin1String(axisUnit.name);
    const double first = firstIteration(m_result.pace);

    auto *x = new QValueAxis;
    x->setTitleText(QStringLiteral("iteration"));
    x->setLabelFormat(QStringLiteral("%d"));
    auto *y = new QValueAxis;
    y->setTitleText(QStringLiteral("duration (%1)").arg(unitName));
    y->setLabelFormat(QStringLiteral("%.3g"));
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);

    auto toPoints = [&](const std::vector<double> &values) {
        QList<QPointF> points;
        for (const auto &p : core::downsampleMinMax(values))
            points.append(QPointF(first + p.x, p.y / unit));
        return points;
    };
    std::size_t maxIterations = 0;
    for (std::size_t k = 0; k < pace.ranks.size(); ++k) {
        const auto &rp = pace.ranks[k];
        std::vector<double> values;
        values.reserve(rp.iterations.size());
        for (const auto &it : rp.iterations)
            values.push_back(double(it.durationNs));
        maxIterations = std::max(maxIterations, values.size());
        auto *s = new QLineSeries;
        s->setName(QStringLiteral("rank %1").arg(t->ranks[rp.rank].rank));
        // One bulk replace instead of per-point appends.
        s->replace(toPoints(values));
        QPen pen(seriesColor(int(k)));
        pen.setWidthF(1.5);
        s->setPen(pen);
        s->setPointsVisible(values.size() <= 60);
        m_chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        connect(s, &QLineSeries::clicked, this, [this, k](const QPointF &) { selectRank(int(k)); });
        m_series.push_back(s);
    }
    if (!pace.iterations.empty()) {
        std::vector<double> medians;
        for (const auto &it : pace.iterations)
            medians.push_back(it.medianNs);
        auto *m = new QLineSeries;
        m->setName(QStringLiteral("median"));
        m->replace(toPoints(medians));
        QPen pen(Qt::black);
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(2);
        m->setPen(pen);
        m_chart->addSeries(m);
        m->attachAxis(x);
        m->attachAxis(y);
    }
    const double last = first + std::max<double>(1, double(maxIterations) - 1);
    x->setRange(first, last);
    // Whole iterations only: one tick per iteration when there are few, else nice numbers.
    if (last - first <= 10)
        x->setTickCount(int(last - first) + 1);
    else
        x->applyNiceNumbers();
    y->setRange(0, maxNs / unit * 1.05);
    y->applyNiceNumbers();
    // A legend of 64 ranks hides the chart: past 12 series the matrix header names them.
    m_chart->legend()->setVisible(pace.ranks.size() <= 12);
    m_chart->legend()->setAlignment(Qt::AlignRight);
}

bool RankPacePanel::activateCell(int sourceRow, int sourceColumn)
{
    const auto &pace = m_result.pace;
    const int k = sourceColumn - kFirstRankColumn;
    if (k < 0 || k >= int(pace.ranks.size()) || sourceRow < 0 || sourceRow >= m_matrix->tableModel()->rowCount())
        return false;
    const auto &rp = pace.ranks[std::size_t(k)];
    const auto i = std::size_t(m_matrix->tableModel()->rowKey(sourceRow));
    if (i >= rp.iterations.size())
        return false;
    const auto &it = rp.iterations[i];
    if (m_view)
        m_view->showRankRange(core::RankIndex(rp.rank), it.time, core::ThreadIndex(it.thread), it.range);
    return true;
}

void RankPacePanel::selectRank(int k)
{
    if (k < 0 || k >= int(m_series.size()))
        return;
    m_selectedRank = k;
    for (int i = 0; i < int(m_series.size()); ++i) {
        QPen pen = m_series[std::size_t(i)]->pen();
        pen.setWidthF(i == k ? 3.5 : 1.0);
        QColor c = seriesColor(i);
        if (i != k)
            c.setAlpha(110);
        pen.setColor(c);
        m_series[std::size_t(i)]->setPen(pen);
    }
    const int column = kFirstRankColumn + k;
    m_matrix->selectionModel()->clearSelection();
    m_matrix->selectColumn(m_matrix->viewIndex(0, column).column());
    m_matrix->scrollTo(m_matrix->viewIndex(0, column));
    if (m_view)
        m_view->scrollToRank(core::RankIndex(m_result.pace.ranks[std::size_t(k)].rank));
}

} // namespace gaplens::ui
