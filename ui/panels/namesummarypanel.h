// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/summaries.h"
#include "ui/panels/analysispanel.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTreeView;

namespace gaplens::ui {

class SummaryTreeModel;

// The NVTX summary (nsys nvtx_sum, `gaplens-cli nvtx`) or the CUDA API summary (cuda_api_sum,
// `gaplens-cli api`) over the chosen ranks and window, from the same core functions the CLI
// calls: instances, total, share, average, median, min, max, standard deviation per name.
// NVTX groups PyTorch's per-call names ("aten::add, op_id = 314359") under their group name,
// each group expandable to its calls. Clicking a row highlights its instances on the timeline
// (a group: every per-call name of it); Previous/Next step through them. The NVTX summary's
// "GPU projection" switch shows the ranges' projected time instead (`gaplens-cli nvtx --gpu`,
// nvtx_gpu_proj_sum): per group, from the first start to the last end of the GPU work its
// calls launched.
class NameSummaryPanel : public AnalysisPanel
{
    Q_OBJECT
public:
    enum class Kind { Nvtx, Api };

    NameSummaryPanel(Kind kind, PanelContext &context, TimelineView *view, QWidget *parent = nullptr);

    Kind kind() const { return m_kind; }
    QTreeView *tree() const { return m_tree; }
    SummaryTreeModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    // The summaries last applied (one of them, by kind).
    const core::NvtxSummary &nvtxSummary() const { return m_result.nvtx; }
    const core::ApiSummary &apiSummary() const { return m_result.api; }
    const core::NvtxProjectionSummary &projectedSummary() const { return m_result.projected; }
    // NVTX only: show GPU-projected time (recomputes).
    void setProjected(bool on);
    bool isProjected() const;
    // Highlights the instances of a row of model() (a group: all its per-call names) on the
    // timeline; returns how many there are.
    int selectRow(const QModelIndex &modelIndex);
    void nextInstance();
    void previousInstance();

    struct Result
    {
        std::shared_ptr<const core::TraceSet> trace; // the trace the summaries' names refer to
        core::NvtxSummary nvtx;
        core::ApiSummary api;
        core::NvtxProjectionSummary projected;
        bool isProjected = false; // `projected` holds the answer, not `nvtx`
    };

protected:
    void recompute() override;

private:
    void apply(const Result &result);

    Kind m_kind;
    QTreeView *m_tree;
    SummaryTreeModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QCheckBox *m_projected = nullptr; // NVTX only
    QLabel *m_instanceLabel;
    QPushButton *m_prev, *m_next;
    Result m_result;
};

} // namespace gaplens::ui
