// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/blame_tree.h"
#include "gaplens/core/analysis/derived_capture.h"
#include "gaplens/core/analysis/gap_blame.h"
#include "ui/panels/analysispanel.h"

#include <QColor>
#include <QPersistentModelIndex>

#include <map>
#include <optional>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class QStandardItem;
class QStandardItemModel;
class QTreeView;

namespace gaplens::ui {

class PanelTable;

// Where the idle time went: idle gaps (threshold = the toolbar's, shared with the timeline)
// by cause (queued dependency wait, each CUDA API call, no CUDA call, copy), by NVTX phase,
// or as a tree of cause, then the CUDA call the host was in, then the NVTX phase (core
// blame_tree.h), with count, total idle, share of the GPU time in the window and longest gap;
// for the selection as a whole, per rank or per GPU. A stacked bar chart shows idle time by
// cause per rank. Clicking a row or a tree group steps through its gaps on the timeline
// (zoomed to each, gap selected).
class GapBlamePanel : public AnalysisPanel
{
    Q_OBJECT
public:
    enum class GroupBy { Cause, Phase, Tree };
    enum class SplitBy { None, Rank, Gpu };
    enum Column {
        ScopeColumn,
        KeyColumn,
        CountColumn,
        TotalColumn,
        ShareColumn,
        LongestColumn,
        CopyColumn,
        ColumnCount
    };

    struct Result
    {
        std::shared_ptr<const core::TraceSet> trace;
        std::shared_ptr<const core::DerivedCapture> derived; // what the gaps were read from
        core::TimeNs threshold = 0;
        std::vector<core::GapBlame> gaps; // of the selected ranks, ordered by (gpu, start)
        std::vector<core::GapId> gapIds; // gaps[i]'s id in `derived`
        core::BlameTotals overall;
        std::vector<std::pair<std::uint32_t, core::BlameTotals>> perRank; // ascending rank index
        std::vector<std::pair<std::uint32_t, core::BlameTotals>> perGpu; // ascending GPU index
        std::map<std::uint32_t, core::TimeNs> gpuWindowNs; // first-to-last kernel per analysed GPU
        core::BlameTree overallTree;
        std::vector<std::pair<std::uint32_t, core::BlameTree>> perRankTree; // as perRank
        std::vector<std::pair<std::uint32_t, core::BlameTree>> perGpuTree; // as perGpu
    };
    enum TreeColumn {
        TreeGroupColumn,
        TreeCountColumn,
        TreeTotalColumn,
        TreeShareColumn,
        TreeLongestColumn,
        TreeCopyColumn,
        TreeColumnCount
    };

    GapBlamePanel(PanelContext &context, TimelineView *view, QWidget *parent = nullptr);

    PanelTable *table() const { return m_table; }
    // The tree of GroupBy::Tree: per scope (with a split) the causes, their calls, their phases.
    QTreeView *tree() const { return m_tree; }
    QStandardItemModel *treeModel() const { return m_treeModel; }
    QChart *chart() const { return m_chart; }
    const Result &result() const { return m_result; }
    void setGroupBy(GroupBy g);
    void setSplitBy(SplitBy s);
    // Shows the next (direction > 0) or previous gap of a table row on the timeline; the first
    // click on a row shows its first gap. Returns the gap shown, nullopt when the row has none.
    std::optional<core::GapBlame> stepRow(int sourceRow, int direction = 1);
    // The same for a group of the tree (an index of treeModel()).
    std::optional<core::GapBlame> stepTreeGroup(const QModelIndex &index, int direction = 1);

protected:
    void recompute() override;

private:
    struct RowFilter
    {
        SplitBy split = SplitBy::None;
        std::uint32_t id = core::kNoIndex; // rank or GPU index
        core::BlameBucket bucket;
    };
    // Whether m_result.gaps[gap] belongs to the table row f.
    bool matches(const RowFilter &f, std::size_t gap) const;
    void rebuildTable();
    void rebuildTree();
    void rebuildChart();
    // Shows a gap of a group (a table row or a tree group), its gaps in time order: the first
    // (direction >= 0) or last of a group newly stepped through, else the next or previous.
    std::optional<core::GapBlame> stepThrough(
        const std::vector<core::GapId> &gaps, const QString &label, bool sameGroup, int direction);
    // The GPU time of a scope (SplitBy::None: all analysed GPUs), the share's denominator.
    core::TimeNs windowOf(SplitBy split, std::uint32_t id) const;
    // A blame key's colour: its cause's (gapCauseShade, one shade per CUDA call name in the
    // order of the overall totals), as the timeline's bands and legend use.
    QColor causeKeyColor(const std::string &key) const;

    PanelTable *m_table;
    QTreeView *m_tree;
    QStandardItemModel *m_treeModel;
    QStackedWidget *m_groups; // the table or the tree
    QChartView *m_chartView;
    QChart *m_chart;
    QComboBox *m_groupBy, *m_splitBy;
    QLabel *m_threshold;
    QLabel *m_stepLabel;
    QPushButton *m_prev, *m_next;
    Result m_result;
    std::vector<RowFilter> m_filters; // one per source row
    std::vector<const core::BlameTreeNode *> m_treeNodes; // per tree group id (Qt::UserRole)
    int m_stepRow = -1; // the table row stepped through, -1 when none
    int m_treeStepId = -1; // the tree group stepped through, -1 when none
    QPersistentModelIndex m_treeStep;
    int m_stepIndex = -1;
};

} // namespace gaplens::ui
