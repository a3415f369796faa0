// SPDX-License-Identifier: MIT
#pragma once
#include "gaplens/core/analysis/findings.h"
#include "ui/panels/analysispanel.h"

class QLabel;
class QListWidget;

namespace gaplens::ui {

class PanelTable;

// Per rank and GPU: busy %, window, idle time and gap count, kernel time per step against the
// step time, copies by direction (bytes and time); above it the findings in plain words
// (core::summarizeCapture). Clicking a finding about a rank scrolls the timeline to it.
class SummaryPanel : public AnalysisPanel
{
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        GpuColumn,
        BusyPercentColumn,
        WindowColumn,
        BusyColumn,
        IdleColumn,
        GapsColumn,
        CaptureColumn,
        IdleOutsideColumn,
        StepsColumn,
        StepColumn,
        KernelPerStepColumn,
        StepBusyColumn,
        FirstCopyColumn
    };

    SummaryPanel(PanelContext &context, TimelineView *view, QWidget *parent = nullptr);

    PanelTable *table() const { return m_table; }
    QListWidget *findingsList() const { return m_findings; }
    const core::CaptureSummary &summary() const { return m_summary; }
    // Set on the findings that point at a problem (drawn in the theme's warning colour).
    static constexpr int kWarningRole = Qt::UserRole + 1;

    // The GPU memory line(s) under the table: peaks, or why there are none.
    QLabel *memoryLabel() const { return m_memory; }

protected:
    void recompute() override;

private:
    // Each GPU's memory peak, allocations and frees, or why there are none.
    void showMemory(const core::TraceSet *trace);
    void apply(const core::CaptureSummary &s, std::shared_ptr<const core::TraceSet> trace);
    void colourWarnings();

    QListWidget *m_findings;
    PanelTable *m_table;
    QLabel *m_memory; // GPU memory figures, or why there are none
    core::CaptureSummary m_summary;
    std::shared_ptr<const core::TraceSet> m_trace;
};

} // namespace gaplens::ui
