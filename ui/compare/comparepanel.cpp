// SPDX-License-Identifier: MIT
#include "ui/compare/comparepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QScreen>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace gaplens::ui {

using Table = ComparisonModel::Table;

namespace {

// The panel's tables title "Calls before" on two lines ("Calls" over "before"): a title no
// wider than its numbers keeps every column in the dock. The model keeps one-line titles
// for exports and copies.
class TwoLineHeaderProxy : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        QVariant title = QSortFilterProxyModel::headerData(section, orientation, role);
        if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
            return title;
        QString text = title.toString();
        const auto space = text.lastIndexOf(QLatin1Char(' '));
        if (text.endsWith(QLatin1String(" before")) || text.endsWith(QLatin1String(" after")))
            text[space] = QLatin1Char('\n');
        return text;
    }
};

} // namespace

ComparePanel::ComparePanel(QWidget *parent)
    : QWidget(parent)
    , m_verdict(new QLabel(this))
    , m_detail(new QLabel(this))
    , m_perCall(new QLabel(this))
    , m_noise(new QLabel(this))
    , m_stepRange(new QComboBox(this))
    , m_tabs(new QTabWidget(this))
{
    QFont big = m_verdict->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    big.setBold(true);
    m_verdict->setFont(big);
    m_verdict->setObjectName(QStringLiteral("verdict"));
    m_verdict->setWordWrap(true); // core's no-steps verdict is a long sentence
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_perCall->setObjectName(QStringLiteral("perCallChanges"));
    m_perCall->setWordWrap(true);
    m_perCall->setTextFormat(Qt::RichText);
    m_perCall->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_noise->setWordWrap(true);
    m_noise->setObjectName(QStringLiteral("noiseMethod"));
    QFont small = m_noise->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_noise->setFont(small);
    m_noise->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_stepRange->setEditable(true);
    m_stepRange->setMinimumContentsLength(18);
    m_stepRange->setToolTip(QStringLiteral("NVTX range whose iterations are the steps the noise is judged by"));
    auto *stepRow = new QHBoxLayout;
    stepRow->addWidget(new QLabel(QStringLiteral("Steps = NVTX range:"), this));
    stepRow->addWidget(m_stepRange, 1);

    for (Table t :
        { Table::Headline, Table::Kernels, Table::IdleByCause, Table::IdleByPhase, Table::Nvtx, Table::Sustained })
        addTable(t);
    m_tabs->addTab(m_views[int(Table::Kernels)], QStringLiteral("Kernels"));
    m_tabs->addTab(m_views[int(Table::IdleByCause)], QStringLiteral("Idle by cause"));
    m_tabs->addTab(m_views[int(Table::IdleByPhase)], QStringLiteral("Idle by phase"));
    m_tabs->addTab(m_views[int(Table::Nvtx)], QStringLiteral("NVTX ranges"));
    m_tabs->addTab(m_views[int(Table::Sustained)], QStringLiteral("Sustained"));
    m_views[int(Table::Sustained)]->setSortingEnabled(false); // core's order: rates, then the partition
    // One value per capture: nothing to judge noise by, so no noise or judgement column.
    m_views[int(Table::Sustained)]->setColumnHidden(ComparisonModel::NoiseColumn, true);
    m_views[int(Table::Sustained)]->setColumnHidden(ComparisonModel::JudgementColumn, true);
    auto *kernels = m_views[int(Table::Kernels)];
    kernels->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(kernels, &QTableView::customContextMenuRequested, this, [this, kernels](const QPoint &pos) {
        const auto index = kernels->indexAt(pos);
        const auto *proxy = qobject_cast<const QSortFilterProxyModel *>(kernels->model());
        if (!index.isValid() || !proxy)
            return;
        const QString name = model(Table::Kernels)->key(proxy->mapToSource(index).row());
        if (name.isEmpty())
            return;
        QMenu menu;
        menu.addAction(QStringLiteral("Duration histogram (before and after)…"), this,
            [this, name] { emit kernelHistogramRequested(name); });
        menu.exec(kernels->viewport()->mapToGlobal(pos));
    });
    auto *headline = m_views[int(Table::Headline)];
    headline->setSortingEnabled(false); // core's order: per-step rows, then totals
    headline->setMinimumHeight(120);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_verdict);
    layout->addWidget(m_detail);
    layout->addWidget(m_perCall);
    layout->addWidget(m_noise);
    layout->addLayout(stepRow);
    layout->addWidget(headline, 2);
    layout->addWidget(m_tabs, 3);

    connect(m_stepRange, &QComboBox::activated, this,
        [this] { emit stepRangeRequested(m_stepRange->currentText().trimmed()); });
    setComparison(nullptr);
}

QTableView *ComparePanel::addTable(Table table)
{
    auto *model = new ComparisonModel(table, this);
    auto *proxy = new TwoLineHeaderProxy(this);
    proxy->setSourceModel(model);
    proxy->setSortRole(ComparisonModel::SortRole);
    auto *view = new QTableView(this);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder); // core's order (|delta| desc) until a header is clicked
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    // Numbers keep the width of their contents; the name column takes what is left and
    // elides in the middle (the distinguishing end of a kernel name survives, the full name
    // is the tooltip), so at a dock's width no number column is cut off.
    auto *header = view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(0, QHeaderView::Stretch);
    header->setStretchLastSection(false);
    header->setMinimumSectionSize(view->fontMetrics().horizontalAdvance(QStringLiteral("0000")));
    view->setTextElideMode(Qt::ElideMiddle);
    view->setWordWrap(false);
    connect(view, &QTableView::clicked, this,
        [this, table, proxy](const QModelIndex &index) { activateRow(table, proxy->mapToSource(index).row()); });
    connect(view, &QTableView::activated, this,
        [this, table, proxy](const QModelIndex &index) { activateRow(table, proxy->mapToSource(index).row()); });
    m_models << model;
    m_views << view;
    return view;
}

ComparisonModel *ComparePanel::model(Table table) const
{
    return m_models[int(table)];
}

QTableView *ComparePanel::tableView(Table table) const
{
    return m_views[int(table)];
}

QTableView *ComparePanel::currentTableView() const
{
    return qobject_cast<QTableView *>(m_tabs->currentWidget());
}

void ComparePanel::activateRow(Table table, int row)
{
    const QString key = model(table)->key(row);
    if (key.isEmpty())
        return;
    switch (table) {
    case Table::Kernels: emit kernelActivated(key); break;
    case Table::IdleByCause: emit causeActivated(key); break;
    case Table::IdleByPhase: emit phaseActivated(key); break;
    case Table::Nvtx: emit nvtxActivated(key); break;
    case Table::Headline:
    case Table::Sustained: break;
    }
}

void ComparePanel::setBusy(bool busy)
{
    if (busy)
        m_verdict->setText(QStringLiteral("Comparing…"));
    else if (m_comparison)
        setComparison(m_comparison);
}

void ComparePanel::setRangeNames(const QStringList &names)
{
    const QString current = m_stepRange->currentText();
    const QSignalBlocker block(m_stepRange);
    m_stepRange->clear();
    m_stepRange->addItems(names);
    m_stepRange->setCurrentText(current);
}

void ComparePanel::setComparison(std::shared_ptr<const core::Comparison> comparison)
{
    m_comparison = comparison;
    for (auto *m : std::as_const(m_models))
        m->setComparison(comparison);
    if (!comparison) {
        m_verdict->setText(QStringLiteral("Open a before and an after capture to compare them."));
        m_detail->clear();
        m_perCall->clear();
        m_noise->clear();
        return;
    }
    const auto &c = *comparison;
    // Green for faster, red for slower, neutral otherwise: the verdict is read from a distance.
    m_verdict->setText(QString::fromStdString(c.verdictText));
    // Neutral verdicts keep the palette's text colour (readable in light and dark themes).
    const auto colourStyle = [](const QColor &colour) { return QStringLiteral("color: %1;").arg(colour.name()); };
    // Captures that may not be comparable get no verdict colour: their verdict starts with why.
    const bool comparable = c.notComparable.empty();
    m_verdict->setStyleSheet(comparable && c.verdict == core::Verdict::Faster
            ? colourStyle(ComparisonModel::betterColor())
            : comparable && c.verdict == core::Verdict::Slower ? colourStyle(ComparisonModel::worseColor())
                                                               : QString());
    QString detail = QString::fromStdString(c.verdictDetail);
    for (const auto &w : c.warnings)
        detail += QStringLiteral("\n⚠ ") + QString::fromStdString(w);
    m_detail->setText(detail);
    m_perCall->setText(perCallHtml(c));
    fitTablesWidth();
    m_noise->setText(QStringLiteral("Noise test: ") + QString::fromStdString(c.noiseMethod));
    // The sustained tab says what it holds, or why it is empty.
    m_tabs->setTabToolTip(m_tabs->indexOf(m_views[int(Table::Sustained)]),
        c.sustained.empty() ? QStringLiteral("No run accounting: %1").arg(QString::fromStdString(c.sustainedError))
                            : QStringLiteral("Work per second of step time and of wall time over the default window "
                                             "(docs/run-accounting.md), and where the window went"));
    const QString range = QString::fromStdString(c.stepRange);
    if (!range.isEmpty() && m_stepRange->findText(range) < 0)
        m_stepRange->insertItem(0, range);
    const QSignalBlocker block(m_stepRange);
    m_stepRange->setCurrentText(range);
}

int ComparePanel::tableWidthHint(const QTableView *view)
{
    const auto *header = view->horizontalHeader();
    // What ResizeToContents gives each number column, plus a name column that still shows
    // the two ends of a kernel name, the scrollbar and the frame.
    int width = view->fontMetrics().horizontalAdvance(QLatin1Char('x')) * kMinimumNameChars;
    // QTableView makes the override protected; QAbstractItemView's is public.
    const auto *itemView = static_cast<const QAbstractItemView *>(view);
    for (int column = 1; column < header->count(); ++column)
        width += std::max(itemView->sizeHintForColumn(column), header->sectionSizeHint(column));
    return width + view->verticalScrollBar()->sizeHint().width() + 2 * view->frameWidth();
}

void ComparePanel::fitTablesWidth()
{
    // The tab pane's frame around the tab tables: what the tab widget adds to its pages.
    int pages = 0;
    for (int i = 0; i < m_tabs->count(); ++i)
        pages = std::max(pages, m_tabs->widget(i)->sizeHint().width());
    const int paneFrame = std::max(0, m_tabs->sizeHint().width() - pages);
    int width = 0;
    for (const auto *view : std::as_const(m_views))
        width = std::max(width, tableWidthHint(view) + (m_tabs->indexOf(view) >= 0 ? paneFrame : 0));
    const auto margins = layout()->contentsMargins();
    width += margins.left() + margins.right();
    // Never more than most of the screen, nor more than the timelines' own minimum leaves of
    // it: the window must fit on the screen (1,639 pixels on a 1,600-pixel one, before).
    if (const auto *s = screen()) {
        const int screenWidth = s->availableGeometry().width();
        int cap = screenWidth * 3 / 5;
        if (const auto *main = qobject_cast<const QMainWindow *>(window()); main && main->centralWidget())
            cap = std::min(cap, screenWidth - main->centralWidget()->minimumSizeHint().width() - kDockFramePixels);
        width = std::min(width, std::max(cap, kMinimumPanelPixels));
    }
    setMinimumWidth(width);
}

QString ComparePanel::perCallHtml(const core::Comparison &c)
{
    QString html = QStringLiteral("<b>Figures:</b> ") + QString::fromStdString(c.work.text).toHtmlEscaped();
    const auto lines = [&](const std::vector<core::PerCallChange> &changes, const QColor &colour) {
        for (const auto &p : changes)
            html += QStringLiteral("<br><span style=\"color: %1;\">%2</span>")
                        .arg(colour.name(), QString::fromStdString(p.text).toHtmlEscaped());
    };
    if (c.regressions.empty() && c.improvements.empty())
        html += QStringLiteral("<br>No kernel changed per call beyond the noise rule.");
    lines(c.regressions, ComparisonModel::worseColor());
    lines(c.improvements, ComparisonModel::betterColor());
    return html;
}

QString ComparePanel::verdictText() const
{
    return m_comparison ? QString::fromStdString(m_comparison->verdictText) : QString();
}

QString ComparePanel::noiseText() const
{
    return m_noise->text();
}

} // namespace gaplens::ui
