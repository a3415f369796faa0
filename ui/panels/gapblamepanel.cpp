// SPDX-License-Identifier: MIT
#include "ui/panels/gapblamepanel.h"

#include "ui/panels/chartutil.h"
#include "ui/panels/paneltable.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QPushButton>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <array>

namespace gaplens::ui {

namespace {
constexpr int kChartCauses = 6; // the largest causes get a colour each, the rest are "other"

// The selection's gaps and totals, read from the derived capture (no merge, no blame here).
GapBlamePanel::Result computeBlame(
    std::shared_ptr<const core::DerivedCapture> derived, core::RankSelection ranks, core::TimeWindow window)
{
    GapBlamePanel::Result r;
    r.trace = derived->sharedTrace();
    r.derived = derived;
    r.threshold = derived->minGapNs();
    for (const core::GapRange &range : derived->gapsIn(ranks, window))
        for (std::uint32_t i = range.begin; i < range.end; ++i) {
            const core::GapId id { range.gpu, i };
            // A GPU shared by two processes also has the other rank's gaps: keep the chosen ranks'.
            if (!ranks.isAll() && !ranks.includes(derived->gap(id).rank))
                continue;
            r.gapIds.push_back(id);
            r.gaps.push_back(derived->gap(id));
        }
    r.overall = derived->totalsOf(r.gapIds);
    std::map<std::uint32_t, std::vector<core::GapId>> byRank, byGpu;
    for (std::size_t i = 0; i < r.gaps.size(); ++i) {
        if (r.gaps[i].rank != core::kNoIndex)
            byRank[r.gaps[i].rank].push_back(r.gapIds[i]);
        byGpu[r.gaps[i].gpu].push_back(r.gapIds[i]);
    }
    r.overallTree = core::buildBlameTree(*derived, r.gapIds);
    for (const auto &[rank, ids] : byRank) {
        r.perRank.emplace_back(rank, derived->totalsOf(ids));
        r.perRankTree.emplace_back(rank, core::buildBlameTree(*derived, ids));
    }
    for (const auto &[gpu, ids] : byGpu) {
        r.perGpu.emplace_back(gpu, derived->totalsOf(ids));
        r.perGpuTree.emplace_back(gpu, core::buildBlameTree(*derived, ids));
    }
    for (const core::GpuIndex g : core::gpusOfRanks(derived->trace(), ranks))
        r.gpuWindowNs[g.value()] = derived->busyIn(g, window).window.duration();
    return r;
}
// "all selected", "rank 3", "rank 3 · GPU 1" (the rank only when several are loaded).
QString scopeLabel(const core::TraceSet &t, GapBlamePanel::SplitBy split, std::uint32_t id)
{
    if (split == GapBlamePanel::SplitBy::None)
        return QStringLiteral("all selected");
    if (split == GapBlamePanel::SplitBy::Rank)
        return QStringLiteral("rank %1").arg(t.ranks[id].rank);
    const auto &g = t.gpus[id];
    QString label = QStringLiteral("GPU %1").arg(g.deviceId);
    if (t.ranks.size() > 1 && !g.ranks.empty())
        label = QStringLiteral("rank %1 · ").arg(t.ranks[g.ranks.front()].rank) + label;
    return label;
}
} // namespace

GapBlamePanel::GapBlamePanel(PanelContext &context, TimelineView *view, QWidget *parent)
    : AnalysisPanel(context, view, DerivedUse::Reads, parent)
    , m_table(new PanelTable(this))
    , m_tree(new QTreeView(this))
    , m_treeModel(new QStandardItemModel(this))
    , m_groups(new QStackedWidget(this))
    , m_chartView(makePanelChartView(this, [this] { rebuildChart(); }))
    , m_chart(m_chartView->chart())
    , m_groupBy(new QComboBox(this))
    , m_splitBy(new QComboBox(this))
    , m_threshold(new QLabel(this))
    , m_stepLabel(new QLabel(QStringLiteral("Click a row to step through its gaps on the timeline."), this))
    , m_prev(new QPushButton(QStringLiteral("◀ Previous gap"), this))
    , m_next(new QPushButton(QStringLiteral("Next gap ▶"), this))
{
    m_groupBy->addItems(
        { QStringLiteral("by cause"), QStringLiteral("by NVTX phase"), QStringLiteral("by cause › call › phase") });
    m_treeModel->setSortRole(PanelTableModel::SortRole);
    m_tree->setModel(m_treeModel);
    m_tree->setSortingEnabled(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->setAlternatingRowColors(true);
    m_groups->addWidget(m_table);
    m_groups->addWidget(m_tree);
    m_splitBy->addItems({ QStringLiteral("all selected"), QStringLiteral("per rank"), QStringLiteral("per GPU") });
    m_threshold->setToolTip(
        QStringLiteral("The idle-gap threshold is the toolbar's: changing it updates the timeline and this panel."));
    m_prev->setEnabled(false);
    m_next->setEnabled(false);

    setPanelLayout(controlRow(m_scopeLabel, { m_threshold, m_groupBy, m_splitBy }),
        { adaptivePair(m_groups, m_chartView, 3, 2, 0.5) }, controlRow(m_stepLabel, { m_prev, m_next }));

    connect(m_groupBy, &QComboBox::currentIndexChanged, this, &GapBlamePanel::rebuildTable);
    connect(m_splitBy, &QComboBox::currentIndexChanged, this, &GapBlamePanel::rebuildTable);
    connect(m_table, &PanelTable::rowClicked, this, [this](int row, int) { stepRow(row, row == m_stepRow ? 1 : 0); });
    connect(m_tree, &QTreeView::clicked, this, [this](const QModelIndex &index) {
        const QModelIndex group = index.siblingAtColumn(TreeGroupColumn);
        stepTreeGroup(group, group.data(Qt::UserRole).toInt() == m_treeStepId ? 1 : 0);
    });
    // Previous/Next continue the group being stepped through, a table row or a tree group.
    auto step = [this](int direction) {
        if (m_stepRow >= 0)
            stepRow(m_stepRow, direction);
        else if (m_treeStepId >= 0)
            stepTreeGroup(m_treeStep, direction);
    };
    connect(m_prev, &QPushButton::clicked, this, [step] { step(-1); });
    connect(m_next, &QPushButton::clicked, this, [step] { step(1); });
}

void GapBlamePanel::setGroupBy(GroupBy g)
{
    m_groupBy->setCurrentIndex(int(g));
}

void GapBlamePanel::setSplitBy(SplitBy s)
{
    m_splitBy->setCurrentIndex(int(s));
}

void GapBlamePanel::recompute()
{
    m_threshold->setText(QStringLiteral("gaps ≥ %1").arg(formatDuration(m_context.gapThreshold(), 0)));
    const auto trace = traceOrClear([this] {
        m_result = {};
        rebuildTable();
    });
    if (!trace)
        return;
    const auto derived = derivedOrAwait();
    if (!derived)
        return;
    run<Result>([derived, ranks = m_context.ranks(),
                    window = m_context.window()] { return computeBlame(derived, ranks, window); },
        [this](const Result &r) {
            m_result = r;
            rebuildTable();
        });
}

bool GapBlamePanel::matches(const RowFilter &f, std::size_t gap) const
{
    const core::GapBlame &g = m_result.gaps[gap];
    if (f.split == SplitBy::Rank && g.rank != f.id)
        return false;
    if (f.split == SplitBy::Gpu && g.gpu != f.id)
        return false;
    if (GroupBy(m_groupBy->currentIndex()) == GroupBy::Cause)
        return g.cause == f.bucket.cause && (g.cause != core::GapCause::ApiCall || g.apiName == f.bucket.name);
    const auto &d = *m_result.derived;
    return d.phaseKeys()[d.phaseKeyOf(m_result.gapIds[gap]).value()] == f.bucket.key;
}

core::TimeNs GapBlamePanel::windowOf(SplitBy split, std::uint32_t id) const
{
    const auto *t = m_result.trace.get();
    core::TimeNs sum = 0;
    for (const auto &[g, ns] : m_result.gpuWindowNs) {
        const auto &ranks = t->gpus[g].ranks;
        if (split == SplitBy::None || (split == SplitBy::Gpu && g == id)
            || (split == SplitBy::Rank && std::find(ranks.begin(), ranks.end(), id) != ranks.end()))
            sum += ns;
    }
    return sum;
}

void GapBlamePanel::rebuildTable()
{
    m_filters.clear();
    m_stepRow = m_treeStepId = m_stepIndex = -1;
    m_treeStep = QPersistentModelIndex();
    m_prev->setEnabled(false);
    m_next->setEnabled(false);
    const auto groupBy = GroupBy(m_groupBy->currentIndex());
    m_groups->setCurrentWidget(groupBy == GroupBy::Tree ? static_cast<QWidget *>(m_tree) : m_table);
    rebuildTree();
    const bool byCause = groupBy != GroupBy::Phase;
    const auto split = SplitBy(m_splitBy->currentIndex());
    const QList<PanelColumn> columns {
        { split == SplitBy::Gpu ? QStringLiteral("GPU") : QStringLiteral("Rank"), false, {}, {} },
        { byCause ? QStringLiteral("Cause") : QStringLiteral("NVTX phase"), false, {},
            byCause ? QStringLiteral(
                "What the launching thread was doing in the middle of the gap; \"copy\" when copies or "
                "memsets ran for at least half of it")
                    : QStringLiteral("Innermost NVTX range open in the middle of the gap") },
        { QStringLiteral("Gaps"), true, {}, {} },
        { QStringLiteral("Total idle"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("% of window"), true, QStringLiteral("%"),
            QStringLiteral("Idle time over the GPU time in the window (first to last kernel of each GPU)") },
        { QStringLiteral("Longest"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("Copies running"), true, QStringLiteral("ns"),
            QStringLiteral("Of the idle time, how long a copy or memset ran on the GPU (the GPU was moving data)") },
    };
    std::vector<std::vector<PanelCell>> rows;
    const auto *t = m_result.trace.get();
    auto addGroup = [&](SplitBy s, std::uint32_t id, const core::BlameTotals &totals, const QString &scope) {
        const core::TimeNs window = windowOf(s, id);
        for (const auto &b : byCause ? totals.byCause : totals.byPhase) {
            PanelCell key = PanelCell::text(QString::fromStdString(b.key));
            if (byCause)
                key.swatch = causeKeyColor(b.key);
            rows.push_back(
                { PanelCell::text(scope), key, PanelCell::count(b.count), PanelCell::duration(double(b.totalNs)),
                    PanelCell::percent(window > 0 ? 100.0 * double(b.totalNs) / double(window) : 0.0),
                    PanelCell::duration(double(b.longestNs)), PanelCell::duration(double(b.copyNs)) });
            m_filters.push_back({ s, id, b });
        }
    };
    if (t) {
        if (split == SplitBy::None)
            addGroup(split, core::kNoIndex, m_result.overall, scopeLabel(*t, split, core::kNoIndex));
        else if (split == SplitBy::Rank)
            for (const auto &[rank, totals] : m_result.perRank)
                addGroup(split, rank, totals, scopeLabel(*t, split, rank));
        else
            for (const auto &[gpu, totals] : m_result.perGpu)
                addGroup(split, gpu, totals, scopeLabel(*t, split, gpu));
    }
    std::vector<qint64> keys(rows.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
        keys[i] = qint64(i);
    m_table->tableModel()->setTable(columns, std::move(rows), std::move(keys));
    m_table->setColumnHidden(ScopeColumn, split == SplitBy::None);
    m_table->sortByColumn(TotalColumn, Qt::DescendingOrder);
    if (!t)
        m_stepLabel->setText(QString());
    else if (m_result.gaps.empty())
        m_stepLabel->setText(
            QStringLiteral("No idle gaps ≥ %1 in this selection.").arg(formatDuration(m_result.threshold, 0)));
    else
        m_stepLabel->setText(
            QStringLiteral("%1 gaps, %2 idle%3. Click a row to step through its gaps on the timeline.")
                .arg(m_result.overall.gapCount)
                .arg(formatDuration(m_result.overall.totalGapNs))
                .arg(m_result.overall.copyNs > 0 ? QStringLiteral(", of which copies or memsets ran %1")
                                                       .arg(formatDuration(m_result.overall.copyNs))
                                                 : QString()));
    rebuildChart();
}

QColor GapBlamePanel::causeKeyColor(const std::string &key) const
{
    std::array<int, core::kGapCauseCount> shades {};
    for (const auto &b : m_result.overall.byCause) {
        const int shade = shades[std::size_t(b.cause)]++;
        if (b.key == key)
            return gapCauseShade(b.cause, shade);
    }
    return QColor(170, 170, 170);
}

void GapBlamePanel::rebuildChart()
{
    clearChart(m_chart);
    const auto *t = m_result.trace.get();
    if (!t || m_result.perRank.empty()) {
        m_chart->setTitle(QString());
        return;
    }
    m_chart->setTitle(QStringLiteral("Idle time by cause per rank"));
    // The largest causes overall, the rest summed as "other"; each in its cause's colour.
    std::vector<std::string> causes;
    for (const auto &b : m_result.overall.byCause)
        if (int(causes.size()) < kChartCauses)
            causes.push_back(b.key);
    const bool other = m_result.overall.byCause.size() > causes.size();
    double maxNs = 0;
    for (const auto &[rank, totals] : m_result.perRank)
        maxNs = std::max(maxNs, double(totals.totalGapNs));
    const DurationUnit axisUnit = durationUnitFor(maxNs);
    const double unit = axisUnit.ns;
    const QString unitName = QLatin1String(axisUnit.name);

    auto *series = new QStackedBarSeries;
    std::vector<QBarSet *> sets;
    for (std::size_t c = 0; c < causes.size() + (other ? 1 : 0); ++c) {
        auto *set = new QBarSet(
            c < causes.size() ? elideMiddle(QString::fromStdString(causes[c]), 34) : QStringLiteral("other"));
        set->setColor(c < causes.size() ? causeKeyColor(causes[c]) : QColor(170, 170, 170));
        sets.push_back(set);
    }
    QStringList categories;
    for (const auto &[rank, totals] : m_result.perRank) {
        categories << QString::number(t->ranks[rank].rank);
        std::vector<double> v(sets.size(), 0.0);
        for (const auto &b : totals.byCause) {
            const auto it = std::find(causes.begin(), causes.end(), b.key);
            v[it != causes.end() ? std::size_t(it - causes.begin()) : causes.size()] += double(b.totalNs) / unit;
        }
        for (std::size_t c = 0; c < sets.size(); ++c)
            *sets[c] << v[c];
    }
    for (auto *set : sets)
        series->append(set);
    m_chart->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(QStringLiteral("rank"));
    m_chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto *y = new QValueAxis;
    y->setTitleText(QStringLiteral("idle (%1)").arg(unitName));
    y->setLabelFormat(QStringLiteral("%.3g"));
    y->setMin(0);
    m_chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    y->applyNiceNumbers();
    m_chart->legend()->setVisible(true);
    m_chart->legend()->setAlignment(Qt::AlignRight);
}

std::optional<core::GapBlame> GapBlamePanel::stepRow(int sourceRow, int direction)
{
    if (sourceRow < 0 || std::size_t(sourceRow) >= m_filters.size() || !m_result.trace)
        return std::nullopt;
    const RowFilter &f = m_filters[std::size_t(sourceRow)];
    std::vector<core::GapId> gaps;
    for (std::size_t i = 0; i < m_result.gaps.size(); ++i)
        if (matches(f, i))
            gaps.push_back(m_result.gapIds[i]);
    // In time order (display time, so aligned ranks step left to right).
    std::stable_sort(gaps.begin(), gaps.end(), [this](core::GapId a, core::GapId b) {
        return m_result.derived->gap(a).gap.start < m_result.derived->gap(b).gap.start;
    });
    const bool same = sourceRow == m_stepRow;
    m_stepRow = sourceRow;
    m_treeStepId = -1;
    return stepThrough(gaps, QString::fromStdString(f.bucket.key), same, direction);
}

std::optional<core::GapBlame> GapBlamePanel::stepTreeGroup(const QModelIndex &index, int direction)
{
    const int id = index.siblingAtColumn(TreeGroupColumn).data(Qt::UserRole).toInt();
    if (!index.isValid() || id < 0 || std::size_t(id) >= m_treeNodes.size() || !m_result.trace)
        return std::nullopt;
    const bool same = id == m_treeStepId;
    m_treeStepId = id;
    m_treeStep = index.siblingAtColumn(TreeGroupColumn);
    m_stepRow = -1;
    const core::BlameTreeNode &node = *m_treeNodes[std::size_t(id)];
    return stepThrough(node.gaps, QString::fromStdString(node.key), same, direction);
}

std::optional<core::GapBlame> GapBlamePanel::stepThrough(
    const std::vector<core::GapId> &gaps, const QString &label, bool sameGroup, int direction)
{
    if (gaps.empty())
        return std::nullopt;
    if (!sameGroup)
        m_stepIndex = direction < 0 ? int(gaps.size()) - 1 : 0;
    else
        m_stepIndex = (m_stepIndex + direction + int(gaps.size())) % int(gaps.size());
    const core::GapId shown = gaps[std::size_t(m_stepIndex)];
    const core::GapBlame &g = m_result.derived->gap(shown);
    // By id when the timeline shows the same derived capture, else by time (it may be at
    // another threshold for a moment).
    if (m_view && !m_view->showGap(*m_result.derived, shown))
        m_view->showGap(core::GpuIndex(g.gpu), g.gap);
    m_prev->setEnabled(gaps.size() > 1);
    m_next->setEnabled(gaps.size() > 1);
    m_stepLabel->setText(QStringLiteral("%1: gap %2 of %3 · %4")
                             .arg(elideMiddle(label, 40))
                             .arg(m_stepIndex + 1)
                             .arg(gaps.size())
                             .arg(formatDuration(g.gap.duration())));
    return g;
}

void GapBlamePanel::rebuildTree()
{
    m_treeNodes.clear();
    m_treeModel->clear();
    m_treeModel->setHorizontalHeaderLabels(
        { QStringLiteral("Cause › call › NVTX phase"), QStringLiteral("Gaps"), QStringLiteral("Total idle"),
            QStringLiteral("% of window"), QStringLiteral("Longest"), QStringLiteral("Copies running") });
    const auto *t = m_result.trace.get();
    if (!t || GroupBy(m_groupBy->currentIndex()) != GroupBy::Tree)
        return;
    const auto split = SplitBy(m_splitBy->currentIndex());
    // One row of the tree: the group's name and figures, raw numbers in SortRole.
    auto rowOf = [&](const QString &name, std::uint64_t count, core::TimeNs total, core::TimeNs longest,
                     core::TimeNs copy, core::TimeNs window) {
        QList<QStandardItem *> row;
        auto *nameItem = new QStandardItem(name);
        nameItem->setData(name, PanelTableModel::SortRole);
        nameItem->setData(-1, Qt::UserRole);
        nameItem->setToolTip(name);
        row << nameItem;
        auto number = [&](const QString &text, double raw) {
            auto *item = new QStandardItem(text);
            item->setData(raw, PanelTableModel::SortRole);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            row << item;
        };
        number(QString::number(count), double(count));
        number(formatDuration(total), double(total));
        const double share = window > 0 ? 100.0 * double(total) / double(window) : 0.0;
        number(QStringLiteral("%1%").arg(share, 0, 'f', 1), share);
        number(formatDuration(longest), double(longest));
        number(formatDuration(copy), double(copy));
        return row;
    };
    auto addTree = [&](QStandardItem *parent, const core::BlameTree &tree, core::TimeNs window) {
        auto add = [&](auto &self, QStandardItem *under, std::uint32_t n) -> void {
            const auto &node = tree.nodes[n];
            auto row = rowOf(
                QString::fromStdString(node.key), node.count, node.totalNs, node.longestNs, node.copyNs, window);
            row.front()->setData(int(m_treeNodes.size()), Qt::UserRole);
            m_treeNodes.push_back(&node);
            if (node.level == core::BlameLevel::Cause)
                row.front()->setData(gapCauseColor(node.cause), Qt::DecorationRole);
            else if (node.level == core::BlameLevel::Call && node.cause == core::GapCause::ApiCall)
                row.front()->setData(causeKeyColor(node.key), Qt::DecorationRole);
            under->appendRow(row);
            for (const auto c : node.children)
                self(self, row.front(), c);
        };
        for (const auto r : tree.roots)
            add(add, parent, r);
    };
    auto *root = m_treeModel->invisibleRootItem();
    if (split == SplitBy::None) {
        addTree(root, m_result.overallTree, windowOf(split, core::kNoIndex));
    } else {
        const auto &totals = split == SplitBy::Rank ? m_result.perRank : m_result.perGpu;
        const auto &trees = split == SplitBy::Rank ? m_result.perRankTree : m_result.perGpuTree;
        for (std::size_t i = 0; i < trees.size(); ++i) {
            const auto &[id, tree] = trees[i];
            const auto &sum = totals[i].second;
            const auto window = windowOf(split, id);
            auto row = rowOf(scopeLabel(*t, split, id), sum.gapCount, sum.totalGapNs, 0, sum.copyNs, window);
            row[TreeLongestColumn]->setText(QString());
            root->appendRow(row);
            addTree(row.front(), tree, window);
        }
    }
    // The causes open, their calls and phases folded until asked for.
    m_tree->expandToDepth(split == SplitBy::None ? 0 : 1);
    m_tree->header()->setSectionResizeMode(TreeGroupColumn, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(false);
    m_tree->sortByColumn(TreeTotalColumn, Qt::DescendingOrder);
}

} // namespace gaplens::ui
