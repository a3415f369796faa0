// SPDX-License-Identifier: MIT
#include "ui/panels/runaccountingpanel.h"

#include "ui/panels/chartutil.h"
#include "ui/panels/paneltable.h"
#include "ui/panels/steprangechooser.h"
#include "ui/timeline/colors.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelinemodel.h"
#include "ui/timeline/timelineview.h"

#include "gaplens/core/util/units.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegend>
#include <QLineEdit>
#include <QLocale>
#include <QPen>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QToolTip>
#include <QValueAxis>

#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gaplens::ui {

namespace {

QString stateName(core::RunState state)
{
    const auto name = core::runStateName(state);
    return QString::fromLatin1(name.data(), qsizetype(name.size()));
}

// Figures with thousands separators, the same in every locale: "10,666.67".
QString number(double v, int decimals)
{
    return QLocale(QLocale::English, QLocale::UnitedStates).toString(v, 'f', decimals);
}

QString duration(double ns)
{
    return QString::fromStdString(core::formatDuration(ns));
}

// "10,666.67 tokens/s", or "-" without a denominator.
QString rateText(const std::optional<double> &rate, const QString &unit)
{
    return rate ? number(*rate, 2) + QLatin1Char(' ') + unit + QStringLiteral("/s") : QStringLiteral("-");
}

PanelCell rateCell(const std::optional<double> &rate, const QString &unit)
{
    return rate ? PanelCell { rateText(rate, unit), *rate, {}, {} } : PanelCell::empty();
}

std::string patternsKey(const std::string &stepRange, const RunAccountingPanel::Patterns &patterns)
{
    std::string key = stepRange;
    for (const auto &p : patterns)
        key += '\n' + p.toStdString();
    return key;
}

} // namespace

RunAccountingPanel::RunAccountingPanel(PanelContext &context, TimelineView *view, QWidget *parent)
    : AnalysisPanel(context, view, DerivedUse::Ignores, parent)
    , m_range(new QComboBox(this))
    , m_patternError(new QLabel(this))
    , m_headline(new QLabel(this))
    , m_partitionView(makePanelChartView(this, [this] { rebuildPartitionChart(); }))
    , m_partitionChart(m_partitionView->chart())
    , m_stepView(makePanelChartView(this, [this] { rebuildStepChart(); }))
    , m_stepChart(m_stepView->chart())
    , m_partition(new PanelTable(this))
    , m_steps(new PanelTable(this))
    , m_stepLabel(
          new QLabel(QStringLiteral("Click a state in the chart or the table to step through its spans."), this))
    , m_prev(new QPushButton(QStringLiteral("◀ Previous span"), this))
    , m_next(new QPushButton(QStringLiteral("Next span ▶"), this))
{
    m_range->setMinimumContentsLength(18);
    m_range->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_range->setToolTip(QStringLiteral("The step range: the active state, and the steps whose work is counted"));
    auto *scopeRow = new QHBoxLayout;
    scopeRow->addWidget(m_scopeLabel, 1);
    scopeRow->addWidget(new QLabel(QStringLiteral("Step range:"), this));
    scopeRow->addWidget(m_range);

    // One line edit per pattern state: empty is core's default, shown as the placeholder.
    auto *patternRow = new QHBoxLayout;
    for (std::size_t i = 0; i < core::kPatternStates.size(); ++i) {
        const auto state = core::kPatternStates[i];
        auto *label = new QLabel(
            QStringLiteral("<span style=\"color:%1\">■</span> %2:").arg(runStateColor(state).name(), stateName(state)),
            this);
        auto *edit = new QLineEdit(this);
        const auto def = core::defaultRunStatePattern(state);
        edit->setPlaceholderText(QString::fromLatin1(def.data(), qsizetype(def.size())));
        edit->setClearButtonEnabled(true);
        edit->setToolTip(QStringLiteral("NVTX ranges whose group name this regular expression finds (ignoring case) "
                                        "are %1; empty = the default")
                             .arg(stateName(state)));
        connect(edit, &QLineEdit::textChanged, this, [this] { onPatternEdited(); });
        connect(edit, &QLineEdit::editingFinished, this, [this] {
            Patterns typed;
            for (std::size_t k = 0; k < m_patternEdits.size(); ++k)
                typed[k] = m_patternEdits[k]->text();
            setPatterns(typed);
        });
        patternRow->addWidget(label);
        patternRow->addWidget(edit, 1);
        m_patternEdits[i] = edit;
    }

    m_patternError->setWordWrap(true);
    m_patternError->setStyleSheet(QStringLiteral("color: rgb(215, 38, 45)"));
    m_patternError->hide();
    auto *top = new QVBoxLayout;
    top->addLayout(scopeRow);
    top->addLayout(patternRow);
    top->addWidget(m_patternError);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_prev->setEnabled(false);
    m_next->setEnabled(false);
    auto *charts = adaptivePair(m_partitionView, m_stepView, 1, 1, 0.5, true);
    auto *tables = adaptivePair(m_partition, m_steps, 3, 2, 0.6, true);
    auto *split = adaptivePair(charts, tables, 1, 1, 0.5);
    // The formulas, charts and tables need more height than the other panels: they scroll, so
    // that this panel, tabbed under the timeline with the others, never takes the timeline's
    // height (a dock is as tall as its tallest tab's minimum).
    auto *body = new QWidget(this);
    auto *bodyLayout = new QVBoxLayout(body);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    bodyLayout->addWidget(m_headline);
    bodyLayout->addWidget(split, 1);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(body);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumHeight(120);
    setPanelLayout(top, { scroll }, controlRow(m_stepLabel, { m_prev, m_next }));

    connect(m_range, &QComboBox::activated, this, [this](int) { setRangeName(m_range->currentData().toString()); });
    connect(m_partition, &PanelTable::rowClicked, this, [this](int row, int column) {
        const qint64 rank = m_partition->tableModel()->rowKey(row);
        const int state = column - kFirstStateColumn;
        if (rank >= 0 && state >= 0 && state < int(core::kRunStateCount))
            stepState(std::uint32_t(rank), core::RunState(state));
    });
    connect(m_prev, &QPushButton::clicked, this, [this] { stepState(m_stepRank, m_stepState, -1); });
    connect(m_next, &QPushButton::clicked, this, [this] { stepState(m_stepRank, m_stepState, 1); });
    connect(&m_context, &PanelContext::dataChanged, this, [this] {
        m_namesValid = false;
        m_requestedRange.clear();
        m_result = {};
    });
}

QLineEdit *RunAccountingPanel::patternEdit(core::RunState state) const
{
    for (std::size_t i = 0; i < core::kPatternStates.size(); ++i)
        if (core::kPatternStates[i] == state)
            return m_patternEdits[i];
    return nullptr;
}

void RunAccountingPanel::setRangeName(const QString &name)
{
    m_requestedRange = name;
    scheduleUpdate();
}

RunAccountingPanel::Patterns RunAccountingPanel::patterns() const
{
    return m_patterns;
}

void RunAccountingPanel::setPatterns(const Patterns &patterns)
{
    for (std::size_t i = 0; i < m_patternEdits.size(); ++i)
        if (m_patternEdits[i]->text() != patterns[i])
            m_patternEdits[i]->setText(patterns[i]);
    // Only valid patterns are used; a bad one stays in its box, marked.
    for (const auto &p : patterns)
        if (!core::runStatePatternError(p.toStdString()).empty())
            return;
    if (patterns == m_patterns)
        return;
    m_patterns = patterns;
    scheduleUpdate();
}

void RunAccountingPanel::onPatternEdited()
{
    QStringList problems;
    for (std::size_t i = 0; i < m_patternEdits.size(); ++i) {
        auto *edit = m_patternEdits[i];
        const std::string error = core::runStatePatternError(edit->text().toStdString());
        QPalette pal = edit->palette();
        pal.setColor(QPalette::Base,
            error.empty() ? palette().color(QPalette::Base) : QColor(215, 38, 45).lighter(170)); // a pale red
        pal.setColor(QPalette::Text, error.empty() ? palette().color(QPalette::Text) : QColor(Qt::black));
        edit->setPalette(pal);
        if (!error.empty())
            problems << QStringLiteral("The %1 pattern is not a regular expression (%2); the last valid one is used.")
                            .arg(stateName(core::kPatternStates[i]), QString::fromStdString(error));
    }
    m_patternError->setText(problems.join(QLatin1Char(' ')));
    m_patternError->setVisible(!problems.isEmpty());
}

QString RunAccountingPanel::rankLabel(std::uint32_t rank) const
{
    const auto *t = m_result.trace.get();
    return t && rank < t->ranks.size() ? QStringLiteral("rank %1").arg(t->ranks[rank].rank) : QStringLiteral("-");
}

void RunAccountingPanel::recompute()
{
    const auto trace = traceOrClear([this] { apply({}); });
    if (!trace)
        return;
    const bool sameTrace = m_result.trace == trace;
    std::shared_ptr<const core::StepRangeChoice> choice = m_namesValid && sameTrace ? m_result.choice : nullptr;
    std::shared_ptr<const core::RunAccounting> lanes = sameTrace ? m_result.lanes : nullptr;
    std::shared_ptr<const StateLanes> stateLanes = sameTrace ? m_result.stateLanes : nullptr;
    const std::string lanesKey = lanes ? m_result.lanesKey : std::string();
    core::RunAccountingOptions options;
    for (std::size_t i = 0; i < m_patterns.size(); ++i)
        options.patterns[i] = m_patterns[i].toStdString();
    run<Result>(
        [trace, choice, choices = m_context.stepRangeChoices(), lanes, stateLanes, lanesKey, options,
            patterns = m_patterns, requested = m_requestedRange.toStdString(), ranks = m_context.ranks(),
            window = m_context.window()]() mutable {
            Result r;
            r.trace = trace;
            r.namesValid = !choice;
            // The chooser's names and proposal: counted once per capture for Rank Pace and us.
            r.choice = choice ? choice : choices->get();
            r.stepRange = requested.empty() ? r.choice->proposed.value_or(std::string()) : requested;
            if (r.stepRange.empty())
                return r;
            options.stepRange = r.stepRange;
            // The lanes: every rank over its state span, once per step range and patterns.
            r.lanesKey = patternsKey(r.stepRange, patterns);
            if (lanes && lanesKey == r.lanesKey) {
                r.lanes = lanes;
                r.stateLanes = stateLanes;
            } else {
                r.lanes = std::make_shared<const core::RunAccounting>(core::computeRunAccounting(*trace, options));
                r.stateLanes = std::make_shared<const StateLanes>(r.lanes, trace->ranks.size());
            }
            if (ranks.isAll() && !window) {
                r.scoped = r.lanes;
                return r;
            }
            options.ranks = ranks;
            if (window) {
                options.window.rule = core::RunWindowRule::Absolute;
                options.window.startNs = window->start;
                options.window.endNs = window->end;
                r.selectionWindow = true;
            }
            r.scoped = std::make_shared<const core::RunAccounting>(core::computeRunAccounting(*trace, options));
            return r;
        },
        [this](const Result &r) { apply(r); });
}

void RunAccountingPanel::apply(const Result &r)
{
    m_result = r;
    if (r.namesValid && r.choice) {
        fillStepRangeChooser(m_range, *r.choice);
        m_namesValid = true;
    }
    if (!r.trace) {
        m_range->clear();
        m_namesValid = false;
    }
    const int index = m_range->findData(QString::fromStdString(r.stepRange));
    if (index >= 0)
        m_range->setCurrentIndex(index);
    m_range->setEnabled(m_range->count() > 0);
    // The timeline's lanes, when they are new and of the data it shows.
    if (m_view && m_view->model()->trace() == r.trace.get() && m_view->model()->stateLanes() != r.stateLanes)
        m_view->model()->setStateLanes(r.stateLanes);
    m_stepRank = core::kNoIndex;
    m_stepIndex = -1;
    m_prev->setEnabled(false);
    m_next->setEnabled(false);
    m_headline->setText(headlineText());
    rebuildTables();
    rebuildPartitionChart();
    rebuildStepChart();
}

QString RunAccountingPanel::headlineText() const
{
    const auto &r = m_result;
    if (!r.trace)
        return {};
    if (r.stepRange.empty())
        return QStringLiteral("No step range: %1. Choose a range above.")
            .arg(QString::fromStdString(core::describeMissingStepRange(*r.choice)));
    const auto &a = *r.scoped;
    if (!a.error.empty())
        return QStringLiteral("Nothing to account: %1.").arg(QString::fromStdString(a.error));
    const auto &o = a.overall;
    const QString unit = QString::fromStdString(a.workUnit);
    QStringList lines;
    const bool several = a.ranks.size() > 1;
    const QString whose = several
        ? QStringLiteral("%1's state span (the longest of %2 ranks)").arg(rankLabel(a.slowestRank)).arg(a.ranks.size())
        : rankLabel(a.slowestRank) + QStringLiteral("'s state span");
    if (r.selectionWindow) {
        const auto origin = r.trace->span.start;
        lines << QStringLiteral("Window: %1, the time selection (%2 to %3 from the capture start).")
                     .arg(duration(double(o.windowNs())), duration(double(o.window.start - origin)),
                         duration(double(o.window.end - origin)));
    } else {
        lines << QStringLiteral("Window: %1, %2, the default: from the first to the last instant of any state "
                                "range. Select a time range on the timeline to set it.")
                     .arg(duration(double(o.windowNs())), whose);
    }
    const QString work = number(o.work, o.work == std::floor(o.work) ? 0 : 2) + QLatin1Char(' ') + unit;
    lines << QStringLiteral("Active rate = work / active time = %1 / %2 = %3")
                 .arg(work, duration(double(o.activeNs())), rateText(o.activeRate, unit));
    lines << QStringLiteral("Sustained rate = work / window time = %1 / %2 = %3")
                 .arg(work, duration(double(o.windowNs())), rateText(o.sustainedRate, unit));
    if (o.sustainedOverActive)
        lines << QStringLiteral("Sustained / active = %1 / %2 = %3 (= active time / window time)")
                     .arg(number(*o.sustainedRate, 2), number(*o.activeRate, 2), number(*o.sustainedOverActive, 3));
    else
        lines << QStringLiteral("Sustained / active: - (no active time)");
    const QString source = a.workSource == core::WorkSource::Payload ? QStringLiteral("the NVTX payloads")
        : a.workSource == core::WorkSource::PerStep                  ? QStringLiteral("the work per step")
                                                                     : QStringLiteral("one unit per step");
    lines << QStringLiteral("%1 steps of \"%2\" end in the window%3; work from %4%5.")
                 .arg(number(double(o.steps), 0), QString::fromStdString(a.stepRange),
                     several ? QStringLiteral(" (work summed over the ranks, times from %1's window)")
                                   .arg(rankLabel(a.slowestRank))
                             : QString(),
                     source,
                     o.stepsWithoutPayload
                         ? QStringLiteral(" (%1 without a payload count 0)").arg(o.stepsWithoutPayload)
                         : QString());
    if (o.checkpoint) {
        const auto &h = *o.checkpoint;
        QString text = QStringLiteral("Checkpoints: %1 blocking, %2 staging").arg(h.count).arg(h.stagingCount);
        if (h.cadenceNs)
            text += QStringLiteral(" · cadence %1").arg(duration(*h.cadenceNs));
        text += QStringLiteral(" · duration median %1, p95 %2 · commit p95 %3")
                    .arg(duration(h.medianDurationNs), duration(double(h.p95DurationNs)),
                        duration(double(h.commitP95Ns)));
        if (h.p95OverCadence)
            text += QStringLiteral(" = %1 of the cadence%2")
                        .arg(number(*h.p95OverCadence, 2),
                            *h.p95OverCadence > 1 ? QStringLiteral(" (commits outlast the interval)") : QString());
        text += QStringLiteral(" · backlog %1 then %2 (max %3): %4")
                    .arg(number(h.backlogFirstHalf, 2), number(h.backlogSecondHalf, 2))
                    .arg(h.backlogMax)
                    .arg(h.backlogGrowing ? QStringLiteral("growing") : QStringLiteral("not growing"));
        lines << text + QLatin1Char('.');
    } else {
        lines << QStringLiteral("No checkpoint range in the window.");
    }
    return lines.join(QLatin1Char('\n'));
}

QString RunAccountingPanel::stepText() const
{
    return m_stepLabel->text();
}

void RunAccountingPanel::rebuildTables()
{
    const auto *a = m_result.scoped.get();
    const bool ok = a && a->error.empty();
    const QString unit = ok ? QString::fromStdString(a->workUnit) : QString();
    QList<PanelColumn> columns { { QStringLiteral("Rank"), false, {}, {} },
        { QStringLiteral("Window"), true, QStringLiteral("ns"), QStringLiteral("The window's length on this rank") } };
    for (std::size_t s = 0; s < core::kRunStateCount; ++s)
        columns.push_back({ stateName(core::RunState(s)), true, QStringLiteral("ns"),
            QStringLiteral("Time in this state and its share of the window; click to step through its spans") });
    columns.push_back({ QStringLiteral("Steps"), true, {}, QStringLiteral("Steps ending in the window") });
    columns.push_back({ QStringLiteral("Work"), true, unit, {} });
    columns.push_back(
        { QStringLiteral("Active rate"), true, unit + QStringLiteral("/s"), QStringLiteral("Work / active time") });
    columns.push_back(
        { QStringLiteral("Sustained rate"), true, unit + QStringLiteral("/s"), QStringLiteral("Work / window time") });
    columns.push_back({ QStringLiteral("Sustained / active"), true, {}, QStringLiteral("Active time / window time") });
    std::vector<std::vector<PanelCell>> rows;
    std::vector<qint64> keys;
    auto addRow = [&](const QString &label, const core::RankRunAccounting &r, qint64 key) {
        std::vector<PanelCell> row { PanelCell::text(label), PanelCell::duration(double(r.windowNs())) };
        for (std::size_t s = 0; s < core::kRunStateCount; ++s) {
            const auto ns = r.partitionNs[s];
            PanelCell cell = PanelCell::duration(double(ns));
            if (r.windowNs() > 0)
                cell.display = QString(cell.display.toString()
                    + QStringLiteral(" (%1%)").arg(number(100.0 * double(ns) / double(r.windowNs()), 1)));
            cell.swatch = runStateColor(core::RunState(s));
            row.push_back(cell);
        }
        row.push_back(PanelCell::count(r.steps));
        row.push_back({ number(r.work, r.work == std::floor(r.work) ? 0 : 2), r.work, {}, {} });
        row.push_back(rateCell(r.activeRate, unit));
        row.push_back(rateCell(r.sustainedRate, unit));
        row.push_back(r.sustainedOverActive
                ? PanelCell { number(*r.sustainedOverActive, 3), *r.sustainedOverActive, {}, {} }
                : PanelCell::empty());
        rows.push_back(std::move(row));
        keys.push_back(key);
    };
    if (ok) {
        for (const auto &r : a->ranks) {
            addRow(rankLabel(r.rank), r, qint64(r.rank));
            rows.back()[0].raw = m_result.trace->ranks[r.rank].rank;
        }
        if (a->ranks.size() > 1) {
            addRow(QStringLiteral("overall (%1's window)").arg(rankLabel(a->slowestRank)), a->overall, -1);
            rows.back()[0].raw = std::numeric_limits<int>::max(); // last
        }
    }
    m_partition->tableModel()->setTable(columns, std::move(rows), std::move(keys));
    m_partition->sortByColumn(0, Qt::AscendingOrder);

    const QList<PanelColumn> stepColumns {
        { QStringLiteral("State"), false, {}, {} },
        { QStringLiteral("Steps inside"), true, {},
            QStringLiteral("Steps overlapping a range of this state for a positive time, on any thread of the rank") },
        { QStringLiteral("Median inside"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("P95 inside"), true, QStringLiteral("ns"), QStringLiteral("Nearest rank") },
        { QStringLiteral("Steps outside"), true, {}, {} },
        { QStringLiteral("Median outside"), true, QStringLiteral("ns"), {} },
        { QStringLiteral("P95 outside"), true, QStringLiteral("ns"), QStringLiteral("Nearest rank") },
        { QStringLiteral("Significant"), false, {},
            QStringLiteral("Beyond run-to-run noise, as compare judges a per-step median: the difference exceeds the "
                           "bootstrap half-width and the Mann-Whitney U test rejects at 0.05") },
    };
    std::vector<std::vector<PanelCell>> stepRows;
    std::vector<qint64> stepKeys;
    if (ok)
        for (const auto &s : a->overall.stepTimeByState) {
            auto stat = [](const core::StepTimeGroup &g, double v) {
                return g.count ? PanelCell::duration(v) : PanelCell::empty();
            };
            PanelCell name = PanelCell::text(stateName(s.state));
            name.raw = int(s.state); // sorted in partition order
            name.swatch = runStateColor(s.state);
            const bool both = s.inside.count && s.outside.count;
            stepRows.push_back({ name, PanelCell::count(s.inside.count), stat(s.inside, s.inside.medianNs),
                stat(s.inside, double(s.inside.p95Ns)), PanelCell::count(s.outside.count),
                stat(s.outside, s.outside.medianNs), stat(s.outside, double(s.outside.p95Ns)),
                PanelCell::text(!both   ? QStringLiteral("-")
                        : s.significant ? QStringLiteral("yes (p = %1)").arg(s.pValue, 0, 'g', 2)
                                        : QStringLiteral("no (p = %1)").arg(s.pValue, 0, 'g', 2)) });
            stepKeys.push_back(qint64(s.state));
        }
    m_steps->tableModel()->setTable(stepColumns, std::move(stepRows), std::move(stepKeys));
    m_steps->sortByColumn(0, Qt::AscendingOrder);
}

void RunAccountingPanel::rebuildPartitionChart()
{
    clearChart(m_partitionChart);
    const auto *a = m_result.scoped.get();
    if (!a || !a->error.empty() || a->ranks.empty()) {
        m_partitionChart->setTitle(QString());
        return;
    }
    m_partitionChart->setTitle(
        QStringLiteral("Where the window's time went, per rank (click a state to step through it)"));
    core::TimeNs longest = 0;
    for (const auto &r : a->ranks)
        longest = std::max(longest, r.windowNs());
    const DurationUnit unit = durationUnitFor(double(longest));
    QStringList categories;
    std::vector<std::uint32_t> rankOfCategory;
    QList<QBarSet *> sets;
    for (std::size_t s = 0; s < core::kRunStateCount; ++s) {
        auto *set = new QBarSet(stateName(core::RunState(s)));
        set->setColor(runStateColor(core::RunState(s)));
        set->setBorderColor(runStateColor(core::RunState(s)).darker(130));
        sets << set;
    }
    // Horizontal bars are laid out bottom-up: the first rank goes on top.
    for (auto it = a->ranks.rbegin(); it != a->ranks.rend(); ++it) {
        for (std::size_t s = 0; s < core::kRunStateCount; ++s)
            *sets[qsizetype(s)] << double(it->partitionNs[s]) / unit.ns;
        categories << rankLabel(it->rank);
        rankOfCategory.push_back(it->rank);
    }
    for (std::size_t s = 0; s < core::kRunStateCount; ++s) {
        connect(sets[qsizetype(s)], &QBarSet::clicked, this, [this, s, rankOfCategory](int index) {
            if (index >= 0 && index < int(rankOfCategory.size()))
                stepState(rankOfCategory[std::size_t(index)], core::RunState(s));
        });
        // "checkpoint on rank 0: 54.220 ms (28.8% of the window)" under the pointer.
        connect(sets[qsizetype(s)], &QBarSet::hovered, this,
            [this, s, scoped = m_result.scoped, rankOfCategory](bool on, int index) {
                if (!on || index < 0 || index >= int(rankOfCategory.size())) {
                    QToolTip::hideText();
                    return;
                }
                const auto rank = rankOfCategory[std::size_t(index)];
                for (const auto &r : scoped->ranks)
                    if (r.rank == rank && r.windowNs() > 0)
                        QToolTip::showText(QCursor::pos(),
                            QStringLiteral("%1 on %2: %3 (%4% of the window); click to step through its spans")
                                .arg(stateName(core::RunState(s)), rankLabel(rank), duration(double(r.partitionNs[s])),
                                    number(100.0 * double(r.partitionNs[s]) / double(r.windowNs()), 1)));
            });
    }
    auto *series = new QHorizontalStackedBarSeries;
    series->append(sets);
    series->setBarWidth(0.7);
    m_partitionChart->addSeries(series);
    m_partitionChart->legend()->show();
    m_partitionChart->legend()->setAlignment(Qt::AlignBottom);
    auto *y = new QBarCategoryAxis;
    y->append(categories);
    m_partitionChart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    auto *x = new QValueAxis;
    x->setTitleText(QStringLiteral("time (%1)").arg(QLatin1String(unit.name)));
    x->setLabelFormat(QStringLiteral("%.4g")); // 1000, not 1e+03
    x->setMin(0);
    m_partitionChart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    x->applyNiceNumbers();
}

void RunAccountingPanel::rebuildStepChart()
{
    clearChart(m_stepChart);
    const auto *a = m_result.scoped.get();
    if (!a || !a->error.empty() || a->ranks.empty()) {
        m_stepChart->setTitle(QString());
        return;
    }
    // The states some steps overlap and others do not: a box of each group.
    std::vector<const core::StepTimeByState *> shown;
    core::TimeNs largest = 0;
    for (const auto &s : a->overall.stepTimeByState)
        if (s.inside.count > 0 && s.outside.count > 0) {
            shown.push_back(&s);
            largest = std::max({ largest, s.inside.maxNs, s.outside.maxNs });
        }
    const QString whose = a->ranks.size() > 1 ? QStringLiteral(", ") + rankLabel(a->slowestRank) : QString();
    if (shown.empty()) {
        m_stepChart->setTitle(
            QStringLiteral("Step time%1: no state that some steps overlap and others do not").arg(whose));
        return;
    }
    m_stepChart->setTitle(
        QStringLiteral("Step time inside vs outside each state%1 (min, quartiles, median, max)").arg(whose));
    const DurationUnit unit = durationUnitFor(double(largest));
    auto *inside = new QBoxPlotSeries;
    inside->setName(QStringLiteral("steps overlapping the state"));
    inside->setBrush(QColor(75, 85, 125)); // dark slate
    inside->setPen(QPen(QColor(120, 130, 200), 2)); // reads on light and dark charts
    auto *outside = new QBoxPlotSeries;
    outside->setName(QStringLiteral("the other steps"));
    outside->setBrush(QColor(175, 180, 190)); // light grey
    outside->setPen(QPen(QColor(110, 115, 125), 2));
    QStringList categories;
    auto box = [&](const core::StepTimeGroup &g, const QString &label) {
        return new QBoxSet(double(g.minNs) / unit.ns, double(g.q1Ns) / unit.ns, g.medianNs / unit.ns,
            double(g.q3Ns) / unit.ns, double(g.maxNs) / unit.ns, label);
    };
    for (const auto *s : shown) {
        const QString label = stateName(s->state)
            + (s->significant ? QStringLiteral(" (significant)") : QStringLiteral(" (within noise)"));
        categories << label;
        inside->append(box(s->inside, label));
        outside->append(box(s->outside, label));
    }
    m_stepChart->addSeries(inside);
    m_stepChart->addSeries(outside);
    auto *x = new QBarCategoryAxis;
    x->append(categories);
    m_stepChart->addAxis(x, Qt::AlignBottom);
    inside->attachAxis(x);
    outside->attachAxis(x);
    auto *y = new QValueAxis;
    y->setTitleText(QStringLiteral("step time (%1)").arg(QLatin1String(unit.name)));
    y->setLabelFormat(QStringLiteral("%.3g"));
    y->setRange(0, double(largest) / unit.ns * 1.05);
    y->applyNiceNumbers();
    m_stepChart->addAxis(y, Qt::AlignLeft);
    inside->attachAxis(y);
    outside->attachAxis(y);
    m_stepChart->legend()->show();
    m_stepChart->legend()->setAlignment(Qt::AlignBottom);
}

bool RunAccountingPanel::stepState(std::uint32_t rank, core::RunState state, int direction)
{
    const auto *lanes = m_result.stateLanes.get();
    const auto *spans = lanes ? lanes->spans(rank) : nullptr;
    if (!spans)
        return false;
    // The spans of the state inside the panel's window (all of the lane without a selection).
    const auto &window = m_context.window();
    std::vector<std::uint32_t> found;
    for (std::uint32_t i = 0; i < spans->size(); ++i)
        if (spans->state[i] == state && (!window || (spans->end[i] > window->start && spans->start[i] < window->end)))
            found.push_back(i);
    const QString what = QStringLiteral("%1 on %2").arg(stateName(state), rankLabel(rank));
    if (found.empty()) {
        m_stepLabel->setText(QStringLiteral("%1: no span in this window.").arg(what));
        m_prev->setEnabled(false);
        m_next->setEnabled(false);
        return false;
    }
    const int n = int(found.size());
    const bool same = rank == m_stepRank && state == m_stepState && m_stepIndex >= 0;
    m_stepIndex = same ? ((m_stepIndex + direction) % n + n) % n : (direction < 0 ? n - 1 : 0);
    m_stepRank = rank;
    m_stepState = state;
    const std::uint32_t span = found[std::size_t(m_stepIndex)];
    if (m_view)
        m_view->showStateSpan(core::RankIndex(rank), span);
    m_prev->setEnabled(n > 1);
    m_next->setEnabled(n > 1);
    m_stepLabel->setText(QStringLiteral("%1: span %2 of %3 · %4")
                             .arg(what)
                             .arg(m_stepIndex + 1)
                             .arg(n)
                             .arg(duration(double(spans->end[span] - spans->start[span]))));
    return true;
}

} // namespace gaplens::ui
