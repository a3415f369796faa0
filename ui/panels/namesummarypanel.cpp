// SPDX-License-Identifier: MIT
#include "ui/panels/namesummarypanel.h"

#include "ui/panels/chartutil.h"
#include "ui/panels/paneltablemodel.h"
#include "ui/panels/summarytreemodel.h"
#include "ui/timeline/timeformat.h"
#include "ui/timeline/timelineview.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTreeView>

namespace gaplens::ui {

namespace {

SummaryTreeModel::Row rowOf(const core::TraceSet &trace, core::StringId name, const core::DurationStats &stats,
    double percent, const char *style = "")
{
    return { QString::fromStdString(trace.str(name)), QString::fromLatin1(style), stats, percent, qint64(name), {} };
}

std::vector<SummaryTreeModel::Row> rowsOf(const core::TraceSet &trace, const core::NvtxSummary &summary)
{
    std::vector<SummaryTreeModel::Row> rows;
    rows.reserve(summary.rows.size());
    for (const auto &r : summary.rows) {
        auto row = rowOf(trace, r.name, r.stats, r.percent, core::nvtxStyleName(r.kind));
        row.children.reserve(r.calls.size());
        for (const auto &c : r.calls)
            row.children.push_back(rowOf(trace, c.name, c.stats, c.percent, core::nvtxStyleName(r.kind)));
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<SummaryTreeModel::Row> rowsOf(const core::TraceSet &trace, const core::NvtxProjectionSummary &summary)
{
    std::vector<SummaryTreeModel::Row> rows;
    rows.reserve(summary.rows.size());
    for (const auto &r : summary.rows)
        rows.push_back(rowOf(trace, r.name, r.stats, r.percent, core::nvtxStyleName(r.kind)));
    return rows;
}

std::vector<SummaryTreeModel::Row> rowsOf(const core::TraceSet &trace, const core::ApiSummary &summary)
{
    std::vector<SummaryTreeModel::Row> rows;
    rows.reserve(summary.rows.size());
    for (const auto &r : summary.rows)
        rows.push_back(rowOf(trace, r.name, r.stats, r.percent));
    return rows;
}

} // namespace

NameSummaryPanel::NameSummaryPanel(Kind kind, PanelContext &context, TimelineView *view, QWidget *parent)
    : AnalysisPanel(context, view, DerivedUse::Ignores, parent)
    , m_kind(kind)
    , m_tree(new QTreeView(this))
    , m_model(new SummaryTreeModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_instanceLabel(new QLabel(this))
    , m_prev(new QPushButton(QStringLiteral("◀ Previous"), this))
    , m_next(new QPushButton(QStringLiteral("Next ▶"), this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(PanelTableModel::SortRole);
    m_tree->setModel(m_proxy);
    m_tree->setSortingEnabled(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->setColumnHidden(SummaryTreeModel::StyleColumn, kind == Kind::Api);
    m_tree->header()->setSectionResizeMode(SummaryTreeModel::NameColumn, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(false);
    m_tree->sortByColumn(SummaryTreeModel::TotalColumn, Qt::DescendingOrder);
    m_prev->setEnabled(false);
    m_next->setEnabled(false);
    m_prev->setToolTip(QStringLiteral("Previous instance on the timeline (Shift+F3)"));
    m_next->setToolTip(QStringLiteral("Next instance on the timeline (F3)"));
    m_instanceLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    if (kind == Kind::Nvtx) {
        m_projected = new QCheckBox(QStringLiteral("GPU projection"), this);
        m_projected->setToolTip(QStringLiteral(
            "Each range's time on the GPU: from the first start to the last end of the kernels, copies and memsets "
            "its CUDA calls launched (nsys nvtx_gpu_proj_sum, gaplens-cli nvtx --gpu)"));
        connect(m_projected, &QCheckBox::toggled, this, &NameSummaryPanel::scheduleUpdate);
    }
    QHBoxLayout *top = controlRow(m_scopeLabel, {});
    if (m_projected)
        top->addWidget(m_projected);
    setPanelLayout(top, { m_tree }, controlRow(m_instanceLabel, { m_prev, m_next }));

    connect(m_tree, &QTreeView::clicked, this,
        [this](const QModelIndex &index) { selectRow(m_proxy->mapToSource(index.siblingAtColumn(0))); });
    connect(m_tree, &QTreeView::activated, this,
        [this](const QModelIndex &index) { selectRow(m_proxy->mapToSource(index.siblingAtColumn(0))); });
    connect(m_prev, &QPushButton::clicked, this, &NameSummaryPanel::previousInstance);
    connect(m_next, &QPushButton::clicked, this, &NameSummaryPanel::nextInstance);
}

void NameSummaryPanel::recompute()
{
    const auto trace = traceOrClear([this] { apply({}); });
    if (!trace)
        return;
    run<Result>(
        [trace, options = scopedOptions<core::SummaryOptions>(), kind = m_kind, projected = isProjected()] {
            Result r;
            r.trace = trace;
            r.isProjected = projected;
            if (projected)
                r.projected = core::summarizeNvtxProjection(*trace, options);
            else if (kind == Kind::Nvtx)
                r.nvtx = core::summarizeNvtx(*trace, options, core::NvtxCalls::Listed);
            else
                r.api = core::summarizeApi(*trace, options);
            return r;
        },
        [this](const Result &r) { apply(r); });
}

void NameSummaryPanel::apply(const Result &result)
{
    m_result = result;
    const bool nvtx = m_kind == Kind::Nvtx;
    std::vector<SummaryTreeModel::Row> rows;
    if (result.trace)
        rows = result.isProjected ? rowsOf(*result.trace, result.projected)
            : nvtx                ? rowsOf(*result.trace, result.nvtx)
                                  : rowsOf(*result.trace, result.api);
    const std::size_t names = rows.size();
    m_model->setRows(std::move(rows),
        result.isProjected ? QStringLiteral("Projected")
            : nvtx         ? QStringLiteral("Instances")
                           : QStringLiteral("Calls"),
        result.isProjected
            ? QStringLiteral("Share of the summed GPU-projected duration of all NVTX ranges in the selection")
            : nvtx ? QStringLiteral("Share of the summed duration of all NVTX ranges in the selection (CPU time)")
                   : QStringLiteral("Share of the summed duration of all CUDA API calls in the selection"));
    m_prev->setEnabled(false);
    m_next->setEnabled(false);
    const auto instances = result.isProjected ? result.projected.instances
        : nvtx                                ? result.nvtx.instances
                                              : result.api.instances;
    const QString what = nvtx ? QStringLiteral("NVTX ranges") : QStringLiteral("CUDA API calls");
    if (!result.trace)
        m_instanceLabel->setText(QString());
    else if (names == 0)
        m_instanceLabel->setText(QStringLiteral("No %1 in this selection.").arg(what));
    else
        m_instanceLabel->setText(QStringLiteral("%1 names, %2 %3. Click one to highlight its instances.")
                                     .arg(names)
                                     .arg(instances)
                                     .arg(what));
}

int NameSummaryPanel::selectRow(const QModelIndex &modelIndex)
{
    const auto *row = m_model->row(modelIndex);
    const auto &trace = m_result.trace;
    if (!m_view || !row || !trace)
        return 0;
    const auto name = core::StringId(row->key);
    std::vector<core::StringId> names { name };
    // A group stands for every per-call name grouped under it, in the whole capture.
    if (m_kind == Kind::Nvtx && SummaryTreeModel::isGroup(modelIndex))
        for (std::size_t s = 0; s < trace->nvtxGroups.size(); ++s)
            if (trace->nvtxGroups[s] == name && s != name)
                names.push_back(core::StringId(s));
    const int count = m_view->findNames(names, m_kind == Kind::Nvtx ? TimelineView::FindNvtx : TimelineView::FindApi);
    m_instanceLabel->setText(
        QStringLiteral("%1: %2 instances highlighted on the timeline").arg(elideMiddle(row->name, 60)).arg(count));
    m_prev->setEnabled(count > 0);
    m_next->setEnabled(count > 0);
    return count;
}

void NameSummaryPanel::setProjected(bool on)
{
    if (m_projected)
        m_projected->setChecked(on);
}

bool NameSummaryPanel::isProjected() const
{
    return m_projected && m_projected->isChecked();
}

void NameSummaryPanel::nextInstance()
{
    if (m_view)
        m_view->findNext();
}

void NameSummaryPanel::previousInstance()
{
    if (m_view)
        m_view->findPrevious();
}

} // namespace gaplens::ui
