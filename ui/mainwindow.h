// SPDX-License-Identifier: MIT
#pragma once
#include "ui/session/session.h"
#include "ui/timeline/hitresult.h"
#include "ui/timeline/timelinedata.h"
#include "ui/workspace/workspacewindow.h"

#include <QMainWindow>

#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace gaplens::ui {

class CommunicationPanel;
class CompareWindow;
class DetailsPanel;
class GapBlamePanel;
class LoadController;
class NameSummaryPanel;
class RanksDialog;
class PanelContext;
class RankPacePanel;
class RunAccountingPanel;
class SummaryPanel;
class TopKernelsPanel;
class ProblemsPanel;
class TimelineView;

// File > Open (several files), Open Folder, drag and drop, recent captures; the timeline in the
// centre, details and problems docks, progress + Cancel in the status bar, and a toolbar with
// the idle-gap threshold, find box and rank alignment. Sessions, bookmarks, the report and
// themes are the Workspace's, shared with the compare window. A session holds the capture,
// rank overrides, alignment, view, threshold, find, selection, bookmarks, theme and dock
// layout; workspace() reports missing files (Workspace::sessionProblems), loads the rest and
// emits Workspace::sessionApplied once it is restored.
class MainWindow : public QMainWindow, public WorkspaceWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens files and/or folders as one capture (cancels a running load), with these rank
    // overrides; a lone .gldigest opens as a digest overview instead (DigestWindow).
    void openPaths(const QStringList &paths, const std::vector<core::RankOverride> &rankOverrides = {});
    // Shows the window at the geometry it was closed with, or maximised the first time, so the
    // timeline gets most of the screen.
    void showRestored();
    TimelineView *timelineView() const { return m_view; }
    LoadController *loadController() const { return m_loader; }
    ProblemsPanel *problemsPanel() const { return m_problems; }
    QProgressBar *progressBar() const { return m_progress; }
    PanelContext *panelContext() const { return m_panelContext; }
    TopKernelsPanel *topKernelsPanel() const { return m_topKernels; }
    GapBlamePanel *gapBlamePanel() const { return m_gapBlame; }
    RankPacePanel *rankPacePanel() const { return m_rankPace; }
    CommunicationPanel *communicationPanel() const { return m_communication; }
    RunAccountingPanel *runAccountingPanel() const { return m_runAccounting; }
    SummaryPanel *summaryPanel() const { return m_summary; }
    NameSummaryPanel *nvtxSummaryPanel() const { return m_nvtxSummary; }
    NameSummaryPanel *apiSummaryPanel() const { return m_apiSummary; }
    // View > Ranks…: the rank mapping, made on first use and refreshed by every load.
    RanksDialog *showRanksDialog();
    // Reloads the capture with these rank overrides (the Ranks dialog's Apply), keeping the view.
    void reassignRanks(const std::vector<core::RankOverride> &overrides);

    // Review (issue 6). File > Compare with…: the paired CompareWindow (made if there is none)
    // with this capture as "before" (no reload) and `after` loading; empty = ask for the files.
    CompareWindow *openCompareWith(const QStringList &after = {});
    CompareWindow *compareWindow() const;

protected:
    void dragEnterEvent(QDragEnterEvent *) override;
    void dropEvent(QDropEvent *) override;
    void closeEvent(QCloseEvent *) override;

private:
    void createActions();
    void createToolBar();
    void createStatusBar();
    void createPanels();
    void createAnalysisToolBar();
    void resetPanelLayout();
    void applyTimeSelection(core::TimeRange displayRange);
    // A staged load's GPU lanes, drawn while NVTX is read; panels keep the previous capture.
    void onFirstStageLoaded(std::shared_ptr<const TimelineData> data);
    // A load cancelled after its first stage was drawn: the capture shown before comes back.
    void onLoadCancelled();
    void onLoadFinished(std::shared_ptr<const TimelineData> data);
    // "N report(s), … kernels, M idle gaps ≥ T" (the gaps once the timeline has them).
    void showCaptureStatus();
    void updateRecentMenu();
    void addRecent(const QStringList &paths);
    void applyAlignment();
    void runFind();
    void exportFocusedChartOrTable();

    // WorkspaceWindow
    TimelineView *timeline(int capture) const override;
    void captureOwnSession(Session &session) const override;
    bool loadSessionCaptures(const Session &session) override;
    void applyOwnSession(const Session &session) override;
    void applyGapThreshold(core::TimeNs ns) override;
    std::optional<ReportBuilder::Request> reportRequest() const override;
    bool isBusy() const override;

    TimelineView *m_view;
    LoadController *m_loader;
    DetailsPanel *m_details = nullptr;
    ProblemsPanel *m_problems = nullptr;
    QDockWidget *m_problemsDock = nullptr;
    QMenu *m_recentMenu = nullptr;
    QLineEdit *m_find = nullptr;
    QCheckBox *m_findRegex = nullptr;
    QLabel *m_findStatus = nullptr;
    QComboBox *m_alignMode = nullptr;
    QLineEdit *m_alignName = nullptr;
    QSpinBox *m_alignOccurrence = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancel = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_selectionLabel = nullptr;
    QToolButton *m_problemsButton = nullptr;

    PanelContext *m_panelContext = nullptr;
    TopKernelsPanel *m_topKernels = nullptr;
    GapBlamePanel *m_gapBlame = nullptr;
    RankPacePanel *m_rankPace = nullptr;
    CommunicationPanel *m_communication = nullptr;
    RunAccountingPanel *m_runAccounting = nullptr;
    SummaryPanel *m_summary = nullptr;
    NameSummaryPanel *m_nvtxSummary = nullptr;
    NameSummaryPanel *m_apiSummary = nullptr;
    RanksDialog *m_ranksDialog = nullptr;
    std::optional<core::TimeRange> m_keepView; // the view to restore after a rank reassignment
    QList<QDockWidget *> m_panelDocks;
    QDockWidget *m_detailsDock = nullptr;
    QLabel *m_scopeLabel = nullptr;
};

} // namespace gaplens::ui
